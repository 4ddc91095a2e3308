# Response.read() of whole bodies under the MicroPython unix port. args:
# port of the loopback echo server of test_httpc.py, then paths
# ("/len/16000", "/chunked/16000", ...). Prints "<path> <length> <byte sum>"
# per body, then the heap monitor's line.
import sys
import httpc
import heapmon

PORT = int(sys.argv[1])
heapmon.start()
for path in sys.argv[2:]:
    with httpc.request("GET", "http://127.0.0.1:%d%s" % (PORT, path)) as r:
        body = r.read()
    s = 0
    for b in body:
        s += b
    print(path, len(body), s)
    body = None
heapmon.report()
