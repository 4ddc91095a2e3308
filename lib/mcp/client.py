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
# Server requests not tied to a POST arrive on the standalone GET stream:
# while a tools/call or resources/read is pending the client holds that
# stream when the server gave a session id (opened before the POST, so
# nothing the server sends is lost; closed with the reply) and watches it beside the reply (mcp/listen.py); a
# server that refuses the GET (405...) is not asked again in that session.
# 404 on a request with a session id (or 400
# naming the session, as the reference server says) means the session is
# gone: initialize again once and resend. DELETE ends the session.
# The server's capabilities are kept: no tools/list without "tools",
# resources/* only with "resources". Tools whose execution.taskSupport is
# "required" (tasks only) are hidden (conn.hidden counts them).
# tools/call carries _meta.progressToken so long tools send progress events
# that keep the socket read timeout from firing (the console shows them in
# its spinner line: mcp/answer.py progress). A call given up (timeout,
# deadline, Ctrl-C) is followed by notifications/cancelled naming its id.
# A 401, or a 403 with error="insufficient_scope", to a POST is an OAuth
# challenge (WWW-Authenticate): mcp/oauth.py, imported only then, gets a
# token (refresh, login with the person through conn.authorize, or an
# unattended grant) and the message is sent again, at most 3 times.
# Time: `timeout` bounds each socket wait; `deadline` (connect(); default
# 300 s, for configured servers the setting mcp.deadline) bounds each
# operation (connect, one tools/list page walk, one call) across all its
# requests: POSTs, answers to server requests, resumed GETs.
#
# Failures (error bodies and status wording, 404 re-initialize, resuming a
# stream with Last-Event-ID) live in mcp/errors.py and result items other
# than text (base64 sizes, links, resources) in mcp/items.py, each imported
# on first use; the GET stream in mcp/listen.py,
# answers to server requests in mcp/answer.py.
#
# Memory: every message is walked from the socket with jsonstream.Parser;
# only the fields in use are kept: tool name/description/inputSchema (one
# tool at a time when each= takes them as they are parsed), image/blob sizes
# counted from the base64 stream without holding it. A tool result is
# flattened as it streams and cut at its limit (bytes) while it is read, the
# rest only counted ("... (truncated, N bytes)"); the kept text goes to the
# str mcp.call returns, or to the caller's output (ai.run: a file on flash),
# and structuredContent is skipped unread when text came, else copied as
# compact JSON without being held.

import jsonstream
import httpc
from compat import collect, const, ticks_ms, ticks_diff, tighten, loosen
from mcp import MAX_RESULT as MAX_TEXT     # flattened tool result kept (bytes)

CLIENT_NAME = "antos-ai"

MAX_RESOURCE = 4096    # embedded text resource, inline part (chars)
_MAX_DESC = const(1024)        # tool description kept (chars)
_MAX_TOOLS = const(128)        # tools accepted from one server (all pages)
_MAX_PAGES = const(16)         # tools/list pages followed
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
    last call's result had isError), authorize (fn(url) -> the address the
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
        self._id = 0           # the last JSON-RPC id used
        self.listening = None  # standalone GET stream: (request, None) until its
        # answer's head is read, then (Response, False) until bytes come, then
        # (Response, SSE); None when not held
        self.get = None        # False: the server offers no GET stream
        self.caps = ()
        self.hidden = 0
        self.calling = None    # the tool of the pending call (progress lines)
        self.late = False      # the last failure was a timeout or the deadline
        self.tick = 0          # ticks_ms of the last httpc.ON_WAIT call (tick())


class _KeepChars:
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

    def drop(self):
        self.parts = []
        self.size = 0
        self.cut = False


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
_COPY = const(4)    # the visitor reads the value itself: v.copy(path, parser)


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
            v.copy(path, p)
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
    """Visitor for one JSON-RPC message: keeps .id and .method, and in .f the
    error code ("code") and message ("emsg", a _KeepChars), the params of server
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

    def copy(self, path, p):
        self.acc.copy(path, p)

    def piece(self, path, s):
        if path[0] == "result":
            return self.acc.piece(path, s)
        # error.message -> "emsg", params.message -> "pmsg"
        k = "emsg" if path[0] == "error" else "pmsg"
        c = self.f.get(k)
        if c is None:
            c = self.f[k] = _KeepChars(_MAX_ERROR if k == "emsg" else MAX_TEXT)
        if s is not None:
            c.add(s)


# ------------------------------------------------------------ accumulators
# reset() / want(path, n) / put(path, v) / piece(path, s) for paths under
# "result".

class Listing:
    """What a paged list's walker shares (tools/list, resources/list): the
    page's nextCursor, and an item's fields by _item(path), its description
    capped at _MAX_DESC while it streams."""

    def put(self, path, v):
        if len(path) == 2:
            self.cursor = v
        else:
            self._item(path)[path[-1]] = v

    def piece(self, path, s):
        c = self._item(path)
        if "description" not in c:
            c["description"] = _KeepChars(_MAX_DESC)
        if s is not None:
            c["description"].add(s)


class _Tools(Listing):
    """result.tools[*] -> [{name, description, parameters, title?,
    annotations?}] + nextCursor ("title" the tool's or its annotations'
    display name). raw=True keeps each inputSchema as compact JSON text
    (jsonstream.Raw, a fraction of the heap of a dict tree) for callers that
    only send it on. With each, every tool goes to each(tool) as soon as it
    is parsed (one tool in RAM at a time) and out only counts them. A tool
    that runs only as a task (execution.taskSupport "required") is counted
    in .hidden, not offered."""

    def __init__(self, out, raw, each=None):
        self.out = out  # shared across pages
        self.raw = raw
        self.each = each
        self.count = 0
        self.hidden = 0
        self.page = None

    def reset(self):
        if self.page and self.each is not None:
            # a message that was not our response carried tools, which
            # went to each() already: refuse rather than mix them in
            raise McpError("a reply that was not ours carried a tool list")
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
            return _TAKE if k in ("name", "inputSchema", "title", "annotations",
                                  "execution") else _SKIP
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
        ex = c.get("execution")
        if isinstance(ex, dict) and ex.get("taskSupport") == "required":
            self.hidden += 1    # we cannot run tasks
            return
        if self.count >= _MAX_TOOLS:
            raise McpError("more than %d tools" % _MAX_TOOLS)
        self.count += 1
        schema = c.get("inputSchema")
        if not isinstance(schema, dict):
            schema = {"type": "object", "properties": {}}
        else:
            schema.pop("$schema", None)  # noise for the model
        if self.raw:
            schema = jsonstream.Raw(jsonstream.dumps(schema))
        d = c.get("description")
        desc = ""
        if d is not None:
            desc = d.text() + ("..." if d.cut else "")
        t = {"name": c["name"], "description": desc, "parameters": schema}
        a = c.get("annotations")
        if isinstance(a, dict) and a:
            t["annotations"] = a
            title = a.get("title")
        else:
            title = None
        title = c.get("title") or title
        if isinstance(title, str) and title:
            t["title"] = title
        if self.each is not None:
            self.each(t)
            self.page.append(None)      # (handed over: see reset)
        else:
            self.page.append(t)

    def finish(self):
        self._flush()
        if self.each is None:
            for t in self.page:
                self.out.append(t)
        self.page = []
        return self.cursor





def utf8_head(e, room):
    """The start of the UTF-8 bytes e within room bytes, as str (never half
    a character): what PassBytes and a local tool's text keep of a long one."""
    while room > 0 and e[room] & 0xC0 == 0x80:
        room -= 1
    return str(e[:room], "utf-8")


class PassBytes:
    """Passes text on to dest.add() as it comes, cut at limit UTF-8 bytes (the rest only
    counted in total: NOTE says how much there was). add() says True once
    nothing more fits: the rest of a string then comes as its length in
    UTF-8 bytes, an int (jsonstream counts it: nothing decoded or copied)."""

    NOTE = "\n... (truncated, %d bytes)"     # after a text cut at its limit

    def __init__(self, dest, limit):
        self.dest = dest
        self.limit = limit
        self.total = 0

    def add(self, s):
        if type(s) is int:
            self.total += s
            return True
        if s:
            e = s.encode()
            room = self.limit - self.total
            self.total += len(e)
            if room > 0:
                self.dest.add(s if len(e) <= room else utf8_head(e, room))
                if self.total >= self.limit:
                    # cut: the rest is only counted, nothing of it lives on,
                    # so the GC need not run before the heap is full (a
                    # threshold would mostly count the parser's call
                    # frames); the call's _guard puts the setting back
                    from compat import stream_gc
                    stream_gc()
        return self.total >= self.limit


class _Call(PassBytes):
    """Flattens a tools/call result into text for a model while it streams:
    text items joined with "\n" (appended as they arrive), images/audio and
    blobs as "[image image/png, 1234 bytes]" (size counted from the base64
    stream), resource_link as "name <uri>", embedded text resources inline up
    to MAX_RESOURCE chars, structuredContent as compact JSON only when no text
    item came (skipped unread once one came; copied while read, to a spool
    on flash if it comes first). An item is finished when the next index
    (or the end) arrives; items other than text are worded by
    items.item(). The text goes to dest.add() as it comes, cut at
    limit bytes (the rest only counted: total, and PassBytes.NOTE at the end);
    dest.drop() forgets it when the message turns out not to be our
    response."""

    def reset(self):
        if self.total:
            self.dest.drop()
        self.total = 0
        self.i = None
        self.n_text = 0
        self.listed = False     # the content array was read
        self.struct = None      # structuredContent spooled before it
        self.is_error = False
        self.it = {}
        self.started = False

    def want(self, path, n):
        k = path[-1]
        if n == 2:
            if k == "content":
                self.listed = True
                return _DIVE
            if k == "structuredContent":
                return _SKIP if self.n_text else _COPY
            return _TAKE if k == "isError" else _SKIP
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

    def copy(self, path, p):
        """structuredContent, no text so far: as compact JSON, straight into
        the text once the content list is done, else to a spool that
        finish() uses only if no text comes."""
        from mcp import items
        if self.listed:
            self._flush()
            self._sep()
            items.copy(p, self.add)
        else:
            import store
            self.struct = store.Spool("struct")
            items.copy(p, self.struct.add)

    def _item(self, path):
        i = path[2]
        if i != self.i:
            self._flush()
            self.i = i

    def _sep(self):
        if not self.started:
            self.started = True
            if self.total:
                self.add("\n")

    def _flush(self):
        if self.i is None:
            return
        t = self.it.get("type")
        if t != "text" and t is not None:
            self._sep()
            from mcp import items
            items.item(self.add, t, self.it)
        self.it = {}
        self.started = False
        self.i = None

    def put(self, path, v):
        k = path[-1]
        if len(path) == 2:
            self.is_error = v is True
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
                return self.add(s)
            return
        from mcp import items
        items.piece(self.it, k, s)

    def finish(self):
        self._flush()
        st = self.struct
        self.struct = None
        if st is not None:
            if self.n_text == 0:
                self._sep()
                st.pieces(self.add)
            else:
                st.drop()
        if self.total > self.limit:
            self.dest.add(PassBytes.NOTE % self.total)


# ------------------------------------------------------------------- HTTP

def _headers(conn, accept=None, version=True):
    h = {"Accept": accept or "application/json, text/event-stream"}
    if conn.token:
        h["Authorization"] = "Bearer " + conn.token
    if conn.session:
        h["Mcp-Session-Id"] = conn.session
    if version and conn.version:
        h["MCP-Protocol-Version"] = conn.version
    return h


def _send(conn, method, headers, body=None):
    # within what is left of the running operation's deadline (none while
    # none runs: the standalone GET stream)
    left = None
    if conn.t0 is not None:
        left = max(conn.deadline - ticks_diff(ticks_ms(), conn.t0) / 1000, 0)
    try:
        return httpc.request(method, conn.url, headers=headers, body=body, keep=(
            "content-type", "mcp-session-id", "www-authenticate"), timeout=conn.timeout,
            deadline=left)
    except httpc.HTTPError as e:
        from mcp.errors import failed
        raise McpError(failed(conn, e))


def post(conn, msg):
    """POST one JSON-RPC message (written piece by piece) -> Response; an
    OAuth challenge (401/403) is answered first (see the top comment)."""
    def body(write):
        jsonstream.dump(msg, write, view=True)     # (httpc copies what it keeps)

    tries = 0
    while True:
        h = _headers(conn, None, msg.get("method") != "initialize")
        h["Content-Type"] = "application/json"
        resp = _send(conn, "POST", h, (jsonstream.encoded_len(msg), body))
        if resp.status != 401 and (resp.status != 403 or "insufficient_scope"
                                   not in resp.headers.get("www-authenticate", "")):
            return resp
        from mcp import oauth
        oauth.challenge(conn, resp, tries)     # a new conn.token, or McpError
        tries += 1


def _close(resp):
    try:
        resp.close()
    except Exception:
        pass


class _Head:
    """A response whose first bytes are kept as they are read: what came
    back, for the error when a URL's reply to initialize is not MCP."""

    def __init__(self, resp):
        self.r = resp
        self.head = b""

    def readinto(self, buf, block=True):
        n = self.r.readinto(buf) if block else self.r.readinto(buf, False)
        k = 64 - len(self.head)
        if n and k > 0:
            self.head += bytes(buf[:min(n, k)])
        return n

    def __getattr__(self, name):        # status, headers, close, ...
        return getattr(self.r, name)

    @staticmethod
    def error(conn, resp, method, e):
        """e, the McpError for a reply that is no JSON-RPC response; for
        initialize one that says what came back instead (the URL may well
        not be an MCP endpoint at all). (A class member: a module name less.)"""
        if method != "initialize":
            return e
        from mcp import errors
        return errors.not_mcp(conn, resp)


# --------------------------------------------------------------- exchanges

def _request(conn, method, params, acc):
    """Send one request and read until our response arrives. Returns the
    _Msg of the response (acc holds the result). JSON-RPC errors raise."""
    conn._id += 1
    rid = conn._id
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    resp = post(conn, msg)
    try:        # (any failure closes it: its socket is the board's to count)
        if resp.status < 200 or resp.status >= 300:
            # (may start a new session and resend, see errors.refused)
            from mcp import errors
            resp = errors.refused(conn, resp, msg, method)
        return _response(conn, resp, rid, acc, method)
    except BaseException:
        _close(resp)
        raise


def _response(conn, resp, rid, acc, method):
    """Read the reply to request rid: its _Msg; a JSON-RPC error raises.
    resp is closed, whatever happens (running out of memory too)."""
    try:
        m = _Msg(acc)
        ct = resp.headers.get("content-type", "")
        if ct.startswith("application/json"):
            try:
                parse(conn, m, resp, method)
            except McpError as e:
                raise _Head.error(conn, resp, method, e)
        elif ct.startswith("text/event-stream"):
            _read_stream(conn, resp, rid, m, method)
        else:
            if method == "initialize":
                try:        # what came back
                    resp.readinto(bytearray(64))
                except Exception:
                    pass
            raise _Head.error(conn, resp, method, McpError("%s: unexpected reply type %r to %s" % (
                conn.name, ct or "(none)", method)))
    finally:
        _close(resp)
    if ct.startswith("application/json") and (m.method is not None or m.id != rid):
        raise _Head.error(conn, resp, method, McpError(
            "%s: the reply to %s was not its response" % (conn.name, method)))
    if "code" in m.f or "emsg" in m.f:
        from mcp import errors
        raise McpError("%s: %s" % (conn.name, errors.error_text(m)))
    return m


def parse(conn, m, src, method):
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


def _read_stream(conn, resp, rid, m, method):
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
                    ev = sse.next()
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
                    raise _Head.error(conn, resp, method, e)
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
            _close(resp)
        # The stream ended before our response: resume it if the server let us.
        if method == "initialize" and last_id is None:
            raise _Head.error(conn, resp, method, None)
        from mcp import errors
        resp = errors.resume(conn, last_id, retry, resumes, method)
        resumes += 1


# ----------------------------------------------------------------- session

def _initialize(conn):
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
    conn._id += 1
    rid = conn._id
    resp = post(conn, {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params})
    if resp.status < 200 or resp.status >= 300:
        from mcp import errors
        errors.check(conn, resp, "initialize")
    sid = resp.headers.get("mcp-session-id")
    resp = _Head(resp)
    m = _response(conn, resp, rid, None, "initialize")
    version = m.f.get("protocolVersion")
    if version is None:         # a JSON-RPC result, but not initialize's
        raise _Head.error(conn, resp, "initialize", None)
    if version not in protocols:
        raise McpError("%s: unsupported MCP protocol version %r" % (conn.name, version))
    conn.session = sid or None
    conn.version = version
    conn.server = m.f.get("name")
    resp = post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    status = resp.status
    _close(resp)
    if status < 200 or status >= 300:
        raise McpError("%s: notifications/initialized refused (HTTP %d)" % (conn.name, status))
    conn.caps = [k for k in ("tools", "resources") if m.f.get(k)]


def stop_listening(conn):
    g = conn.listening
    conn.listening = None
    if g is not None:
        _close(g[0])


# ------------------------------------------------------------ public API

def _guard(conn, fn, *args):
    """Run fn(*args) -> (value, None) within the deadline, mapping expected
    failures to (None, err) (running out of memory too: what to make
    smaller)."""
    conn.t0 = ticks_ms()
    gc_was = tighten()
    try:
        return fn(*args), None
    except McpError as e:
        return None, str(e)
    except httpc.HTTPError as e:
        from mcp.errors import failed
        return None, failed(conn, e)
    except jsonstream.JSONError as e:
        return None, "%s: bad JSON from the server (%s)" % (conn.name, e)
    except OSError as e:
        return None, "%s: network error (%s)" % (conn.name, e)
    except MemoryError:
        collect()
        return None, ("%s: out of memory reading the reply (a smaller mcp.max_result; "
                      "ai tools clear if the tools cache is large)" % conn.name)
    finally:
        conn.t0 = None
        loosen(gc_was)


def connect(url, token=None, name=None, elicit=None, sample=None, listen=True, timeout=30,
            authorize=None, deadline=None):
    if not isinstance(url, str) or not (url.startswith("http://") or url.startswith("https://")):
        return None, "%s: URL must start with http:// or https://" % (name or url)
    try:
        deadline = int(deadline or _DEADLINE)   # (connect_named: from the setting)
    except (TypeError, ValueError):
        return None, "mcp.deadline must be a number, not %r" % (deadline,)
    conn = Conn(url, token, name, elicit, sample, listen, timeout, authorize, deadline)
    _, err = _guard(conn, _initialize, conn)
    if err:
        stop_listening(conn)
        return None, err
    return conn, None


def _list_tools(conn, raw, each):
    out = []
    acc = _Tools(out, raw, each)
    conn.hidden = 0
    if "tools" not in conn.caps:
        return out if each is None else 0   # the server offers none
    cursor = None
    for _ in range(_MAX_PAGES):
        _request(conn, "tools/list", {"cursor": cursor} if cursor else None, acc)
        cursor = acc.finish()
        conn.hidden = acc.hidden
        if not isinstance(cursor, str) or not cursor:
            return out if each is None else acc.count
        collect()
    raise McpError("%s: tools/list has more than %d pages" % (conn.name, _MAX_PAGES))


def tools(conn, raw=False, each=None):
    """(tools, err): [{name, description, parameters, title?, annotations?}]
    (none without the server's tools capability; task-only tools are
    counted in conn.hidden, not listed); raw=True gives each
    parameters schema as jsonstream.Raw (compact JSON text) to send on. With
    each, every tool goes to each(tool) as it is parsed, page by page, and
    the value is the number of tools."""
    return _guard(conn, _list_tools, conn, raw, each)


def pending(conn, method, params, acc):
    """_request for what may take long (tools/call, resources/read): the
    server's GET stream is held meanwhile (server requests not tied to the
    POST arrive there), and a request given up (timeout, deadline, Ctrl-C)
    is cancelled at the server (notifications/cancelled)."""
    if conn.listen and conn.session and conn.get is not False:
        # (without a session the server could not tell the stream is ours)
        from mcp import listen
        listen.hold(conn)
    rid = conn._id + 1
    conn.late = False
    try:
        return _request(conn, method, params, acc)
    except BaseException as e:
        if isinstance(e, httpc.HTTPError):
            from mcp.errors import failed
            failed(conn, e)         # (is it a timeout: conn.late)
        if conn.late or isinstance(e, KeyboardInterrupt):
            stop_listening(conn)
            from mcp import answer
            answer.cancel(conn, rid, "timed out" if conn.late else "interrupted")
        raise
    finally:
        if conn.listening is not None:
            if conn.listening[1] is None:
                from mcp import listen
                listen.poll_get(conn)    # a refusal that came is remembered
            if conn.listening is not None:
                conn.get = True         # one was held (see listen.hold)
        stop_listening(conn)


def _call(conn, name, args, dest, limit):
    acc = _Call(dest, limit)
    # a progress token makes long tools send progress events, which keeps
    # the read timeout from firing while they work
    params = {"name": name, "arguments": args, "_meta": {"progressToken": conn._id + 1}}
    conn.calling = name
    pending(conn, "tools/call", params, acc)
    acc.finish()
    conn.last_is_error = acc.is_error


def call(conn, name, args=None, out=None, limit=MAX_TEXT):
    """(text, err): the result flattened to text, cut at limit bytes. With
    out, the text goes to out.add(piece) as it is read instead and text is
    "" (a failed tool's text too: err is then just "tool error")."""
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
    if out is None:
        text, err = as_text(conn, limit, _call, conn, name, args)
    else:
        text, err = "", _guard(conn, _call, conn, name, args, out, limit)[1]
    if conn.last_is_error and err is None:
        return None, "tool error" + (": " + (text or "(no details)") if out is None else "")
    return (None, err) if err else (text, None)


_spool = [None, False]      # the result spool, in use (spool())


def spool():
    """Where a result read for a str goes (the cut is the reader's): a
    store.Spool, in RAM while short, then on flash (tmp/result) to be read
    back in one block, so the text is in RAM once. Pieces joined in RAM
    would need a free block the text's size in a heap that reading them
    scattered them over: a 16 KB result failed at every heap that way.
    One spool, made on first use after a collect: it, and the store module
    for a caller that had not imported it, live low in the heap. (A spool
    made per call went into the lowest hole, often the one the last
    result's str had left, and split the block the next str needed; store
    imported once a result turned out long landed in the free top.) A call
    made while one is reading (from a sampling callback) gets one of its
    own. Give it back with unspool()."""
    if _spool[0] is None:
        collect()       # (first: the store module goes low too)
        import store
        _spool[0] = store.Spool("result")
    import store
    if _spool[1]:
        return store.Spool("result-inner")
    _spool[1] = True
    sp = _spool[0]
    p = store.path("tmp", "result")
    if sp.path != p:    # the store's root moved (tests, the simulator); else no new
        sp.path = p     # str lives on, into the hole the last result's str left
    return sp


def unspool(sp):
    """Empty a spool from spool() (its file removed) and give it back."""
    sp.drop()
    if sp is _spool[0]:
        _spool[1] = False


def as_text(conn, limit, read, *args):
    """(text, err): read(*args, dest, limit) fills the result spool with a
    result (a tool error's text too); its str is made once nothing of the
    exchange is left in RAM, and the spool is given back, also when the
    reading is interrupted."""
    dest = spool()
    try:
        _, err = _guard(conn, read, *args, dest, limit)
        collect()
        text = ""
        if err is None or conn.last_is_error:
            text, e = _guard(conn, dest.text)
            err = err or e
    finally:
        unspool(dest)
    return text, err


def close(conn):
    """End the session (DELETE); errors are ignored."""
    if conn is None:
        return
    stop_listening(conn)
    if conn.session:
        try:
            resp = httpc.request("DELETE", conn.url, headers=_headers(conn),
                                 timeout=min(conn.timeout, 5), deadline=5)
            resp.close()
        except Exception:
            pass
    conn.session = None
