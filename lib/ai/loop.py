"""The tool-use loop (ai.run). The tools cache (ai.tools_cache_build...)
lives in ai/toolcache.py, imported only when a run offers cached tools.

Tools come from four places and go through one dispatch:
- the registry of reusable local tools (ai.register_tool), named by string;
- inline dicts {"name", "description", "parameters", "run"};
- every tool of the named MCP servers, as "<server>__<tool>" (characters a
  provider refuses are replaced, 64 characters at most; a name that had to
  change or that collides gets a short stable hash: tool_name());
- with local ("read" or True, "all"), the board's console commands as
  "board_<cmd>" (shell/chattools.py; guardrails: shell/tools.py). A
  call of one that changes something runs only when approve() says yes:
  without an approve function it is refused.
A local name used twice is an error before any request is made.

Each round asks the model; tool calls run one after another in the order
asked and every result goes back keyed to its call id, scrubbed of secrets
(store.scrub). Failures (unknown tool, arguments that are not JSON, a tool
that raises, an MCP error, a call the person refused) go back to the model
as "Error: ..." so it can recover.
The loop ends on a text answer, an error, or max_rounds model requests.

Memory: MCP tools (the named servers', listed into tmp/tools.jsonl as they
are parsed, or the tools cache) are offered straight from their file into
each request, a line at a time (toolcache), and a call's tool is found by
reading the file again: their count costs no heap. A tool result is cut at
the setting ai.max_tool_result (bytes, 16384 by default; mcp.max_result is
a program's str) while it is read; when the history records to flash
(ai.history.Turn) an MCP result goes from the socket to a file
(history.StrFile) and from there into the history and the requests,
never whole in RAM.
"""
import jsonstream
import store
from compat import collect, const, drive

_LOCAL = {}     # the local tools by name (ai.register_tool, in ai/tools.py)
CACHE = "tools.jsonl"   # the tools cache (ai/toolcache.py), under the flash root
_HEAD = const(256)      # characters of a result on flash shown to show()
_MINUS = const(0x2D)      # -
_ZERO = const(0x30)
_NINE = const(0x39)
_UPPER_A = const(0x41)
_UPPER_Z = const(0x5A)
_UNDER = const(0x5F)      # _
_LOWER_A = const(0x61)
_LOWER_Z = const(0x7A)


def tool_name(server, name, force=False):
    """A name every provider accepts, [a-zA-Z0-9_-]{1,64}: "<server>__<tool>"
    with each other character made "_" (walks the UTF-8 bytes: MicroPython
    interns every one-character str). A name that had to change, or any
    with force (for one that collides), ends in "_" and 5 hex digits of a
    hash of server and tool: "a.b" and "a_b" stay two tools, and each keeps
    its name from one listing to the next."""
    raw = (server + "__" + name).encode()
    out = bytearray()
    for c in raw:
        if _LOWER_A <= c <= _LOWER_Z or _UPPER_A <= c <= _UPPER_Z or _ZERO <= c <= _NINE or c == _UNDER or c == _MINUS:
            out.append(c)
        elif c < 0x80 or c >= 0xC0:     # not a UTF-8 continuation byte
            out.append(_UNDER)
    if force or len(out) > 64 or out != raw:
        h = 5381        # djb2 (xor) over server, NUL, tool; small ints only
        for c in server.encode() + b"\0" + name.encode():
            h = (h * 33 ^ c) & 0xFFFFF
        out = out[:58] + ("_%05x" % h).encode()
    return str(out, "utf-8")


def _listing():
    import store
    store.makedirs(store.path("tmp"))
    return store.path("tmp", "tools.jsonl")


def _gather(tools, mcps, local=None):
    """(tools to offer, {name: route of a local tool}); with local, the
    board's commands ahead of what follows (hooks.local: the console's)."""
    return drive(_gathering(tools, mcps, local))


def _gathering(tools, mcps, local=None, opener=None):
    """_gather as a step generator (the MCP listings: compat.drive)."""
    t, routes = yield from _gathered(tools, mcps, opener)
    if not local or local == "off":
        return t, routes
    import hooks
    if hooks.local is None:
        raise ValueError("local tools are the console's commands: import shell first")
    return hooks.local(local, t, routes), routes


def _gathered(tools, mcps, opener=None):
    """(tools to offer, {name: route of a local tool}): a list of the local
    and inline definitions, or a tool file (toolcache.Tools: the run's MCP
    listing, the locals written into it too, or the tools cache), or None."""
    defs = []
    routes = {}
    for item in tools or ():
        if isinstance(item, str):
            if item not in _LOCAL:
                raise ValueError("unknown local tool '%s' (known: %s)" % (item, ", ".join(sorted(_LOCAL)) or "none"))
            item = _LOCAL[item]
        name = item["name"]
        if name in routes:
            raise ValueError("tool name '%s' is offered twice" % name)
        routes[name] = ("local", item)
        defs.append({"name": name, "description": item.get("description") or "",
                     "parameters": item.get("parameters") or
                     {"type": "object", "properties": {}}})
    import store
    path = store.path(CACHE)
    if not mcps and (tools or not store.exists(path)):
        return (defs or None), routes      # (no tool file: toolcache not loaded)
    from ai import toolcache
    if mcps:
        t = toolcache.Tools(_listing(), True)
        try:
            for d in defs:
                t.add(d)
            for server in mcps:
                _, err = yield from t.listing(server, opener)
                if err:
                    raise ValueError(err)
        finally:
            t.close()
        return t, routes
    # no explicit tools or servers: offer the cached MCP tools
    t = toolcache.Tools(path)
    n = 0
    for _ in t:
        n += 1
    if n > toolcache.MAX_TOOLS:
        raise ValueError("the tools cache holds %d tools, more than %d (ai tools clear, "
                         "then ai -tools with fewer servers)" % (n, toolcache.MAX_TOOLS))
    return (t if n else None), routes


def _route(t, routes, name):
    """("local", tool), ("mcp", server, remote name (None: the server's
    read_resource), annotations, title) or None."""
    r = routes.get(name)
    if r is None and t is not None and not isinstance(t, list):
        d = t.find(name)
        if d is not None and d.get("server"):
            r = ("mcp", d["server"], d["remote"], d.get("annotations"), d.get("title"))
        elif d is not None and d.get("board"):
            r = ("local", d)
    return r


def _asked(call, route):
    """The call as approve() sees it: a copy with "server" (None for a local
    tool), "tool" (the name its server knows), "annotations" (the tool
    definition's, e.g. readOnlyHint, or None) and "title" (or None)."""
    c = dict(call)
    if route[0] == "mcp":
        c["server"], c["tool"], c["annotations"] = route[1], route[2] or "read_resource", route[3]
        c["title"] = route[4]
    else:
        c["server"], c["tool"] = None, call["name"]
        f = route[1].get("check")      # a board tool: this call's own
        c["annotations"] = f(call.get("args")) if f else route[1].get("annotations")
        c["board"] = route[1].get("board")
    return c


def _connect(conns, server, opener=None):
    """(the run's session with server, err): a step generator."""
    if server in conns:
        return conns[server], None
    if opener is None:
        import mcp
        conn, err = mcp.connect_named(server)
    else:
        from mcp import aio
        conn, err = yield aio.connect_named(server)
    if conn:
        conns[server] = conn
    return conn, err


def _awaited(v, opener):
    """v, or under the asyncio driver (opener) what it gives once awaited
    when it is a coroutine (an approve() or a tool's run that is async):
    a step generator."""
    if opener is not None and (hasattr(v, "send") or hasattr(v, "__await__")):
        v = yield v
    return v


def _dispatch(route, call, conns, history, made, opener=None):
    """Run one call: (content, is_error); content is a str, or for an MCP
    result recorded to flash a jsonstream.RawFile (never an error). The
    flash paths of files it made for the model to see (a local tool's
    {"content", "files"}, an MCP result's pictures) go into made. A step
    generator (compat.drive)."""
    import mcp
    limit = mcp.max_result("ai.max_tool_result")
    try:
        args = jsonstream.loads(call["args"] or "{}")
    except jsonstream.JSONError as e:
        return "arguments are not valid JSON (%s)" % e, True
    if not isinstance(args, dict):
        return "arguments must be a JSON object", True
    if route[0] == "local":
        try:
            text = yield from _awaited(route[1]["run"](args), opener)
        except Exception as e:  # a failing tool must not end the chat
            return "%s failed: %s" % (call["name"], e), True
        if isinstance(text, dict):      # {"content": text, "files": [flash paths]}
            made.extend(text.get("files") or ())
            text = text.get("content")
        text = str(text)
        e = text.encode()
        if len(e) > limit:
            from mcp.client import PassBytes, utf8_head
            text = utf8_head(e, limit) + PassBytes.NOTE % len(e)
        return text, False
    conn, err = yield from _connect(conns, route[1], opener)
    if err:
        return err, True
    # (the asyncio driver awaits mcp.aio's coroutine: _awaited)
    if opener is not None:
        from mcp import aio as m
        read = m.read
    elif route[2] is None:
        from mcp import resource as m
        read = m.read
    else:
        from mcp import client as m
    if route[2] is None:        # the server's read_resource

        def run(out):
            return read(conn, args.get("uri"), out, limit)
    else:

        def run(out):
            return m.call(conn, route[2], args, out, limit)
    if getattr(history, "record", None) is None:
        r = _result((yield from _awaited(run(None), opener)))
    else:
        from ai.history import StrFile, string
        w = StrFile("result")
        _, err = yield from _awaited(run(w), opener)
        v = w.value()
        if err and conn.last_is_error:
            return "%s: %s" % (err, string(v) or "(no details)"), True
        r = (err, True) if err else (v, False)
    made.extend(getattr(conn, "last_files", None) or ())
    return r


def _result(pair):
    text, err = pair
    return (err, True) if err else (text, False)


def run(history, overrides=None, tools=None, mcps=None, max_rounds=8,
        approve=None, show=None, local=None, opener=None):
    """Ask, run the tools the model calls, ask again: (reply, err). A step
    generator (compat.drive; opener: the asyncio driver's, ai.aio, where
    approve and a local tool's run may be coroutine functions).

    approve(call) -> True to run the call (default: all run, but a board
    tool's call that changes something); it gets a copy of the call with
    "server", "tool", "annotations" and for a board tool "board" (_asked);
    show(call, text, is_error) is told each result (the console prints a
    short line; a result kept on flash is shown by its first characters)."""
    from ai import steps
    conns = {}
    try:
        try:
            t, routes = yield from _gathering(tools, mcps, local, opener)
        except ValueError as e:
            return None, store.scrub(str(e))
        o = dict(overrides or {})
        if t:
            o["tools"] = t
        made = []       # files the call's tool made for the model to see
        cfg = None      # (resolved when a tool made some: does the model take them?)
        for _ in range(max_rounds):
            reply, err, calls = yield from steps(history, o, opener)
            if err:
                return None, err
            if not calls:
                return reply, None
            for call in calls:
                route = _route(t, routes, call["name"])
                # (only what asks or a board tool needs: a copy of the call)
                c = route and (approve is not None or route[0] == "local") and _asked(call, route)
                if route is None:
                    text, bad = "unknown tool '%s'" % call["name"], True
                elif approve is None and c and c.get("board") and \
                        not c["annotations"]["readOnlyHint"]:
                    text, bad = ("this call changes the board: it runs only when a person "
                                 "approves it (ai.run(approve=...))"), True
                elif approve is not None and not (yield from _awaited(approve(c), opener)):
                    text, bad = "the user refused this call", True
                else:
                    text, bad = yield from _dispatch(route, call, conns, history, made, opener)
                text = text or ""
                if isinstance(text, str):
                    # a server may echo a key or token: scrubbed before the
                    # model or the screen sees it (a result kept on flash was
                    # scrubbed as it was written: history.StrFile)
                    text = store.scrub(text)
                if show:
                    if not isinstance(text, str):
                        from ai.history import head
                        show(call, head(text, _HEAD), bad)
                    else:
                        show(call, text, bad)
                msg = {"role": "tool", "tool_call_id": call["id"], "name": call["name"],
                       "content": "Error: " + text if bad else text}
                if bad:
                    msg["is_error"] = True
                if made and not bad:        # (ai/files.py: those the model takes)
                    from ai import files
                    cfg = files.shown(msg, made, o, cfg)
                history.append(msg)
                text = msg = c = None
                del made[:]
            collect()
        return None, "tool rounds exhausted (%d model requests)" % max_rounds
    finally:
        if conns:
            import mcp
            for c in conns.values():
                if opener is None:
                    mcp.close(c)
                else:   # (its DELETE in a task of its own: the loop goes on)
                    import asyncio
                    from mcp import aio
                    asyncio.create_task(aio.close(c))
        if mcps:
            store.remove(_listing())
