# jsonstream under MicroPython, differential: argv[1] is a file with one
# JSON document per line; each is parsed through readers returning at most
# k bytes per readinto for every k in argv[2:] and re-encoded with dumps();
# prints "<line> <k> <dumps>" (the test compares with CPython's json).
import sys
import jsonstream
from js_chunks import Chunks

ks = [int(a) for a in sys.argv[2:]]
with open(sys.argv[1], "rb") as f:
    lines = f.read().split(b"\n")
for no, doc in enumerate(lines):
    if not doc:
        continue
    for k in ks:
        try:
            v = jsonstream.load(Chunks(doc, k), bufsize=32, max_value=1 << 20)
            print(no, k, jsonstream.dumps(v))
        except Exception as e:  # noqa: BLE001
            print(no, k, "ERROR", type(e).__name__, e)
print("DONE")
