# httpc under the MicroPython unix port against the loopback echo server of
# host_tests/test_httpc.py. args: server port, a closed port.
import sys
import time
import httpc
import heapmon
from bytesum import drain

PORT = int(sys.argv[1])
CLOSED = int(sys.argv[2])
BASE = "http://127.0.0.1:%d" % PORT
buf = bytearray(512)
heapmon.start()


for mode in ("len", "chunked", "close"):
    with httpc.request("GET", BASE + "/%s/5000" % mode, keep=("x-mode",)) as r:
        n, s = drain(r, buf)
        print(mode, r.status, r.headers["x-mode"], n, s)


def writer(write):
    write(b"a" * 10)
    write("b" * 20)
    write(b"c" * 600)
    for _ in range(10):
        write(b"d" * 100)


with httpc.request("POST", BASE + "/p", body=(1630, writer), keep=("x-chunks",)) as r:
    print("post-pieces", len(r.read()), r.headers["x-chunks"])


def w2(write):
    for i in range(100):
        write(b"%04d" % i)


with httpc.request("POST", BASE + "/p", body=(400, w2), keep=("x-chunks",)) as r:
    print("post-length", len(r.read()), r.headers["x-chunks"])

httpc.close_all()
a = httpc.pool_stats()
for _ in range(10):
    with httpc.request("GET", BASE + "/len/100/ka") as r:
        assert r.read() == bytes((j * 7) & 0xFF for j in range(100))
b = httpc.pool_stats()
print("keepalive opened=%d reused=%d" % (b["opened"] - a["opened"],
                                         b["reused"] - a["reused"]))

for name, url, kw in (("refused", "http://127.0.0.1:%d/" % CLOSED, {}),
                      ("dns", "http://no-such-host.invalid/", {}),
                      ("timeout", BASE + "/hang", {"timeout": 0.5}),
                      ("malformed", BASE + "/bad", {})):
    try:
        httpc.request("GET", url, **kw)
        print(name, "NO ERROR")
    except httpc.HTTPError as e:
        print(name, e.kind, str(e)) if name == "malformed" else print(name, e.kind)
# another host (localhost, same port): the credentials stay behind
with httpc.request("GET", BASE + "/to/%d/localhost" % PORT, secret=("X-Session",),
                   headers={"Authorization": "Bearer s", "X-Session": "x", "X-Ok": "1"}) as r:
    print("redirect", r.status, len(r.read()))
# a server that sends a byte every 0.3 s: the 1 s deadline ends it (the
# 30 s read timeout never would); "True": within the deadline + 1 s
for name in ("drip", "driphead"):
    t0 = time.ticks_ms()
    try:
        with httpc.request("GET", BASE + "/%s/100" % name, deadline=1) as r:
            r.read()
        print(name, "NO ERROR")
    except httpc.HTTPError as e:
        print(name, e.kind, str(e), time.ticks_diff(time.ticks_ms(), t0) < 2000)
heapmon.report()
print("DONE")
