"""httpc.SSE: parsing from fake bodies split at every byte position, a real
loopback chunked stream, a 150 KB data line under the unix port, and
polling without blocking (next(False)) through httpc's chunked Response at
every byte of an MCP GET stream."""
import json
import random
import select
import socket
import time

import pytest

import httpc
import mcp
from httpserver import Server
from mcpstub import Stub


class Fake:
    """A body whose readinto returns the stream in pieces: cut at the given
    offsets (and never more than the caller's buffer)."""

    def __init__(self, data, cuts=(), step=None):
        self.data = data
        self.pos = 0
        self.cuts = sorted(set(c for c in cuts if 0 < c < len(data)))
        self.step = step

    def readinto(self, buf):
        if self.pos >= len(self.data):
            return 0
        end = len(self.data)
        for c in self.cuts:
            if c > self.pos:
                end = c
                break
        if self.step:
            end = min(end, self.pos + self.step)
        n = min(end - self.pos, len(buf))
        buf[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def collect(body, bufsize=7, peek_empty=True, skip_every=0):
    """All events as (event, id, retry, empty, data) tuples."""
    s = httpc.SSE(body)
    out = []
    buf = bytearray(bufsize)
    k = 0
    while True:
        ev = s.next()
        if ev is None:
            return out
        k += 1
        empty = ev.empty if peek_empty else None
        if skip_every and k % skip_every == 0:
            out.append(("skipped", ev.event))
            continue
        data = bytearray()
        while True:
            n = ev.readinto(buf)
            if not n:
                break
            data += buf[:n]
        out.append((ev.event, ev.id, ev.retry, empty, bytes(data)))


SAMPLE = (
    b": comment at start\n"
    b"retry: 1500\n"
    b"id: 1\n"
    b"data:\n"
    b"\n"
    b"event: delta\n"
    b"data: {\"a\": 1}\n"
    b"\n"
    b"data: line one\n"
    b"data:line two\n"
    b": interleaved comment\n"
    b"data:  two spaces\n"
    b"\n"
    b"id: 7\n"
    b"retry: x\n"
    b"\n"
    b"event: late\n"
    b"data: before id\n"
    b"id: 9\n"
    b"unknown: field\n"
    b"\n"
    b"data\n"
    b"data\n"
    b"\n"
    b"id\n"
    b"data: cleared id\n"
    b"\n"
    b"data: unterminated at end"
)

EXPECTED = [
    ("message", "1", 1500, True, b""),
    ("delta", "1", 1500, False, b'{"a": 1}'),
    ("message", "1", 1500, False, b"line one\nline two\n two spaces"),
    ("late", "9", 1500, False, b"before id"),
    ("message", "9", 1500, False, b"\n"),
    ("message", "", 1500, False, b"cleared id"),
    ("message", "", 1500, False, b"unterminated at end"),
]


def endings(data, nl):
    return data.replace(b"\n", nl)


@pytest.mark.parametrize("nl", [b"\n", b"\r", b"\r\n"])
def test_every_split_position(nl):
    data = endings(SAMPLE, nl)
    assert collect(Fake(data)) == EXPECTED
    for cut in range(1, len(data)):
        assert collect(Fake(data, [cut])) == EXPECTED, cut
    assert collect(Fake(data, step=1), bufsize=1) == EXPECTED
    # without asking .empty first (the lazy peek must not change anything)
    got = collect(Fake(data, step=3), peek_empty=False)
    assert [g[:3] + g[4:] for g in got] == [e[:3] + e[4:] for e in EXPECTED]


def test_mixed_endings_and_bom():
    data = b"\xef\xbb\xbfdata: a\r\n\r\ndata: b\r\rdata: c\n\r\n"
    want = [("message", None, None, False, b"a"), ("message", None, None, False, b"b"),
            ("message", None, None, False, b"c")]
    for cut in range(1, len(data)):
        assert collect(Fake(data, [cut])) == want, cut


def test_crlf_split_does_not_make_an_extra_blank_line():
    # CR|LF split between reads inside an event: must not end the event
    data = b"data: a\r\ndata: b\r\n\r\n"
    for cut in range(1, len(data)):
        assert collect(Fake(data, [cut])) == [("message", None, None, False, b"a\nb")]


def test_unread_data_is_skipped():
    data = endings(SAMPLE, b"\r\n")
    for cut in (0, 5, 50, 100):
        got = collect(Fake(data, [cut]), skip_every=2)
        assert got[0] == EXPECTED[0] and got[1] == ("skipped", "delta")
        assert got[2] == EXPECTED[2] and got[3] == ("skipped", "late")
        assert len(got) == len(EXPECTED)


def test_events_without_data_are_not_returned():
    data = b"retry: 10\n\nid: 4\n\n: only comments\n\n"
    s = httpc.SSE(Fake(data))
    assert s.next() is None
    assert s.retry == 10 and s.last_id == "4"


def test_big_data_line_streamed_at_every_boundary():
    big = bytes(b"abcdefghijklmnopqrstuvwxyz0123456789"[i % 36] for i in range(150000))
    data = b"id: 1\ndata: " + big + b"\r\ndata: tail\n\nevent: next\ndata: x\n\n"
    want = [("message", "1", None, False, big + b"\ntail"),
            ("next", "1", None, False, b"x")]
    # every cut near both ends and around buffer multiples, a stride elsewhere
    cuts = set(range(1, 3000)) | set(range(len(data) - 3000, len(data)))
    cuts |= set(range(3000, len(data) - 3000, 997))
    cuts |= set(k * 1040 + d for k in range(1, 145) for d in (-1, 0, 1))
    for cut in sorted(cuts):
        assert collect(Fake(data, [cut]), bufsize=4096) == want, cut
    rnd = random.Random(5)
    for _ in range(20):
        assert collect(Fake(data, [rnd.randrange(len(data)) for _ in range(300)]),
                       bufsize=rnd.choice((1, 100, 512, 5000))) == want


def test_read_limit_and_field_line_bound():
    s = httpc.SSE(Fake(b"data: " + b"x" * 100 + b"\n\n"))
    with pytest.raises(httpc.HTTPError) as ei:
        s.next().read(limit=50)
    assert ei.value.kind == "toolong"
    s = httpc.SSE(Fake(b"data: " + b"x" * 100 + b"\n\ndata: y\n\n"))
    assert s.next().read() == b"x" * 100
    assert s.next().read() == b"y"
    for line in (b"event: " + b"e" * 2000, b"x" * 2000 + b": v", b"id:" + b"1" * 1100):
        s = httpc.SSE(Fake(line + b"\ndata: a\n\n"))
        with pytest.raises(httpc.HTTPError) as ei:
            s.next()
        assert ei.value.kind == "toolong"
        assert "SSE field line longer than 1024 bytes" == str(ei.value)
    # a long comment is skipped without a bound; 1000-byte fields are fine
    s = httpc.SSE(Fake(b":" + b"c" * 5000 + b"\nevent: " + b"e" * 1000 + b"\ndata: a\n\n"))
    ev = s.next()
    assert ev.read() == b"a" and ev.event == "e" * 1000


def test_sse_over_real_chunked_response():
    data = endings(SAMPLE, b"\r\n")

    def h(req, w):
        w.start(200, {"Content-Type": "text/event-stream"})
        for i in range(0, len(data), 13):
            w.chunk(data[i:i + 13])
        w.end()
    with Server(h) as srv:
        r = httpc.request("GET", srv.url + "/events", keep=("content-type",))
        assert r.headers["content-type"] == "text/event-stream"
        assert collect(r) == EXPECTED
        r.close()
        with httpc.request("GET", srv.url + "/again") as r:
            s = httpc.SSE(r)
            assert [ev.event for ev in s] == [e[0] for e in EXPECTED]
        assert srv.accepts == 1


# `heap` is the heap left free once the emulated flash is in place (see
# mpyrun): far smaller than the 150 KB data line that streams through (make
# measure bisects what it needs).
HEAP = "14K"


def test_mpy_sse_150k_line_small_heap(mpy, measure):
    big = bytes(b"0123456789abcdef"[i % 16] for i in range(150000))
    want_sum = sum(big) + sum(b"\nend")

    def h(req, w):
        w.start(200, {"Content-Type": "text/event-stream"})
        w.chunk(b"id: 1\r\ndata:\r\n\r\n")            # priming event
        w.chunk(b"event: big\r\ndata: ")
        for i in range(0, len(big), 4000):
            w.chunk(big[i:i + 4000])
        w.chunk(b"\r\ndata: end\r\n\r\ndata: [DONE]\r\n\r\n")
        w.end()
    with Server(h) as srv:
        r = mpy.run("http_sse", heap=HEAP, args=[srv.port], timeout=60)
        assert r.rc == 0, r
        lines = [ln for ln in r.out.splitlines() if not ln.startswith("HEAPMON")]
        assert lines == [
            "message 1 empty=True n=0",
            "big 1 empty=False n=%d sum=%d" % (len(big) + 4, want_sum),
            "message 1 empty=False n=6 sum=%d" % sum(b"[DONE]"),
            "END",
        ], r
        live = mpy.working("http_sse", heap=HEAP, args=[srv.port], timeout=60)
        print("http_sse working heap at %s:" % HEAP, live.working, "baseline", live.baseline)
        assert live.working < 8000, live.working
        measure.smallest("heap", "httpc.SSE: an event with a 150 KB data line",
                         lambda heap: "END" in mpy.run("http_sse", heap=heap, args=[srv.port],
                                                       timeout=60).out, HEAP)


# ---------------------------------------------------------------- polling

def chunked(*pieces):
    return b"".join(b"%x\r\n" % len(p) + p + b"\r\n" for p in pieces) + b"0\r\n\r\n"


BIG = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + \
    b"x" * 1500 + b'"}}'
# what an MCP server's standalone GET stream looks like on the wire: keep-alive
# comments, LF and CRLF events, one larger than httpc's 1 KB buffers (so the
# CRLF closing its chunk comes on its own), an event split over two chunks,
# a retry-only event (not returned)
GET_STREAM = chunked(
    b": ping\n\n",
    b'id: 1\r\nevent: message\r\ndata: {"jsonrpc":"2.0","id":7,"method":"ping"}\r\n\r\n',
    b": keep-alive\r\n\r\n",
    b"event: message\ndata: " + BIG + b"\n\n",
    b"retry: 3000\n\n: ping\n",
    b"\nid: 2\ndata: spl",
    b"it\ndata: tail\n\n",
)
GET_EVENTS = [
    ("message", "1", b'{"jsonrpc":"2.0","id":7,"method":"ping"}'),
    ("message", "1", BIG),
    ("message", "2", b"split\ntail"),
]
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


class Wire:
    """The client end of a socket pair, for httpc's connection: the test
    holds the other end and sends the stream's pieces one by one. A read
    that would block with nothing to read is counted (in .blocked while
    .polling) and answered by sending the next piece."""

    def __init__(self, pieces):
        self.sock, self.peer = socket.socketpair()
        self.pieces = list(pieces)
        self.polling = False
        self.blocked = 0

    def feed(self):
        if not self.pieces:
            return False
        self.peer.sendall(self.pieces.pop(0))
        return True

    def settimeout(self, t):
        self.timeout = t
        self.sock.settimeout(t)

    def recv_into(self, mv, nbytes=0):
        if self.timeout != 0 and not select.select([self.sock], [], [], 0)[0]:
            if self.polling:
                self.blocked += 1
            self.feed()
        return self.sock.recv_into(mv, nbytes)

    def fileno(self):
        return self.sock.fileno()

    def close(self):
        self.sock.close()
        self.peer.close()


def poll_all(pieces):
    """Read GET_STREAM sent in pieces, polling with next(False) and sending
    the next piece only when a poll found nothing: (events, blocked polls)."""
    wire = Wire(pieces)
    wire.feed()
    c = httpc._Conn(("http", "127.0.0.1", 80), "127.0.0.1", wire)
    try:
        c.set_timeout(5000)
        r = httpc._read_head(c, "GET", {}, False)
        sse = httpc.SSE(r, 256)
        out = []
        while True:
            wire.polling = True
            ev = sse.next(False)
            wire.polling = False
            if ev is not None:
                out.append((ev.event, ev.id, ev.read()))
            elif sse.ended:
                return out, wire.blocked
            else:
                assert wire.feed(), "a poll found nothing with every byte sent"
    finally:
        c.close()


def test_polling_never_blocks_at_any_split():
    assert poll_all([HEAD + GET_STREAM]) == (GET_EVENTS, 0)
    for cut in range(len(GET_STREAM)):
        got = poll_all([HEAD + GET_STREAM[:cut], GET_STREAM[cut:]])
        assert got == (GET_EVENTS, 0), cut
    rnd = random.Random(12)
    for _ in range(30):
        cuts = sorted(rnd.sample(range(1, len(GET_STREAM)), 40))
        pieces = [GET_STREAM[a:b] for a, b in zip([0] + cuts, cuts + [len(GET_STREAM)])]
        pieces[0] = HEAD + pieces[0]
        assert poll_all(pieces) == (GET_EVENTS, 0), cuts


def test_polling_a_byte_at_a_time():
    pieces = [GET_STREAM[i:i + 1] for i in range(len(GET_STREAM))]
    pieces[0] = HEAD + pieces[0]
    assert poll_all(pieces) == (GET_EVENTS, 0)


def test_blocking_next_is_unchanged_over_the_same_stream():
    """Control: next() (blocking) over the same pieces reads the same events
    and does block (the Wire counts it), so the count above can fail."""
    wire = Wire([HEAD + GET_STREAM[:10], GET_STREAM[10:]])
    wire.feed()
    c = httpc._Conn(("http", "127.0.0.1", 80), "127.0.0.1", wire)
    try:
        c.set_timeout(5000)
        sse = httpc.SSE(httpc._read_head(c, "GET", {}, False), 256)
        wire.polling = True
        assert [(ev.event, ev.id, ev.read()) for ev in sse] == GET_EVENTS
        assert wire.blocked == 1 and sse.ended
    finally:
        c.close()


def test_mpy_polling_a_stream_in_pieces(mpy):
    """Under the unix port: the GET stream arrives in pieces a moment apart
    (cut inside a comment, a chunk-size line, the big event's data and the
    CRLF after it); polls never wait on the socket."""
    cuts = [3, len(GET_STREAM) // 3, GET_STREAM.index(b"xxxx") + 700,
            GET_STREAM.index(b'"}}\n\n\r\n') + 6, len(GET_STREAM) - 20]

    def h(req, w):
        w.write(HEAD)
        for a, b in zip([0] + cuts, cuts + [len(GET_STREAM)]):
            w.write(GET_STREAM[a:b])
            time.sleep(0.2)
    with Server(h) as srv:
        r = mpy.run("http_poll", heap=HEAP, args=[srv.port], timeout=60)
        live = mpy.working("http_poll", heap=HEAP, args=[srv.port], timeout=60)
    assert r.rc == 0, r
    lines = [ln for ln in r.out.splitlines() if not ln.startswith("HEAPMON")]
    assert lines == ["%s %s %d %d" % (e, i, len(d), sum(d)) for e, i, d in GET_EVENTS] + [
        "waits while polling 0", "END"], r
    assert live.working < 8000, live.working


# ------------------------------------------------- the MCP GET stream (serve)

def slow_call(stub, wait_for_answer=False):
    """A tools/call handler: the SSE reply comes after a second (after the
    answer to the GET stream's ping when asked), while the client watches
    the GET stream."""
    def call(req, w, msg):
        w.start(200, {"Content-Type": "text/event-stream"})
        t = time.monotonic() + 3
        while wait_for_answer and not stub.answers and time.monotonic() < t:
            time.sleep(0.02)
        time.sleep(1)
        w.chunk(b"event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": "done"}]}}).encode() + b"\n\n")
        w.end()
    return call


def call_while_listening(stub):
    """mcp.call, which holds the GET stream while it is pending: (result,
    seconds). The timeout is 10 s: a stalled watch would wait all of it."""
    with Server(stub) as srv:
        conn, err = mcp.connect(srv.url + "/mcp", name="stub", timeout=10)
        assert err is None and conn.listening is None     # only while a call is pending
        t = time.monotonic()
        out = mcp.call(conn, "work", {})
        took = time.monotonic() - t
        mcp.close(conn)
    return out, took


def answered_during_a_call(get, rid):
    """A call while the GET stream (get) sends ping rid: the ping is
    answered and the call ends, long before its 10 s timeout."""
    stub = Stub(get=get)
    stub.call = slow_call(stub, wait_for_answer=True)
    (text, err), took = call_while_listening(stub)
    assert (text, err) == ("done", None)
    assert stub.answers == [{"jsonrpc": "2.0", "id": rid, "result": {}}]
    assert took < 5, took


def test_get_stream_keep_alive_comments_do_not_stall_a_call():
    stub = Stub(get=lambda req, w: w.sse_forever(b": ping\n\n", 0.2))
    stub.call = slow_call(stub)
    (text, err), took = call_while_listening(stub)
    assert (text, err) == ("done", None)
    assert took < 5, took


def test_get_stream_chunk_end_after_a_big_event_does_not_stall_a_call():
    """A server request larger than httpc's 1 KB reads on the GET stream,
    the CRLF that closes its chunk sent a moment later on its own."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping",
                       "params": {"_meta": {"pad": "p" * 1500}}}).encode()
    event = b"event: message\ndata: " + ping + b"\n\n"

    def get(req, w):
        w.start(200, {"Content-Type": "text/event-stream"})
        w.write(b"%x\r\n" % len(event) + event)
        time.sleep(0.3)
        w.write(b"\r\n")
        time.sleep(5)
    answered_during_a_call(get, 7)


def test_get_stream_request_arriving_after_its_head_is_answered():
    """The GET stream's reader is made only once bytes come after its head:
    a server request sent a moment after the head (nothing read with it)
    is still read and answered while the call is pending."""
    ping = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}).encode()
    event = b"event: message\ndata: " + ping + b"\n\n"

    def get(req, w):
        w.start(200, {"Content-Type": "text/event-stream"})
        time.sleep(0.3)
        w.chunk(event)
        time.sleep(5)
    answered_during_a_call(get, 9)


def test_out_of_memory_reading_the_get_streams_head_is_said(monkeypatch):
    """httpc.answer closes the GET's connection when reading its head fails,
    running out of memory too: the call says it ran out of memory (it said
    "network error (stream operation not supported)" from a second look at
    the closed connection on MicroPython, and raised on CPython)."""
    def answer(c):
        c.close()
        raise MemoryError
    monkeypatch.setattr(httpc, "answer", answer)
    stub = Stub(get=lambda req, w: w.sse_forever(b": ping\n\n", 0.2))
    stub.call = slow_call(stub)
    (text, err), _ = call_while_listening(stub)
    assert text is None and err.startswith("stub: out of memory reading the reply"), err
