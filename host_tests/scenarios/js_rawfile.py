# jsonstream.RawFile under MicroPython: argv[1] is a file, argv[2]/argv[3]
# the offset and length of one JSON value in it, or "b64"/"text" and how
# many of its bytes (a RawFile that makes them a string: base64 after a
# data URI's head, or its text). Writes ["user",<that value>] with
# encoded_len() and then dump() twice (a retried request, view=True as the
# driver writes) into a hashing sink; prints "rawfile: <encoded_len>
# <bytes> <bytes> <largest piece> <sha256 hex>" and HEAPMON. A file that
# ends too soon prints its JSONError. A live run (the working set) samples
# the heap at each piece the sink gets, after a collect, and nowhere else:
# the dump's peak is there (its read buffer, that piece's base64, the
# output buffer), and a sampler thread beside a collect every 1 KB read
# whatever garbage it happened to catch (2 KB: 624 or 2,128 B; 300 KB,
# with 400 pieces to catch it in: 3,088).
import sys
import hashlib
import binascii
import jsonstream as js
import heapmon

path = sys.argv[1]
how = sys.argv[2]
length = int(sys.argv[3])
heapmon.start(sampler=not heapmon.LIVE)
state = [0, 0, None]


def sink(piece):
    heapmon.probe()
    state[0] += len(piece)
    if len(piece) > state[1]:
        state[1] = len(piece)
    state[2].update(piece)


if how in ("b64", "text"):
    value = js.RawFile(path, 0, length, "base64" if how == "b64" else "text",
                       "data:image/jpeg;base64," if how == "b64" else "")
else:
    value = js.RawFile(path, int(how), length)
msg = ["user", value]
sizes = []
try:
    n = js.encoded_len(msg)
    for _ in range(2):
        state[0] = 0
        state[2] = hashlib.sha256()
        js.dump(msg, sink, view=True)
        sizes.append(state[0])
    digest = binascii.hexlify(state[2].digest()).decode()
    heapmon.report()
    print("rawfile: %d %d %d %d %s" % (n, sizes[0], sizes[1], state[1], digest))
except js.JSONError as e:
    heapmon.report()
    print("rawfile: JSONError %s" % e)
