# SSE over a loopback chunked response under a small heap: a 150 KB data
# line must stream through fixed buffers. args: server port.
import sys
import httpc
import heapmon
from bytesum import drain

PORT = int(sys.argv[1])
buf = bytearray(256)
heapmon.start()
r = httpc.request("GET", "http://127.0.0.1:%d/events" % PORT)
s = httpc.SSE(r)
while True:
    ev = s.next()
    if ev is None:
        break
    empty = ev.empty
    n, total = drain(ev, buf)
    if n:
        print("%s %s empty=%s n=%d sum=%d" % (ev.event, ev.id, empty, n, total))
    else:
        print("%s %s empty=%s n=0" % (ev.event, ev.id, empty))
r.close()
heapmon.report()
print("END")
