# A POST written in several pieces (headers, then a 1,000-byte body in
# small writes) on a kept-alive connection to the loopback echo server of
# host_tests/test_httpc.py: the best time of a few, in ms. With Nagle on,
# each waits ~40 ms for the server's delayed ACK. args: server port.
import sys
import time
import httpc

URL = "http://127.0.0.1:%d/p" % int(sys.argv[1])


def writer(write):
    for i in range(10):
        write(b"%0100d" % i)


best = None
for i in range(6):
    t0 = time.ticks_us()
    with httpc.request("POST", URL, body=(1000, writer)) as r:
        assert len(r.read()) == 1000
    dt = time.ticks_diff(time.ticks_us(), t0)
    if i and (best is None or dt < best):     # (the first one connects)
        best = dt
print("post-ms %.2f" % (best / 1000))
