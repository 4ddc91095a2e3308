"""The board's MCP server, one request: read it, check it, answer it
(mcpserver/__init__.py keeps the state between requests and imports this module
for each one; it is dropped again afterwards).

Wire format (protocol 2025-11-25; 2025-06-18, 2025-03-26, 2024-11-05
negotiated). One request per connection, every answer with "Connection:
close", served while the console waits at its prompt (shell/term.py); a
request that comes while a command runs waits in the listen backlog. A
body goes out "Transfer-Encoding: chunked" (none: "Content-Length: 0");
an answer that fails once its head is out is closed without its last
chunk, so the client sees it cut short, never whole.
  POST /mcp   one JSON-RPC message: Content-Type application/json,
              Content-Length <= MAX_BODY, Accept naming application/json
              and text/event-stream, Authorization: Bearer <mcp.serve.token>,
              Mcp-Session-Id after initialize.
              -> 200 application/json, one response; or 200
              text/event-stream when the call sends something first:
              notifications/message (console output, once the client set
              logging/setLevel), notifications/progress (the request's
              _meta.progressToken), or a request to the client
              (sampling/createMessage, elicitation/create: its answer comes
              as a POST of a JSON-RPC response, 202), then the response.
              Notifications and responses -> 202, no body.
  DELETE /mcp ends the session (200); GET -> 405 (no standalone stream).
Checks, in this order, with the status of a refusal: Host (localhost,
127.0.0.1, [::1], the board's address, mcp.serve.hosts; any port) and
Origin (none, or http(s):// an allowed host) 403; path /mcp 404; token
401 (a wrong one is answered after a delay, 1 s doubling to 8 s with each
failure within a minute of the last, while the console and others go on;
with _MAX_LATE wrong callers waiting, another wrong one gets 429 at once;
the right token is never delayed nor refused by them); method 405; Accept 406;
Content-Type 415; Content-Length 411 (chunked bodies too) / 413; JSON 400
-32700; not one JSON-RPC 2.0 message 400 -32600; session 400 (none) / 404
(unknown, or unused for mcp.serve.idle seconds, 3600; at most
_MAX_SESSIONS, a new one replaces the least recently used);
MCP-Protocol-Version 400; a request while a call waits for the client 503.
The body of a refused request is read and dropped (up to _DRAIN bytes):
closing with it unread would reset the connection before the client reads
the answer. Methods: initialize, ping, tools/list, tools/call,
resources/list, resources/read, resources/templates/list,
logging/setLevel; others -32601, bad params -32602.

Tools: every command of the registry (shell.commands(): built-ins and /bin
scripts), its schema and guardrails from shell/tools.py (the same as a
chat's). Read-only commands are exposed, and a command that reads unless
given a write argument (pin) with that argument only when allowed;
others only when named in mcp.serve.allow, and each call that changes
something is asked at the console (y / n / a; "a" adds it to
mcp.serve.always). Paths in the arguments are relative to /; settings and
history files, secrets and the settings that grant tools are refused.
A call's output (sanitized as for the console, secrets of the settings
masked) is its text result, at most mcpserver.OUTPUT bytes; an error line makes it
isError.
"""
import jsonstream
import store
import shell
from compat import VERSION, const, ticks_ms, ticks_diff, MICROPYTHON

PATH = "/mcp"
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
MAX_BODY = const(8192)      # bytes of a request body
_HEAD = const(1024)         # bytes of the request line or one header line
_MAX_HEADERS = const(64)
_MAX_SESSIONS = const(4)
_LF = const(0x0A)
_READ_S = const(5)          # seconds one socket read may wait
_REQ_MS = const(10000)      # the whole request (head and body)
_ASK_MS = const(120000)     # the client's answer to a sampling/elicitation request
_MAX_ITEMS = const(8)       # content items a script adds to a result
_MAX_LATE = const(4)        # wrong-token callers waiting out their delay
_DRAIN = const(1572864)     # bytes of an oversized body read and dropped
_CHUNK = const(512)         # bytes of the buffer a body is sent from (a chunk and its framing)
_PAD = const(5)             # room for a chunk's size line ("1f4\r\n") before its data
_TAIL = const(7)            # and for "\r\n" after it, with the last chunk "0\r\n\r\n"
_DESTRUCTIVE = ("rm", "mv", "set", "run")     # destructiveHint (and /bin scripts)
# a refused token: names the scheme to use
_CHALLENGE = b'WWW-Authenticate: Bearer realm="antos", error="invalid_token"\r\n'

# headers kept from a request (all others are skipped unread)
_KEEP = (b"host", b"origin", b"authorization", b"content-type", b"content-length",
         b"accept", b"mcp-session-id", b"mcp-protocol-version")
_REASONS = ("200 OK;202 Accepted;400 Bad Request;401 Unauthorized;403 Forbidden;"
            "404 Not Found;405 Method Not Allowed;406 Not Acceptable;408 Request Timeout;"
            "411 Length Required;413 Content Too Large;415 Unsupported Media Type;"
            "429 Too Many Requests;431 Request Header Fields Too Large;"
            "500 Internal Server Error;503 Service Unavailable")


class Fail(Exception):
    """An HTTP refusal: Fail(status, code, message, headers=b"")."""


class _Conn:
    """A client's connection whose reads and writes wait at most _READ_S
    each. MicroPython: a non-blocking socket and poll (its readinto()
    would wait for a whole buffer); CPython: a socket timeout."""

    def __init__(self, c):
        self.c = c
        if MICROPYTHON:
            import select
            c.setblocking(False)
            self.p = select.poll()
            self.p.register(c, select.POLLIN)
        else:
            c.settimeout(_READ_S)

    def _wait(self, ev):
        self.p.modify(self.c, ev)
        if not self.p.poll(_READ_S * 1000):
            raise OSError(110, "timed out")

    def recv(self, mv):
        """At least one byte into mv (0 at the end)."""
        if not MICROPYTHON:
            return self.c.recv_into(mv)
        while True:
            n = self.c.readinto(mv)
            if n is not None:
                return n
            self._wait(1)       # POLLIN

    def send(self, data):
        if not MICROPYTHON:
            return self.c.sendall(data)
        mv = memoryview(data)
        off = 0
        while off < len(mv):
            w = self.c.write(mv[off:])
            if w:
                off += w
            else:
                self._wait(4)   # POLLOUT

    def close(self):
        self.c.close()


def _same(a, b):
    """a == b for bytes, in a time that does not tell where they differ."""
    d = len(a) ^ len(b)
    for i in range(min(len(a), len(b))):
        d |= a[i] ^ b[i]
    return d == 0


def _hex(n):
    import os
    import binascii
    return binascii.hexlify(os.urandom(n)).decode()


class _Req:
    """One request read from a connection: the request line, the kept
    headers (h: name -> str), then the body through readinto()."""

    def __init__(self, c):
        self.c = c
        self.b = bytearray(_HEAD)
        self.mv = memoryview(self.b)
        self.i = self.n = 0
        self.t0 = ticks_ms()
        self.h = {}
        self.left = 0       # body bytes not yet read
        line = self.line()
        w = line.split()
        if len(w) != 3 or not w[2].startswith(b"HTTP/1."):
            raise Fail(400, -32600, "bad request line")
        self.method = w[0].decode()
        self.path = w[1].decode().split("?")[0]
        for _ in range(_MAX_HEADERS):
            line = self.line()
            if not line:
                try:
                    self.left = int(self.h.get("content-length", "0"))
                except ValueError:
                    self.left = -1
                return
            k, _, v = line.partition(b":")
            k = k.strip().lower()
            if k in _KEEP:
                self.h[k.decode()] = v.strip().decode()
        raise Fail(431, -32600, "too many headers")

    def _fill(self):
        if ticks_diff(ticks_ms(), self.t0) > _REQ_MS:
            raise Fail(408, -32600, "request too slow")
        n = self.c.recv(self.mv[self.n:])
        if not n:
            raise OSError(104, "closed")
        self.n += n

    def line(self):
        while True:
            j = self.b.find(b"\n", self.i, self.n)
            if j >= 0:
                line = bytes(self.mv[self.i:j])
                self.i = j + 1
                return line[:-1] if line[-1:] == b"\r" else line
            if self.i:          # keep the unread rest at the start
                rest = bytes(self.mv[self.i:self.n])
                self.n = len(rest)
                self.mv[0:self.n] = rest
                self.i = 0
            if self.n == _HEAD:
                raise Fail(431, -32600, "header line too long")
            self._fill()

    def readinto(self, buf):
        """The body, at most self.left more bytes."""
        if self.left <= 0:
            return 0
        if self.i < self.n:
            k = min(len(buf), self.n - self.i, self.left)
            buf[0:k] = self.mv[self.i:self.i + k]
            self.i += k
        else:
            if ticks_diff(ticks_ms(), self.t0) > _REQ_MS:
                raise Fail(408, -32600, "request too slow")
            k = self.c.recv(memoryview(buf)[0:min(len(buf), self.left)])
            if not k:
                raise OSError(104, "closed")
        self.left -= k
        return k


class _Out:
    """A response: head() once, then write(bytes) pieces. A body goes out
    chunked (Transfer-Encoding), gathered in one buffer and sent a chunk
    at a time (an event stream's at the end of each event); done() sends
    the last chunk. A response cut short (by an error after the head, or
    in the middle of a message) never gets it: the client sees an
    incomplete body, never a complete one."""

    def __init__(self, c):
        self.c = c
        self.sse = None     # None: no head yet; False: JSON; True: event stream
        self.mv = None      # the chunk buffer, once a body is under way
        self.k = _PAD       # end of the data in it
        self.cut = False    # a message was begun and not ended

    def write(self, b):
        n = len(b)
        room = _CHUNK - _TAIL - self.k
        if n > room:        # (rare: pieces are smaller than a chunk)
            mv = memoryview(b)
            while n > room:
                self.mv[self.k:self.k + room] = mv[0:room]
                self.k += room
                self.flush()
                mv = mv[room:]
                n -= room
                room = _CHUNK - _TAIL - _PAD
            b = mv
        self.mv[self.k:self.k + n] = b
        self.k += n

    def flush(self, last=False):
        """Send what the buffer holds as a chunk (last: and the last chunk)."""
        mv, k = self.mv, self.k
        n = k - _PAD
        a = _PAD
        if n:
            h = b"%x\r\n" % n
            a -= len(h)
            mv[a:_PAD] = h
            mv[k:k + 2] = b"\r\n"
            k += 2
        if last:
            mv[k:k + 5] = b"0\r\n\r\n"
            k += 5
        if k > a:
            self.c.send(mv[a:k])
        self.k = _PAD

    def done(self):
        """The response is whole: its last chunk."""
        if self.cut:
            raise OSError(5, "a message was cut short")
        if self.mv is not None:
            self.flush(True)

    def head(self, status, ctype=b"application/json", extra=b""):
        """ctype None: no body."""
        i = _REASONS.find(str(status))
        j = _REASONS.find(";", i)
        self.c.send(b"HTTP/1.1 " + _REASONS[i:j if j > 0 else len(_REASONS)].encode()
                    + b"\r\nConnection: close\r\nCache-Control: no-store\r\n"
                    + (b"Content-Type: " + ctype + b"\r\nTransfer-Encoding: chunked\r\n"
                       if ctype else b"Content-Length: 0\r\n") + extra + b"\r\n")
        self.sse = ctype == b"text/event-stream"
        if ctype:
            self.mv = memoryview(bytearray(_CHUNK))

    def begin(self, extra=b""):
        """A JSON-RPC message starts: the JSON body, or an SSE event once
        the stream is open; end() closes it. After one was cut short no
        other may follow."""
        if self.cut:
            raise OSError(5, "a message was cut short")
        if self.sse is None:
            self.head(200, extra=extra)
        self.cut = True
        if self.sse:
            self.write(b"event: message\r\ndata: ")

    def end(self):
        if self.sse:
            self.write(b"\r\n\r\n")
            self.flush()    # the client gets each event as it is made
        self.cut = False

    def message(self, msg, extra=b""):
        self.begin(extra)
        jsonstream.dump(msg, self.write, view=True)     # (write copies each piece)
        self.end()

    def event(self, msg):
        """A message before the response: opens the event stream. A value
        that is no JSON raises here, before anything is written."""
        jsonstream.encoded_len(msg)
        if self.sse is None:
            self.head(200, b"text/event-stream")
        self.message(msg)


def rpc_error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def serve(srv, ready):
    """Send the delayed 401s now due, and answer one waiting connection if
    ready (the listening socket is readable)."""
    now = ticks_ms()
    for item in srv.late[:]:
        if ticks_diff(item[1], now) <= 0:
            srv.late.remove(item)
            c = _Conn(item[0])
            try:
                _refuse(_Out(c), 401, -32001, "invalid token", _CHALLENGE)
            except Exception:
                pass
            c.close()
    if ready:
        try:
            c, _ = srv.sock.accept()
        except OSError:
            return
        _handle(srv, c)


def _handle(srv, c):
    """Read one request from socket c and answer it; c is closed afterwards
    (or kept in srv.late for a delayed 401)."""
    srv.requests += 1
    keep = False
    req = None
    c = _Conn(c)
    out = _Out(c)
    try:
        req = _Req(c)
        keep = _request(srv, req, out)
        if not keep:
            out.done()
    except Fail as e:
        a = e.args
        if out.sse is None:
            try:
                _refuse(out, a[0], a[1], a[2], a[3] if len(a) > 3 else b"")
                _drain(req)
            except Exception:   # the client went: nobody to tell
                pass
    except KeyboardInterrupt:
        pass
    except Exception as e:      # a reset connection, out of memory...
        # after the head: closed without the last chunk, the body cut short
        if out.sse is None and not isinstance(e, OSError):
            try:
                _refuse(out, 500, -32603, "internal error: " + shell.oneline(e))
            except Exception:
                pass
    finally:
        if not keep:
            c.close()


def _refuse(out, status, code, msg, extra=b""):
    out.head(status, extra=extra)
    out.message({"error": "invalid_token", "error_description": msg} if status == 401
                else rpc_error(None, code, msg))
    out.done()


def _allowed(srv, value, origin):
    """A Host header's value (or an Origin's) names an allowed host (any
    port: a rebinding attack shows in the name)."""
    if origin:
        i = value.find("://")
        if i < 0 or value[:i] not in ("http", "https"):
            return False
        value = value[i + 3:]
    value = value.lower()
    j = value.find("]") + 1 if value.startswith("[") else value.find(":")
    return (value[:j] if j > 0 else value) in srv.hosts


def _request(srv, req, out):
    """Check and answer req; True when the connection is kept (a delayed 401)."""
    h = req.h
    if not _allowed(srv, h.get("host", ""), False):
        raise Fail(403, -32000, "Host not allowed")
    if "origin" in h and not _allowed(srv, h["origin"], True):
        raise Fail(403, -32000, "Origin not allowed")
    if req.path != PATH:
        raise Fail(404, -32000, "no MCP endpoint here (try %s)" % PATH)
    auth = h.get("authorization", "")
    if auth[:7].lower() != "bearer ":
        raise Fail(401, -32001, "a bearer token is needed (mcp serve token)", _CHALLENGE)
    if not _same(auth[7:].strip().encode(), srv.token):
        # only wrong callers are limited: guesses never keep the right
        # token out
        if len(srv.late) >= _MAX_LATE:
            raise Fail(429, -32000, "too many failed tokens; try later")
        # answered later (serve()): a guess costs the caller a delay, the
        # console and other clients go on meanwhile
        now = ticks_ms()
        if ticks_diff(now, srv.failed) > 60000:     # a minute without: forgiven
            srv.fails = 0
        srv.fails += 1
        srv.failed = now
        _drain(req)     # read now: a body left unread makes the close a reset
        # the plain socket: an object of this module would keep it in RAM
        srv.late.append([req.c.c, now + (1000 << min(srv.fails - 1, 3))])
        return True
    m = req.method
    if m == "DELETE":
        srv.sessions.remove(_session(srv, h))
        out.head(200, None)
        return False
    if m != "POST":
        raise Fail(405, -32000, "method not allowed", b"Allow: POST, DELETE\r\n")
    acc = h.get("accept", "")
    if "*/*" not in acc and ("application/json" not in acc or "text/event-stream" not in acc):
        raise Fail(406, -32000, "Accept must name application/json and text/event-stream")
    if not h.get("content-type", "").startswith("application/json"):
        raise Fail(415, -32000, "Content-Type must be application/json")
    n = req.left
    if n < 0 or "content-length" not in h:
        raise Fail(411, -32000, "Content-Length needed")
    if n > MAX_BODY:
        raise Fail(413, -32000, "body over %d bytes" % MAX_BODY)
    try:
        msg = jsonstream.load(req, max_value=MAX_BODY, max_items=256)
    except jsonstream.JSONError as e:
        raise Fail(400, -32700, "Parse error: %s" % e)
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        raise Fail(400, -32600, "Invalid Request: one JSON-RPC 2.0 message (no batches)")
    method = msg.get("method")
    rid = msg.get("id")
    if method is not None and not isinstance(method, str) or \
            rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int))):
        raise Fail(400, -32600, "Invalid Request")
    params = msg.get("params")
    if params is None:
        params = {}
    if method is not None and rid is not None and not isinstance(params, dict):
        out.message(rpc_error(rid, -32602, "params must be an object"))
        return False
    if method == "initialize" and rid is not None:
        return _initialize(srv, rid, params, out)
    s = _session(srv, h)
    v = h.get("mcp-protocol-version")
    if v is not None and v not in VERSIONS:
        raise Fail(400, -32000, "unsupported MCP-Protocol-Version " + v)
    if method is None or rid is None:      # a notification, or a response
        a = srv.answer
        if method is None and a is not None and a[0] == rid:
            a[1] = msg
        out.head(202, None)
        return False
    if srv.answer is not None and method != "ping":
        raise Fail(503, -32000, "busy with a call; try again")
    if method == "ping":
        out.message({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/list":
        out.message({"jsonrpc": "2.0", "id": rid, "result": {
            "tools": jsonstream.Array(lambda: _tools(srv))}})
    elif method == "tools/call":
        _call(srv, s, rid, params, out)
    elif method == "logging/setLevel":
        lv = params.get("level")
        if lv not in LEVELS:
            out.message(rpc_error(rid, -32602, "level must be one of: " + ", ".join(LEVELS)))
        else:
            s[2] = LEVELS.index(lv)
            out.message({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method.startswith("resources/"):
        from mcpserver import resources
        resources.resources(srv, method, rid, params, out)
    else:
        out.message(rpc_error(rid, -32601, "Method not found: " + method))
    return False


def _expire(srv):
    now = ticks_ms()
    for s in srv.sessions[:]:
        if ticks_diff(now, s[1]) > srv.idle:
            srv.sessions.remove(s)
    return now


def _session(srv, h):
    """The session the request names (unused ones expire here)."""
    now = _expire(srv)
    sid = h.get("mcp-session-id")
    if sid is None:
        raise Fail(400, -32000, "Mcp-Session-Id header needed (initialize first)")
    for s in srv.sessions:
        if s[0] == sid:
            s[1] = now
            return s
    raise Fail(404, -32001, "Session not found")


def _initialize(srv, rid, params, out):
    now = _expire(srv)
    if len(srv.sessions) >= _MAX_SESSIONS:     # clients seldom say goodbye
        old = srv.sessions[0]
        for x in srv.sessions:
            if ticks_diff(x[1], old[1]) < 0:
                old = x
        srv.sessions.remove(old)
    v = params.get("protocolVersion")
    if v not in VERSIONS:
        v = VERSIONS[0]
    info = params.get("clientInfo")
    name = info.get("name") if isinstance(info, dict) else None
    caps = params.get("capabilities")
    caps = caps if isinstance(caps, dict) else {}
    sid = _hex(16)
    # log level 99: console output is no notification until logging/setLevel
    srv.sessions.append([sid, now, 99, str(name or "client")[:40],
                         ("sampling" in caps) | ("elicitation" in caps) << 1])
    srv.clients += 1
    out.message({"jsonrpc": "2.0", "id": rid, "result": {
        "protocolVersion": v,
        "capabilities": {"tools": {"listChanged": False},
                         "resources": {"listChanged": False}, "logging": {}},
        "serverInfo": {"name": "antos", "title": "AntOS board", "version": VERSION},
        "instructions": "The console commands of a small board (MicroPython). Paths "
                        "are on its flash, / is the root. One call at a time."}},
        b"Mcp-Session-Id: " + sid.encode() + b"\r\n")
    return False


# -- tools ----------------------------------------------------------------------

def exposed(spec):
    """Is this command a tool? (read-only, reads unless given a write
    argument, or named in mcp.serve.allow)"""
    from shell import tools
    if not tools.name_ok(spec["name"]):
        return False
    return tools.read_only(spec) or allowed(spec) or tools.writes(spec, ()) is False


def allowed(spec):
    """May this command change something? (named in mcp.serve.allow)"""
    return spec["name"] in words("mcp.serve.allow")


def _tools(srv):
    from shell import tools
    for n in shell.names():
        # (ai's and mcp's specs are large: never built for a listing)
        spec = shell.find(n) if tools.name_ok(n) else None
        if spec is None or not exposed(spec):
            continue
        ro = tools.read_only(spec)
        d = spec["desc"]
        yield {"name": spec["name"], "title": d[:1].upper() + d[1:],
               "description": "%s (usage: %s)" % (d, spec["usage"]),
               "inputSchema": tools.schema(spec, not allowed(spec)),
               "annotations": {"readOnlyHint": ro, "destructiveHint": not ro and (
                   spec["path"] is not None or spec["name"] in _DESTRUCTIVE)}}


def _call(srv, s, rid, params, out):
    from shell import tools
    name = params.get("name")
    spec = shell.find(name) if isinstance(name, str) else None
    if spec is None or not exposed(spec):
        hint = "" if spec is None or not tools.name_ok(name) else \
            " (the board's owner can allow it: set mcp.serve.allow %s)" % name
        return out.message(rpc_error(rid, -32602, "Unknown tool: %s%s" % (name, hint)))
    args = params.get("arguments")
    try:
        line = tools.line(spec, {} if args is None else args)
        no = tools.refused(spec, line)
        change = tools.writes(spec, shell.parse(spec, line[len(name):]))
    except (ValueError, shell.UsageError) as e:
        return out.message(rpc_error(rid, -32602, "%s: %s (usage: %s)" % (name, e, spec["usage"])))
    if no is None and change and not allowed(spec):
        no = "%s: this call changes the board; its owner can allow it: set mcp.serve.allow %s" % (
            name, name)
    if no:
        return out.message(_result(rid, [_text(no)], True))
    meta = params.get("_meta")
    srv.calls += 1
    if change and not _approve(s[3], name, line):
        _note(s[3], line, "refused")
        return out.message(_result(rid, [_text(
            "refused: the person at the board did not allow this call")], True))
    ctx = Ctx(srv, s, out, meta.get("progressToken") if isinstance(meta, dict) else None)
    failed = ctx.run(line)
    # {"jsonrpc":"2.0","id":ID,"result":{"content":[TEXT, ITEMS...],"isError":B}},
    # the text straight from the output buffer
    w = out.write
    out.begin()
    w(b'{"jsonrpc":"2.0","id":')
    jsonstream.dump(rid, w)
    w(b',"result":{"content":[')
    comma = b""
    if ctx.n or not ctx.items:
        w(b'{"type":"text","text":')
        ctx.json_text(w)
        w(b"}")
        comma = b","
    for item in ctx.items:
        w(comma)
        jsonstream.dump(item, w)
        comma = b","
    w(b'],"isError":' + (b"true}}" if failed else b"false}}"))
    out.end()
    _note(s[3], line, "error" if failed else "ok")


def _ask(ctx, method, params):
    """Send a request to the client on the call's event stream and wait
    for its answer (a POST of the response; other requests meanwhile get
    503) -> (result, err)."""
    srv = ctx.srv
    srv.seq += 1
    rid = "antos-%d" % srv.seq
    ctx.out.event({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    srv.answer = a = [rid, None]
    t0 = ticks_ms()
    try:
        import select
        p = select.poll()
        p.register(srv.sock, select.POLLIN)
        while a[1] is None:
            left = _ASK_MS - ticks_diff(ticks_ms(), t0)
            if left <= 0:
                return None, "the client did not answer %s" % method
            due = srv.due()
            serve(srv, bool(p.poll(left if due < 0 else min(left, due))))
    finally:
        srv.answer = None
    r = a[1].get("result")
    if not isinstance(r, dict):
        e = a[1].get("error")
        return None, "the client refused %s: %s" % (
            method, e.get("message") if isinstance(e, dict) else "no result")
    return r, None


def words(key):
    """A setting holding names separated by commas or spaces."""
    return str(store.get(key) or "").replace(",", " ").split()


def _text(t):
    return {"type": "text", "text": t}


def _result(rid, content, is_error):
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": content, "isError": is_error}}


def _drain(req):
    """Read and drop the body of a refused request (up to _DRAIN bytes,
    within the request's time): closing with bytes unread would reset the
    connection, and the client might lose the answer."""
    if req is None or req.left <= 0 or req.left > _DRAIN:
        return
    buf = bytearray(512)
    try:
        while req.readinto(buf):
            pass
    except Exception:
        pass


def _approve(client, name, line):
    """Ask the person at the console; True to run it."""
    if name in words("mcp.serve.always"):
        return True
    from shell import term
    term.aside()
    shell.out("mcp: %s asks to run: %s" % (client, line), shell.BOLD_CYAN)
    try:
        c = term.ask("  allow? [y]es [n]o [a]lways: ", "yna")
    except KeyboardInterrupt:
        return False
    if c == "a":
        store.set("mcp.serve.always", " ".join(words("mcp.serve.always") + [name]))
    return c in ("y", "a")


def _note(client, line, how):
    """One dim line at the console per call: a person sees what was done."""
    from shell import term
    term.aside()
    shell.out("mcp: %s ran %s (%s)" % (client, line, how), shell.DIM)


class Ctx:
    """The call being served (mcpserver.call_served while it runs): its output,
    the first mcpserver.OUTPUT bytes (the server's one buffer), sent on as log messages when the client
    asked for them; the content items a script adds; progress and
    requests to the client on the call's event stream."""

    def __init__(self, srv, s, out, token):
        self.srv = srv
        self.s = s          # the session
        self.out = out
        self.token = token
        self.buf = srv.obuf     # (the server's: one call at a time)
        self.n = 0          # bytes held
        self.more = 0       # bytes dropped
        self.logged = 0     # bytes already sent as log messages
        self.items = []

    def run(self, line):
        """Run the command line from / with its output kept here -> True
        when it failed."""
        import mcpserver
        mcpserver.call_served = self
        try:
            failed = shell.run_captured(line, self.put)
        except (Exception, KeyboardInterrupt, SystemExit) as e:
            self.put("\n%s" % shell.oneline(e))      # exit, py: the console stays
            failed = True
        finally:
            mcpserver.call_served = None
        self.log(True)
        return failed

    def put(self, s):
        b = s.encode()
        room = len(self.buf) - self.n
        k = len(b)
        if k > room:
            k = room
            while k > 0 and (b[k] & 0xC0) == 0x80:     # a whole character
                k -= 1
            self.more += len(b) - k
        self.buf[self.n:self.n + k] = memoryview(b)[0:k]
        self.n += k
        if self.s[2] <= 1 and b"\n" in b:
            self.log(False)

    def log(self, end):
        """Send the whole lines of output since the last message (all of it
        at the end) as notifications/message (info)."""
        if self.s[2] > 1:
            return
        j = self.n if end else self.buf.rfind(b"\n", self.logged, self.n) + 1
        a, z = self.logged, j
        self.logged = max(j, a)
        while z > a and self.buf[z - 1] == _LF:
            z -= 1
        if z > a:
            w = self.out.write
            if self.out.sse is None:
                self.out.head(200, b"text/event-stream")
            self.out.begin()
            w(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",'
              b'"logger":"console","data":')
            self._json(w, a, z, end and self.more)
            w(b"}}")
            self.out.end()

    def json_text(self, w):
        """The output as a JSON string through w: blank ends trimmed, every
        secret of the settings masked, "... (N more bytes)" when cut."""
        b, a, z = self.buf, 0, self.n
        while a < z and b[a] in b" \t\n":
            a += 1
        while z > a and b[z - 1] in b" \t\n":
            z -= 1
        if z == a and not self.more:
            return w(b'"(no output)"')
        self._json(w, a, z, self.more, "\n... (%d more bytes)" % self.more if self.more else "")

    def _json(self, w, a, z, cut, tail=""):
        """buf[a:z] (+ tail) as a JSON string, in pieces, secrets masked;
        cut: the output was cut short at z, so a secret's beginning there
        goes too."""
        b = self.buf
        spans = []      # (start, end, mask)
        for k in store.keys():
            if store.is_secret(k):
                v = str(store.get(k))
                if len(v) < 6:
                    continue
                sec, m = v.encode(), store.mask(v)
                i = b.find(sec, a, z)
                while i >= 0:
                    spans.append((i, i + len(sec), m))
                    i = b.find(sec, i + len(sec), z)
                for j in range(min(len(sec) - 1, z - a) if cut else 0, 2, -1):
                    if b[z - j:z] == sec[:j]:
                        spans.append((z - j, z, m))
                        break
        spans.sort()
        mv = memoryview(b)
        p = a
        w(b'"')
        for s, e, m in spans + [(z, z, "")]:
            while p < s:        # plain output in pieces of whole characters
                q = min(s, p + 512)
                if q < s:
                    q = p + (shell.whole(mv[p:q]) or q - p)
                w(jsonstream.esc(str(mv[p:q], "utf-8")))
                p = q
            if e > p:           # a secret (not inside one already masked)
                w(jsonstream.esc(m))
                p = e
        w(jsonstream.esc(tail))
        w(b'"')

    # mcpserver's functions for /bin scripts

    def add(self, item):
        if not isinstance(item, dict):
            raise ValueError("a content item is a dict")
        jsonstream.encoded_len(item)    # raises now, not halfway through the answer
        if len(self.items) < _MAX_ITEMS:
            self.items.append(item)

    def progress(self, done, total, message):
        if self.token is None:
            return
        p = {"progressToken": self.token, "progress": done}
        if total is not None:
            p["total"] = total
        if message is not None:
            p["message"] = message
        self.out.event({"jsonrpc": "2.0", "method": "notifications/progress", "params": p})

    def sample(self, prompt, max_tokens):
        if not self.s[4] & 1:
            return None, "the client cannot sample (no sampling capability)"
        r, err = _ask(self, "sampling/createMessage", {"messages": [{"role": "user", "content": {
            "type": "text", "text": prompt}}], "maxTokens": max_tokens})
        if err:
            return None, err
        m = r.get("content")
        if isinstance(m, list):
            m = m[0] if m else None
        if not isinstance(m, dict) or not isinstance(m.get("text"), str):
            return None, "the client's model sent no text"
        return m["text"], None

    def elicit(self, message, schema):
        if not self.s[4] & 2:
            return None, "the client cannot ask its user (no elicitation capability)"
        return _ask(self, "elicitation/create", {"message": message, "requestedSchema": schema})
