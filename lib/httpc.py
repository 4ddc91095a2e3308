# httpc: a small HTTP/1.1 client with keep-alive, TLS verification and a
# Server-Sent Events reader, for MicroPython (ESP32, unix port) and CPython.
#
# Wire format (RFC 9112): request line, headers, CRLF, then the body as
# Content-Length bytes or Transfer-Encoding: chunked ("<hex size>\r\n<data>
# \r\n" ... "0\r\n\r\n"). Responses are read with Content-Length, chunked
# (extensions and trailers ignored) or close-delimited bodies; HEAD, 1xx,
# 204 and 304 have none. SSE (WHATWG "text/event-stream"): lines of
# "field: value", events end at a blank line, "data" lines join with "\n".
#
# Memory: each busy connection holds one 1 KB buffer: header and chunk-size
# lines must fit in it, and its first 0.5 KB coalesce the request (a
# connection writes the whole request before it reads). Bodies stream
# through the caller's buffer (readinto). An idle (pooled) connection gives
# its buffer back; one is kept for the next request, so it is allocated
# once (at import, before the heap fragments), not per request.
# Every size that comes from the network is bounded with an HTTPError.
#
# Keep-alive: one pooled connection per (scheme, host, port). A response
# returns its connection to the pool on close() when its body was read to
# the end (close() drains up to 4 KB) and the server allows it (HTTP/1.1,
# no "Connection: close", not close-delimited).
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
# max_redirects=0 returns the 3xx response. On a redirect to another host,
# credential headers (Authorization, Cookie, *key*, *token*) are dropped.
#
# TLS: always verified, always with server_hostname. Roots: with no ca=
# and httpc.CA_FILE None (the default), MicroPython uses the module cacerts
# (ROOTS: DER bytes constants, frozen in flash; made by tools/cabundle.py),
# dropped from sys.modules once loaded; CPython uses the system roots. A CA
# file (CA_FILE or ca=) replaces them: concatenated DER certificates (each
# a self-delimiting ASN.1 SEQUENCE, 0x30 + length) or a PEM bundle. On
# MicroPython each certificate goes to mbedTLS on its own (it takes DER
# only and accumulates them). The parsed roots are kept for the next request.
#
# Sockets: CPython uses settimeout + recv_into/sendall. MicroPython's
# readinto() waits for the whole buffer, so after connect (and the TLS
# handshake, done blocking with a timeout) the socket is non-blocking and
# waits happen in select.poll with the read timeout. These socket/TLS
# differences live here because httpc is the only module that uses sockets.
import socket
import select

from compat import MICROPYTHON, is_timeout, const, clock_ok

CA_FILE = None
USER_AGENT = "antos-ai/0.1"
# Called about every 100 ms while a socket waits on MicroPython (a console
# turns its spinner and looks for Ctrl-C there); None: plain waits.
ON_WAIT = None

LINE_MAX = 1024      # longest header / chunk-size / trailer line
_VALUE_MAX = const(512)      # longest kept header value
_MAX_HEADERS = const(64)     # header lines per response
_DRAIN_MAX = const(4096)     # unread body close() will skip to keep a connection
_READ_LIMIT = const(16384)   # default bound of read() / Event.read()
_WCHUNK = const(512)        # write coalescing buffer (and chunk size)


_pool = {}
# the buffer of the next connection (that of an idle connection is kept);
# the first is made now, while the heap is still in one piece
_spare = [bytearray(LINE_MAX + 8)]
_stats = {"opened": 0, "reused": 0}
_ctx = [None, None]   # [ca path, SSL context]: parsed roots are kept for reuse


class HTTPError(OSError):
    """Every expected failure. str(e) is one line; .kind is one of connect,
    dns, timeout, reset, protocol, tls, toolong; .sent is True once any
    request byte was written."""

    def __init__(self, msg, kind="protocol", sent=False):
        super().__init__(msg)
        self.msg = msg
        self.kind = kind
        self.sent = sent

    def __str__(self):
        return self.msg


def pool_stats():
    """{"opened": TCP connections opened so far, "reused": pooled reuses}."""
    return {"opened": _stats["opened"], "reused": _stats["reused"]}


def close_all():
    """Close every pooled connection."""
    for k in list(_pool):
        _pool.pop(k).close()


# ---------------------------------------------------------------- helpers

def _errno(e):
    code = getattr(e, "errno", None)
    if code is None and e.args:
        code = e.args[0]
    return code if isinstance(code, int) else None


def _reason(e):
    code = _errno(e)
    if code == 111:
        return "connection refused"
    if code == 113:
        return "no route to host"
    if code == 101:
        return "network unreachable"
    if code in (104, 32):
        return "connection reset"
    if code == 103:
        return "connection aborted"
    return _short(e)


def _short(e):
    s = str(e).strip()
    i = s.find("\n")
    if i >= 0:
        s = s[:i]
    if len(s) > 80:
        s = s[:80]
    return s or type(e).__name__


def _io_err(e, host, phase):
    """Map an OSError from a socket read/write to an HTTPError."""
    if is_timeout(e):
        return HTTPError("timed out waiting for %s" % host, "timeout")
    code = _errno(e)
    if code in (104, 32, 103, 107, 9, 8) or type(e).__name__ in (
            "SSLEOFError", "SSLZeroReturnError"):
        return HTTPError("connection reset by %s %s" % (host, phase), "reset")
    return HTTPError("connection to %s failed %s: %s" % (host, phase, _short(e)),
                     "reset")


def _dec(b, what):
    try:
        return b.decode()
    except UnicodeError:
        raise HTTPError("%s is not valid UTF-8" % what, "protocol", True)


def _hex(buf, a, b):
    """Chunk size from buf[a:b] ("1a;ext" allowed), -1 if malformed."""
    e = buf.find(b";", a, b)
    if e < 0:
        e = b
    while e > a and buf[e - 1] in (32, 9):
        e -= 1
    if e == a or e - a > 8:
        return -1
    v = 0
    for i in range(a, e):
        c = buf[i]
        if 48 <= c <= 57:
            c -= 48
        elif 97 <= c <= 102:
            c -= 87
        elif 65 <= c <= 70:
            c -= 55
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


def _join(scheme, host, port, path, loc):
    """Resolve a Location header against the current URL."""
    if loc.startswith("//"):
        return scheme + ":" + loc
    low = loc[:8].lower()
    if low.startswith("http://") or low.startswith("https://"):
        return loc
    base = "%s://%s:%d" % (scheme, host, port)
    if loc.startswith("/"):
        return base + loc
    q = path.find("?")
    if q >= 0:
        path = path[:q]
    if loc.startswith("?"):
        return base + path + loc
    return base + path[:path.rfind("/") + 1] + loc


def _secret(name):
    n = name.lower()
    return ("auth" in n or "cookie" in n or "key" in n or "token" in n)


# ---------------------------------------------------------------- TLS

def _each_cert(path, fn):
    """Call fn(der_bytes) for every certificate in a DER or PEM bundle."""
    try:
        f = open(path, "rb")
    except OSError:
        raise HTTPError("TLS: cannot read CA file %s (fix the path, or set "
                        "httpc.CA_FILE = None for the default roots)" % path, "tls")
    bad = HTTPError("TLS: CA file %s is not a DER or PEM certificate bundle"
                    % path, "tls")
    n = 0
    try:
        first = f.read(1)
        f.seek(0)
        if first == b"\x30":
            pos = 0
            while True:
                hdr = f.read(4)
                if not hdr:
                    break
                if len(hdr) < 4 or hdr[0] != 0x30:
                    raise bad
                ln = hdr[1]
                if ln < 0x80:
                    total = 2 + ln
                elif ln in (0x81, 0x82):
                    k = ln & 0x7F
                    v = hdr[2] if k == 1 else hdr[2] * 256 + hdr[3]
                    total = 2 + k + v
                else:
                    raise bad
                if total > 16384:
                    raise bad
                f.seek(pos)
                der = f.read(total)
                if len(der) != total:
                    raise bad
                fn(der)
                n += 1
                pos += total
        else:
            import binascii
            parts = None
            while True:
                line = f.readline()
                if not line:
                    break
                line = line.strip()
                if line.startswith(b"-----BEGIN CERTIFICATE"):
                    parts = []
                elif line.startswith(b"-----END CERTIFICATE"):
                    if parts:
                        fn(binascii.a2b_base64(b"".join(parts)))
                        n += 1
                    parts = None
                elif parts is not None:
                    parts.append(line)
                    if len(parts) > 400:
                        raise bad
    finally:
        f.close()
    if not n:
        raise bad
    return n


def _context(ca):
    if ca is None:
        ca = CA_FILE
    if _ctx[1] is not None and _ctx[0] == ca:
        return _ctx[1]
    _ctx[0] = _ctx[1] = None
    if MICROPYTHON:
        import tls
        ctx = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
        ctx.verify_mode = tls.CERT_REQUIRED

        def add(der):
            try:
                ctx.load_verify_locations(der)
            except (ValueError, OSError):
                raise HTTPError("TLS: bad certificate in %s" % (ca or "cacerts"),
                                "tls")
        if ca is None:
            import sys
            try:
                import cacerts
            except ImportError:
                raise HTTPError("TLS: no CA certificates (no cacerts module in "
                                "the firmware; set httpc.CA_FILE)", "tls")
            try:
                for der in cacerts.ROOTS:
                    add(der)
            finally:
                # a copy loaded from a .mpy file would keep ~6 KB of heap
                sys.modules.pop("cacerts", None)
        else:
            _each_cert(ca, add)
    else:
        import ssl
        if ca is None:
            ctx = ssl.create_default_context()
        else:
            ders = []
            _each_cert(ca, ders.append)
            try:
                ctx = ssl.create_default_context(cadata=b"".join(ders))
            except ssl.SSLError:
                raise HTTPError("TLS: bad certificate in CA file %s" % ca, "tls")
        ctx.check_hostname = True
    _ctx[0] = ca
    _ctx[1] = ctx
    return ctx


def _tls_err(e, host, where):
    if is_timeout(e):
        return HTTPError("timed out connecting to %s" % where, "timeout")
    vc = getattr(e, "verify_code", None)
    code = _errno(e)
    low = str(e).lower()
    if vc in (2, 18, 19, 20, 21) or "not correctly signed" in low or (
            "unknown ca" in low or "issuer" in low or "self-signed" in low
            or "self signed" in low or "not trusted" in low):
        msg = "TLS: certificate not trusted for %s (unknown CA)" % host
    elif vc in (62, 64) or "mismatch" in low or "does not match" in low:
        msg = "TLS: certificate does not match host %s" % host
    elif vc in (9, 10) or "expired" in low or "future" in low:
        msg = ("TLS: certificate for %s is expired or not yet valid "
               "(is the clock set?)" % host)
    elif code == -30336 or "ca_chain_required" in low:
        msg = "TLS: no CA certificates loaded (set httpc.CA_FILE)"
    elif code == -9984 or "verify failed" in low:
        msg = "TLS: certificate verification failed for %s" % host
    elif code in (104, 32, 103):
        msg = "TLS handshake with %s failed: connection reset" % where
    else:
        msg = "TLS handshake with %s failed: %s" % (where, _short(e))
    return HTTPError(msg, "tls")


# ---------------------------------------------------------------- connection

class _Conn:
    def __init__(self, key, host, sock):
        self.key = key
        self.host = host
        self.sock = sock
        self.rbuf = None
        self.attach()
        self.pos = self.end = 0
        self.nread = 0        # response bytes received for this request
        self.sent = False     # any request byte handed to the socket
        self.tmo = 30000
        self.ca = None        # CA bundle it was verified with (reuse only then)
        self.poll = select.poll()
        self.poll.register(sock, select.POLLIN)

    def attach(self):
        """Take a buffer (an idle connection holds none; one is kept for the
        next user). Reading and writing never overlap on a connection, so
        the write buffer is the front of the read buffer."""
        if self.rbuf is None:
            self.rbuf = _spare.pop() if _spare else bytearray(LINE_MAX + 8)
            self.rmv = memoryview(self.rbuf)
            self.wmv = self.rmv[0:_WCHUNK + 16]

    def detach(self):
        if self.rbuf is not None:
            if not _spare:
                _spare.append(self.rbuf)
            self.rbuf = self.rmv = self.wmv = None

    def set_timeout(self, ms):
        self.tmo = int(ms)
        if not MICROPYTHON:
            self.sock.settimeout(ms / 1000)

    def close(self):
        self.detach()
        s = self.sock
        self.sock = None
        if s is not None:
            try:
                s.close()
            except Exception:
                pass

    def recv(self, mv):
        """Read what is available (at least 1 byte) into mv; 0 at EOF."""
        if MICROPYTHON:
            while True:
                n = self.sock.readinto(mv)
                if n is not None:
                    break
                if not self.wait():
                    raise OSError(110)
        else:
            n = self.sock.recv_into(mv)
        self.nread += n
        return n

    def send(self, data):
        self.sent = True
        if not MICROPYTHON:
            self.sock.sendall(data)
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
                r = self.wait()
            finally:
                self.poll.modify(self.sock, select.POLLIN)
            if not r:
                raise OSError(110)

    def wait(self):
        """Poll up to the read timeout; False when it passed. ON_WAIT runs
        between 100 ms slices (it may raise, e.g. KeyboardInterrupt)."""
        left = self.tmo
        while left > 0:
            step = left if ON_WAIT is None else min(left, 100)
            if self.poll.poll(step):
                return True
            left -= step
            if ON_WAIT is not None:
                ON_WAIT()
        return False

    def read_some(self, mv):
        """Buffered bytes first, then straight from the socket into mv."""
        k = self.end - self.pos
        if k:
            if k > len(mv):
                k = len(mv)
            mv[:k] = self.rmv[self.pos:self.pos + k]
            self.pos += k
            return k
        self.pos = self.end = 0
        return self.recv(mv)

    def line(self, phase, what):
        """Next line (LF or CRLF): its (start, end) in rbuf, bounded."""
        buf = self.rbuf
        while True:
            i = buf.find(b"\n", self.pos, self.end)
            if i >= 0:
                a = self.pos
                self.pos = i + 1
                if i > a and buf[i - 1] == 13:
                    i -= 1
                if i - a > LINE_MAX:
                    break
                return a, i
            k = self.end - self.pos
            if k > LINE_MAX + 1:
                break
            if self.pos == self.end:
                self.pos = self.end = 0
            elif self.pos:
                buf[0:k] = bytes(self.rmv[self.pos:self.end])
                self.pos, self.end = 0, k
            n = self.recv(self.rmv[self.end:])
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
        if MICROPYTHON:
            return c.sock.readinto(bytearray(1)) is None   # TLS ticket only
        c.sock.setblocking(False)
        try:
            c.sock.recv_into(bytearray(1))
            return False
        except OSError as e:
            return type(e).__name__ in ("BlockingIOError", "SSLWantReadError")
    except Exception:
        return False


def _open(key, connect_timeout, ca):
    scheme, host, port = key
    where = "%s:%d" % (host, port)
    ctx = _context(ca) if scheme == "https" else None
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
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.settimeout(connect_timeout)
        s.connect(addr)
    except OSError as e:
        s.close()
        if is_timeout(e):
            raise HTTPError("timed out connecting to %s" % where, "timeout")
        raise HTTPError("cannot connect to %s: %s" % (where, _reason(e)), "connect")
    _stats["opened"] += 1
    if ctx is not None:
        clock_ok()      # certificate dates need a set clock (NTP, retried)
        try:
            s = ctx.wrap_socket(s, server_hostname=host)
        except Exception as e:
            s.close()
            if not isinstance(e, (OSError, ValueError)):
                raise
            raise _tls_err(e, host, where)
    if MICROPYTHON:
        s.setblocking(False)
    return _Conn(key, host, s)


def _release(c):
    old = _pool.get(c.key)
    if old is not None and old is not c:
        old.close()
    c.detach()
    _pool[c.key] = c


# ---------------------------------------------------------------- request

class _Out:
    """Request writer: coalesces small writes in the connection's buffer;
    in chunked mode each flush is one chunk (size line written in front)."""

    def __init__(self, c):
        self.c = c
        self.mv = c.wmv
        self.n = 0
        self.chunked = False
        self.limit = None
        self.total = 0

    def put(self, data):
        n = len(data)
        if self.n + n > _WCHUNK:
            self.flush()
            if n > _WCHUNK:
                self.c.send(data)
                return
        self.mv[self.n:self.n + n] = data
        self.n += n

    def flush(self):
        if self.n:
            self.c.send(self.mv[:self.n])
            self.n = 0

    def body(self, piece):
        if isinstance(piece, str):
            piece = piece.encode()
        n = len(piece)
        if not n:
            return
        self.total += n
        if not self.chunked:
            if self.total > self.limit:
                raise HTTPError("request body longer than the declared %d bytes"
                                % self.limit, "protocol", self.c.sent)
            self.put(piece)
            return
        if self.n + n > _WCHUNK:
            self.chunk()
            if n > _WCHUNK:
                self.c.send(("%x\r\n" % n).encode())
                self.c.send(piece)
                self.c.send(b"\r\n")
                return
        self.mv[8 + self.n:8 + self.n + n] = piece
        self.n += n

    def chunk(self):
        n = self.n
        if n:
            h = ("%x\r\n" % n).encode()
            a = 8 - len(h)
            self.mv[a:8] = h
            self.mv[8 + n:10 + n] = b"\r\n"
            self.c.send(self.mv[a:10 + n])
            self.n = 0


def _send(c, method, host, port, path, headers, body):
    out = _Out(c)
    if port == (443 if c.key[0] == "https" else 80):
        hostline = host
    else:
        hostline = "%s:%d" % (host, port)
    out.put(("%s %s HTTP/1.1\r\nHost: %s\r\n" % (method, path, hostline)).encode())
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
            out.put(("%s: %s\r\n" % (k, v)).encode())
    if not ua:
        out.put(("User-Agent: %s\r\n" % USER_AGENT).encode())
    if not conn:
        out.put(b"Connection: keep-alive\r\n")
    if isinstance(body, str):
        body = body.encode()
    if body is None:
        if method not in ("GET", "HEAD", "DELETE", "OPTIONS", "TRACE"):
            out.put(b"Content-Length: 0\r\n")
        out.put(b"\r\n")
        out.flush()
    elif isinstance(body, tuple):
        length, fn = body
        out.put(("Content-Length: %d\r\n\r\n" % length).encode())
        out.limit = length
        fn(out.body)
        if out.total != length:
            raise HTTPError("request body shorter than the declared %d bytes "
                            "(wrote %d)" % (length, out.total), "protocol", c.sent)
        out.flush()
    elif callable(body):
        out.put(b"Transfer-Encoding: chunked\r\n\r\n")
        out.flush()
        out.chunked = True
        fn = body
        fn(out.body)
        out.chunk()
        c.send(b"0\r\n\r\n")
    else:
        out.put(("Content-Length: %d\r\n\r\n" % len(body)).encode())
        out.put(body)
        out.flush()


def _read_head(c, method, keepb, req_close):
    host = c.host
    interim = 0
    while True:
        a, b = c.line("while reading the response headers", "status line")
        ln = bytes(c.rmv[a:b])
        if (len(ln) < 12 or not ln.startswith(b"HTTP/1.") or ln[8] != 32
                or not ln[9:12].isdigit() or (len(ln) > 12 and ln[12] != 32)):
            raise HTTPError("%s: malformed status line" % host, "protocol", True)
        status = int(ln[9:12])
        try:
            reason = ln[13:].decode()
        except UnicodeError:
            reason = ""
        close = ln[7] != 49 or req_close      # HTTP/1.0 is never pooled
        length = location = None
        chunked = False
        headers = {}
        n = 0
        while True:
            a, b = c.line("while reading the response headers", "header line")
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
                            b"location") and name not in keepb:
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
            if name in keepb:
                sname = name.decode()
                if len(val) > _VALUE_MAX:
                    raise HTTPError("%s: header %s longer than %d bytes" % (
                        host, sname, _VALUE_MAX), "toolong", True)
                headers[sname] = _dec(val, "%s: header %s" % (host, sname))
        if 100 <= status < 200 and status != 101:
            interim += 1
            if interim > 8:
                raise HTTPError("%s: too many interim responses" % host,
                                "protocol", True)
            continue
        break
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        mode, left = 0, 0
    elif chunked:
        mode, left = 2, 0
        if length is not None:
            close = True      # both framings: do not trust the connection
    elif length is not None:
        mode, left = 1, length
    else:
        mode, left, close = 3, 0, True
    return Response(c, status, reason, headers, mode, left, not close, location)


class Response:
    """An HTTP response; the body is read with readinto()/read(). Close it
    (or use `with`) so the connection can be reused."""

    def __init__(self, c, status, reason, headers, mode, left, keep, location):
        self.status = status
        self.reason = reason
        self.headers = headers
        self._c = c
        self._mode = mode     # 0 none, 1 Content-Length, 2 chunked, 3 until EOF
        self._left = left     # bytes left in the body / current chunk
        self._keep = keep
        self._loc = location
        self._first = True
        self._done = mode == 0 or (mode == 1 and left == 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(exc[0] is None)

    def readinto(self, buf):
        """Read body bytes into buf; returns the count, 0 at the end."""
        c = self._c
        if self._done or c is None:
            return 0
        mv = memoryview(buf)
        if not len(mv):
            return 0
        try:
            return self._readinto(c, mv)
        except HTTPError as e:
            self._keep = False
            e.sent = True
            raise
        except OSError as e:
            self._keep = False
            err = _io_err(e, c.host, "while reading the body")
            err.sent = True
            raise err

    def _readinto(self, c, mv):
        m = self._mode
        if m == 2:
            if not self._left:
                if not self._first:
                    a, b = c.line("while reading the body", "chunk line")
                    if a != b:
                        raise HTTPError("%s: bad chunk size" % c.host, "protocol")
                self._first = False
                a, b = c.line("while reading the body", "chunk line")
                size = _hex(c.rbuf, a, b)
                if size < 0:
                    raise HTTPError("%s: bad chunk size" % c.host, "protocol")
                if not size:
                    for _ in range(_MAX_HEADERS + 1):     # trailers, ignored
                        a, b = c.line("while reading the body", "trailer line")
                        if a == b:
                            self._done = True
                            return 0
                    raise HTTPError("%s: more than %d trailer lines" % (
                        c.host, _MAX_HEADERS), "toolong")
                self._left = size
        if m == 3:
            n = c.read_some(mv)
            if not n:
                self._done = True
            return n
        if len(mv) > self._left:
            mv = mv[:self._left]
        n = c.read_some(mv)
        if not n:
            raise HTTPError("connection closed by %s while reading the body"
                            % c.host, "reset")
        self._left -= n
        if m == 1 and not self._left:
            self._done = True
        return n

    def read(self, n=-1, limit=_READ_LIMIT):
        """read(n): up to n bytes (fewer only at the end). read(): the whole
        (small) body, HTTPError "toolong" when larger than limit."""
        if n is not None and n >= 0:
            buf = bytearray(n)
            mv = memoryview(buf)
            got = 0
            while got < n:
                k = self.readinto(mv[got:])
                if not k:
                    break
                got += k
            return bytes(mv[:got])
        host = self._c.host if self._c else "server"
        too = HTTPError("%s: response body larger than %d bytes" % (host, limit),
                        "toolong", True)
        size = 256
        if self._mode == 1:
            if self._left > limit:
                raise too
            size = self._left + 1
        buf = bytearray(size)
        got = 0
        while True:
            if got == len(buf):
                if got > limit:
                    raise too
                nb = bytearray(min(got * 2, limit + 1))
                nb[:got] = buf
                buf = nb
            k = self.readinto(memoryview(buf)[got:])
            if not k:
                break
            got += k
            if got > limit:
                raise too
        return bytes(memoryview(buf)[:got])

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
        if self._mode == 1 and self._left > _DRAIN_MAX:
            return False
        c.set_timeout(min(c.tmo, 1000))
        total = 0
        try:
            while total <= _DRAIN_MAX and not self._done:
                # into the front of the buffer: the bytes are dropped
                total += self._readinto(c, c.wmv)
        except Exception:
            return False
        return self._done


def _exchange(method, key, path, headers, body, keepb, timeout, connect_timeout,
              ca, req_close):
    scheme, host, port = key
    retried = False
    while True:
        c = _pool.pop(key, None)
        reused = False
        if c is not None:
            if c.ca == ca and _alive(c):
                reused = True
                _stats["reused"] += 1
            else:
                c.close()
                c = None
        if c is None:
            c = _open(key, connect_timeout, ca)
            c.ca = ca
        c.attach()
        c.nread = 0
        c.sent = False
        c.pos = c.end = 0
        try:
            try:
                c.set_timeout(timeout * 1000)
                phase = "while sending the request"
                _send(c, method, host, port, path, headers, body)
                phase = "while reading the response headers"
                return _read_head(c, method, keepb, req_close)
            except HTTPError:
                raise
            except OSError as e:
                if not c.nread and phase != "while sending the request":
                    phase = "before the response"
                raise _io_err(e, host, phase)
        except HTTPError as e:
            c.close()
            e.sent = c.sent
            if reused and not retried and not c.nread and e.kind == "reset":
                retried = True
                continue
            raise
        except BaseException:
            c.close()
            raise


def request(method, url, headers=None, body=None, keep=(), timeout=30,
            connect_timeout=10, max_redirects=3, ca=None):
    """Send one request and return its Response (headers read, body not).

    body: None | bytes | bytearray | str | callable(write) (chunked) |
    (length, callable(write)) (Content-Length). keep: lowercase header
    names to store in Response.headers. timeout: seconds per socket read;
    connect_timeout: TCP connect + TLS handshake. ca: path of a DER or PEM
    CA file (default CA_FILE; None: built-in / system roots)."""
    method = method.upper()
    if isinstance(keep, str):
        keep = (keep,)
    keepb = {}
    for k in keep:
        keepb[k.lower().encode()] = 1
    if ca is None:
        ca = CA_FILE
    hops = 0
    while True:
        scheme, host, port, path = _split(url)
        req_close = False
        if headers:
            for k in headers:
                if k.lower() == "connection" and "close" in str(headers[k]).lower():
                    req_close = True
        r = _exchange(method, (scheme, host, port), path, headers, body, keepb,
                      timeout, connect_timeout, ca, req_close)
        loc = r._loc
        if r.status not in (301, 302, 303, 307, 308) or loc is None or max_redirects <= 0:
            return r
        r.close()
        if hops >= max_redirects:
            raise HTTPError("%s: too many redirects (more than %d)" % (
                host, max_redirects), "protocol", True)
        hops += 1
        try:
            url = _join(scheme, host, port, path, _dec(loc, "%s: Location" % host))
            nhost = _split(url)[1]
        except ValueError:
            raise HTTPError("%s: bad redirect location" % host, "protocol", True)
        drop_type = False
        if r.status in (301, 302, 303) and method != "HEAD":
            method = "GET"
            body = None
            drop_type = True
        if headers and (drop_type or nhost != host):
            nh = {}
            for k in headers:
                lk = k.lower()
                if nhost != host and _secret(lk):
                    continue
                if drop_type and lk == "content-type":
                    continue
                nh[k] = headers[k]
            headers = nh


# ---------------------------------------------------------------- SSE

class Event:
    """One SSE event. .event/.id/.retry are final once the data has been
    read to its end (fields after the data lines are rare but legal). The
    data is a byte stream: readinto(buf) / read(limit)."""

    def __init__(self, sse):
        self._src = sse
        self._n = 0
        self.event = "message"
        self.id = sse.last_id
        self.retry = sse.retry

    def readinto(self, buf):
        s = self._src
        if s is None or s._cur is not self:
            return 0
        return s._data(memoryview(buf), self)

    def read(self, limit=_READ_LIMIT):
        buf = bytearray(64)
        got = 0
        while True:
            if got == len(buf):
                if got > limit:
                    break
                nb = bytearray(min(got * 2, limit + 1))
                nb[:got] = buf
                buf = nb
            k = self.readinto(memoryview(buf)[got:])
            if not k:
                return bytes(memoryview(buf)[:got])
            got += k
            if got > limit:
                break
        raise HTTPError("SSE event data larger than %d bytes" % limit,
                        "toolong", True)

    @property
    def empty(self):
        """True when the event's data is empty (e.g. a priming `data:`)."""
        if self._n:
            return False
        s = self._src
        if s is None or s._cur is not self:
            return True
        return s._peek_empty()


class SSE:
    """Server-Sent Events reader over anything with readinto() (a Response).

    next() returns the next Event that has a data field (possibly empty:
    check .empty), or None at the end of the stream. Events without any
    data line (e.g. retry-only) are NOT returned, as in the WHATWG spec;
    their id/retry still update .last_id/.retry. The Event is returned as
    soon as its first data line starts; unread data is skipped by the next
    next(). An event cut off by the end of the stream ends its data early.
    Field lines other than data (event, id, retry, unknown) are bounded by
    max_line; data lines are streamed and unbounded."""

    def __init__(self, resp, max_line=LINE_MAX):
        self._src = resp
        self._maxv = max_line
        self._b = bytearray(max_line + 16)
        self._mv = memoryview(self._b)
        self.pos = self.end = 0
        self._eof = False
        self._lf = False      # the last line ended with CR: drop one LF
        self._bom = True
        self._cur = None
        self._st = 2          # 0 in a data value, 1 at a line start, 2 event end
        self._nl = False      # "\n" owed between two data lines
        self.last_id = None
        self.retry = None

    def __iter__(self):
        return self

    def __next__(self):
        ev = self.next()
        if ev is None:
            raise StopIteration
        return ev

    def close(self):
        self._cur = None
        self._src.close()

    def _fill(self):
        if self._eof:
            return False
        if self.pos == self.end:
            self.pos = self.end = 0
        elif self.end == len(self._b):
            k = self.end - self.pos
            self._b[0:k] = bytes(self._mv[self.pos:self.end])
            self.pos, self.end = 0, k
        n = self._src.readinto(self._mv[self.end:])
        if not n:
            self._eof = True
            return False
        self.end += n
        return True

    def _eol(self, a):
        b = self._b
        i = b.find(b"\n", a, self.end)
        j = b.find(b"\r", a, self.end if i < 0 else i)
        return j if j >= 0 else i

    def _skip_line(self):
        while True:
            i = self._eol(self.pos)
            if i >= 0:
                self.pos = i + 1
                self._lf = self._b[i] == 13
                return True
            self.pos = self.end
            if not self._fill():
                return False

    def _toolong(self):
        return HTTPError("SSE field line longer than %d bytes" % self._maxv,
                         "toolong", True)

    def _field(self):
        """Consume lines up to the next data value or blank line.
        Returns 2 at a data value, 1 after a blank line, 0 at end of stream."""
        b = self._b
        while True:
            if self.pos == self.end and not self._fill():
                return 0
            if self._lf:
                self._lf = False
                if b[self.pos] == 10:
                    self.pos += 1
                    continue
            if self._bom:
                self._bom = False
                while self.end - self.pos < 3 and self._fill():
                    pass
                if b.find(b"\xef\xbb\xbf", self.pos, self.pos + 3) == self.pos:
                    self.pos += 3
                continue
            c = b[self.pos]
            if c == 10 or c == 13:
                self.pos += 1
                self._lf = c == 13
                return 1
            if c == 58:                    # ":" comment
                if not self._skip_line():
                    return 0
                continue
            while True:                    # the name ends at ":" or the EOL
                k = self._eol(self.pos)
                col = b.find(b":", self.pos, self.end if k < 0 else k)
                if col >= 0 or k >= 0:
                    break
                if self.end - self.pos >= self._maxv:
                    raise self._toolong()
                if not self._fill():
                    return 0
            a = self.pos
            end = col if col >= 0 else k
            if end - a == 4 and b.find(b"data", a, end) == a:
                if col < 0:
                    self.pos = k            # "data" alone: empty value
                    return 2
                self.pos = col + 1
                if self.pos == self.end:
                    self._fill()
                if self.pos < self.end and b[self.pos] == 32:
                    self.pos += 1
                return 2
            while k < 0:                   # other fields: the whole line
                if self.end - self.pos >= self._maxv:
                    raise self._toolong()
                if not self._fill():
                    return 0
                k = self._eol(self.pos)
            if k - self.pos > self._maxv:
                raise self._toolong()
            self._apply(self.pos, k)
            self.pos = k + 1
            self._lf = b[k] == 13

    def _apply(self, a, k):
        b = self._b
        col = b.find(b":", a, k)
        if col < 0:
            name, val = bytes(self._mv[a:k]), b""
        else:
            name = bytes(self._mv[a:col])
            v = col + 1
            if v < k and b[v] == 32:
                v += 1
            val = bytes(self._mv[v:k])
        ev = self._cur
        if name == b"event":
            ev.event = _dec(val, "SSE event name") if val else "message"
        elif name == b"id":
            if b"\x00" not in val:
                self.last_id = _dec(val, "SSE id")
                ev.id = self.last_id
        elif name == b"retry":
            if val and val.isdigit():
                self.retry = int(val)
                ev.retry = self.retry

    def _data(self, mv, ev):
        n = len(mv)
        got = 0
        b = self._b
        while got < n:
            if self._nl:
                mv[got] = 10
                got += 1
                self._nl = False
                continue
            st = self._st
            if st == 0:
                if self.pos == self.end:
                    if got:
                        break
                    if not self._fill():
                        self._st = 2
                        break
                i = self._eol(self.pos)
                e = self.end if i < 0 else i
                k = e - self.pos
                if k > n - got:
                    k = n - got
                if k:
                    mv[got:got + k] = self._mv[self.pos:self.pos + k]
                    self.pos += k
                    got += k
                if i >= 0 and self.pos == i:
                    self.pos = i + 1
                    self._lf = b[i] == 13
                    self._st = 1
            elif st == 1:
                if got and self.pos == self.end:
                    break          # hand over what we have before blocking
                if self._field() == 2:
                    self._nl = True
                    self._st = 0
                else:
                    self._st = 2
            else:
                break
        ev._n += got
        return got

    def _peek_empty(self):
        b = self._b
        while True:
            if self._nl:
                return False
            st = self._st
            if st == 0:
                if self.pos == self.end and not self._fill():
                    self._st = 2
                    return True
                c = b[self.pos]
                if c != 10 and c != 13:
                    return False
                self.pos += 1
                self._lf = c == 13
                self._st = 1
            elif st == 1:
                if self._field() == 2:
                    self._nl = True
                    self._st = 0
                else:
                    self._st = 2
            else:
                return True

    def _finish(self):
        while True:
            st = self._st
            self._nl = False
            if st == 0:
                if not self._skip_line():
                    self._st = 2
                    return
                self._st = 1
            elif st == 1:
                self._st = 0 if self._field() == 2 else 2
            else:
                return

    def next(self):
        """The next event with data, or None at the end of the stream."""
        if self._cur is not None:
            self._finish()
            self._cur = None
        ev = Event(self)
        self._cur = ev
        while True:
            r = self._field()
            if r == 2:
                self._st = 0
                self._nl = False
                return ev
            if r == 0:
                self._cur = None
                self._st = 2
                return None
            ev.event = "message"         # blank line without data: discarded
            ev.id = self.last_id
