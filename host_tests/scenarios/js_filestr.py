# jsonstream.FileStr under MicroPython: argv[1] a file, argv[2] "b64" or
# "text", argv[3] how many bytes of it. Writes ["user",<the file as a JSON
# string>] with encoded_len() and then dump() twice (a retried request,
# view=True as the driver writes) into a hashing sink; prints "filestr:
# <encoded_len> <bytes> <bytes> <largest piece> <sha256 hex>" and HEAPMON.
# A file shorter than the size given prints its JSONError.
import sys
import hashlib
import binascii
import jsonstream as js
import heapmon

path, mode, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
heapmon.start()
state = [0, 0, None]


def sink(piece):
    state[0] += len(piece)
    if len(piece) > state[1]:
        state[1] = len(piece)
    state[2].update(piece)


msg = ["user", js.FileStr(path, size, "data:image/jpeg;base64," if mode == "b64" else "",
                          mode == "text")]
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
    print("filestr: %d %d %d %d %s" % (n, sizes[0], sizes[1], state[1], digest))
except js.JSONError as e:
    heapmon.report()
    print("filestr: JSONError %s" % e)
