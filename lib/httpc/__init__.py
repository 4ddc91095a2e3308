# httpc: a small HTTP/1.1 client with keep-alive and verified TLS, for
# MicroPython (ESP32, unix port) and CPython. A package so that its rarer
# parts cost heap only when used: httpc.sse (the Server-Sent Events reader,
# httpc.SSE / httpc.Event, imported on first use), httpc.ca (CA roots and
# the TLS context, imported by the first https request), httpc.errors (a
# failure's wording), httpc.body (a body read whole), httpc.redirect and
# httpc.pool (the pool's figures).
#
# Wire format (RFC 9112): request line, headers, CRLF, then the body as
# Content-Length bytes. Responses are read with Content-Length, chunked
# (Transfer-Encoding: chunked, "<hex size>\r\n<data>\r\n" ... "0\r\n\r\n";
# extensions and trailers ignored) or close-delimited bodies; HEAD, 1xx,
# 204 and 304 have none.
#
# Memory: each busy connection holds one buffer of 0.5 KB: the request is
# coalesced in it (a connection writes the whole request before it reads),
# then header and chunk-size lines are read through it; a longer line (up
# to LINE_MAX) grows it to 1 KB once. Bodies stream through the caller's
# buffer (readinto). An idle (pooled) connection gives its buffer back;
# one is kept for the next request, so it is allocated once (at import,
# before the heap fragments), not per request, and the connections a
# session holds at once (the MCP client listening: three) need 0.5 KB
# holes, not 1 KB ones, in a heap their parsing has fragmented.
# Every size that comes from the network is bounded with an HTTPError.
#
# Keep-alive: one pooled connection per (scheme, host, port). A response
# returns its connection to the pool on close() when its body was read to
# the end (close() drains up to 4 KB) and the server allows it (HTTP/1.1,
# no "Connection: close", not close-delimited). fresh=True never takes the
# pooled one (a long-lived stream beside requests to the same server).
#
# The board's budget: an ESP32 without PSRAM has ESP-IDF heap for one TLS
# connection (mbedTLS allocates there, not in the GC heap) and lwIP has few
# sockets. TLS_MAX and SOCKETS_MAX (None: the board profile's, compat.board;
# 0: no limit) bound the connections open at once, pooled ones included:
# a new connection first closes idle pooled ones (other servers' first,
# TLS ones when a TLS connection is wanted), and when busy ones fill the
# budget it fails with HTTPError kind "budget". room(url, n) says whether
# n more connections to url would fit (the MCP client asks before it holds
# a second stream).
#
# Stale-connection retry rule: a request is re-sent ONCE on a fresh
# connection only when (a) the connection came from the pool, (b) the
# failure was the peer closing/resetting it (not a timeout) and (c) zero
# response bytes had arrived. That is the classic "server closed the idle
# keep-alive connection" race; like urllib3 we apply it to every method,
# POST included, and re-invoke a callable body. A pooled connection that is
# already readable (EOF) when taken is dropped before anything is sent.
# Never retried: fresh connections, timeouts, anything after a response byte.
#
# Redirects: 301/302/303 are followed with GET and no body (HEAD stays
# HEAD); 307/308 keep the method and body (a callable body is called
# again). At most max_redirects hops, then HTTPError "too many redirects";
# max_redirects=0 returns the 3xx response. A redirect to another origin
# (scheme, host or port) drops the credential headers (Authorization,
# Cookie, *auth*, *key*, *token*, and those named in secret=); one from https
# to plain http is refused.
#
# Time: `timeout` bounds each socket wait (connect: connect_timeout);
# `deadline` (seconds, default none) bounds the whole request: connect, TLS
# handshake, headers, redirects and every body or SSE byte read through
# the Response. Each wait is clamped to the time left, each read checks it;
# then HTTPError kind "deadline". Only the DNS lookup is not bounded.
#
# TLS: always verified, always with server_hostname (roots: httpc/ca.py).
#
# Sockets: CPython uses settimeout + recv_into/sendall. MicroPython's
# readinto() waits for the whole buffer, so after connect (and the TLS
# handshake, done blocking with a timeout) the socket is non-blocking and
# waits happen in select.poll with the read timeout. These socket/TLS
# differences live here because httpc is the only module that uses sockets.
import errno
import socket
import select

from compat import MICROPYTHON, VERSION, is_timeout, const, clock_ok, copy, drive, lazy, ticks_ms, ticks_diff

CA_FILE = None
USER_AGENT = "antos-ai/" + VERSION
TLS_MAX = None          # TLS connections open at once (None: the board's)
SOCKETS_MAX = None      # sockets open at once, TLS ones too (None: the board's)
# Called about every 100 ms while a socket waits on MicroPython (a console
# turns its spinner and looks for Ctrl-C there); None: plain waits.
ON_WAIT = None

LINE_MAX = 1024      # longest header / chunk-size / trailer line
_VALUE_MAX = const(512)      # longest kept header value
_MAX_HEADERS = const(64)     # header lines per response
_DRAIN_MAX = const(4096)     # unread body close() will skip to keep a connection
_WCHUNK = const(512)         # write coalescing buffer
_BUF = const(520)            # a connection's buffer until a line needs more
_TAB = const(0x09)
_CR = const(0x0D)
_SP = const(0x20)
_ZERO = const(0x30)
_NINE = const(0x39)
_UPPER_A = const(0x41)
_UPPER_F = const(0x46)
_LOWER_A = const(0x61)
_LOWER_F = const(0x66)

# how a response body is framed (Response._mode)
_NO_BODY = const(0)          # HEAD, 1xx, 204, 304
_LENGTH = const(1)           # Content-Length bytes
_CHUNKED = const(2)          # Transfer-Encoding: chunked
_TO_EOF = const(3)           # until the server closes the connection

# the chunk framing due next (Response._chunk)
_SIZE_LINE = const(0)        # "<hex size>[;ext]" CRLF
_DATA_END = const(1)         # the CRLF that ends a chunk's data
_TRAILERS = const(2)         # trailer lines up to a blank line (after size 0)


pooled = {}     # idle kept-alive connections by key (scheme, host, port)
# the buffer of the next connection (that of an idle connection is kept);
# the first is made now, while the heap is still in one piece. One slot,
# never grown: giving a buffer back allocates nothing (a close that ran
# out of memory would leave its socket open)
_spare = [bytearray(_BUF)]
try:
    from uctypes import addressof as _addr     # where a buffer's bytes are
except ImportError:
    _addr = id
counts = {"opened": 0, "reused": 0, "sockets": 0, "tls": 0}   # (the last two: open now)
# every connection open now, pooled or busy: close_all() reaches those of
# a loop that was abandoned (a KeyboardInterrupt skips its tasks' finally)
live = []


class HTTPError(OSError):
    """Every expected failure. str(e) is one line; .kind is one of connect,
    dns, timeout, deadline, reset, protocol, tls, toolong, budget (no room
    for another connection on this board); .sent is True once any request
    byte was written."""

    def __init__(self, msg, kind="protocol", sent=False):
        super().__init__(msg)       # str(e) is msg
        self.kind = kind
        self.sent = sent


# ---------------------------------------------------------------- helpers

def utf8(b, what):
    """The bytes b as str; an HTTPError naming what when they are not UTF-8."""
    try:
        return b.decode()
    except UnicodeError:
        raise HTTPError("%s is not valid UTF-8" % what, "protocol", True)


def _hex(buf, a, b):
    """Chunk size from buf[a:b] ("1a;ext" allowed), -1 if malformed."""
    e = buf.find(b";", a, b)
    if e < 0:
        e = b
    while e > a and buf[e - 1] in (_SP, _TAB):
        e -= 1
    if e == a or e - a > 8:
        return -1
    v = 0
    for i in range(a, e):
        c = buf[i]
        if _ZERO <= c <= _NINE:
            c -= _ZERO
        elif _LOWER_A <= c <= _LOWER_F:
            c -= _LOWER_A - 10
        elif _UPPER_A <= c <= _UPPER_F:
            c -= _UPPER_A - 10
        else:
            return -1
        v = v * 16 + c
    return v


def _split(url):
    """"http[s]://host[:port]/path?q" -> (scheme, host, port, path)."""
    low = url[:8].lower()
    if low.startswith("https://"):
        scheme, port, rest = "https", 443, url[8:]
    elif low.startswith("http://"):
        scheme, port, rest = "http", 80, url[7:]
    else:
        raise ValueError("unsupported URL (need http:// or https://): %s" % url)
    i = len(rest)
    for ch in "/?#":
        j = rest.find(ch)
        if 0 <= j < i:
            i = j
    hostport, path = rest[:i], rest[i:]
    j = path.find("#")
    if j >= 0:
        path = path[:j]
    if not path.startswith("/"):
        path = "/" + path
    if "@" in hostport:
        raise ValueError("user:password@ URLs are not supported")
    j = hostport.rfind(":")
    host = hostport
    if j >= 0:
        host = hostport[:j]
        try:
            port = int(hostport[j + 1:])
        except ValueError:
            raise ValueError("bad port in URL: %s" % url)
    if not host or " " in path or "\r" in path or "\n" in path:
        raise ValueError("bad URL: %s" % url)
    return scheme, host.lower(), port, path


# ---------------------------------------------------------------- connection

class _Conn:
    def __init__(self, key, host, sock):
        self.key = key
        self.host = host
        self.sock = sock
        self.wr = False       # (the asyncio driver) wait to write, not to read
        self.rbuf = None
        self.attach()
        self.pos = self.end = 0
        self.nread = 0        # response bytes received for this request
        self.sent = False     # any request byte handed to the socket
        self.timeout_ms = 30000
        self.deadline = None  # (ticks_ms at the start, ms allowed) or None
        self.late = False     # the last wait allowed ends at the deadline
        self.le = 0           # where the last line() ends
        self.ca = None        # CA bundle it was verified with (reuse only then)
        # (set while a request is written or sent without waiting; made here
        # so that setting them never grows the object mid-request)
        self.wn = self.total = self.limit = 0
        self.asked = None
        self.poll = select.poll()
        self.poll.register(sock, select.POLLIN)

    def attach(self):
        """Take a buffer (an idle connection holds none; one is kept for the
        next user). Reading and writing never overlap on a connection, so
        the write buffer is the front of the read buffer."""
        if self.rbuf is None:
            buf = _spare[0]
            _spare[0] = None
            self.take(buf if buf is not None else bytearray(_BUF))

    def take(self, buf):
        self.rbuf = buf
        self.rmv = memoryview(buf)
        self.wmv = self.rmv[0:_WCHUNK]

    def detach(self):
        b = self.rbuf
        if b is not None:
            # the lower of two is kept: one made while a second connection
            # was open sits where the heap's frontier was, and kept there
            # across calls it splits the free top (MCP results in a row,
            # each needing one block, ran out that way)
            s = _spare[0]
            if s is None or _addr(b) < _addr(s):
                _spare[0] = b
            self.rbuf = self.rmv = self.wmv = None

    def set_timeout(self, ms):
        self.timeout_ms = int(ms)

    def use(self, sock):
        """Read and write sock from now on (the TLS socket over the one it
        was made with)."""
        self.sock = sock
        self.poll = select.poll()
        self.poll.register(sock, select.POLLIN)

    def _limit(self, block):
        """Before every socket call: the deadline's check, and how long the
        call may wait, ms: the read timeout, what is left of the deadline
        when that is sooner (then self.late is True), 0 when block is False
        (no tuple: this runs for every read).
        CPython: the socket's timeout is set to it."""
        ms = self.timeout_ms if block else 0
        due = _due(self.deadline, self.host)
        late = block and due is not None and due <= ms
        if late:
            ms = due
        if not MICROPYTHON:
            self.sock.settimeout(ms / 1000)
        self.late = late
        return ms

    if not MICROPYTHON:     # (a method object less on the board)
        def _timed_out(self, e, late):
            """CPython: the error to raise for OSError e of a socket call."""
            if late and is_timeout(e):
                return _late(self.deadline, self.host)
            return e

    def close(self):
        self.detach()
        s = self.sock
        self.sock = None
        if s is not None:
            _count(self.key, -1)
            if self in live:
                live.remove(self)
            try:
                s.close()
            except Exception:
                pass

    def recv(self, mv, block=True, most=0):
        """Read what is available (at least 1 byte, at most `most` when
        given) into mv; 0 at EOF; None when block is False and nothing has
        arrived."""
        ms = self._limit(block)
        most = most if 0 < most < len(mv) else len(mv)
        if not MICROPYTHON:
            return self._recv(mv, block, most)
        while True:
            n = self.sock.readinto(mv, most)
            if n is not None:
                break
            if not block:
                return None
            self.wait(ms, self.late)
            ms = self._limit(True)   # readable, but no whole TLS record
        self.nread += n
        return n

    if not MICROPYTHON:     # (its try is no part of recv's frame on the board)
        def _recv(self, mv, block, most):
            try:
                n = self.sock.recv_into(mv, most)
            except OSError as e:
                if not block and type(e).__name__ in ("BlockingIOError",
                                                      "SSLWantReadError"):
                    return None
                raise self._timed_out(e, self.late)
            self.nread += n
            return n

    def send(self, data):
        self.sent = True
        ms = self._limit(True)
        if not MICROPYTHON:
            try:
                self.sock.sendall(data)
            except OSError as e:
                raise self._timed_out(e, self.late)
            return
        mv = memoryview(data)
        off, n = 0, len(mv)
        while off < n:
            w = self.sock.write(mv[off:] if off else mv)
            if w:
                off += w
                continue
            self.poll.modify(self.sock, select.POLLOUT)
            try:
                self.wait(ms, self.late)
            finally:
                self.poll.modify(self.sock, select.POLLIN)
            ms = self._limit(True)

    # the request: small writes coalesce in the front of the buffer (wn
    # bytes held), a (length, function) body is counted (total) against
    # its length (limit)
    def put(self, data):
        n = len(data)
        if self.wn + n > _WCHUNK:
            self.flush()
            if n > _WCHUNK:
                self.send(data)
                return
        self.wmv[self.wn:self.wn + n] = data
        self.wn += n

    def flush(self):
        if self.wn:
            self.send(self.wmv[:self.wn])
            self.wn = 0

    def body(self, piece):
        if isinstance(piece, str):
            piece = piece.encode()
        self.total += len(piece)
        if self.total > self.limit:
            raise HTTPError("request body longer than the declared %d bytes"
                            % self.limit, "protocol", self.sent)
        self.put(piece)

    def wait(self, ms, late):
        """MicroPython: poll up to ms; when they pass, the deadline's
        HTTPError if late, else OSError ETIMEDOUT. ON_WAIT runs between 100 ms
        slices (it may raise, e.g. KeyboardInterrupt)."""
        while ms > 0:
            step = ms if ON_WAIT is None else min(ms, 100)
            if self.poll.poll(step):
                return
            ms -= step
            if ON_WAIT is not None:
                ON_WAIT()
        if late:
            raise _late(self.deadline, self.host)
        raise OSError(errno.ETIMEDOUT)

    def read_some(self, mv, block=True, most=0):
        """Buffered bytes first, then straight from the socket into mv, at
        most `most` when given (None: block is False and nothing has
        arrived). (No view of mv is made: this runs for every read.)"""
        k = self.end - self.pos
        if k:
            if k > len(mv):
                k = len(mv)
            if 0 < most < k:
                k = most
            copy(mv, 0, self.rbuf, self.pos, k)
            self.pos += k
            return k
        self.pos = self.end = 0
        return self.recv(mv, block, most)

    def line(self, phase, what, block=True):
        """Next line (LF or CRLF) in rbuf, bounded: its start, its end in
        self.le (no tuple: this runs for every chunk). None when block is
        False and the line has not arrived whole (its start stays
        buffered)."""
        buf = self.rbuf
        while True:
            i = buf.find(b"\n", self.pos, self.end)
            if i >= 0:
                a = self.pos
                self.pos = i + 1
                if i > a and buf[i - 1] == _CR:
                    i -= 1
                if i - a > LINE_MAX:
                    break
                self.le = i
                return a
            k = self.end - self.pos
            if k > LINE_MAX + 1:
                break
            if self.pos == self.end:
                self.pos = self.end = 0
            elif self.pos:
                copy(self.rbuf, 0, self.rbuf, self.pos, k)     # (to the front)
                self.pos, self.end = 0, k
            if self.end == len(buf):         # a long line: the full size, once
                buf = bytearray(LINE_MAX + 8)
                buf[0:k] = self.rmv[0:k]
                self.take(buf)
            n = self.recv(self.rmv[self.end:] if self.end else self.rmv, block)
            if n is None:
                return None
            if not n:
                raise HTTPError("connection closed by %s %s" % (
                    self.host, phase if self.nread else "before the response"),
                    "reset", True)
            self.end += n
        raise HTTPError("%s: %s longer than %d bytes" % (self.host, what, LINE_MAX),
                        "toolong", True)


def _alive(c):
    """A pooled connection is usable if nothing arrived while it was idle
    (EOF or junk means the server gave up on it)."""
    if c.pos != c.end:
        return False
    try:
        if not c.poll.poll(0):
            return True
        return c.recv(bytearray(1), False) is None   # readable: a TLS ticket only
    except Exception:
        return False


def _due(deadline, host):
    """ms left before deadline, (ticks_ms at the start, ms allowed) or None
    (then None); its HTTPError "deadline" once it has passed."""
    if deadline is None:
        return None
    left = deadline[1] - ticks_diff(ticks_ms(), deadline[0])
    if left <= 0:
        raise _late(deadline, host)
    return left


def _late(deadline, host):
    return HTTPError("%s did not finish within the %g s deadline" % (
        host, deadline[1] / 1000), "deadline")


def _count(key, n):
    counts["sockets"] += n
    if key[0] == "https":
        counts["tls"] += n


def _limits():
    """(sockets, TLS connections) allowed open at once; 0: no limit."""
    s, t = SOCKETS_MAX, TLS_MAX
    if s is None or t is None:
        from compat import board
        fig = board().get("figures") or {}
        if s is None:
            s = fig.get("sockets_max", 0)
        if t is None:
            t = fig.get("tls_max", 0)
    return s, t


def room(url, n=1):
    """True when n more connections to url fit the board's budget once the
    idle pooled connections to other servers are closed (url's own pooled
    one counts as free: the next request takes it)."""
    key = _split(url)[:3]
    s_max, t_max = _limits()
    tls = key[0] == "https"
    socks, tlss = counts["sockets"], counts["tls"]
    for k in pooled:
        socks -= 1
        if k[0] == "https":
            tlss -= 1
    return (not s_max or socks + n <= s_max) and (not tls or not t_max or tlss + n <= t_max)


def _room(key):
    """Before a new connection to key: close idle pooled connections until
    it fits the board's budget (TLS ones first when it is TLS); HTTPError
    "budget" when connections in use fill it."""
    tls = key[0] == "https"
    while True:
        s_max, t_max = _limits()
        over_t = tls and t_max and counts["tls"] >= t_max
        if not (over_t or (s_max and counts["sockets"] >= s_max)):
            return
        idle = None
        for k in pooled:
            if not over_t or k[0] == "https":
                idle = k
                break
        if idle is None:
            if over_t:
                raise HTTPError("no room for a connection to %s: this board holds %d TLS "
                                "connection%s at once and %s in use (httpc.TLS_MAX)" % (
                                    key[1], t_max, "" if t_max == 1 else "s",
                                    "it is" if t_max == 1 else "all are"), "budget")
            raise HTTPError("no room for a connection to %s: this board holds %d sockets "
                            "at once and all are in use (httpc.SOCKETS_MAX)" % (key[1], s_max),
                            "budget")
        pooled.pop(idle).close()


def _nodelay(s):
    """Nagle off: a request is written in pieces, and with Nagle on each
    piece after the first waits for the server's delayed ACK (~40 ms).
    Where the port does not name TCP_NODELAY, only Linux and macOS (the
    unix port) get the numbers (6, 1): an older ESP32 port would print a
    warning for an option it lacks."""
    opt = getattr(socket, "TCP_NODELAY", None)
    if opt is None:
        import sys
        if sys.platform not in ("linux", "darwin"):
            return
        opt = 1
    try:
        s.setsockopt(getattr(socket, "IPPROTO_TCP", 6), opt, 1)
    except OSError:
        pass


def _address(host, port):
    """(family, address) to connect to, IPv4 first (the DNS lookup waits:
    no port offers it without)."""
    try:
        ai = socket.getaddrinfo(host, port)
    except Exception:
        ai = None
    addr = fam = None
    for a in ai or ():
        if a[0] == socket.AF_INET:
            fam, addr = a[0], a[-1]
            break
    if addr is None and ai:
        fam, addr = ai[0][0], ai[0][-1]
    if addr is None:
        raise HTTPError("cannot resolve host %s" % host, "dns")
    return fam, addr


def _open(key, connect_timeout, ca, deadline):
    """A new connection: TCP connect and the TLS handshake, each within
    connect_timeout and what is left of the deadline, once the board's
    budget has room for it."""
    scheme, host, port = key
    where = "%s:%d" % (host, port)
    _room(key)
    ctx = None
    if scheme == "https":
        from httpc.ca import context
        ctx = context(ca)
    fam, addr = _address(host, port)
    due = _due(deadline, host)
    late = due is not None and due < connect_timeout * 1000
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:            # any failure (out of memory too) closes the socket
        _nodelay(s)
        try:
            # each step (connect, TLS handshake) within connect_timeout, or
            # what is left of the deadline when that is sooner
            s.settimeout(due / 1000 if late else connect_timeout)
            s.connect(addr)
        except OSError as e:
            if is_timeout(e):
                if late:
                    raise _late(deadline, host)
                raise HTTPError("timed out connecting to %s" % where, "timeout")
            from httpc.errors import reason
            raise HTTPError("cannot connect to %s: %s" % (where, reason(e)), "connect")
        counts["opened"] += 1
        if ctx is not None:
            clock_ok()      # certificate dates need a set clock (NTP, retried)
            try:
                s = ctx.wrap_socket(s, server_hostname=host)
            except (OSError, ValueError) as e:
                if late and is_timeout(e):
                    raise _late(deadline, host)
                from httpc.errors import handshake_error
                raise handshake_error(e, host, where)
        if MICROPYTHON:
            s.setblocking(False)
        return _made(_Conn(key, host, s))
    except BaseException:
        s.close()
        raise


def _made(c):
    """c, a connection just made, counted against the board's budget (its
    close() counts it out) and known to close_all()."""
    _count(c.key, 1)
    try:
        live.append(c)
    except MemoryError:
        c.close()
        raise
    return c


def _release(c):
    old = pooled.get(c.key)
    if old is not None and old is not c:
        old.close()
    c.detach()
    c.deadline = None
    try:
        pooled[c.key] = c
    except MemoryError:     # (a new pool slot) not kept, then: closed
        c.close()
        raise


# ---------------------------------------------------------------- request

def _send(c, method, host, port, path, headers, body):
    c.wn = 0
    if port == (443 if c.key[0] == "https" else 80):
        hostline = host
    else:
        hostline = "%s:%d" % (host, port)
    c.put(("%s %s HTTP/1.1\r\nHost: %s\r\n" % (method, path, hostline)).encode())
    ua = conn = False
    if headers:
        for k in headers:
            lk = k.lower()
            if lk in ("host", "content-length", "transfer-encoding"):
                continue
            v = str(headers[k])
            if ("\n" in v or "\r" in v or ":" in k or "\n" in k or "\r" in k
                    or " " in k):
                raise ValueError("bad header %r" % k)
            if lk == "user-agent":
                ua = True
            elif lk == "connection":
                conn = True
            c.put(("%s: %s\r\n" % (k, v)).encode())
    if not ua:
        c.put(("User-Agent: %s\r\n" % USER_AGENT).encode())
    if not conn:
        c.put(b"Connection: keep-alive\r\n")
    if isinstance(body, str):
        body = body.encode()
    if body is None:
        if method not in ("GET", "HEAD", "DELETE", "OPTIONS", "TRACE"):
            c.put(b"Content-Length: 0\r\n")
        c.put(b"\r\n")
        c.flush()
    elif isinstance(body, tuple):
        length, fn = body
        c.put(("Content-Length: %d\r\n\r\n" % length).encode())
        c.limit = length
        c.total = 0
        fn(c.body)
        if c.total != length:
            raise HTTPError("request body shorter than the declared %d bytes "
                            "(wrote %d)" % (length, c.total), "protocol", c.sent)
        c.flush()
    else:
        c.put(("Content-Length: %d\r\n\r\n" % len(body)).encode())
        c.put(body)
        c.flush()


def _read_head(c, method, keep_names, req_close):
    """The response head, read waiting: the Response."""
    return drive(_head(c, method, keep_names, req_close))


def _head(c, method, keep_names, req_close, block=True):
    """The response head, read through c's buffer: a step generator (see
    drive()) that yields c while a line has not arrived whole (block
    False); returns the Response."""
    host = c.host
    interim = 0
    while True:
        a = c.line("while reading the response headers", "status line", block)
        while a is None:
            yield c
            a = c.line("while reading the response headers", "status line", block)
        b = c.le
        ln = bytes(c.rmv[a:b])
        if (len(ln) < 12 or not ln.startswith(b"HTTP/1.") or ln[8] != _SP
                or not ln[9:12].isdigit() or (len(ln) > 12 and ln[12] != _SP)):
            raise HTTPError("%s: malformed status line" % host, "protocol", True)
        status = int(ln[9:12])
        try:
            reason = ln[13:].decode()
        except UnicodeError:
            reason = ""
        # HTTP/1.0 is never pooled
        close = req_close or not ln.startswith(b"HTTP/1.1")
        length = location = None
        chunked = False
        headers = {}
        n = 0
        while True:
            a = c.line("while reading the response headers", "header line", block)
            while a is None:
                yield c
                a = c.line("while reading the response headers", "header line", block)
            b = c.le
            if a == b:
                break
            n += 1
            if n > _MAX_HEADERS:
                raise HTTPError("%s: more than %d header lines" % (host, _MAX_HEADERS),
                                "toolong", True)
            k = c.rbuf.find(b":", a, b)
            if k <= a:
                raise HTTPError("%s: malformed header line" % host, "protocol", True)
            name = bytes(c.rmv[a:k]).strip().lower()
            if name not in (b"content-length", b"transfer-encoding", b"connection",
                            b"location") and name not in keep_names:
                continue
            val = bytes(c.rmv[k + 1:b]).strip()
            if name == b"content-length":
                if not val.isdigit() or len(val) > 15:
                    raise HTTPError("%s: bad Content-Length" % host, "protocol", True)
                length = int(val)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in val.lower()
            elif name == b"connection":
                if b"close" in val.lower():
                    close = True
            elif name == b"location":
                location = val
            if name in keep_names:
                sname = name.decode()
                if len(val) > _VALUE_MAX:
                    raise HTTPError("%s: header %s longer than %d bytes" % (
                        host, sname, _VALUE_MAX), "toolong", True)
                headers[sname] = utf8(val, "%s: header %s" % (host, sname))
        if 100 <= status < 200 and status != 101:
            interim += 1
            if interim > 8:
                raise HTTPError("%s: too many interim responses" % host,
                                "protocol", True)
            continue
        break
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        mode, left = _NO_BODY, 0
    elif chunked:
        mode, left = _CHUNKED, 0
        if length is not None:
            close = True      # both framings: do not trust the connection
    elif length is not None:
        mode, left = _LENGTH, length
    else:
        mode, left, close = _TO_EOF, 0, True
    return Response(c, status, reason, headers, mode, left, not close, location)


class Response:
    """An HTTP response; the body is read with readinto()/read(). Close it
    (or use `with`) so the connection can be reused."""

    def __init__(self, c, status, reason, headers, mode, left, keep, location):
        self.status = status
        self.reason = reason
        self.headers = headers
        self._c = c
        self._mode = mode     # how the body is framed: _NO_BODY ... _TO_EOF
        self._left = left     # bytes left in the body / current chunk
        self._keep = keep
        self._loc = location
        self._chunk = _SIZE_LINE   # chunked: the framing due next
        self._done = mode == _NO_BODY or (mode == _LENGTH and left == 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(exc[0] is None)

    def readinto(self, buf, block=True):
        """Read body bytes into buf; returns the count, 0 at the end. With
        block=False: None when nothing has arrived (a part of a chunk-size
        line is kept for the next call)."""
        c = self._c
        if self._done or c is None or not len(buf):
            return 0
        if type(buf) is not memoryview:     # (a socket reads into a view faster)
            buf = memoryview(buf)
        try:
            return self._readinto(c, buf, block)
        except OSError as e:        # (HTTPError too)
            raise self._failed(c, e)

    def _failed(self, c, e):
        """The HTTPError to raise for e, an error while reading the body
        (readinto's one handler: a smaller frame for every read)."""
        self._keep = False
        if not isinstance(e, HTTPError):
            from httpc.errors import io_err
            e = io_err(e, c.host, "while reading the body")
        e.sent = True
        return e

    def _readinto(self, c, mv, block=True):
        m = self._mode
        if m == _CHUNKED and not self._left:
            n = self._next_chunk(c, block)
            if not n:
                return n            # None (nothing yet) or False (the end)
        if m == _TO_EOF:
            n = c.read_some(mv, block)
            if n == 0:
                self._done = True
            return n
        n = c.read_some(mv, block, self._left)
        if n is None:
            return None
        if not n:
            raise HTTPError("connection closed by %s while reading the body"
                            % c.host, "reset")
        self._left -= n
        if m == _LENGTH and not self._left:
            self._done = True
        return n

    def _next_chunk(self, c, block):
        """Read chunk framing up to the next chunk's data: True; False at the
        end of the body (trailers skipped); None when block is False and a
        line has not arrived whole (the state stays for the next call)."""
        while True:
            st = self._chunk
            a = c.line("while reading the body", "chunk line", block)
            if a is None:
                return None
            b = c.le
            if st == _DATA_END:             # the CRLF after a chunk's data
                if a != b:
                    raise HTTPError("%s: bad chunk size" % c.host, "protocol")
                self._chunk = _SIZE_LINE
            elif st == _SIZE_LINE:
                size = _hex(c.rbuf, a, b)
                if size < 0:
                    raise HTTPError("%s: bad chunk size" % c.host, "protocol")
                if size:
                    self._left = size
                    self._chunk = _DATA_END
                    return True
                self._chunk = _TRAILERS
                self._trailers = 0
            elif a == b:                    # the blank line after the trailers
                self._done = True
                return False
            else:
                self._trailers += 1         # trailer lines, counted and ignored
                if self._trailers > _MAX_HEADERS:
                    raise HTTPError("%s: more than %d trailer lines" % (
                        c.host, _MAX_HEADERS), "toolong")

    def read(self, n=-1, limit=None):
        """read(n): up to n bytes (fewer only at the end). read(): the whole
        (small) body, HTTPError "toolong" when larger than limit (default
        16 KB); it costs the body twice at the end (pieces, then the bytes).
        (httpc/body.py: an exchange that streams never needs it.)"""
        from httpc.body import read_body
        return read_body(self, n, limit, self._left if self._mode == _LENGTH else None)

    def close(self, drain=True):
        """Return the connection to the pool if the body was read to its end
        (after draining at most _DRAIN_MAX bytes), else close it. Idempotent.
        drain=False closes at once (an abandoned reply, e.g. after Ctrl-C)."""
        c = self._c
        if c is None:
            return
        ok = self._keep
        if ok and not self._done and drain:
            ok = self._drain(c)
        self._c = None
        if ok and self._done and c.pos == c.end:
            _release(c)
        else:
            c.close()

    def _drain(self, c):
        if self._mode == _LENGTH and self._left > _DRAIN_MAX:
            return False
        c.set_timeout(min(c.timeout_ms, 1000))
        total = 0
        try:
            while total <= _DRAIN_MAX and not self._done:
                # into the front of the buffer: the bytes are dropped
                total += self._readinto(c, c.wmv)
        except Exception:
            return False
        return self._done


def _exchange(method, key, path, headers, body, keep_names, timeout, connect_timeout,
              ca, req_close, deadline, wait=True, fresh=False, opener=None):
    """One request on a connection (pooled, or new from opener: _open, or
    the asyncio driver's): a step generator (see drive()) that returns the
    Response once its head is read."""
    scheme, host, port = key
    retried = False
    block = opener is None
    while True:
        # from here on any failure (running out of memory too) closes the
        # connection: one left behind would count against the board's
        # budget until the GC found it
        c = None if fresh else pooled.pop(key, None)
        reused = False
        try:
            if c is not None:
                if c.ca == ca and _alive(c):
                    reused = True
                    counts["reused"] += 1
                else:
                    c.close()
                    c = None
            if c is None:
                if block:
                    c = _open(key, connect_timeout, ca, deadline)
                else:
                    c = yield from opener(key, connect_timeout, ca, deadline)
                c.ca = ca
            c.deadline = deadline
            c.attach()
            c.nread = 0
            c.sent = False
            c.pos = c.end = 0
            try:
                c.set_timeout(timeout * 1000)
                phase = "while sending the request"
                _send(c, method, host, port, path, headers, body)
                if not wait:
                    c.asked = (method, keep_names, req_close)
                    return c
                phase = "while reading the response headers"
                return (yield from _head(c, method, keep_names, req_close, block))
            except HTTPError:
                raise
            except OSError as e:
                if not c.nread and phase != "while sending the request":
                    phase = "before the response"
                from httpc.errors import io_err
                raise io_err(e, host, phase)
        except HTTPError as e:
            if c is None:           # (no connection made)
                raise
            c.close()
            e.sent = c.sent
            if reused and not retried and not c.nread and e.kind == "reset":
                retried = True
                continue
            raise
        except BaseException:
            if c is not None:
                c.close()
            raise


def request(method, url, headers=None, body=None, keep=(), timeout=30,
            connect_timeout=10, max_redirects=3, ca=None, secret=(), deadline=None,
            wait=True, fresh=False):
    """Send one request and return its Response (headers read, body not).
    wait=False: return the connection as soon as the request is sent (a
    server may answer only much later, e.g. an SSE stream that starts with
    its first event); poll its .sock, then answer(c) reads the head -> the
    Response (redirects are not followed then).

    body: None | bytes | bytearray | str | (length, callable(write))
    (Content-Length; write(piece) takes bytes or str). keep: lowercase header
    names to store in Response.headers. timeout: seconds per socket read;
    connect_timeout: TCP connect + TLS handshake. ca: path of a DER or PEM
    CA file (default CA_FILE; None: built-in / system roots). secret:
    names of more headers that carry credentials (dropped, like
    Authorization, on a redirect to another origin). deadline: seconds for
    the whole request (None: no bound), from connect through redirects to
    the last byte read through the Response; every socket wait ends at it
    with HTTPError kind "deadline". fresh: a new connection, never the
    pooled one (which stays for the requests beside it)."""
    return drive(steps(method, url, headers, body, keep, timeout, connect_timeout,
                       max_redirects, ca, secret, deadline, wait, fresh))


def steps(method, url, headers=None, body=None, keep=(), timeout=30,
          connect_timeout=10, max_redirects=3, ca=None, secret=(), deadline=None,
          wait=True, fresh=False, opener=None):
    """request() as a step generator (see drive()): blocking when opener
    is None; the asyncio driver (httpc.aio) passes the opener of its
    connections, whose reads never wait (it yields the connection)."""
    method = method.upper()
    if isinstance(keep, str):
        keep = (keep,)
    keep_names = {}
    for k in keep:
        keep_names[k.lower().encode()] = 1
    if ca is None:
        ca = CA_FILE
    if deadline is not None:
        deadline = (ticks_ms(), int(deadline * 1000))
    hops = 0
    while True:
        scheme, host, port, path = _split(url)
        req_close = False
        if headers:
            for k in headers:
                if k.lower() == "connection" and "close" in str(headers[k]).lower():
                    req_close = True
        r = yield from _exchange(method, (scheme, host, port), path, headers, body, keep_names,
                                 timeout, connect_timeout, ca, req_close, deadline, wait,
                                 fresh, opener)
        if not wait:
            return r
        loc = r._loc
        if r.status not in (301, 302, 303, 307, 308) or loc is None or max_redirects <= 0:
            return r
        r.close()
        if hops >= max_redirects:
            raise HTTPError("%s: too many redirects (more than %d)" % (
                host, max_redirects), "protocol", True)
        hops += 1
        try:
            from httpc.redirect import join, credential
            url = join(scheme, host, port, path, utf8(loc, "%s: Location" % host))
            to = _split(url)
        except ValueError:
            raise HTTPError("%s: bad redirect location" % host, "protocol", True)
        if scheme == "https" and to[0] == "http":
            raise HTTPError("%s: redirect to plain http refused" % host,
                            "protocol", True)
        # another origin (scheme, host or port) never gets our credentials
        moved = to[:3] != (scheme, host, port)
        drop_type = False
        if r.status in (301, 302, 303) and method != "HEAD":
            method = "GET"
            body = None
            drop_type = True
        if headers and (drop_type or moved):
            kept = {}
            for k in headers:
                lk = k.lower()
                if moved and credential(lk, secret):
                    continue
                if drop_type and lk == "content-type":
                    continue
                kept[k] = headers[k]
            headers = kept


def answer(c):
    """The Response to a request sent with request(..., wait=False); its
    head is read now (poll c.sock first: this waits for it)."""
    method, keep_names, req_close = c.asked
    try:
        try:
            return _read_head(c, method, keep_names, req_close)
        except HTTPError:
            raise
        except OSError as e:
            from httpc.errors import io_err
            raise io_err(e, c.host, "before the response")
    except BaseException:
        c.close()
        raise


# The SSE reader and the pool's figures, imported on first use
# (CONTRIBUTING.md: Loading lazily); any other name is a submodule.
__getattr__ = lazy((("SSE", "httpc.sse"), ("Event", "httpc.sse"),
                    ("pool_stats", "httpc.pool"), ("close_all", "httpc.pool")), "httpc")
