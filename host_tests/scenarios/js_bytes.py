# jsonstream's stream_bytes, differential for the native copier: argv[1] is
# a file with one JSON text per line (a string, valid or broken); each is
# read in place (k = 0) and through readers returning at most k bytes per
# readinto for every k in argv[2:], with output buffers of 1, 5 and 64
# bytes. Prints "<line> <k> <out> <length> <hex of the bytes>" or "<line>
# <k> <out> ERROR <message>". The test runs it on CPython (the pure-Python
# path) and on MicroPython and compares, and checks CPython's against json.
import sys
from binascii import hexlify
import jsonstream as js
from js_chunks import Chunks

ks = [int(a) for a in sys.argv[2:]]
with open(sys.argv[1], "rb") as f:
    lines = f.read().split(b"\n")
for no, doc in enumerate(lines):
    if not doc:
        continue
    for k in ks:
        for size in (1, 5, 64):
            got = bytearray()
            try:
                p = js.Parser(Chunks(doc, k) if k else doc, bufsize=32)
                n = p.stream_bytes(got.extend, memoryview(bytearray(size)))
                p.finish()
                print(no, k, size, n, hexlify(got).decode())
            except js.JSONError as e:
                print(no, k, size, "ERROR", e)
print("DONE")
