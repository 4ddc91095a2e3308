# ai.feed.Feed against the reference: argv a file holding one JSON text and
# the byte offsets to cut it at; each cut feeds the two halves (bytes cut
# anywhere: inside an escape, a character, a number) and prints the value
# the root rule got, as JSON, or the error: VALUE <json> / ERROR <message>.
import sys
import jsonstream
from ai.feed import Feed

with open(sys.argv[1], "rb") as f:
    doc = f.read()
for cut in sys.argv[2].split(","):
    cut = int(cut)
    got = []
    try:
        f = Feed({"": lambda path, v: got.append(v)})
        f.feed(doc[:cut])
        f.feed(doc[cut:])
        f.end()
        print("VALUE", jsonstream.dumps(got[0]))
    except jsonstream.JSONError as e:
        print("ERROR", e)
