# jsonstream.RawFile under MicroPython: argv[1] is a file holding JSON text,
# argv[2]/argv[3] the offset and length of one value in it. Writes
# ["user",<that value>] with encoded_len() and then dump()
# twice (a retried request) into a hashing sink; prints
# "rawfile: <encoded_len> <bytes> <bytes> <largest piece> <sha256 hex>" and
# HEAPMON. A RawFile past the end of the file prints its JSONError.
import sys
import hashlib
import binascii
import jsonstream as js
import heapmon

path = sys.argv[1]
off = int(sys.argv[2])
length = int(sys.argv[3])
heapmon.start()
state = [0, 0, None]


def sink(piece):
    state[0] += len(piece)
    if len(piece) > state[1]:
        state[1] = len(piece)
    state[2].update(piece)


msg = ["user", js.RawFile(path, off, length)]
n = js.encoded_len(msg)
sizes = []
try:
    for _ in range(2):
        state[0] = 0
        state[2] = hashlib.sha256()
        js.dump(msg, sink)
        sizes.append(state[0])
    digest = binascii.hexlify(state[2].digest()).decode()
    heapmon.report()
    print("rawfile: %d %d %d %d %s" % (n, sizes[0], sizes[1], state[1], digest))
except js.JSONError as e:
    heapmon.report()
    print("rawfile: JSONError %s" % e)
