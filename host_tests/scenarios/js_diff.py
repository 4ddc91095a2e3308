# jsonstream under MicroPython, differential: argv[1] is a file with one
# JSON document per line; each is parsed through readers returning at most
# k bytes per readinto for every k in argv[2:] and re-encoded with dumps();
# prints "<line> <k> <dumps>" (the test compares with CPython's json).
import sys
import jsonstream


class Chunks:
    def __init__(self, data, k):
        self.data = data
        self.k = k
        self.i = 0

    def readinto(self, buf):
        n = len(self.data) - self.i
        if n > self.k:
            n = self.k
        if n > len(buf):
            n = len(buf)
        buf[0:n] = self.data[self.i:self.i + n]
        self.i += n
        return n


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
