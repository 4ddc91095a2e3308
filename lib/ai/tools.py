"""The tools a chat can offer beside the request's own: the tools cache of
the configured MCP servers built, listed, cleared and a server dropped
(the file format is ai/toolcache.py's), and Python callables registered as
tools (ai.register_tool). Imported on first use: a chat reads the cache
through ai/loop.py and never imports this."""
import store


def tools_cache_build(progress):
    """List the tools of every configured MCP server into the cache file:
    (count, err). Servers that fail are reported in err; the rest are kept.
    The old cache stays until the new one is complete."""
    import mcp
    from ai.loop import CACHE
    from ai.toolcache import Tools
    path = store.path(CACHE)
    w = Tools(path + ".tmp", True)
    errors = []
    try:
        for s in mcp.servers():
            n, err = w.list(s["name"])
            if err:
                errors.append(err)
            elif progress:
                progress(s["name"], n)
    finally:
        w.close()
    store.replace(path + ".tmp", path)
    return w.count, ("; ".join(errors) or None)


def tools_cache_lines():
    """(server, tool definition) of every cached tool, a line at a time;
    parameters is a jsonstream.RawFile of the schema's JSON text (the
    console's ai tools list)."""
    from ai.loop import CACHE
    from ai.toolcache import Tools
    for d in Tools(store.path(CACHE)):
        if d.get("name"):
            yield d["server"], d


def tools_cache():
    """ai.tools_cache(): [(server, tool definition with "name" as offered and
    "remote")] or []."""
    from ai import lines
    out = []
    for server, d in tools_cache_lines():
        d["parameters"] = lines.load(d["parameters"])
        out.append((server, d))
    return out


def tools_cache_clear():
    """ai.tools_cache_clear(): remove the cache (chats offer no MCP tools)."""
    from ai.loop import CACHE
    store.remove(store.path(CACHE))


def tools_cache_drop(server):
    """Remove the tools of server from the tools cache (mcp del, mcp add
    over the name): the count removed. The kept lines are copied as they
    are, a line at a time."""
    from ai import lines
    from ai.loop import CACHE
    p = store.path(CACHE)
    keep = []       # (offset, length) of the lines kept: 256 at most
    n = 0
    for a, k, m in lines.read(p, "parameters", 0, at=True):
        if m.get("server") == server:
            n += 1
        else:
            keep.append((a, k))
    if n:
        def write(w):
            for a, k in keep:
                store.copy(p, w, a, k)
        store.write_atomic(p, write)
    return n


def register_tool(name, description, parameters, run):
    """ai.register_tool(): offer a Python callable as a tool, run(args_dict)
    -> str, named by string in ai.run(tools=[...]) (ai/loop.py)."""
    from ai import loop
    loop._LOCAL[name] = {"name": name, "description": description,
                        "parameters": parameters, "run": run}
