# MCP client over the Streamable HTTP transport (MCP 2025-11-25 and older):
# the calls of mcp's API (connect, tools, call, close) over the session's
# JSON-RPC exchange in mcp/exchange.py (whose top comment has the wire
# format).
#
# The server's capabilities are kept: no tools/list without "tools",
# resources/* only with "resources". Tools whose execution.taskSupport is
# "required" (tasks only) are hidden (conn.hidden counts them).
# tools/call carries _meta.progressToken so long tools send progress events
# that keep the socket read timeout from firing (the console shows them in
# its spinner line: mcp/answer.py progress). A call given up (timeout,
# deadline, Ctrl-C) is followed by notifications/cancelled naming its id.
# Server requests not tied to a POST arrive on the standalone GET stream:
# while a tools/call or resources/read is pending the client holds that
# stream when the server gave a session id (opened before the POST, so
# nothing the server sends is lost; closed with the reply) and watches it
# beside the reply (mcp/listen.py); a server that refuses the GET (405...)
# is not asked again in that session.
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
# compact JSON without being held. With into= (a file path) the whole text
# is written to the file (mcp/tofile.py), a text item's bytes straight from
# the parser's buffer: no str per piece.

import jsonstream
import httpc
from compat import collect, const, drive, ticks_ms, tighten, loosen
from mcp import MAX_RESULT as MAX_TEXT     # flattened tool result kept (bytes)
from mcp import exchange

_MAX_DESC = const(1024)        # tool description kept (chars)
_MAX_TOOLS = const(128)        # tools accepted from one server (all pages)
_MAX_PAGES = const(16)         # tools/list pages followed
_MAX_VALUE = const(16384)      # any materialized JSON value (schemas, params)
_DEADLINE = const(300)         # seconds for one operation unless connect() says
WHOLE = 1 << 30     # the limit of a result written whole (into=: mcp/tofile.py)
# exchange.walk's actions (its const names are not attributes under MicroPython)
_SKIP = const(0)
_TAKE = const(1)
_STREAM = const(2)
_DIVE = const(3)
_COPY = const(4)    # the accumulator reads the value itself: v.acc.copy(path, parser)


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
            c["description"] = exchange.KeepChars(_MAX_DESC)
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
            raise exchange.McpError("a reply that was not ours carried a tool list")
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
            raise exchange.McpError("more than %d tools" % _MAX_TOOLS)
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
    text items joined with "\n" (appended as they arrive), images/audio
    decoded to flash as they are read and worded "[image image/png, 1234
    bytes: /mcp-files/<hash>.png]" (their flash paths in files), blobs as "[blob
    ..., 1234 bytes]" (size counted from the base64 stream), resource_link
    as "name <uri>", embedded text resources inline up to MAX_RESOURCE
    chars, structuredContent as compact JSON only when no text
    item came (skipped unread once one came; copied while read, to a spool
    on flash if it comes first). An item is finished when the next index
    (or the end) arrives; items other than text are worded by
    items.item(). The text goes to dest.add() as it comes, cut at
    limit bytes (the rest only counted: total, and PassBytes.NOTE at the end),
    or at WHOLE to a file, a text item's bytes through dest.copy(parser)
    (mcp/tofile.py); dest.drop() forgets it when the message turns out not
    to be our response."""

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
        self.files = []         # flash paths of the images and audio saved

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
            return _COPY if n == 4 and k == "text" and self.limit == WHOLE else _STREAM
        if k == "resource":
            return _DIVE if n == 4 else _SKIP
        return _TAKE if k in ("type", "mimeType", "uri", "name") else _SKIP

    def copy(self, path, p):
        """A text item to the file (into=); structuredContent, no text so
        far: as compact JSON, straight into the text once the content list
        is done, else to a spool that finish() uses only if no text comes."""
        if len(path) == 4:
            self._item(path)
            self._sep()
            self.total += self.dest.copy(p)
            return
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
            kept = items.item(self.add, t, self.it)
            if kept:        # a picture on flash (mcp/items.py)
                self.files.append(kept)
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


# ------------------------------------------------------------ public API

_GEN = type((lambda: (yield))())


def done(v):
    """v, or the value of the step generator v run to its end, waiting
    (compat.drive): the protocol's steps are generators (mcp/exchange.py),
    mcp.aio runs the same ones under asyncio."""
    return drive(v) if type(v) is _GEN else v


def guard(conn, fn, *args):
    """Run fn(*args) -> (value, None) within the deadline (a step generator
    it gives is run to its end), mapping expected failures to (None, err)
    (failure())."""
    conn.t0 = ticks_ms()
    gc_was = tighten()
    try:
        return done(fn(*args)), None
    except (exchange.McpError, OSError, jsonstream.JSONError, MemoryError) as e:
        return None, failure(conn, e)
    finally:
        conn.t0 = None
        loosen(gc_was)


def failure(conn, e):
    """The line for an expected failure of an operation: the server's or
    the network's words, or for running out of memory what to make
    smaller (guard(), mcp.aio)."""
    if isinstance(e, exchange.McpError):
        return str(e)
    if isinstance(e, httpc.HTTPError):
        from mcp.errors import failed
        return failed(conn, e)
    if isinstance(e, jsonstream.JSONError):
        return "%s: bad JSON from the server (%s)" % (conn.name, e)
    if isinstance(e, MemoryError):
        collect()
        return ("%s: out of memory reading the reply (a smaller mcp.max_result, in a "
                "chat ai.max_tool_result; ai tools clear if the tools cache is large)"
                % conn.name)
    return "%s: network error (%s)" % (conn.name, e)


def session(url, token=None, name=None, elicit=None, sample=None, listen=True, timeout=30,
            authorize=None, deadline=None):
    """(a session not yet initialized, None), or (None, err) for arguments
    that cannot make one."""
    if not isinstance(url, str) or not (url.startswith("http://") or url.startswith("https://")):
        return None, "%s: URL must start with http:// or https://" % (name or url)
    try:
        deadline = int(deadline or _DEADLINE)   # (connect_named: from the setting)
    except (TypeError, ValueError):
        return None, "mcp.deadline must be a number, not %r" % (deadline,)
    return exchange.Conn(url, token, name, elicit, sample, listen, timeout, authorize,
                         deadline), None


def connect(url, token=None, name=None, elicit=None, sample=None, listen=True, timeout=30,
            authorize=None, deadline=None):
    conn, err = session(url, token, name, elicit, sample, listen, timeout, authorize, deadline)
    if err:
        return None, err
    _, err = guard(conn, exchange.initialize, conn)
    if err:
        exchange.stop_listening(conn)
        return None, err
    return conn, None


def _list_tools(conn, raw, each, opener=None):
    out = []
    acc = _Tools(out, raw, each)
    conn.hidden = 0
    if "tools" not in conn.caps:
        return out if each is None else 0   # the server offers none
    cursor = None
    for _ in range(_MAX_PAGES):
        yield from exchange.request(conn, "tools/list", {"cursor": cursor} if cursor else None,
                                    acc, opener)
        cursor = acc.finish()
        conn.hidden = acc.hidden
        if not isinstance(cursor, str) or not cursor:
            return out if each is None else acc.count
        collect()
    raise exchange.McpError("%s: tools/list has more than %d pages" % (conn.name, _MAX_PAGES))


def tools(conn, raw=False, each=None):
    """(tools, err): [{name, description, parameters, title?, annotations?}]
    (none without the server's tools capability; task-only tools are
    counted in conn.hidden, not listed); raw=True gives each
    parameters schema as jsonstream.Raw (compact JSON text) to send on. With
    each, every tool goes to each(tool) as it is parsed, page by page, and
    the value is the number of tools."""
    return guard(conn, _list_tools, conn, raw, each)


def pending(conn, method, params, acc, opener=None):
    """exchange.request for what may take long (tools/call, resources/read): the
    server's GET stream is held meanwhile (server requests not tied to the
    POST arrive there), and a request given up (timeout, deadline, Ctrl-C)
    is cancelled at the server (notifications/cancelled)."""
    if conn.listen and conn.session and conn.get is not False and opener is None:
        # (without a session the server could not tell the stream is ours)
        from mcp import listen
        listen.hold(conn)
    rid = conn.rid + 1
    conn.late = False
    try:
        return (yield from exchange.request(conn, method, params, acc, opener))
    except BaseException as e:
        if isinstance(e, httpc.HTTPError):
            from mcp.errors import failed
            failed(conn, e)         # (is it a timeout: conn.late)
        if conn.late or isinstance(e, KeyboardInterrupt):
            exchange.stop_listening(conn)
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
        exchange.stop_listening(conn)


def _call(conn, name, args, dest, limit, opener=None):
    acc = _Call(dest, limit)
    # a progress token makes long tools send progress events, which keeps
    # the read timeout from firing while they work
    params = {"name": name, "arguments": args, "_meta": {"progressToken": conn.rid + 1}}
    conn.calling = name
    yield from pending(conn, "tools/call", params, acc, opener)
    acc.finish()
    conn.last_is_error = acc.is_error
    # (a list made mid-call that outlived it would sit wherever the heap's
    # frontier was, splitting the block the result's str needs)
    conn.last_files = tuple(acc.files) if acc.files else ()
    return acc.total


def call(conn, name, args=None, out=None, limit=MAX_TEXT, into=None):
    """(text, err): the result flattened to text, cut at limit bytes. With
    out, the text goes to out.add(piece) as it is read instead and text is
    "" (a failed tool's text too: err is then just "tool error"). With into
    (a file path), the whole text is written there as it is read: (its
    size in bytes, err), mcp/tofile.py."""
    conn.last_is_error = False
    conn.last_files = ()
    args, err = arguments(name, args)
    if err:
        return None, err
    if into is not None:
        from mcp import tofile
        return tofile.whole(conn, into, _call, conn, name, args)
    if out is None:
        text, err = as_text(conn, limit, _call, conn, name, args)
    else:
        text, err = "", guard(conn, _call, conn, name, args, out, limit)[1]
    return called(conn, text, err, out is None)


def arguments(name, args):
    """(a tool call's arguments as a dict, None), or (None, err)."""
    if args is None or args == "":
        return {}, None
    if isinstance(args, str):
        try:
            args = jsonstream.loads(args, max_value=_MAX_VALUE)
        except jsonstream.JSONError as e:
            return None, "bad tool arguments for %s: %s" % (name, e)
    if not isinstance(args, dict):
        return None, "bad tool arguments for %s: not a JSON object" % name
    return args, None


def called(conn, text, err, kept=True):
    """call()'s (text, err) from what was read: a failed tool's result is
    its error (with its text when the text was kept)."""
    if conn.last_is_error and err is None:
        return None, "tool error" + (": " + (text or "(no details)") if kept else "")
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
        return text_of(conn, dest, guard(conn, read, *args, dest, limit)[1])
    finally:
        unspool(dest)


def text_of(conn, dest, err):
    """(text, err) of a result read into dest (the spool; err: the read's):
    its str made once nothing of the exchange is left in RAM."""
    collect()
    text = ""
    if err is None or conn.last_is_error:
        text, e = guard(conn, dest.text)
        err = err or e
    return text, err


def close(conn):
    """End the session (DELETE); errors are ignored."""
    if conn is None:
        return
    exchange.stop_listening(conn)
    if conn.session:
        try:
            resp = httpc.request("DELETE", conn.url, headers=exchange.headers(conn),
                                 timeout=min(conn.timeout, 5), deadline=5)
            resp.close()
        except Exception:
            pass
    conn.session = None
