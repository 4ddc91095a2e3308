# MCP client over the Streamable HTTP transport (MCP 2025-11-25 and older).
#
# Wire format: JSON-RPC 2.0 messages, one per HTTP POST to the server's single
# endpoint URL, with
#   Content-Type: application/json
#   Accept: application/json, text/event-stream
#   Authorization: Bearer <token>        (when a token is configured)
#   Mcp-Session-Id: <id>                 (after initialize, if the server gave one)
#   MCP-Protocol-Version: <negotiated>   (every request after initialize)
# The reply to a request is either
#   application/json   one JSON-RPC message (the response), or
#   text/event-stream  SSE events "event: message" whose data is one JSON-RPC
#                      message each: priming events with an id and empty data,
#                      notifications (progress, log), requests from the server
#                      (elicitation/create, ping, sampling/createMessage,
#                      roots/list) which we answer with a POST of our response
#                      (202), and finally the response carrying OUR id.
# A POSTed notification gets 202 (some servers 200 + JSON): both accepted.
# When an SSE reply ends before our response, the client waits the stream's
# `retry:` time and GETs the endpoint with `Last-Event-ID` to resume it.
# With listen=True the client also holds the standalone GET stream (server
# requests that are not tied to a POST arrive there) and watches it while a
# reply is pending (mcp/serve.py). 404 on a request with a session id (or 400
# naming the session, as the reference server says) means the session is
# gone: initialize again once and resend. DELETE ends the session.
# tools/call carries _meta.progressToken so long tools send progress events
# (skipped) that keep the socket read timeout from firing.
#
# Memory: every message is walked from the socket with jsonstream.Parser;
# only the fields in use are kept: tool name/description/inputSchema, the
# flattened text of a tool result (bounded), image/blob sizes counted from the
# base64 stream without holding it.
import jsonstream
import httpc
from compat import sleep_ms, collect, const

# the versions we speak, the newest (the one we ask for) first
PROTOCOLS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
CLIENT_NAME = "antos-ai"

MAX_TEXT = 16384       # flattened tool result handed to the model (chars)
MAX_RESOURCE = 4096    # embedded text resource, inline part (chars)
_MAX_DESC = const(1024)        # tool description kept (chars)
_MAX_TOOLS = const(128)        # tools accepted from one server (all pages)
_MAX_PAGES = const(16)         # tools/list pages followed
_MAX_VALUE = const(16384)      # any materialized JSON value (schemas, params)
_MAX_EVENTS = const(10000)     # SSE events read while waiting for one response
_MAX_RESUME = const(3)         # GET reconnections for one response
_RETRY_MS = const(1000)        # wait before resuming when the server gave no retry:
_MAX_RETRY_MS = const(10000)   # upper bound on a server's retry: value
_MAX_ERROR = const(300)        # error message text kept from a server (chars)
SSE_LINE = 256         # SSE id/event/retry line bound (ids are UUIDs): a smaller buffer
ACCEPT = "application/json, text/event-stream"


class McpError(Exception):
    """Expected failure; str() is the message a person sees."""


class Conn:
    """One MCP session. Attributes useful to callers: name (label used in
    errors), url, session, version (negotiated), server (serverInfo.name),
    last_is_error (True when the last call's result had isError)."""

    def __init__(self, url, token=None, name=None, elicit=None, sample=None,
                 listen=False, timeout=30):
        self.url = url
        self.token = token
        self.reg_name = name
        self.name = name or _hostport(url)
        self.elicit = elicit
        self.sample = sample
        self.listen = listen
        self.timeout = timeout
        self.session = None
        self.version = None
        self.server = None
        self.last_is_error = False
        self._id = 0
        self.listening = None  # standalone GET stream: (Response, SSE) or None

    def next_id(self):
        self._id += 1
        return self._id

    def __repr__(self):
        return "<mcp.Conn %s %s>" % (self.name, self.url)


def _hostport(url):
    i = url.find("://")
    rest = url[i + 3:] if i >= 0 else url
    for c in "/?#":
        j = rest.find(c)
        if j >= 0:
            rest = rest[:j]
    return rest or url


# ------------------------------------------------------------------ sinks

class _Cap:
    """Collects str pieces up to n characters; .cut tells if more came."""

    def __init__(self, n):
        self.n = n
        self.parts = []
        self.size = 0
        self.cut = False

    def add(self, s):
        room = self.n - self.size
        if len(s) > room:
            if room <= 0:
                self.cut = self.cut or len(s) > 0
                return
            s = s[:room]
            self.cut = True
        if s:
            self.parts.append(s)
            self.size += len(s)

    def text(self):
        return "".join(self.parts)


class _B64:
    """Counts the decoded size of a base64 string streamed in pieces."""

    def __init__(self):
        self.n = 0
        self.tail = ""

    def add(self, s):
        self.n += len(s) - s.count("\n") - s.count("\r")
        self.tail = (self.tail + s[-2:])[-2:]

    def size(self):
        pad = 2 if self.tail == "==" else (1 if self.tail[-1:] == "=" else 0)
        return self.n * 3 // 4 - pad


# ------------------------------------------------------- one JSON-RPC message
# A message is walked with jsonstream's pull parser: for every value the
# visitor's want(path) says skip / take (materialize, bounded) / stream (a
# string in pieces) / dive (walk the container). path is one list mutated in
# place (keys and indices), so the walk allocates nothing per skipped value
# and holds O(depth) state. (jsonstream.select() would do the same job but
# keeps ~0.7 KB of heap per rule alive during a parse, and a tools/call
# message needs ~20 rules.)

_SKIP = const(0)
_TAKE = const(1)
_STREAM = const(2)
_DIVE = const(3)


def walk(src, v):
    """Walk one JSON document from src, driven by visitor v (want/put/piece)."""
    p = jsonstream.Parser(src, max_value=_MAX_VALUE)
    path = []
    arr = []  # per open container: True for an array
    act = _DIVE
    sink = None
    while True:
        if act == _TAKE:
            v.put(path, p.read_value())
        elif act == _STREAM:
            if sink is None:
                def sink(s):
                    v.piece(path, s)
            if p.stream_string(sink):
                v.piece(path, None)
            else:
                v.put(path, p.read_value())
        elif act == _DIVE and p.peek() in (jsonstream.OBJ, jsonstream.ARR):
            arr.append(p.next() == jsonstream.ARR)
            path.append(-1)
        else:
            p.skip_value()
        while True:  # step to the next value (or close containers)
            if not arr:
                p.finish()
                return
            if arr[-1]:
                if p.peek() == jsonstream.END_ARR:
                    p.next()
                    arr.pop()
                    path.pop()
                    continue
                path[-1] += 1
            else:
                if p.next() == jsonstream.END_OBJ:
                    arr.pop()
                    path.pop()
                    continue
                path[-1] = p.value
            break
        act = v.want(path)


class _Msg:
    """Visitor for one JSON-RPC message: keeps id, method, error code and
    message, and the params of server requests we may answer; "result.*" goes
    to the accumulator `acc` of the method we called. What acc collected only
    counts when the message turns out to be our response (key order is free:
    "result" may come before "id")."""

    def __init__(self, acc):
        self.acc = acc
        self.reset()

    def reset(self):
        self.f = {}
        if self.acc is not None:
            self.acc.reset()

    def parse(self, src):
        self.reset()
        walk(src, self)

    def want(self, path):
        n = len(path)
        k = path[-1]
        top = path[0]
        if n == 1:
            if k == "id" or k == "method":
                return _TAKE
            return _DIVE if k in ("result", "error", "params") else _SKIP
        if top == "result":
            return self.acc.want(path, n) if self.acc is not None else _SKIP
        if n > 2:
            return _SKIP
        if k == "message":
            return _STREAM
        if top == "error":
            return _TAKE if k == "code" else _SKIP
        return _TAKE if k in ("requestedSchema", "mode", "messages", "systemPrompt",
                             "maxTokens") else _SKIP

    def put(self, path, v):
        if path[0] == "result":
            self.acc.put(path, v)
        else:
            self.f[path[-1]] = v

    def piece(self, path, s):
        if path[0] == "result":
            self.acc.piece(path, s)
            return
        # error.message -> "emsg", params.message -> "pmsg"
        k = "emsg" if path[0] == "error" else "pmsg"
        c = self.f.get(k)
        if c is None:
            c = self.f[k] = _Cap(_MAX_ERROR if k == "emsg" else MAX_TEXT)
        if s is not None:
            c.add(s)

    def get(self, key):
        return self.f.get(key)

    @property
    def id(self):
        return self.f.get("id")

    @property
    def method(self):
        return self.f.get("method")

    def is_error(self):
        return "code" in self.f or "emsg" in self.f

    def text(self, key):
        c = self.f.get(key)
        return c.text() if c is not None else ""

    def error_text(self):
        msg = self.text("emsg") or "error"
        code = self.f.get("code")
        if code is None:
            return msg
        return "%s (code %s)" % (msg, code)


# ------------------------------------------------------------ accumulators
# want(path, n) / put(path, v) / piece(path, s) for paths under "result".

class _Init:
    def reset(self):
        self.version = self.server = None

    def want(self, path, n):
        k = path[-1]
        if n == 2:
            return _TAKE if k == "protocolVersion" else (_DIVE if k == "serverInfo" else _SKIP)
        return _TAKE if n == 3 and k == "name" else _SKIP

    def put(self, path, v):
        if len(path) == 2:
            self.version = v
        else:
            self.server = v


class _Tools:
    """result.tools[*] -> [{name, description, parameters}] + nextCursor."""

    def __init__(self, out):
        self.out = out  # shared across pages

    def reset(self):
        self.page = []
        self.i = None
        self.cur = None
        self.cursor = None

    def want(self, path, n):
        k = path[-1]
        if n == 2:
            return _DIVE if k == "tools" else (_TAKE if k == "nextCursor" else _SKIP)
        if n == 3:
            return _DIVE
        if n == 4:
            if k == "description":
                return _STREAM
            return _TAKE if k == "name" or k == "inputSchema" else _SKIP
        return _SKIP

    def _item(self, path):
        i = path[2]
        if i != self.i:
            self._flush()
            self.i = i
            self.cur = {}
        return self.cur

    def _flush(self):
        c = self.cur
        self.cur = None
        if c is None or not isinstance(c.get("name"), str):
            return
        if len(self.out) + len(self.page) >= _MAX_TOOLS:
            raise McpError("more than %d tools" % _MAX_TOOLS)
        schema = c.get("inputSchema")
        if not isinstance(schema, dict):
            schema = {"type": "object", "properties": {}}
        else:
            schema.pop("$schema", None)  # noise for the model
        d = c.get("description")
        desc = ""
        if d is not None:
            desc = d.text() + ("..." if d.cut else "")
        self.page.append({"name": c["name"], "description": desc, "parameters": schema})

    def put(self, path, v):
        if len(path) == 2:
            self.cursor = v
        else:
            self._item(path)[path[-1]] = v

    def piece(self, path, s):
        c = self._item(path)
        if "description" not in c:
            c["description"] = _Cap(_MAX_DESC)
        if s is not None:
            c["description"].add(s)

    def finish(self):
        self._flush()
        for t in self.page:
            self.out.append(t)
        self.page = []
        return self.cursor


class _Call:
    """Flattens a tools/call result into text for a model while it streams:
    text items joined with "\n" (appended as they arrive), images/audio and
    blobs as "[image image/png, 1234 bytes]" (size counted from the base64
    stream), resource_link as "name <uri>", embedded text resources inline up
    to MAX_RESOURCE chars, structuredContent as compact JSON only when no text
    item came. An item is finished when the next index (or the end) arrives."""

    def reset(self):
        self.out = _Cap(MAX_TEXT)
        self.i = None
        self.n_text = 0
        self.struct = None
        self.is_error = False
        self.it = {}
        self.started = False

    def want(self, path, n):
        k = path[-1]
        if n == 2:
            if k == "content":
                return _DIVE
            return _TAKE if k == "structuredContent" or k == "isError" else _SKIP
        if path[1] != "content":
            return _SKIP
        if n == 3:
            return _DIVE
        if n == 5 and path[3] != "resource":
            return _SKIP
        if n > 5:
            return _SKIP
        if k == "text" or k == "data" or k == "blob":
            return _STREAM
        if k == "resource":
            return _DIVE if n == 4 else _SKIP
        return _TAKE if k in ("type", "mimeType", "uri", "name") else _SKIP

    def _item(self, path):
        i = path[2]
        if i != self.i:
            self._flush()
            self.i = i

    def _sep(self):
        if not self.started:
            self.started = True
            if self.out.size or self.out.cut:
                self.out.add("\n")

    def _flush(self):
        if self.i is None:
            return
        it = self.it
        t = it.get("type")
        mime = it.get("mimeType") or "?"
        uri = it.get("uri")
        b = it.get("b64")
        size = b.size() if b is not None else 0
        add = self.out.add
        if t != "text" and t is not None:
            self._sep()
        if t in ("image", "audio"):
            add("[%s %s, %d bytes]" % (t, mime, size))
        elif t == "resource_link":
            name = it.get("name")
            add(("%s <%s>" % (name, uri)) if name else ("<%s>" % uri))
        elif t == "resource":
            rt = it.get("rtext")
            if rt is not None:
                add("[resource %s]\n" % uri)
                add(rt.text())
                if rt.cut:
                    add("... (truncated)")
            else:
                add("[blob %s %s, %d bytes]" % (uri, mime, size))
        elif t is not None and t != "text":
            add("[%s content]" % t)
        self.it = {}
        self.started = False

    def put(self, path, v):
        k = path[-1]
        if len(path) == 2:
            if k == "isError":
                self.is_error = v is True
            else:
                self.struct = v
            return
        self._item(path)
        self.it[k] = v
        if k == "type" and v == "text":
            self.n_text += 1

    def piece(self, path, s):
        self._item(path)
        k = path[-1]
        if k == "text" and len(path) == 4:
            self._sep()
            if s is not None:
                self.out.add(s)
        elif k == "text":
            c = self.it.get("rtext")
            if c is None:
                c = self.it["rtext"] = _Cap(MAX_RESOURCE)
            if s is not None:
                c.add(s)
        else:  # data / blob: base64, only counted
            b = self.it.get("b64")
            if b is None:
                b = self.it["b64"] = _B64()
            if s is not None:
                b.add(s)

    def finish(self):
        self._flush()
        if self.n_text == 0 and self.struct is not None:
            self._sep()
            self.out.add(jsonstream.dumps(self.struct))
        self.struct = None
        text = self.out.text()
        if self.out.cut:
            text += "\n... (truncated)"
        return text


# ------------------------------------------------------------------- HTTP

def _headers(conn, accept, version=True):
    h = {"Accept": accept}
    if conn.token:
        h["Authorization"] = "Bearer " + conn.token
    if conn.session:
        h["Mcp-Session-Id"] = conn.session
    if version and conn.version:
        h["MCP-Protocol-Version"] = conn.version
    return h


def _send(conn, method, headers, body=None):
    try:
        return httpc.request(method, conn.url, headers=headers, body=body, keep=("content-type", "mcp-session-id"),
                             timeout=conn.timeout)
    except httpc.HTTPError as e:
        raise McpError("%s: %s" % (conn.name, e))


def post(conn, msg):
    """POST one JSON-RPC message (written piece by piece) -> Response."""
    h = _headers(conn, ACCEPT, msg.get("method") != "initialize")
    h["Content-Type"] = "application/json"

    def body(write):
        jsonstream.dump(msg, write)

    return _send(conn, "POST", h, (jsonstream.encoded_len(msg), body))


def get_stream(conn, last_id=None):
    """GET the endpoint as an event stream (resume or standalone stream)."""
    h = _headers(conn, "text/event-stream")
    if last_id is not None:
        h["Last-Event-ID"] = last_id
    h["Connection"] = "close"  # never pooled: closing must not drain a live stream
    return _send(conn, "GET", h)


def _close(resp):
    try:
        resp.close()
    except Exception:
        pass


def _is_sse(resp):
    return resp.headers.get("content-type", "").startswith("text/event-stream")


def _error_detail(resp):
    """A short reason from an error body (JSON-RPC error.message or the first
    line of text), reading at most 512 bytes."""
    buf = bytearray(512)
    n = 0
    try:
        while n < len(buf):
            k = resp.readinto(memoryview(buf)[n:])
            if not k:
                break
            n += k
    except Exception:
        pass
    _close(resp)
    if not n:
        return ""
    data = bytes(buf[:n])
    if "json" in resp.headers.get("content-type", ""):
        m = _Msg(None)
        try:
            m.parse(data)
        except Exception:
            m.f = {}
        if "emsg" in m.f:
            return ": " + m.text("emsg")
    try:
        text = data.decode()
    except UnicodeError:
        return ""
    line = text.strip().split("\n")[0].strip()
    return (": " + line[:120]) if line else ""


def _status_error(conn, status, reason, detail, what):
    if status == 401:
        reg = conn.reg_name or "<name>"
        if conn.token:
            return McpError("%s: token refused (401); set another with: mcp add %s %s <token>"
                            % (conn.name, reg, conn.url))
        return McpError("%s: needs a token (401); set it with: mcp add %s %s <token>"
                        % (conn.name, reg, conn.url))
    if status == 403:
        return McpError("%s: access denied (403)%s" % (conn.name, detail))
    if status == 404:
        return McpError("%s: no MCP endpoint at %s (404)" % (conn.name, conn.url))
    return McpError("%s: %s failed: HTTP %d %s%s" % (conn.name, what, status, reason, detail))


def _check(conn, resp, what):
    """Raise the McpError for a non-2xx response (its body is read and closed)."""
    s = resp.status
    if 200 <= s < 300:
        return
    raise _status_error(conn, s, resp.reason, _error_detail(resp), what)


# --------------------------------------------------------------- exchanges

def _request(conn, method, params, acc):
    """Send one request and read until our response arrives. Returns the
    _Msg of the response (acc holds the result). JSON-RPC errors raise."""
    rid = conn.next_id()
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    resp = post(conn, msg)
    s = resp.status
    if s < 200 or s >= 300:
        detail = _error_detail(resp)
        # 404: the server forgot our session (restart, expiry); the reference
        # server says 400 "No valid session ID" instead. Start a new one once.
        if conn.session and method != "initialize" and (
                s == 404 or (s == 400 and "session" in detail.lower())):
            _initialize(conn)
            resp = post(conn, msg)
            _check(conn, resp, method)
        else:
            raise _status_error(conn, s, resp.reason, detail, method)
    m = _Msg(acc)
    _read_reply(conn, resp, rid, m, method)
    if m.is_error():
        raise McpError("%s: %s" % (conn.name, m.error_text()))
    return m


def _read_reply(conn, resp, rid, m, method):
    ct = resp.headers.get("content-type", "")
    if ct.startswith("application/json"):
        try:
            parse(conn, m, resp, method)
        finally:
            _close(resp)
        if m.method is None and m.id == rid:
            return
        raise McpError("%s: the reply to %s was not its response" % (conn.name, method))
    if ct.startswith("text/event-stream"):
        return _read_stream(conn, resp, rid, m, method)
    _close(resp)
    raise McpError("%s: unexpected reply type %r to %s" % (conn.name, ct or "(none)", method))


def parse(conn, m, src, method):
    try:
        m.parse(src)
    except jsonstream.JSONError as e:
        raise McpError("%s: bad JSON in the reply to %s (%s)" % (conn.name, method, e))
    except McpError as e:
        raise McpError("%s: %s" % (conn.name, e))


def _read_stream(conn, resp, rid, m, method):
    last_id = None
    retry = None
    resumes = 0
    events = 0
    while True:
        sse = httpc.SSE(resp, SSE_LINE)
        try:
            while True:
                if conn.listening is not None:
                    from mcp import serve
                    ev = serve.next_event(conn, sse)
                else:
                    ev = sse.next()
                if ev is None:
                    break
                if ev.id:
                    last_id = ev.id
                if ev.empty or ev.event != "message":
                    # priming event (its id kept above) or a foreign type
                    if ev.retry is not None:
                        retry = ev.retry
                    continue
                events += 1
                if events > _MAX_EVENTS:
                    raise McpError("%s: more than %d events without the reply to %s"
                                   % (conn.name, _MAX_EVENTS, method))
                parse(conn, m, ev, method)
                if ev.id:  # fields after the data lines are known only now
                    last_id = ev.id
                if ev.retry is not None:
                    retry = ev.retry
                if m.method is not None:
                    if m.id is not None:
                        from mcp import serve
                        serve.answer(conn, m)
                    continue  # a notification: progress, log...
                if m.id != rid:
                    continue  # not ours (stale or foreign): skip
                return
        except httpc.HTTPError as e:
            raise McpError("%s: %s while waiting for the reply to %s" % (conn.name, e, method))
        finally:
            _close(resp)
        # The stream ended before our response: resume it if the server let us.
        if last_id is None or resumes >= _MAX_RESUME:
            raise McpError("%s: the server closed the stream before the reply to %s"
                           % (conn.name, method))
        resumes += 1
        wait = _RETRY_MS if retry is None else retry
        sleep_ms(max(0, min(wait, _MAX_RETRY_MS)))
        resp = get_stream(conn, last_id)
        if resp.status != 200 or not _is_sse(resp):
            _close(resp)
            raise McpError("%s: cannot resume the stream for the reply to %s (HTTP %d)"
                           % (conn.name, method, resp.status))


# ----------------------------------------------------------------- session

def _initialize(conn):
    stop_listening(conn)
    conn.session = None
    conn.version = None
    caps = {"elicitation": {}}
    if conn.sample is not None:
        caps["sampling"] = {}
    params = {"protocolVersion": PROTOCOLS[0], "capabilities": caps,
              "clientInfo": {"name": CLIENT_NAME, "version": "0.1"}}
    rid = conn.next_id()
    msg = {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}
    resp = post(conn, msg)
    _check(conn, resp, "initialize")
    sid = resp.headers.get("mcp-session-id")
    acc = _Init()
    m = _Msg(acc)
    _read_reply(conn, resp, rid, m, "initialize")
    if m.is_error():
        raise McpError("%s: %s" % (conn.name, m.error_text()))
    version = acc.version
    if version not in PROTOCOLS:
        raise McpError("%s: unsupported MCP protocol version %r" % (conn.name, version))
    conn.session = sid or None
    conn.version = version
    conn.server = acc.server
    resp = post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    status = resp.status
    _close(resp)
    if status < 200 or status >= 300:
        raise McpError("%s: notifications/initialized refused (HTTP %d)" % (conn.name, status))
    if conn.listen:
        from mcp import serve
        serve.listen(conn)


def stop_listening(conn):
    g = conn.listening
    conn.listening = None
    if g is not None:
        _close(g[0])


# ------------------------------------------------------------ public API

def _guard(conn, fn, *args):
    """Run fn(*args) -> (value, None), mapping expected failures to (None, err)."""
    try:
        return fn(*args), None
    except McpError as e:
        return None, str(e)
    except httpc.HTTPError as e:
        return None, "%s: %s" % (conn.name, e)
    except jsonstream.JSONError as e:
        return None, "%s: bad JSON from the server (%s)" % (conn.name, e)
    except OSError as e:
        return None, "%s: network error (%s)" % (conn.name, e)
    except MemoryError:
        collect()
        return None, "%s: out of memory reading the reply" % conn.name


def connect(url, token=None, name=None, elicit=None, sample=None, listen=False, timeout=30):
    if not isinstance(url, str) or not (url.startswith("http://") or url.startswith("https://")):
        return None, "%s: URL must start with http:// or https://" % (name or url)
    conn = Conn(url, token, name, elicit, sample, listen, timeout)
    _, err = _guard(conn, _initialize, conn)
    if err:
        stop_listening(conn)
        return None, err
    return conn, None


def _list_tools(conn):
    out = []
    acc = _Tools(out)
    cursor = None
    for _ in range(_MAX_PAGES):
        _request(conn, "tools/list", {"cursor": cursor} if cursor else None, acc)
        cursor = acc.finish()
        if not isinstance(cursor, str) or not cursor:
            return out
        collect()
    raise McpError("%s: tools/list has more than %d pages" % (conn.name, _MAX_PAGES))


def tools(conn):
    return _guard(conn, _list_tools, conn)


def _call(conn, name, args):
    acc = _Call()
    # a progress token makes long tools send progress events, which keeps
    # the read timeout from firing while they work (the events are skipped)
    params = {"name": name, "arguments": args, "_meta": {"progressToken": conn._id + 1}}
    _request(conn, "tools/call", params, acc)
    text = acc.finish()
    conn.last_is_error = acc.is_error
    if acc.is_error:
        raise McpError("tool error: " + (text or "(no details)"))
    return text


def call(conn, name, args=None):
    conn.last_is_error = False
    if args is None or args == "":
        args = {}
    elif isinstance(args, str):
        try:
            args = jsonstream.loads(args, max_value=_MAX_VALUE)
        except jsonstream.JSONError as e:
            return None, "bad tool arguments for %s: %s" % (name, e)
    if not isinstance(args, dict):
        return None, "bad tool arguments for %s: not a JSON object" % name
    text, err = _guard(conn, _call, conn, name, args)
    collect()
    return text, err


def close(conn):
    """End the session (DELETE); errors are ignored."""
    if conn is None:
        return
    stop_listening(conn)
    if conn.session:
        try:
            resp = httpc.request("DELETE", conn.url, headers=_headers(conn, ACCEPT),
                                 timeout=min(conn.timeout, 5))
            resp.close()
        except Exception:
            pass
    conn.session = None
