# Two replies the service cuts short (token limit, then content filter),
# whole then streamed: the driver's mark on the text. argv: provider
# base_url model key store_root [style]
import sys
import ai
import aisteps

ov = aisteps.setup(*sys.argv[1:7])
for stream in (False, True):
    pieces = []
    if stream:
        ov["stream"] = pieces.append
    for _ in range(2):
        reply, err = ai.ask_simple("hi", ov)
        print("CUT", repr(reply), repr(err), repr("".join(pieces)) if stream else "")
        del pieces[:]
