# SSE.next(False) over a loopback chunked stream under the unix port: the
# stream arrives in pieces; between polls the client waits on the socket, as
# mcp/listen.py does. Counts the socket waits httpc makes during polls (must
# be none). args: server port. Prints "<event> <id> <length> <byte sum>"
# per event, the wait count, then the heap monitor's line.
import sys
import select
import httpc
import heapmon
from bytesum import drain

PORT = int(sys.argv[1])
r = httpc.request("GET", "http://127.0.0.1:%d/get" % PORT, timeout=10)
sse = httpc.SSE(r, 256)
c = r._c
waits = [0]
polling = [False]
real_wait = c.wait


def counting_wait(ms, late):
    if polling[0]:
        waits[0] += 1
    return real_wait(ms, late)


c.wait = counting_wait
p = select.poll()
p.register(c.sock, select.POLLIN)
buf = bytearray(256)
heapmon.start()
while True:
    polling[0] = True
    ev = sse.next(False)
    polling[0] = False
    if ev is not None:
        n, total = drain(ev, buf)
        print(ev.event, ev.id, n, total)
    elif sse.ended:
        break
    else:
        p.poll(5000)
r.close()
print("waits while polling", waits[0])
heapmon.report()
print("END")
