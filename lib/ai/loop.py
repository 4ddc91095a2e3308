"""The tool-use loop (ai.run). The tools cache (ai.tools_cache_build...)
lives in ai/toolcache.py, imported only when a run offers cached tools.

Tools come from three places and go through one dispatch:
- the registry of reusable local tools (ai.register_tool), named by string;
- inline dicts {"name", "description", "parameters", "run"};
- every tool of the named MCP servers, as "<server>__<tool>" (characters a
  provider refuses are replaced, 64 characters at most; a name that had to
  change or that collides gets a short stable hash: tool_name()).
A local name used twice is an error before any request is made.

Each round asks the model; tool calls run one after another in the order
asked and every result goes back keyed to its call id, scrubbed of secrets
(store.scrub). Failures (unknown tool, arguments that are not JSON, a tool
that raises, an MCP error, a call the person refused) go back to the model
as "Error: ..." so it can recover.
The loop ends on a text answer, an error, or max_rounds model requests.
"""
import jsonstream
import store
from compat import collect, const

_LOCAL = {}
_MAX_RESULT = const(8000)   # characters of one tool result sent to the model


def register_tool(name, description, parameters, run):
    """Offer a Python callable as a tool: run(args_dict) -> str."""
    _LOCAL[name] = {"name": name, "description": description,
                    "parameters": parameters, "run": run}


def local_tools():
    return sorted(_LOCAL)


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
        if 97 <= c <= 122 or 65 <= c <= 90 or 48 <= c <= 57 or c == 95 or c == 45:
            out.append(c)
        elif c < 0x80 or c >= 0xC0:     # not a UTF-8 continuation byte
            out.append(95)
    if force or len(out) > 64 or out != raw:
        h = 5381        # djb2 (xor) over server, NUL, tool; small ints only
        for c in server.encode() + b"\0" + name.encode():
            h = (h * 33 ^ c) & 0xFFFFF
        out = out[:58] + ("_%05x" % h).encode()
    return str(out, "utf-8")


def _offer(t, d, route, copy=True):
    """Add tool definition d to t = (defs to offer, {name: route}); route is
    ("local", tool) or ("mcp", server, remote name, annotations). An MCP
    tool whose name is taken gets the hashed form (tool_name force)."""
    name = d["name"]
    if name in t[1] and route[0] == "mcp":
        name = d["name"] = tool_name(route[1], route[2], True)
    if name in t[1]:
        raise ValueError("tool name '%s' is offered twice" % name)
    t[1][name] = route
    if copy:
        d = {"name": name, "description": d.get("description") or "",
             "parameters": d.get("parameters") or {"type": "object", "properties": {}}}
    t[0].append(d)


def _gather(tools, mcps, conns):
    t = ([], {})
    for item in tools or ():
        if isinstance(item, str):
            if item not in _LOCAL:
                raise ValueError("unknown local tool '%s' (known: %s)" % (item, ", ".join(local_tools()) or "none"))
            item = _LOCAL[item]
        _offer(t, item, ("local", item))
    if mcps:
        from mcp import client
        for server in mcps:
            conn, err = _connect(conns, server)
            if err:
                raise ValueError(err)
            # schemas as compact JSON text: they are only sent on
            listed, err = client.tools(conn, True)
            if err:
                raise ValueError(err)
            for d in listed:
                remote = d["name"]
                d["name"] = tool_name(server, remote)
                _offer(t, d, ("mcp", server, remote, d.get("annotations")), False)
    return t


def _asked(call, route):
    """The call as approve() sees it: a copy with "server" (None for a local
    tool), "tool" (the name its server knows) and "annotations" (the tool
    definition's, e.g. readOnlyHint, or None)."""
    c = dict(call)
    if route[0] == "mcp":
        c["server"], c["tool"], c["annotations"] = route[1], route[2], route[3]
    else:
        c["server"], c["tool"] = None, call["name"]
        c["annotations"] = route[1].get("annotations")
    return c


def _connect(conns, server):
    if server in conns:
        return conns[server], None
    import mcp
    conn, err = mcp.connect_named(server)
    if conn:
        conns[server] = conn
    return conn, err


def _dispatch(route, call, conns):
    """Run one call: (text, is_error)."""
    try:
        args = jsonstream.loads(call["args"] or "{}")
    except jsonstream.JSONError as e:
        return "arguments are not valid JSON (%s)" % e, True
    if not isinstance(args, dict):
        return "arguments must be a JSON object", True
    if route[0] == "local":
        try:
            return str(route[1]["run"](args)), False
        except Exception as e:  # a failing tool must not end the chat
            return "%s failed: %s" % (call["name"], e), True
    import mcp
    conn, err = _connect(conns, route[1])
    if err:
        return err, True
    text, err = mcp.call(conn, route[2], args)
    if err:
        return err, True
    return text, False


def run(history, overrides=None, tools=None, mcps=None, max_rounds=8,
        approve=None, show=None):
    """Ask, run the tools the model calls, ask again: (reply, err).

    approve(call) -> True to run the call (default: all run); it gets a
    copy of the call with "server", "tool" and "annotations" (_asked); show(call,
    text, is_error) is told each result (the console prints a short line)."""
    from ai import ask
    conns = {}
    try:
        try:
            t = _gather(tools, mcps, conns)
            if not tools and not mcps:
                # no explicit tools or servers: offer the cached MCP tools
                from ai import toolcache
                for server, d in toolcache.read(True):
                    d.pop("server")
                    _offer(t, d, ("mcp", server, d.pop("remote"), d.get("annotations")),
                           False)
        except ValueError as e:
            return None, store.scrub(str(e))
        o = dict(overrides or {})
        if t[0]:
            o["tools"] = t[0]
        for _ in range(max_rounds):
            reply, err, calls = ask(history, o)
            if err:
                return None, err
            if not calls:
                return reply, None
            for call in calls:
                route = t[1].get(call["name"])
                if route is None:
                    text, bad = "unknown tool '%s'" % call["name"], True
                elif approve is not None and not approve(_asked(call, route)):
                    text, bad = "the user refused this call", True
                else:
                    text, bad = _dispatch(route, call, conns)
                text = text or ""
                if len(text) > _MAX_RESULT:
                    text = text[:_MAX_RESULT] + "\n... (truncated)"
                # a server may echo a key or token: scrubbed before the model
                # or the screen sees it
                text = store.scrub(text)
                if show:
                    show(call, text, bad)
                msg = {"role": "tool", "tool_call_id": call["id"], "name": call["name"],
                       "content": "Error: " + text if bad else text}
                if bad:
                    msg["is_error"] = True
                history.append(msg)
            collect()
        return None, "tool rounds exhausted (%d model requests)" % max_rounds
    finally:
        if conns:
            import mcp
            for c in conns.values():
                mcp.close(c)
