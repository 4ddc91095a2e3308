"""Loopback HTTP/1.1 test server for host tests (CPython only, stdlib).

A threaded server on 127.0.0.1 whose handler is a plain function that gets
the parsed request and a raw writer, so a test can answer with exact bytes,
including broken ones. Reusable by any test (AI styles, MCP, httpc).

    from httpserver import Server

    def handler(req, w):
        # req.method, req.path (with query), req.version ("HTTP/1.1"),
        # req.headers (lowercase name -> last value), req.header_list
        # [(name, value)] as sent, req.body (bytes, de-chunked),
        # req.chunks (list of chunk sizes as received, or None),
        # req.conn (1-based TCP connection number), req.index (1-based
        # request number on that connection), req.raw_head (bytes),
        # req.tls (True when it came over TLS)
        w.respond(200, b"hello", headers={"Content-Type": "text/plain"})
        # or: w.respond(200, b"...", chunked=True, close=True)
        # or streaming: w.start(200, {"Content-Type": "text/event-stream"})
        #               w.chunk(b"data: 1\n\n"); w.end()
        # or slowly: w.drip(b"...", gap=0.5) (a byte every gap seconds),
        #            w.sse_forever(b": ping\n\n", gap=0.3)
        # or raw bytes: w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhal")
        # then optionally w.close() (FIN) or w.reset() (RST).
        # Returning without closing keeps the connection for the next request
        # (unless the request said "Connection: close").

    with Server(handler) as srv:          # Server(handler, tls=server_ssl_ctx)
        srv.url        # "http://127.0.0.1:PORT" ("https://..." with tls)
        srv.port
        srv.accepts    # TCP connections accepted so far
        srv.requests   # every parsed request, in arrival order
        srv.errors     # handler exceptions / TLS handshake failures (str)

Options: idle_close=seconds closes a kept-alive connection silently after
that idle time (to test stale keep-alive handling); backlog for listen();
with tls, plain_too=True also serves plain HTTP on the same port (a
connection whose first byte is not a TLS handshake record stays plain), so
one origin can differ from another by its scheme alone.
wait_for(cond, timeout) polls a condition (server-side effects are async).
"""
import socket
import threading
import time


class Request:
    def __init__(self):
        self.method = self.path = self.version = None
        self.headers = {}
        self.header_list = []
        self.body = b""
        self.chunks = None
        self.conn = self.index = 0
        self.raw_head = b""
        self.tls = False

    def __repr__(self):
        return "<Request %s %s conn=%d #%d>" % (self.method, self.path, self.conn,
                                                self.index)


class Writer:
    """Raw access to one client connection."""

    def __init__(self, sock):
        self.sock = sock
        self.closed = False

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def start(self, status, headers=None, chunked=True, reason=None, close=False):
        """Status line and headers; chunked=True adds Transfer-Encoding."""
        lines = ["HTTP/1.1 %d %s" % (status, reason or _REASON.get(status, "X"))]
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        if close:
            lines.append("Connection: close")
        self.write(("\r\n".join(lines) + "\r\n\r\n").encode())

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode()
        if data:
            self.write(b"%x\r\n" % len(data) + data + b"\r\n")

    def end(self):
        self.write(b"0\r\n\r\n")

    def sse_forever(self, event, gap=0.3):
        """200 text/event-stream (chunked), then `event` every gap seconds
        for as long as the client listens (keep-alive comments, empty
        deltas: a stream that never ends and never goes quiet)."""
        self.start(200, {"Content-Type": "text/event-stream"})
        while True:
            try:
                self.chunk(event)
            except OSError:
                return
            time.sleep(gap)

    def drip(self, data, gap=0.5):
        """Send data a byte at a time, gap seconds apart, for as long as the
        client listens: a slow server no read timeout catches."""
        for i in range(len(data)):
            try:
                self.write(data[i:i + 1])
            except OSError:
                return
            time.sleep(gap)

    def respond(self, status, body=b"", headers=None, chunked=False, reason=None,
                close=False):
        if isinstance(body, str):
            body = body.encode()
        h = dict(headers or {})
        if not chunked:
            h["Content-Length"] = str(len(body))
        self.start(status, h, chunked, reason, close)
        if chunked:
            self.chunk(body)
            self.end()
        else:
            self.write(body)
        if close:
            self.close()

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()

    def reset(self):
        """Abort with a TCP RST."""
        if not self.closed:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                 b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.closed = True
            self.sock.close()


_REASON = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently",
           302: "Found", 303: "See Other", 304: "Not Modified",
           307: "Temporary Redirect", 308: "Permanent Redirect",
           400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           429: "Too Many Requests", 500: "Internal Server Error",
           503: "Service Unavailable"}


class _Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def more(self):
        d = self.sock.recv(65536)
        if not d:
            raise EOFError
        self.buf += d

    def until(self, sep, limit=1 << 20):
        while sep not in self.buf:
            if len(self.buf) > limit:
                raise ValueError("request head too long")
            self.more()
        i = self.buf.index(sep) + len(sep)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def exactly(self, n):
        while len(self.buf) < n:
            self.more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


class Server:
    def __init__(self, handler, tls=None, idle_close=None, backlog=16, plain_too=False):
        """handler(req, writer); tls: a server-side ssl.SSLContext or None."""
        self.handler = handler
        self.tls = tls
        self.plain_too = plain_too
        self.idle_close = idle_close
        self.accepts = 0
        self.requests = []
        self.errors = []
        self._socks = []
        self._lock = threading.Lock()
        self._stop = False
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(backlog)
        self.port = self.ls.getsockname()[1]
        self.url = "%s://127.0.0.1:%d" % ("https" if tls else "http", self.port)
        self._t = threading.Thread(target=self._accept_loop, daemon=True)
        self._t.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        # Wake the threads (shutdown) and let each close its own socket: a
        # socket closed here while its thread still uses it frees its fd
        # number, which the next pipe or socket of this process may take,
        # and the thread's late write goes there (a TLS alert once landed
        # at the start of the next MicroPython scenario's stdout).
        self._stop = True
        try:
            self.ls.shutdown(socket.SHUT_RDWR)      # accept() fails: the loop ends
        except OSError:
            pass
        self._t.join(5)
        try:
            self.ls.close()
        except OSError:
            pass
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _accept_loop(self):
        while not self._stop:
            try:
                s, _ = self.ls.accept()
            except OSError:
                return
            # as real servers do: a reply's head and body are two writes
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self.accepts += 1
                n = self.accepts
                self._socks.append(s)
            threading.Thread(target=self._serve, args=(s, n), daemon=True).start()

    def _serve(self, s, n):
        try:
            secure = self.tls is not None
            if secure and self.plain_too:
                s.settimeout(10)
                secure = s.recv(1, socket.MSG_PEEK) == b"\x16"   # TLS handshake
                s.settimeout(None)
            if secure:
                s.settimeout(10)
                try:
                    s = self.tls.wrap_socket(s, server_side=True)
                except (OSError, ValueError) as e:
                    self.errors.append("tls: %s" % e)
                    return
                with self._lock:
                    self._socks.append(s)
                s.settimeout(None)
            rd = _Reader(s)
            w = Writer(s)
            index = 0
            while not self._stop and not w.closed:
                if self.idle_close is not None and not rd.buf:
                    s.settimeout(self.idle_close)
                try:
                    head = rd.until(b"\r\n\r\n")
                except (EOFError, OSError):
                    return
                s.settimeout(None)
                index += 1
                req = self._parse(rd, head)
                req.conn, req.index, req.tls = n, index, secure
                with self._lock:
                    self.requests.append(req)
                try:
                    self.handler(req, w)
                except Exception as e:  # noqa: BLE001 - reported to the test
                    self.errors.append("handler: %r" % e)
                    w.close()
                    return
                if "close" in req.headers.get("connection", "").lower():
                    w.close()
        except (EOFError, OSError):
            pass
        finally:
            try:
                s.close()
            except OSError:
                pass

    def _parse(self, rd, head):
        req = Request()
        req.raw_head = head
        lines = head.decode("latin-1").split("\r\n")
        req.method, req.path, req.version = lines[0].split(" ", 2)
        for ln in lines[1:]:
            if not ln:
                continue
            k, _, v = ln.partition(":")
            req.header_list.append((k, v.strip()))
            req.headers[k.strip().lower()] = v.strip()
        if "chunked" in req.headers.get("transfer-encoding", "").lower():
            req.chunks = []
            body = []
            while True:
                line = rd.until(b"\r\n")
                size = int(line.split(b";")[0].strip(), 16)
                if size == 0:
                    rd.until(b"\r\n")
                    break
                req.chunks.append(size)
                body.append(rd.exactly(size))
                if rd.exactly(2) != b"\r\n":
                    raise ValueError("bad chunk terminator")
            req.body = b"".join(body)
        elif "content-length" in req.headers:
            req.body = rd.exactly(int(req.headers["content-length"]))
        return req


def wait_for(cond, timeout=5.0):
    """Poll cond() until true (for asserting server-side effects)."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()
