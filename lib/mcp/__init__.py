# mcp: Model Context Protocol client (Streamable HTTP) and the registry of
# configured servers. The protocol code lives in mcp/client.py (wire format
# documented there), the registry in mcp/registry.py. Submodules are imported
# on first use so `import mcp` costs little heap.
#
#   conn, err = mcp.connect(url, token=None, name=None, elicit=None,
#                           sample=None, listen=False, timeout=30,
#                           authorize=None, deadline=None)
#   conn, err = mcp.connect_named(name)   # OAuth token renewed near expiry
#   info, err = mcp.login(name, authorize)   # OAuth login (mcp/oauth.py)
#   tools, err = mcp.tools(conn)          # [{name, description, parameters}]
#   text, err = mcp.call(conn, name, args)  # args: dict or JSON text
#       tool failures (isError): (None, "tool error: ...") and
#       conn.last_is_error is True; JSON-RPC errors: "<server>: msg (code N)"
#   mcp.close(conn)
#   mcp.servers() / mcp.add(name, url, token=None) / mcp.remove(name)
#   info, err = mcp.test(name)            # {"tools": n, "ms": t, "names": [...]}


def connect(url, token=None, name=None, elicit=None, sample=None, listen=False,
            timeout=30, authorize=None, deadline=None):
    """Open a session: initialize + notifications/initialized.
    elicit(message, schema) -> dict or None answers elicitation requests
    (default: accept with the schema's defaults); sample(request) -> text or
    None enables sampling; listen=True also holds the standalone GET stream
    for server requests not tied to a call; authorize(url) -> the address
    the browser was sent to (or the code), None to cancel, lets an OAuth
    challenge log in with a person (without it: refresh token or unattended
    grants only). timeout: seconds per socket wait; deadline: seconds for
    each operation (connect, tools, call) in all (default 300;
    connect_named: the setting mcp.deadline)."""
    from mcp import client
    return client.connect(url, token, name, elicit, sample, listen, timeout, authorize,
                          deadline)


def connect_named(name, **kw):
    from mcp import registry
    s = registry.get(name)
    if s is None:
        err = registry.check_name(name)
        if err:
            return None, err
        return None, "no MCP server named %s; add it with: mcp add %s <url> [token]" % (
            name, name)
    exp = s["expires"]
    if exp is not None:
        from compat import epoch, clock_ok
        if clock_ok() and epoch() > exp - 60:     # an OAuth token about to run out
            from mcp import oauth
            s["token"] = oauth.renew(name, s, kw.get("timeout", 30)) or s["token"]
    if "deadline" not in kw:
        import store
        kw["deadline"] = store.get("mcp.deadline")
    return connect(s["url"], token=s["token"], name=name, **kw)


def login(name, authorize):
    """OAuth login at server `name` with a person: authorize(url) shows the
    URL and returns the address the browser ended on (or the code), None
    to cancel. -> ({"scope", "expires", "renew"}, None); (None, None) when
    the server asked for no authorization; (None, err)."""
    from mcp import oauth
    return oauth.login(name, authorize)


def tools(conn):
    from mcp import client
    return client.tools(conn)


def call(conn, name, args=None):
    from mcp import client
    return client.call(conn, name, args)


def close(conn):
    from mcp import client
    client.close(conn)


def servers():
    from mcp import registry
    return registry.servers()


def add(name, url, token=None):
    from mcp import registry
    return registry.add(name, url, token)


def remove(name):
    from mcp import registry
    return registry.remove(name)


def test(name):
    """Connect to a configured server, list its tools, close.
    -> ({"tools": n, "ms": elapsed, "names": [...]}, None) or (None, err)."""
    from compat import ticks_ms, ticks_diff
    t0 = ticks_ms()
    conn, err = connect_named(name)
    if err:
        return None, err
    try:
        ts, err = tools(conn)
    finally:
        close(conn)
    if err:
        return None, err
    return {"tools": len(ts), "ms": ticks_diff(ticks_ms(), t0),
            "names": [t["name"] for t in ts]}, None
