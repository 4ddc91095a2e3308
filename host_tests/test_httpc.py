"""httpc on CPython and under the MicroPython unix port, against loopback
servers (host_tests/httpserver.py). Never leaves 127.0.0.1."""
import contextlib
import socket
import ssl
import threading
import time

import pytest
import trustme

import compat
import httpc
from httpserver import Server
from mpyrun import GOAL


@pytest.fixture(autouse=True)
def _fresh_pool():
    httpc.close_all()
    yield
    httpc.close_all()


def delta(before):
    after = httpc.pool_stats()
    return after["opened"] - before["opened"], after["reused"] - before["reused"]


def echo(req, w):
    """GET /len/N -> N bytes (Content-Length); /chunked/N; /close/N
    (close-delimited); POST echoes the body; /head -> headers only;
    /to/PORT/HOST redirects to http://HOST:PORT/len/3; /drip/N and
    /driphead send the body or the headers a byte every 0.3 s."""
    parts = req.path.split("/")
    if req.method in ("POST", "PUT"):
        w.respond(200, req.body, headers={"X-Chunks": repr(req.chunks)})
        return
    n = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 5
    body = bytes((i * 7) & 0xFF for i in range(n))
    if parts[1] == "to":            # /to/PORT/HOST: 302 to http://HOST:PORT/len/3
        w.respond(302, b"", headers={"Location": "http://%s:%s/len/3" % (parts[3], parts[2])})
        return
    if parts[1] == "drip":          # /drip/N: N bytes, one every 0.3 s
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n)
        w.drip(body, 0.3)
        return
    if parts[1] == "driphead":      # header bytes, one every 0.3 s
        w.write(b"HTTP/1.1 200 OK\r\n")
        w.drip(b"X-Slow: " + b"s" * 100, 0.3)
        return
    if parts[1] == "hang":
        time.sleep(2)
        return
    if parts[1] == "bad":
        w.write(b"HTTP/1.1 OK\r\n\r\n")
        w.close()
        return
    if parts[1] == "chunked":
        w.start(200, {"X-Mode": "chunked"})
        for i in range(0, n, 1000):
            w.chunk(body[i:i + 1000])
        w.write(b"0;ext=1\r\nX-Trailer: yes\r\n\r\n")
    elif parts[1] == "close":
        w.write(b"HTTP/1.1 200 OK\r\nX-Mode: close\r\n\r\n" + body)
        w.close()
    else:
        w.respond(200, body, headers={"X-Mode": "length", "X-Long": "v" * 300})


def body_of(n):
    return bytes((i * 7) & 0xFF for i in range(n))


# ---------------------------------------------------------------- basics

def test_get_content_length_chunked_close():
    with Server(echo) as srv:
        for mode in ("len", "chunked", "close"):
            with httpc.request("GET", srv.url + "/%s/5000" % mode,
                               keep=("x-mode",)) as r:
                assert r.status == 200 and r.reason == "OK"
                assert r.headers == {"x-mode": {"len": "length"}.get(mode, mode)}
                buf = bytearray(333)
                got = bytearray()
                while True:
                    n = r.readinto(buf)
                    if not n:
                        break
                    assert n <= 333
                    got += buf[:n]
                assert bytes(got) == body_of(5000)
                assert r.readinto(buf) == 0


def test_read_small_and_limit():
    with Server(echo) as srv:
        r = httpc.request("GET", srv.url + "/len/100")
        assert r.read() == body_of(100)
        r.close()
        r = httpc.request("GET", srv.url + "/chunked/3000")
        assert r.read(10) == body_of(10)
        assert r.read(5000) == body_of(3000)[10:]
        r.close()
        for mode in ("len", "chunked"):
            r = httpc.request("GET", srv.url + "/%s/20000" % mode)
            with pytest.raises(httpc.HTTPError) as ei:
                r.read()
            assert ei.value.kind == "toolong"
            assert "larger than 16384 bytes" in str(ei.value)
            r.close()
        r = httpc.request("GET", srv.url + "/len/20000")
        assert len(r.read(limit=30000)) == 20000
        r.close()
        # whole bodies of every framing and size, around the 1 KB pieces
        for mode in ("len", "chunked", "close"):
            for n in (0, 1, 255, 256, 257, 1023, 1024, 1025, 3000, 16384):
                with httpc.request("GET", srv.url + "/%s/%d" % (mode, n)) as r:
                    got = r.read()
                assert type(got) is bytes and got == body_of(n), (mode, n)
            r = httpc.request("GET", srv.url + "/%s/16385" % mode)
            with pytest.raises(httpc.HTTPError) as ei:
                r.read()
            assert ei.value.kind == "toolong", mode
            r.close()


def test_head_and_204_have_no_body():
    def h(req, w):
        if req.method == "HEAD":
            w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        else:
            w.write(b"HTTP/1.1 204 No Content\r\n\r\n")
    with Server(h) as srv:
        before = httpc.pool_stats()
        for m in ("HEAD", "DELETE", "HEAD"):
            with httpc.request(m, srv.url + "/") as r:
                assert r.status in (200, 204)
                assert r.read() == b""
        assert delta(before) == (1, 2)


def test_keep_only_requested_headers_and_bounds():
    def h(req, w):
        p = req.path
        if p == "/many":
            w.write(b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 70 + b"Content-Length: 0\r\n\r\n")
        elif p == "/longline":
            w.write(b"HTTP/1.1 200 OK\r\nX-B: " + b"b" * 1100 + b"\r\n\r\n")
        elif p == "/longkept":
            w.write(b"HTTP/1.1 200 OK\r\nX-C: " + b"c" * 600 + b"\r\nContent-Length: 0\r\n\r\n")
        elif p == "/edge":      # a line of 1024 bytes, then chunked data
            w.write(b"HTTP/1.1 200 OK\r\nX-D: " + b"d" * 1019 + b"\r\nTransfer-Encoding: "
                    b"chunked\r\n\r\n2\r\nok\r\n3\r\n!!!\r\n0\r\n\r\n")
        else:
            w.write(b"HTTP/1.1 200 OK\r\nX-Rep: 1\r\nx-rep: 2\r\nX-Other: 3\r\n"
                    b"Content-Length: 2\r\n\r\nok")
    with Server(h) as srv:
        with httpc.request("GET", srv.url + "/", keep=["x-rep"]) as r:
            assert r.headers == {"x-rep": "2"}
            assert r.read() == b"ok"
        for path, kind, text in (("/many", "toolong", "more than 64 header lines"),
                                 ("/longline", "toolong",
                                  "127.0.0.1: header line longer than 1024 bytes"),
                                 ("/longkept", "toolong", "header x-c longer than 512")):
            with pytest.raises(httpc.HTTPError) as ei:
                httpc.request("GET", srv.url + path, keep=("x-c",))
            assert ei.value.kind == kind and text in str(ei.value), str(ei.value)
            assert ei.value.sent is True
        # 600-byte value is fine when not kept; a line of LINE_MAX bytes too
        # (the connection's 0.5 KB buffer grows to hold it)
        with httpc.request("GET", srv.url + "/longkept") as r:
            assert r.status == 200
        with httpc.request("GET", srv.url + "/edge") as r:
            assert r.read() == b"ok!!!"
        with httpc.request("GET", srv.url + "/") as r:    # the same connection, grown
            assert r.read() == b"ok"


# ---------------------------------------------------------------- bodies

def test_post_bodies():
    with Server(echo) as srv:
        for body in (b"abc", bytearray(b"xyz"), "h\u00e9llo"):
            with httpc.request("POST", srv.url + "/p", body=body) as r:
                want = body.encode() if isinstance(body, str) else bytes(body)
                assert r.read() == want
        # (length, callable) -> Content-Length, streamed: small writes
        # coalesced, str pieces encoded, a big one sent as it is
        pieces = [b"a" * 10, "b" * 20, b"", b"c" * 600, b"d" * 100] + [b"e"] * 1000
        want = b"".join(p.encode() if isinstance(p, str) else p for p in pieces)

        def writer(write):
            for p in pieces:
                write(p)
        with httpc.request("PUT", srv.url + "/p", body=(len(want), writer)) as r:
            assert r.read() == want
        req = srv.requests[-1]
        assert req.headers["content-length"] == str(len(want)) and req.chunks is None
        assert req.headers["user-agent"] == "antos-ai/" + compat.VERSION
        assert req.headers["connection"] == "keep-alive"
        assert req.headers["host"] == "127.0.0.1:%d" % srv.port
        # wrong declared length -> HTTPError, connection not reused
        for n in (len(want) - 1, len(want) + 1):
            with pytest.raises(httpc.HTTPError) as ei:
                httpc.request("POST", srv.url + "/p", body=(n, writer))
            assert ei.value.kind == "protocol" and "declared %d" % n in str(ei.value)
        before = httpc.pool_stats()
        with httpc.request("GET", srv.url + "/len/3") as r:
            assert r.read() == body_of(3)
        assert delta(before)[0] == 1


# Nagle's algorithm holds each piece of a request after the first until
# the server ACKs, and a server waiting for the rest of the request delays
# its ACK (~40 ms on Linux): a request written in pieces takes 40 ms more
# unless the socket sets TCP_NODELAY. The best of a few requests on one
# connection, so a busy machine does not fail it.
NAGLE_MS = 15


def _multi_piece_post_ms(url):
    def writer(write):
        for i in range(10):
            write(b"%0100d" % i)
    best = None
    for i in range(6):
        t0 = time.perf_counter()
        with httpc.request("POST", url, body=(1000, writer)) as r:
            assert len(r.read()) == 1000
        ms = (time.perf_counter() - t0) * 1000
        if i and (best is None or ms < best):       # (the first one connects)
            best = ms
    return best


def test_a_request_written_in_pieces_does_not_wait_for_nagle():
    with Server(echo) as srv:
        ms = _multi_piece_post_ms(srv.url + "/p")
        assert srv.accepts == 1
    assert ms < NAGLE_MS, "a 1,000-byte POST in pieces took %.1f ms (Nagle on?)" % ms


def test_mpy_a_request_written_in_pieces_does_not_wait_for_nagle(mpy):
    with Server(echo) as srv:
        r = mpy.run("http_nodelay", heap=GOAL, args=[srv.port], timeout=60)
        assert r.rc == 0, r
        ms = float(r.out.split("post-ms ")[1].split()[0])
        assert srv.accepts == 1
    assert ms < NAGLE_MS, "a 1,000-byte POST in pieces took %.1f ms (Nagle on?)" % ms


def test_user_headers_and_injection():
    with Server(echo) as srv:
        with httpc.request("GET", srv.url + "/len/1",
                           headers={"User-Agent": "me", "Authorization": "Bearer t",
                                    "X-N": 5}) as r:
            r.read()
        h = srv.requests[-1].headers
        assert h["user-agent"] == "me" and h["x-n"] == "5"
        assert h["authorization"] == "Bearer t"
        with pytest.raises(ValueError):
            httpc.request("GET", srv.url + "/", headers={"X": "a\r\nEvil: 1"})
        with pytest.raises(ValueError):
            httpc.request("GET", "ftp://x/")


# ---------------------------------------------------------------- keep-alive

def test_keepalive_one_connection_for_n_requests():
    with Server(echo) as srv:
        before = httpc.pool_stats()
        for i in range(10):
            mode = ("len", "chunked")[i % 2]
            with httpc.request("GET", srv.url + "/%s/%d" % (mode, 100 + i)) as r:
                assert r.read() == body_of(100 + i)
            with httpc.request("POST", srv.url + "/p", body=b"x" * i) as r:
                assert r.read() == b"x" * i
        assert srv.accepts == 1
        assert delta(before) == (1, 19)


def test_unread_small_body_is_drained_large_is_dropped():
    with Server(echo) as srv:
        before = httpc.pool_stats()
        httpc.request("GET", srv.url + "/chunked/3000").close()   # drained
        httpc.request("GET", srv.url + "/len/100").close()
        r = httpc.request("GET", srv.url + "/len/100000")
        r.read(10)
        r.close()                                                 # dropped
        r.close()                                                 # idempotent
        httpc.request("GET", srv.url + "/len/1").close()
        assert delta(before) == (2, 2)
        assert srv.accepts == 2


def test_connection_close_and_http10_not_pooled():
    def h(req, w):
        if req.path == "/10":
            w.write(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
        else:
            w.respond(200, b"ok", close=True)
    with Server(h) as srv:
        before = httpc.pool_stats()
        for p in ("/10", "/c", "/10"):
            with httpc.request("GET", srv.url + p) as r:
                assert r.read() == b"ok"
        assert delta(before) == (3, 0)


def test_server_closing_idle_connections_is_transparent():
    with Server(echo, idle_close=0.2) as srv:
        before = httpc.pool_stats()
        for _ in range(3):
            with httpc.request("GET", srv.url + "/len/10") as r:
                assert r.read() == body_of(10)
            time.sleep(0.4)           # server drops the idle connection
        with httpc.request("POST", srv.url + "/p", body=b"after idle") as r:
            assert r.read() == b"after idle"
        assert delta(before)[0] == 4 and srv.accepts == 4


def test_stale_connection_retried_once():
    """Second request on a kept connection: the server reads it and closes
    without a byte of response (the keep-alive race). GET and POST (with a
    body function, re-invoked) are re-sent once on a new connection."""
    calls = []

    def h(req, w):
        if req.index >= 2:
            w.close()
            return
        w.respond(200, b"ok:" + req.body)

    def body(write):
        calls.append(1)
        write(b"payload")

    with Server(h) as srv:
        for method, b in (("GET", None), ("POST", (7, body))):
            with httpc.request("GET", srv.url + "/") as r:
                assert r.read() == b"ok:"
            before = httpc.pool_stats()
            with httpc.request(method, srv.url + "/", body=b) as r:
                assert r.read() == b"ok:" + (b"payload" if b else b"")
            assert delta(before) == (1, 1)
        assert len(calls) == 2
        httpc.close_all()
        # a fresh connection that closes before answering is NOT retried
        n = srv.accepts

        def h2(req, w):
            w.close()
        srv.handler = h2
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", srv.url + "/")
        e = ei.value
        assert e.kind == "reset" and e.sent is True
        assert str(e) == "connection closed by 127.0.0.1 before the response"
        assert srv.accepts == n + 1


# ---------------------------------------------------------------- redirects

def test_redirects():
    def h(req, w):
        p = req.path
        if p == "/a":
            w.respond(302, b"", headers={"Location": "/b?x=1"})
        elif p == "/b?x=1":
            w.respond(307, b"", headers={"Location": "c"})
        elif p == "/c":
            w.respond(200, req.method.encode() + b":" + req.body)
        elif p == "/p308":
            w.respond(308, b"moved", headers={"Location": "http://127.0.0.1:%d/c"
                                              % srv.port})
        elif p == "/p303":
            w.respond(303, b"", headers={"Location": "/c"})
        elif p == "/loop":
            w.respond(301, b"", headers={"Location": "/loop"})
    n = []

    def body(write):
        n.append(1)
        write(b"B")
    with Server(h) as srv:
        with httpc.request("POST", srv.url + "/a", body=b"zz") as r:
            assert r.read() == b"GET:"          # 302 -> GET, then 307 keeps GET
        with httpc.request("POST", srv.url + "/p308", body=(1, body)) as r:
            assert r.read() == b"POST:B"
        assert len(n) == 2                      # callable re-invoked
        with httpc.request("POST", srv.url + "/p303", body=b"x",
                           headers={"Content-Type": "a/b"}) as r:
            assert r.read() == b"GET:"
        assert "content-type" not in srv.requests[-1].headers
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", srv.url + "/loop")
        assert "too many redirects (more than 3)" in str(ei.value)
        assert sum(1 for q in srv.requests if q.path == "/loop") == 4
        with httpc.request("GET", srv.url + "/loop", max_redirects=0) as r:
            assert r.status == 301
        assert srv.accepts == 1


CREDENTIALS = {"Authorization": "Bearer s", "X-Api-Key": "k", "x-goog-api-key": "g",
               "Cookie": "c=1", "X-Session": "mine"}
CREDENTIAL_NAMES = ("authorization", "x-api-key", "x-goog-api-key", "cookie",
                    "x-session")


def redirect_to(location):
    """A handler: /start redirects (302) to location(), the rest says "t"."""
    def h(req, w):
        if req.path == "/start":
            w.respond(302, b"", headers={"Location": location()})
        else:
            w.respond(200, b"t")
    return h


def follow(url, **kw):
    with httpc.request("GET", url, headers=dict(CREDENTIALS, **{"X-Ok": "1"}),
                       secret=("X-Session",), **kw) as r:
        assert r.read() == b"t"


def arrived(srv):
    """The headers of the request that followed the redirect."""
    got = [q for q in srv.requests if q.path == "/next"]
    assert len(got) == 1, srv.requests
    return got[0]


def test_redirect_to_same_origin_keeps_credentials():
    with Server(redirect_to(lambda: "/next")) as srv:
        follow(srv.url + "/start")
        h = arrived(srv).headers
    for name in CREDENTIAL_NAMES + ("x-ok",):
        assert name in h, name


def assert_no_credentials(req):
    for name in CREDENTIAL_NAMES:
        assert name not in req.headers, name
    assert req.headers["x-ok"] == "1"


def test_redirect_to_another_port_drops_credentials():
    with Server(redirect_to(lambda: "/unused")) as target:
        location = "http://127.0.0.1:%d/next" % target.port
        with Server(redirect_to(lambda: location)) as first:
            follow(first.url + "/start")
        assert_no_credentials(arrived(target))


def test_redirect_to_another_host_drops_credentials():
    """127.0.0.1:P -> localhost:P: the same server, only the host differs."""
    with Server(redirect_to(lambda: "http://localhost:%d/next" % srv.port)) as srv:
        follow(srv.url + "/start")
        req = arrived(srv)
    assert_no_credentials(req)
    assert req.headers["host"] == "localhost:%d" % srv.port


def test_redirect_to_another_scheme_drops_credentials(pki):
    """http://localhost:P -> https://localhost:P: one server speaks both."""
    ctx, p = pki
    with Server(redirect_to(lambda: "https://localhost:%d/next" % srv.port), tls=ctx,
                plain_too=True) as srv:
        follow("http://localhost:%d/start" % srv.port, ca=p["good"])
        assert [q.tls for q in srv.requests] == [False, True]
        assert_no_credentials(arrived(srv))


def test_redirect_from_https_to_http_is_refused(pki):
    ctx, p = pki
    with Server(redirect_to(lambda: "http://localhost:%d/next" % srv.port), tls=ctx,
                plain_too=True) as srv:
        with pytest.raises(httpc.HTTPError) as ei:
            follow("https://localhost:%d/start" % srv.port, ca=p["good"])
        assert str(ei.value) == "localhost: redirect to plain http refused"
        assert ei.value.kind == "protocol"
        assert [q.path for q in srv.requests] == ["/start"]


# ---------------------------------------------------------------- failures

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_refused_and_dns():
    p = free_port()
    with pytest.raises(httpc.HTTPError) as ei:
        httpc.request("GET", "http://127.0.0.1:%d/" % p)
    assert str(ei.value) == "cannot connect to 127.0.0.1:%d: connection refused" % p
    assert ei.value.kind == "connect" and ei.value.sent is False
    assert isinstance(ei.value, OSError)
    t = time.time()
    with pytest.raises(httpc.HTTPError) as ei:
        httpc.request("GET", "https://no-such-host.invalid/")
    assert str(ei.value) == "cannot resolve host no-such-host.invalid"
    assert ei.value.kind == "dns"
    assert time.time() - t < 10


@contextlib.contextmanager
def full_backlog():
    """The port of a listener whose accept queue is full: a connect hangs."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(0)
    port = ls.getsockname()[1]
    fillers = []
    try:
        for _ in range(3):             # fill the accept queue; never accept
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(s)
        time.sleep(0.1)
        yield port
    finally:
        for s in fillers:
            s.close()
        ls.close()


def test_connect_timeout_with_full_backlog():
    with full_backlog() as port:
        t = time.time()
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", "http://127.0.0.1:%d/" % port, connect_timeout=0.5)
        dt = time.time() - t
        assert str(ei.value) == "timed out connecting to 127.0.0.1:%d" % port
        assert ei.value.kind == "timeout" and 0.4 < dt < 3


def test_read_timeout():
    ev = threading.Event()

    def h(req, w):
        ev.wait(5)
    with Server(h) as srv:
        t = time.time()
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", srv.url + "/", timeout=0.5)
        ev.set()
        assert str(ei.value) == "timed out waiting for 127.0.0.1"
        assert ei.value.kind == "timeout" and ei.value.sent is True
        assert 0.4 < time.time() - t < 3


def test_timeout_mid_body():
    ev = threading.Event()

    def h(req, w):
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        ev.wait(5)
    with Server(h) as srv:
        r = httpc.request("GET", srv.url + "/", timeout=0.5)
        assert r.read(3) == b"abc"
        with pytest.raises(httpc.HTTPError) as ei:
            r.read(1)
        ev.set()
        assert ei.value.kind == "timeout"
        r.close()


# ---------------------------------------------------------------- deadline

DEADLINE = 2      # seconds: short, so the slow servers below cost little time


def ends_at_deadline(fn):
    """Run fn() (it must raise the deadline's HTTPError): the error."""
    t = time.monotonic()
    with pytest.raises(httpc.HTTPError) as ei:
        fn()
    took = time.monotonic() - t
    e = ei.value
    assert e.kind == "deadline", str(e)
    assert str(e) == "127.0.0.1 did not finish within the %d s deadline" % DEADLINE
    assert "\n" not in str(e)
    assert DEADLINE - 0.1 < took < DEADLINE + 1, took
    return e


def test_deadline_slow_headers():
    def h(req, w):
        w.write(b"HTTP/1.1 200 OK\r\n")
        w.drip(b"X-Slow: " + b"s" * 100)
    with Server(h) as srv:
        e = ends_at_deadline(lambda: httpc.request("GET", srv.url + "/", timeout=30,
                                                   deadline=DEADLINE))
        assert e.sent is True


def test_deadline_slow_body():
    def h(req, w):
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        w.drip(b"b" * 100)
    with Server(h) as srv:
        r = httpc.request("GET", srv.url + "/", timeout=30, deadline=DEADLINE)

        def read():
            while r.readinto(bytearray(64)):
                pass
        ends_at_deadline(read)
        r.close()


def test_deadline_comment_only_sse():
    with Server(lambda req, w: w.sse_forever(b": ping\n\n", 0.5)) as srv:
        r = httpc.request("GET", srv.url + "/", timeout=30, deadline=DEADLINE)
        ends_at_deadline(httpc.SSE(r).next)
        r.close()


def test_deadline_while_connecting():
    with full_backlog() as port:
        e = ends_at_deadline(lambda: httpc.request(
            "GET", "http://127.0.0.1:%d/" % port, connect_timeout=30, deadline=DEADLINE))
        assert e.sent is False


def test_deadline_spans_redirects():
    def h(req, w):
        if req.path == "/slow":
            w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
            w.drip(b"0123456789", gap=0.3)
        else:
            w.respond(307, b"", headers={"Location": "/slow"})

    def get(deadline):
        with httpc.request("GET", srv.url + "/a", deadline=deadline) as r:
            return r.read()
    with Server(h) as srv:
        assert get(5) == b"0123456789"      # 3 s of body: within 5 s
        ends_at_deadline(lambda: get(DEADLINE))


@pytest.mark.parametrize("raw,kind,text", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 500, "reset",
     "connection closed by 127.0.0.1 while reading the body"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123", "reset",
     "connection closed by 127.0.0.1 while reading the body"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "protocol",
     "127.0.0.1: bad chunk size"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", "protocol",
     "127.0.0.1: bad chunk size"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", "protocol",
     "127.0.0.1: bad chunk size"),
])
def test_broken_bodies(raw, kind, text):
    def h(req, w):
        w.write(raw)
        w.close()
    with Server(h) as srv:
        r = httpc.request("GET", srv.url + "/")
        with pytest.raises(httpc.HTTPError) as ei:
            while r.readinto(bytearray(64)):
                pass
        assert ei.value.kind == kind and str(ei.value) == text
        assert ei.value.sent is True
        r.close()


def test_reset_mid_body():
    def h(req, w):
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"x" * 5000)
        time.sleep(0.2)
        w.reset()
    with Server(h) as srv:
        r = httpc.request("GET", srv.url + "/")
        with pytest.raises(httpc.HTTPError) as ei:
            while r.readinto(bytearray(1024)):
                pass
        assert ei.value.kind == "reset"
        assert str(ei.value) in (
            "connection reset by 127.0.0.1 while reading the body",
            "connection closed by 127.0.0.1 while reading the body")


@pytest.mark.parametrize("raw", [b"HTTP/1.1 OK\r\n\r\n", b"SSH-2.0-x\r\n\r\n",
                                 b"HTTP/1.1 2000 OK\r\n\r\n", b"HTTP/2 200\r\n\r\n"])
def test_malformed_status_line(raw):
    def h(req, w):
        w.write(raw)
        w.close()
    with Server(h) as srv:
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", srv.url + "/")
        assert str(ei.value) == "127.0.0.1: malformed status line"
        assert ei.value.kind == "protocol"


def test_interim_100_continue_skipped():
    def h(req, w):
        w.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
    with Server(h) as srv:
        with httpc.request("GET", srv.url + "/") as r:
            assert r.status == 200 and r.read() == b"hi"


# ---------------------------------------------------------------- TLS

@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    other = trustme.CA()
    cert = ca.issue_cert("localhost")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(ctx)

    def der(c):
        return ssl.PEM_cert_to_DER_cert(c.cert_pem.bytes().decode())
    paths = {
        "good": d / "good.der",          # bundle: an unrelated root, then ours
        "bad": d / "bad.der",
        "pem": d / "good.pem",
        "junk": d / "junk.der",
    }
    paths["good"].write_bytes(der(other) + der(ca))
    paths["bad"].write_bytes(der(other))
    paths["pem"].write_bytes(other.cert_pem.bytes() + ca.cert_pem.bytes())
    paths["junk"].write_bytes(b"\x30\x82\xff\xffnot a cert")
    return ctx, {k: str(v) for k, v in paths.items()}


def ok_handler(req, w):
    w.respond(200, b"secure")


def test_tls_cpython(pki):
    ctx, p = pki
    with Server(ok_handler, tls=ctx) as srv:
        url = "https://localhost:%d/" % srv.port
        before = httpc.pool_stats()
        for ca in (p["good"], p["pem"], p["good"]):
            with httpc.request("GET", url, ca=ca) as r:
                assert r.read() == b"secure"
        assert delta(before) == (3, 0)     # a connection is reused only with its CA
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", url, ca=p["bad"])
        assert str(ei.value) == "TLS: certificate not trusted for localhost (unknown CA)"
        assert ei.value.kind == "tls" and ei.value.sent is False
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", "https://127.0.0.1:%d/" % srv.port, ca=p["good"])
        assert str(ei.value) == "TLS: certificate does not match host 127.0.0.1"
        # default: system roots do not know the test CA -> still verified
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", url)
        assert "unknown CA" in str(ei.value)
        for bad in (p["junk"], "/nonexistent/ca.der"):
            with pytest.raises(httpc.HTTPError) as ei:
                httpc.request("GET", url, ca=bad)
            assert ei.value.kind == "tls" and str(ei.value).startswith("TLS: ")


# ---------------------------------------------------------------- MicroPython

def mp_lines(r):
    assert r.rc == 0, r
    return [ln for ln in r.out.splitlines() if not ln.startswith("HEAPMON")]


@pytest.mark.smoke
def test_mpy_http_basic(mpy):
    with Server(echo) as srv:
        r = mpy.run("http_basic", heap=GOAL, args=[srv.port, free_port()],
                    timeout=60)
        out = mp_lines(r)
        assert out[-1] == "DONE", r
        want = [
            "len 200 length 5000 %d" % sum(body_of(5000)),
            "chunked 200 chunked 5000 %d" % sum(body_of(5000)),
            "close 200 close 5000 %d" % sum(body_of(5000)),
            "post-pieces 1630 None",
            "post-length 400 None",
            "keepalive opened=1 reused=9",
            "refused connect",
            "dns dns",
            "timeout timeout",
            "malformed protocol 127.0.0.1: malformed status line",
            "redirect 200 3",
            "drip deadline 127.0.0.1 did not finish within the 1 s deadline True",
            "driphead deadline 127.0.0.1 did not finish within the 1 s deadline True",
        ]
        assert out[:-1] == want, r
        moved = [q for q in srv.requests if q.headers["host"].startswith("localhost:")]
        assert len(moved) == 1 and moved[0].path == "/len/3"
        assert "authorization" not in moved[0].headers
        assert "x-session" not in moved[0].headers
        assert moved[0].headers["x-ok"] == "1"
        ka = [q.conn for q in srv.requests if q.path.endswith("/ka")]
        assert len(ka) == 10 and len(set(ka)) == 1
        live = mpy.working("http_basic", heap=GOAL, args=[srv.port, free_port()], timeout=60)
        print("http_basic working heap:", live.working)
        assert live.working < 12000, live.working


# The heap a 16 KB read() needs is about twice the body (pieces, then the
# result); make measure bisects it.
READ_HEAP = "46K"


def test_mpy_read_whole_bodies(mpy, measure):
    paths = ["/len/1000", "/chunked/1000", "/len/16000", "/chunked/16000",
             "/close/16000"]
    want = ["%s %d %d" % (p, int(p.split("/")[2]), sum(body_of(int(p.split("/")[2]))))
            for p in paths]
    with Server(echo) as srv:
        r = mpy.run("http_read", heap=READ_HEAP, args=[srv.port] + paths,
                    timeout=60)
        live = mpy.working("http_read", heap=READ_HEAP, args=[srv.port] + paths, timeout=60)
        assert mp_lines(r) == want, r
        measure.smallest("heap", "httpc: read() of 16 KB bodies whole (length, chunked, close)",
                         lambda heap: mpy.run("http_read", heap=heap, args=[srv.port] + paths,
                                              timeout=60).out.splitlines()[:len(want)] == want,
                         READ_HEAP)
    print("read() of 16 KB bodies, working heap:", live.working)
    assert live.working < 40000, live.working


def test_mpy_http_tls(mpy, pki):
    ctx, p = pki
    with Server(ok_handler, tls=ctx) as srv:
        r = mpy.run("http_tls", heap=GOAL, args=[srv.port, p["good"], p["bad"],
                                                   p["pem"]], timeout=60)
        out = mp_lines(r)
        assert out == [
            "good 200 secure",
            "reuse opened=1 reused=1",
            "pem 200 secure",
            "unknown tls TLS: certificate not trusted for localhost (unknown CA)",
            "host tls TLS: certificate does not match host 127.0.0.1",
            # CA_FILE None: the built-in roots (lib/cacerts.py), not the test CA
            "noca tls TLS: certificate not trusted for localhost (unknown CA)",
            "missing tls TLS: cannot read CA file /nonexistent/ca.der (fix the path, "
            "or set httpc.CA_FILE = None for the default roots)",
            "DONE",
        ], r


# ---------------------------------------------------------------- the board's budget

@pytest.fixture
def budget():
    """Set httpc's budget (sockets, TLS) for a test; the board's after.
    Responses other tests never closed were collected by CPython with
    their sockets, still counted: the count starts from an empty pool."""
    httpc.close_all()
    httpc.counts["sockets"] = httpc.counts["tls"] = 0

    def set_(sockets, tls):
        httpc.SOCKETS_MAX, httpc.TLS_MAX = sockets, tls
    yield set_
    httpc.SOCKETS_MAX = httpc.TLS_MAX = None


def test_a_new_connection_closes_idle_pooled_ones_to_fit_the_budget(budget):
    budget(1, 0)
    with Server(echo) as a, Server(echo) as b:
        with httpc.request("GET", a.url + "/len/3") as r:
            assert r.read() == bytes((i * 7) & 0xFF for i in range(3))
        assert httpc.pool_stats()["sockets"] == 1          # a's, idle in the pool
        assert httpc.room(b.url) and not httpc.room(b.url, 2)
        assert httpc.room(a.url)               # its own pooled one is taken, not new
        with httpc.request("GET", b.url + "/len/3") as r:
            r.read()
        s = httpc.pool_stats()
        assert s["sockets"] == 1 and a.accepts == 1 and b.accepts == 1
        # a's idle connection was closed to make room: a new one for a
        with httpc.request("GET", a.url + "/len/3") as r:
            r.read()
        assert a.accepts == 2


def test_busy_connections_fill_the_budget_with_a_clear_error(budget):
    budget(2, 0)
    with Server(echo) as a:
        held = [httpc.request("GET", a.url + "/len/3", fresh=True) for _ in range(2)]
        assert httpc.pool_stats()["sockets"] == 2 and not httpc.room(a.url)
        with pytest.raises(httpc.HTTPError) as ei:
            httpc.request("GET", a.url + "/len/3", fresh=True)
        assert ei.value.kind == "budget"
        assert str(ei.value) == ("no room for a connection to 127.0.0.1: this board holds 2 "
                                 "sockets at once and all are in use (httpc.SOCKETS_MAX)")
        for r in held:
            r.close()
        # closed and pooled: the pool keeps one, the other is gone
        assert httpc.pool_stats()["sockets"] == 1
        with httpc.request("GET", a.url + "/len/3", fresh=True) as r:
            r.read()


def test_tls_budget_counts_tls_connections_only(budget, pki):
    ctx, p = pki
    budget(0, 1)
    with Server(ok_handler, tls=ctx) as s, Server(echo) as plain:
        url = "https://localhost:%d/" % s.port
        with httpc.request("GET", url, ca=p["good"]) as r:
            assert r.read() == b"secure"
        with httpc.request("GET", plain.url + "/len/3") as r:   # plain: no TLS room needed
            r.read()
        assert httpc.pool_stats()["tls"] == 1 and httpc.pool_stats()["sockets"] == 2
        held = httpc.request("GET", url, ca=p["good"], fresh=True)   # closes the idle one
        try:
            assert httpc.pool_stats()["tls"] == 1
            with pytest.raises(httpc.HTTPError, match="holds 1 TLS connection at once and it "
                                                      "is in use"):
                httpc.request("GET", url, ca=p["good"], fresh=True)
        finally:
            held.close()


def test_fresh_never_takes_the_pooled_connection():
    with Server(echo) as a:
        with httpc.request("GET", a.url + "/len/3") as r:
            r.read()
        before = httpc.pool_stats()
        with httpc.request("GET", a.url + "/len/3", fresh=True) as r:
            r.read()
        assert delta(before) == (1, 0)
        with httpc.request("GET", a.url + "/len/3") as r:
            r.read()
        assert delta(before) == (1, 1)
