# mcp: Model Context Protocol client (Streamable HTTP) and the registry of
# configured servers. The calls live in mcp/client.py, the session's
# JSON-RPC exchange below them in mcp/exchange.py (wire format documented
# there), the registry in mcp/registry.py. Submodules are imported on first
# use so `import mcp` costs little heap.
#
#   conn, err = mcp.connect(url, token=None, name=None, elicit=None,
#                           sample=None, listen=True, timeout=30,
#                           authorize=None, deadline=None)
#   conn, err = mcp.connect_named(name)   # OAuth token renewed near expiry
#   info, err = mcp.login(name, authorize)   # OAuth login (mcp/oauth.py)
#   tools, err = mcp.tools(conn)          # [{name, description, parameters}]
#   n, err = mcp.tools(conn, each=fn)     # fn(tool) per tool as it is parsed
#   text, err = mcp.call(conn, name, args)  # args: dict or JSON text
#       the text is cut while it is read at the setting mcp.max_result
#       (default 16384 bytes; the settings are not loaded for it),
#       "... (truncated, N bytes)" after it;
#       tool failures (isError): (None, "tool error: ...") and
#       conn.last_is_error is True; JSON-RPC errors: "<server>: msg (code N)"
#   size, err = mcp.call(conn, name, args, into=path)   # the whole text
#       written to the file as it is read (no str made): its size in bytes
#   _, err = mcp.call(conn, name, args, out=obj)   # the text, cut as above,
#       to obj.add(piece) as it is read ("" back; a failed tool's err is
#       just "tool error"; obj.drop(): forget what came, it was not ours)
#   n, err = mcp.resources(conn, each=fn)  # fn({uri, name, title?, mimeType?,
#                                         #     size?, description?}) per resource
#   text, err = mcp.read(conn, uri)       # text items (cut as call's), blobs
#                                         # described: mcp/resource.py
#   size, err = mcp.read(conn, uri, into=path)   # whole, to a file
#   _, err = mcp.read(conn, uri, out=obj)         # to obj.add(), as call's
#   mcp.close(conn)
#   mcp.servers() / mcp.add(name, url, token=None) / mcp.remove(name)
#   info, err = mcp.test(name)            # {"tools": n, "ms": t, "names": [...]}
# No MemoryError leaves these functions: it becomes their error.


def connect(url, token=None, name=None, elicit=None, sample=None, listen=True,
            timeout=30, authorize=None, deadline=None):
    """Open a session: initialize + notifications/initialized.
    elicit(message, schema) -> dict (accept with it) / None (decline) /
    False (cancel) answers form elicitation, elicit(message, None, url) a
    URL-mode request (see mcp/listen.py; default: a person at the console
    is asked, else the schema's defaults when every required field has
    one); sample(request) -> text or None enables sampling; listen=False
    never opens the standalone GET stream (by default it is held while a
    call is pending, for server requests not tied to it); authorize(url) -> the address
    the browser was sent to (or the code), None to cancel, lets an OAuth
    challenge log in with a person (without it: refresh token or unattended
    grants only). timeout: seconds per socket wait; deadline: seconds for
    each operation (connect, tools, call) in all (default 300;
    connect_named: the setting mcp.deadline)."""
    try:
        from compat import collect
        collect()   # the session lives on: low in the heap, not amid garbage
        from mcp import client
        return client.connect(url, token, name, elicit, sample, listen, timeout, authorize,
                              deadline)
    except MemoryError:
        return None, _oom()


def connect_named(name, **kw):
    s, err = named(name, kw)
    if err:
        return None, err
    return connect(s["url"], token=s["token"], name=name, **kw)


def named(name, kw):
    """(the registry's entry for server `name`, its OAuth token renewed
    when it is about to run out, None), or (None, err); kw (connect's
    arguments) gets the setting mcp.deadline unless it has one."""
    try:
        from mcp import registry
        s = registry.get(name)
    except MemoryError:
        return None, _oom()
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
    return s, None


def login(name, authorize):
    """OAuth login at server `name` with a person: authorize(url) shows the
    URL and returns the address the browser ended on (or the code), None
    to cancel. -> ({"scope", "expires", "renew"}, None); (None, None) when
    the server asked for no authorization; (None, err)."""
    from mcp import oauth
    return oauth.login(name, authorize)


def _oom():
    """What a caller gets for a MemoryError (the client words its own
    while it reads; this is for what comes before)."""
    from compat import collect
    collect()
    return "out of memory (close other sessions; a smaller mcp.max_result)"


def tools(conn, each=None):
    try:
        from mcp import client
        return client.tools(conn, False, each)
    except MemoryError:
        return None, _oom()


MAX_RESULT = 16384      # bytes of a result kept as a str, unless mcp.max_result says


def max_result(key="mcp.max_result"):
    """The setting mcp.max_result: bytes of a result given as a str (a
    chat's cut is ai.max_tool_result: ai/loop.py asks for it here), 16384
    when unset."""
    import store
    try:
        n = int(store.get(key) or 0)
    except (TypeError, ValueError):
        n = 0
    return n if n > 0 else MAX_RESULT


def call(conn, name, args=None, into=None, out=None):
    """(text, err): a tool's result (see the header: into, out)."""
    from mcp import client
    try:
        if into is not None:
            return client.call(conn, name, args, into=into)
        return client.call(conn, name, args, out, limit())
    except MemoryError:
        return None, _oom()


def limit():
    """The cut of a result given as a str: the setting when the settings
    are in use (a bare client does not load them for it)."""
    import sys
    return max_result() if "store" in sys.modules else MAX_RESULT


def resources(conn, each):
    """(count, err): the server's resources, each to each(resource) as it
    is parsed (an error when the server declares no resources)."""
    try:
        from mcp import resource as r
        return r.listing(conn, each)
    except MemoryError:
        return None, _oom()


def read(conn, uri, into=None, out=None):
    """(text, err): a resource's text (cut at mcp.max_result, like a tool
    result); a binary one as "[blob URI MIME, N bytes]". With into (a file
    path): the whole text written there, (its size in bytes, err). With
    out: the text to out.add(piece) as it is read (cut as above), and
    ("", err)."""
    try:
        import sys
        if "mcp.resource" not in sys.modules:
            # its objects live on: collected first, they go low in the
            # heap, not into the free space a result's str needs later
            from compat import collect
            collect()
        from mcp import resource as r
        if into is not None:
            return r.read(conn, uri, into=into)
        return r.read(conn, uri, out, max_result())
    except MemoryError:
        return None, _oom()


def close(conn):
    from mcp import client
    client.close(conn)


def servers():
    """[{"name", "url", "token" (raw or None)}] sorted by name: the settings
    mcp.<name>.url and .token (mcp/registry.py)."""
    import store
    from mcp.registry import _key
    out = []
    for k in store.keys("mcp."):
        parts = k.split(".")
        if len(parts) == 3 and parts[2] == "url":
            out.append({"name": parts[1], "url": store.get(k),
                        "token": store.get(_key(parts[1], "token"))})
    return out


def add(name, url, token=None):
    try:
        from compat import collect
        collect()   # the registry module lives on: low in the heap, not amid garbage
        from mcp import registry
        return registry.add(name, url, token)
    except MemoryError:
        return _oom()


def remove(name):
    """Forget a server: every mcp.<name>.* setting. None or an error."""
    try:
        import store
        from mcp.registry import _key, check_name
        err = check_name(name)
        if err:
            return err
        if store.get(_key(name, "url")) is None:
            return "no MCP server named %s" % name
        store.update(dict.fromkeys(store.keys(_key(name, ""))))   # None: deleted
        return None
    except MemoryError:
        return _oom()


def test(name):
    """Connect to a configured server, list its tools, close.
    -> ({"tools": n, "ms": elapsed, "names": [...], "listen": whether this
    board has room for the server's GET stream beside a call and an
    answer (else server requests come on the call's own stream only)},
    None) or (None, err)."""
    from compat import ticks_ms, ticks_diff
    t0 = ticks_ms()
    conn, err = connect_named(name)
    if err:
        return None, err
    names = []
    try:
        n, err = tools(conn, lambda t: names.append(t["name"]))
        import httpc
        listen = httpc.room(conn.url, 3)
    except MemoryError:
        n, err = None, _oom()
    finally:
        close(conn)
    if err:
        return None, err
    return {"tools": n, "ms": ticks_diff(ticks_ms(), t0), "names": names,
            "listen": listen}, None


def __getattr__(name):
    # mcp.server is the board's MCP server under its old name, for /bin
    # scripts written before it became the package mcpserver (it sits above
    # the console; nothing here uses it). Any other name is a submodule:
    # MicroPython asks here first for "from mcp import client".
    if name == "server":
        import mcpserver
        return mcpserver
    if name[:1] == "_":
        raise AttributeError(name)
    try:
        return __import__("mcp." + name, None, None, (name,))
    except ImportError:
        raise AttributeError(name)
