"""The tools cache: the tools of every configured MCP server, listed once
into a file on flash so that ai.run can offer them without connecting to
every server first (ai.tools_cache_build / tools_cache / tools_cache_clear).

File format: store.path("tools.jsonl"), one JSON object per line:
{"server", "name" (as offered: <server>__<tool>), "remote" (the server's
own name), "description", "parameters"}.
"""
import jsonstream
import store
from ai.loop import tool_name

CACHE = "tools.jsonl"


def read(raw=False):
    """(server, tool definition) of every cached tool; raw=True gives each
    parameters schema as compact JSON text (jsonstream.Raw), as ai.run
    offers them."""
    try:
        f = open(store.path(CACHE), "rb")
    except OSError:
        return
    with f:
        for line in f:
            if line.strip():
                d = jsonstream.loads(line)
                p = d.get("parameters")
                if raw and p:   # compact JSON text: it is only sent on
                    d["parameters"] = jsonstream.Raw(jsonstream.dumps(p))
                yield d["server"], d


def build(progress=None):
    """List the tools of every configured MCP server into the cache file:
    (count, err). Servers that fail are reported in err; the rest are kept."""
    import mcp
    lines, errors = [], []
    for s in mcp.servers():
        conn, err = mcp.connect_named(s["name"])
        listed = None
        if conn:
            listed, err = mcp.tools(conn)
            mcp.close(conn)
        if err:
            errors.append(err)
            continue
        for d in listed:
            lines.append(jsonstream.dumps({
                "server": s["name"], "name": tool_name(s["name"], d["name"]),
                "remote": d["name"], "description": d.get("description") or "",
                "parameters": d.get("parameters") or {}}))
        if progress:
            progress(s["name"], len(listed))
    store.write_atomic(store.path(CACHE), "\n".join(lines) + "\n" if lines else "")
    return len(lines), ("; ".join(errors) or None)


def entries():
    """[(server, tool definition with "name" as offered and "remote")] or []."""
    return list(read())


def clear():
    import os
    try:
        os.remove(store.path(CACHE))
    except OSError:
        pass
