# The MCP session's JSON-RPC exchange over the Streamable HTTP transport
# (MCP 2025-11-25 and older): the core the rest of the client builds on
# (mcp/client.py's calls, errors.py, listen.py, answer.py, oauth.py,
# items.py, resource.py import it; it imports them only where their rare
# path starts). Its parts, each apart from the others: the messages (a
# request of the session: message(); one message read: walk() driven by
# a visitor, Msg), the HTTP requests of the session (headers(), send(),
# post(), close_reply()), and the exchange that joins them (request():
# one request and its reply read, initialize()).
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
#                      (202, mcp/answer.py), and finally the response carrying OUR id.
# A POSTed notification gets 202 (some servers 200 + JSON): both accepted.
# When an SSE reply ends before our response, the client waits the stream's
# `retry:` time and GETs the endpoint with `Last-Event-ID` to resume it
# (mcp/errors.py). While a call is pending the standalone GET stream may be
# watched beside the reply (mcp/listen.py).
# 404 on a request with a session id (or 400
# naming the session, as the reference server says) means the session is
# gone: initialize again once and resend. DELETE ends the session.
# A 401, or a 403 with error="insufficient_scope", to a POST is an OAuth
# challenge (WWW-Authenticate): mcp/oauth.py, imported only then, gets a
# token (refresh, login with the person through conn.authorize, or an
# unattended grant) and the message is sent again, at most 3 times.
# Time: `timeout` bounds each socket wait; `deadline` (connect(); default
# 300 s, for configured servers the setting mcp.deadline) bounds each
# operation (connect, one tools/list page walk, one call) across all its
# requests: POSTs, answers to server requests, resumed GETs.
#
# Memory: every message is walked from the socket with jsonstream.Parser;
# only the fields in use are kept (the visitor's want() says which).

import jsonstream
import httpc
from compat import const, left, ticks_ms, ticks_diff
from mcp import MAX_RESULT

CLIENT_NAME = "antos-ai"

_MAX_VALUE = const(16384)      # any materialized JSON value (schemas, params)
_MAX_EVENTS = const(10000)     # SSE events read while waiting for one response
_MAX_ERROR = const(300)        # error message text kept from a server (chars)
_SSE_LINE = const(256)         # SSE id/event/retry line bound (ids are UUIDs): a smaller buffer
_DEADLINE = const(300)         # seconds for one operation unless connect() says


class McpError(Exception):
    """Expected failure; str() is the message a person sees."""


class Conn:
    """One MCP session. Attributes useful to callers: name (label used in
    errors: the registry name, else host:port), url, session, version
    (negotiated), server (serverInfo.name), last_is_error (True when the
    last call's result had isError), last_files (a tuple: the flash paths of the
    images and audio the last call's result carried, saved as they were
    read: mcp/items.py), authorize (fn(url) -> the address the
    browser was sent to, or the code: OAuth logins with a person), caps
    (the server's capabilities we use: "tools", "resources"), hidden (tools
    of the last listing hidden as task-only)."""

    def __init__(self, url, token=None, name=None, elicit=None, sample=None,
                 listen=True, timeout=30, authorize=None, deadline=_DEADLINE):
        self.url = url
        self.token = token
        self.reg_name = name
        if not name:
            i = url.find("://")
            name = url[i + 3:] if i >= 0 else url
            for c in "/?#":
                j = name.find(c)
                if j >= 0:
                    name = name[:j]
            name = name or url
        self.name = name
        self.elicit = elicit
        self.sample = sample
        self.listen = listen
        self.timeout = timeout
        self.authorize = authorize
        self.deadline = deadline   # seconds per operation
        self.t0 = None         # ticks_ms when the running operation started
        self.session = None
        self.version = None
        self.server = None
        self.last_is_error = False
        self.last_files = ()
        self.rid = 0           # the last JSON-RPC id used
        self.listening = None  # standalone GET stream: (request, None) until its
        # answer's head is read, then (Response, False) until bytes come, then
        # (Response, SSE); None when not held
        self.get = None        # False: the server offers no GET stream
        self.caps = ()
        self.hidden = 0
        self.calling = None    # the tool of the pending call (progress lines)
        self.late = False      # the last failure was a timeout or the deadline
        self.tick = 0          # ticks_ms of the last httpc.ON_WAIT call (tick())


class KeepChars:
    """Keeps str pieces up to n characters (text() joins them); .cut tells
    if more came. Unlike PassBytes it holds the text and counts characters."""

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


# ------------------------------------------------------- one JSON-RPC message
# A message is walked with jsonstream's pull parser: for every value the
# visitor's want(path) says skip / take (materialize, bounded) / stream (a
# string in pieces) / dive (walk the container). path is one list mutated in
# place (keys and indices), so the walk allocates nothing per skipped value
# and holds O(depth) state. (jsonstream.select() would do the same job but
# keeps a rule's objects alive during a parse, and a tools/call message
# needs about twenty rules.)

_SKIP = const(0)
_TAKE = const(1)
_STREAM = const(2)
_DIVE = const(3)
_COPY = const(4)    # the accumulator reads the value itself: v.acc.copy(path, parser)


def walk(src, v):
    """Walk one JSON document from src, driven by visitor v (want/put/piece)."""
    # a long text streams in pieces of the buffer's size; the rest of one
    # cut at its limit is read a buffer at a time, with a chain of calls
    # through the SSE reader and httpc each time: a small buffer makes a
    # long result slow (the buffer lives only while the reply is read)
    p = jsonstream.Parser(src, bufsize=512, max_value=_MAX_VALUE)
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
                    return v.piece(path, s)
            if p.stream_string(sink):
                v.piece(path, None)
            else:
                v.put(path, p.read_value())
        elif act == _COPY:
            v.acc.copy(path, p)
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


class Msg:
    """Visitor for one JSON-RPC message: keeps .id and .method, and in .f the
    error code ("code") and message ("emsg", a KeepChars), the params of server
    requests we may answer ("pmsg" for params.message) and, without an
    accumulator, the initialize result (protocolVersion, serverInfo "name").
    With an accumulator `acc`, "result.*" goes to the acc of the method we
    called. What was collected only counts when the message turns out to be
    our response (key order is free: "result" may come before "id")."""

    def __init__(self, acc):
        self.acc = acc
        self.reset()

    def incoming(self, conn):
        """A message that is not a response (method set): a request goes to
        mcp/answer.py, and progress while someone watches (httpc.ON_WAIT);
        any other notification is dropped without importing it."""
        if self.id is not None or httpc.ON_WAIT is not None:
            from mcp import answer
            answer.incoming(conn, self)

    def reset(self):
        self.f = {}
        self.id = self.method = None
        if self.acc is not None:
            self.acc.reset()

    def want(self, path):
        n = len(path)
        k = path[-1]
        top = path[0]
        if n == 1:
            if k == "id" or k == "method":
                return _TAKE
            return _DIVE if k in ("result", "error", "params") else _SKIP
        if top == "result":
            if self.acc is not None:
                return self.acc.want(path, n)
            if n == 2:
                if k == "protocolVersion":
                    return _TAKE
                return _DIVE if k == "serverInfo" or k == "capabilities" else _SKIP
            if n == 3 and path[1] == "capabilities":
                if k == "tools" or k == "resources":
                    self.f[k] = True    # (the capability's options: unused)
                return _SKIP
            return _TAKE if n == 3 and k == "name" else _SKIP
        if n > 2:
            return _SKIP
        if k == "message":
            return _STREAM
        if top == "error":
            return _TAKE if k == "code" else _SKIP
        return _TAKE if k in ("requestedSchema", "mode", "url", "messages", "systemPrompt",
                             "maxTokens", "progress", "total") else _SKIP

    def put(self, path, v):
        if len(path) == 1:
            if path[0] == "id":
                self.id = v
            else:
                self.method = v
        elif path[0] == "result" and self.acc is not None:
            self.acc.put(path, v)
        else:
            self.f[path[-1]] = v

    def piece(self, path, s):
        if path[0] == "result":
            return self.acc.piece(path, s)
        # error.message -> "emsg", params.message -> "pmsg"
        k = "emsg" if path[0] == "error" else "pmsg"
        c = self.f.get(k)
        if c is None:
            c = self.f[k] = KeepChars(_MAX_ERROR if k == "emsg" else MAX_RESULT)
        if s is not None:
            c.add(s)


# ------------------------------------------------------------------- HTTP

def headers(conn, accept=None, version=True):
    """The session's request headers (version: MCP-Protocol-Version too)."""
    h = {"Accept": accept or "application/json, text/event-stream"}
    if conn.token:
        h["Authorization"] = "Bearer " + conn.token
    if conn.session:
        h["Mcp-Session-Id"] = conn.session
    if version and conn.version:
        h["MCP-Protocol-Version"] = conn.version
    return h


def send(conn, method, h, body=None, opener=None):
    """An HTTP request to the endpoint with headers h -> Response, within
    what is left of the running operation's deadline (none while none
    runs: the standalone GET stream). A step generator (compat.drive;
    opener: httpc.aio's, under asyncio), as request() and what it calls."""
    try:
        return (yield from httpc.steps(
            method, conn.url, headers=h, body=body, keep=(
                "content-type", "mcp-session-id", "www-authenticate"), timeout=conn.timeout,
            deadline=None if conn.t0 is None else left(conn.deadline, conn.t0), opener=opener))
    except httpc.HTTPError as e:
        from mcp.errors import failed
        raise McpError(failed(conn, e))


def post(conn, msg, opener=None):
    """POST one JSON-RPC message (written piece by piece) -> Response; an
    OAuth challenge (401/403) is answered first (see the top comment)."""
    def body(write):
        jsonstream.dump(msg, write, view=True)     # (httpc copies what it keeps)

    tries = 0
    while True:
        h = headers(conn, None, msg.get("method") != "initialize")
        h["Content-Type"] = "application/json"
        resp = yield from send(conn, "POST", h, (jsonstream.encoded_len(msg), body), opener)
        if resp.status != 401 and (resp.status != 403 or "insufficient_scope"
                                   not in resp.headers.get("www-authenticate", "")):
            return resp
        from mcp import oauth
        oauth.challenge(conn, resp, tries)     # a new conn.token, or McpError
        tries += 1


def close_reply(resp):
    """Close a reply; errors are ignored (its socket is closed anyway)."""
    try:
        resp.close()
    except Exception:
        pass


def _not_mcp(conn, resp, method, e):
    """e, the McpError for a reply that is no JSON-RPC response; for
    initialize one that says what came back instead (the URL may well not
    be an MCP endpoint at all)."""
    if method != "initialize":
        return e
    from mcp import errors
    return errors.not_mcp(conn, resp)


# --------------------------------------------------------------- exchanges

def message(conn, method, params=None):
    """A JSON-RPC request of the session, with its next id."""
    conn.rid += 1
    msg = {"jsonrpc": "2.0", "id": conn.rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def request(conn, method, params, acc, opener=None):
    """Send one request and read until our response arrives. Returns the
    Msg of the response (acc holds the result). JSON-RPC errors raise."""
    msg = message(conn, method, params)
    rid = msg["id"]
    resp = yield from post(conn, msg, opener)
    try:        # (any failure closes it: its socket is the board's to count)
        if resp.status < 200 or resp.status >= 300:
            # (may start a new session and resend, see errors.refused)
            from mcp import errors
            resp = errors.refused(conn, resp, msg, method)
        return (yield from response(conn, resp, rid, acc, method, opener))
    except BaseException:
        close_reply(resp)
        raise


def response(conn, resp, rid, acc, method, opener=None):
    """Read the reply to request rid: its Msg; a JSON-RPC error raises.
    resp is closed, whatever happens (running out of memory too)."""
    try:
        m = Msg(acc)
        ct = resp.headers.get("content-type", "")
        if ct.startswith("application/json"):
            try:
                parse(conn, m, resp, method)
            except McpError as e:
                raise _not_mcp(conn, resp, method, e)
        elif ct.startswith("text/event-stream"):
            yield from _read_stream(conn, resp, rid, m, method, opener is None)
        else:
            if method == "initialize":
                try:        # what came back
                    resp.readinto(bytearray(64))
                except Exception:
                    pass
            raise _not_mcp(conn, resp, method, McpError("%s: unexpected reply type %r to %s" % (
                conn.name, ct or "(none)", method)))
    finally:
        close_reply(resp)
    if ct.startswith("application/json") and (m.method is not None or m.id != rid):
        raise _not_mcp(conn, resp, method, McpError(
            "%s: the reply to %s was not its response" % (conn.name, method)))
    if "code" in m.f or "emsg" in m.f:
        from mcp import errors
        raise McpError("%s: %s" % (conn.name, errors.error_text(m)))
    return m


def parse(conn, m, src, method):
    """Read one JSON-RPC message from src (bytes, a reply, an SSE event)
    into the visitor m; bad JSON raises McpError."""
    try:
        m.reset()
        walk(src, m)
    except jsonstream.JSONError as e:
        raise McpError("%s: bad JSON in the reply to %s (%s)" % (conn.name, method, e))
    except McpError as e:
        raise McpError("%s: %s" % (conn.name, e))


def tick(conn):
    """httpc.ON_WAIT (the console's spinner and Ctrl-C) at least every
    100 ms, also while events keep coming (httpc calls it only while a
    socket is silent)."""
    w = httpc.ON_WAIT
    if w is not None:
        t = ticks_ms()
        if ticks_diff(t, conn.tick) >= 100:
            conn.tick = t
            w()


def _read_stream(conn, resp, rid, m, method, block):
    last_id = retry = None
    resumes = events = 0
    while True:
        try:
            sse = httpc.SSE(resp, _SSE_LINE)
            while True:
                if conn.listening is not None:
                    from mcp import listen
                    ev = listen.next_event(conn, sse)
                else:
                    ev = sse.next() if block else (yield from sse.take())
                if ev is None:
                    break
                tick(conn)
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
                try:
                    parse(conn, m, ev, method)
                except McpError as e:
                    raise _not_mcp(conn, resp, method, e)
                if ev.id:  # fields after the data lines are known only now
                    last_id = ev.id
                if ev.retry is not None:
                    retry = ev.retry
                if m.method is not None:
                    m.incoming(conn)    # a server request or a notification
                    continue
                if m.id != rid:
                    continue  # not ours (stale or foreign): skip
                return
        except httpc.HTTPError as e:
            from mcp.errors import failed
            raise McpError(failed(conn, e, " while waiting for the reply to " + method))
        finally:
            close_reply(resp)
        # The stream ended before our response: resume it if the server let us.
        if method == "initialize" and last_id is None:
            raise _not_mcp(conn, resp, method, None)
        from mcp import errors
        resp = errors.resume(conn, last_id, retry, resumes, method)
        resumes += 1


# ----------------------------------------------------------------- session

def initialize(conn, opener=None):
    """Open the session (again): initialize, then notifications/initialized."""
    stop_listening(conn)
    conn.session = None
    conn.version = None
    conn.get = None
    # roots: we have none to share, but servers ask only clients that say so
    caps = {"elicitation": {"form": {}, "url": {}}, "roots": {}}
    if conn.sample is not None:
        caps["sampling"] = {}
    # the versions we speak, the newest (the one we ask for) first
    protocols = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
    from compat import VERSION
    params = {"protocolVersion": protocols[0], "capabilities": caps,
              "clientInfo": {"name": CLIENT_NAME, "version": VERSION}}
    msg = message(conn, "initialize", params)
    rid = msg["id"]
    resp = yield from post(conn, msg, opener)
    if resp.status < 200 or resp.status >= 300:
        from mcp import errors
        errors.check(conn, resp, "initialize")
    sid = resp.headers.get("mcp-session-id")
    # the reply keeps its first bytes (resp.head): what came back, for the
    # error when the URL's reply is not MCP (its readinto wrapped for this
    # one reply: no class for it at import)
    head = resp.head = bytearray()
    read = resp.readinto

    def readinto(buf, block=True):
        n = read(buf) if block else read(buf, False)
        k = 64 - len(head)
        if n and k > 0:
            head.extend(buf[:min(n, k)])
        return n
    resp.readinto = readinto
    m = yield from response(conn, resp, rid, None, "initialize", opener)
    version = m.f.get("protocolVersion")
    if version is None:         # a JSON-RPC result, but not initialize's
        raise _not_mcp(conn, resp, "initialize", None)
    if version not in protocols:
        raise McpError("%s: unsupported MCP protocol version %r" % (conn.name, version))
    conn.session = sid or None
    conn.version = version
    conn.server = m.f.get("name")
    resp = yield from post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                           opener)
    status = resp.status
    close_reply(resp)
    if status < 200 or status >= 300:
        raise McpError("%s: notifications/initialized refused (HTTP %d)" % (conn.name, status))
    conn.caps = [k for k in ("tools", "resources") if m.f.get(k)]


def stop_listening(conn):
    """Close the standalone GET stream if it is held."""
    g = conn.listening
    conn.listening = None
    if g is not None:
        close_reply(g[0])
