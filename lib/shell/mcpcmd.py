"""The `mcp` console command: the configured MCP servers.

    mcp, mcp list                list the servers (URL, token masked)
    mcp add NAME URL [TOKEN]     add or replace a server ("replaced": its
                                 tools leave the tools cache, ai -tools
                                 lists them again)
    mcp del NAME                 remove a server and its tools from the
                                 tools cache
    mcp login NAME               OAuth login: the authorization URL is shown,
                                 the person opens it on any browser and pastes
                                 back the address it ended on (or the code)
    mcp test NAME                connect, list the tools, show count and time
    mcp tools NAME               each tool with its arguments, title, the
                                 server's hints and description; task-only
                                 tools (hidden) counted
    mcp call NAME TOOL [JSON]    call a tool with JSON arguments, show the result
    mcp resources NAME           the server's resources (URI, name, type, size)
    mcp read NAME URI            a resource's text (binary: described)
    mcp serve [PORT]             be an MCP server (lib/mcpserver/) on PORT
                                 (mcp.serve.port, 8765); stop, status,
                                 token (masked), token new (rotate, shown once)

Servers live in the settings (mcp.<name>.url / mcp.<name>.token, see
lib/mcp/registry.py); this module only talks to a person. The board's own
server keeps its state in mcpserver (it outlives this module). Every
failure is one line through shell.Error; a token is never printed whole,
nor a URL's user:password or token-like query values (store.mask_url). The
listing names the tools trusted for always on each server.
"""
import shell
from shell import out, Error, count
import store
import mcp
from shell import term



def main(args):
    if not args or args == ["list"]:
        servers = mcp.servers()
        if not servers:
            return out("no MCP servers; add one with: mcp add NAME URL [TOKEN]")
        from mcp import registry
        for s in servers:
            tok = s.get("token")
            out("%-12s %s%s" % (s["name"], store.mask_url(s["url"]),
                                      ("  token " + store.mask(tok)) if tok else ""))
            allowed = registry.allowed(s["name"])
            if allowed:
                out("             always: " + ", ".join(allowed))
        return
    if args[0] == "serve":
        return _serve(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None)
    sub, name = args[0], args[1]
    third = args[3] if len(args) > 3 else None
    if sub == "add":
        from mcp import registry
        old = registry.get(name)
        err = mcp.add(name, args[2], third)
        if err:
            raise Error("mcp add: " + err)
        out("%s %s -> %s%s (try: mcp test %s)" % (
            "replaced" if old else "added", name, store.mask_url(args[2]),
            " with a token" if third else "", name))
        from shell import mcplist
        return mcplist.uncache(name, old and "run ai -tools to list them again")
    if sub == "del":
        err = mcp.remove(name)
        if err:
            raise Error("mcp del: " + err)
        out("removed %s" % name)
        from shell import mcplist
        return mcplist.uncache(name, "chats no longer offer them")
    if sub == "login":
        return _login(name)
    if sub == "test":
        info, err = term.busy("connecting to %s ..." % name, mcp.test, name)
        if err:
            raise Error(err)
        names = info["names"]
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        out("%s: ok, %s in %d ms%s" % (
            name, count(info["tools"], "tool"), info["ms"], (" (" + shown + ")") if names else ""))
        if not info["listen"]:
            out("%s: this board holds no second connection to it during a call: what the "
                "server asks comes on the call's own reply only" % name, shell.DIM)
        return
    if sub in ("tools", "resources", "read"):
        from shell import mcplist       # (mcp serve keeps this module small)
        return getattr(mcplist, sub)(name, *args[2:3])
    if sub == "call":
        return _call(name, args[2], third)
    raise shell.UsageError("unknown sub-command %s" % sub)


def _login(name):
    """OAuth login with the person at the console (mcp.login): the spinner
    turns while the network works and stops while the person is asked."""
    spin = [term.Spinner("logging in to %s ..." % name)]

    def ask(url):
        spin[0].stop()
        out("Open this address in a browser and sign in:")
        out(url)
        out("The browser then goes to a page that does not load: copy its address.")
        line = term.readline("address (or code): ")
        spin[0] = term.Spinner("logging in to %s ..." % name)
        return line

    try:
        info, err = mcp.login(name, ask)
    finally:
        spin[0].stop()
    if err:
        raise Error(err)
    if info is None:
        return out("%s: the server asked for no login" % name)
    if info["renew"]:
        until = "; renewed when it runs out"
    elif info["expires"]:
        from compat import epoch
        until = "; valid %d min, then: mcp login %s" % (max(0, info["expires"] - epoch()) // 60, name)
    else:
        until = ""
    out("%s: logged in%s; token saved%s" % (
        name, (", scope " + info["scope"]) if info["scope"] else "", until))


def with_session(name, fn, *args):
    """fn(conn, *args) on a fresh session with server `name`."""
    conn, err = mcp.connect_named(name)
    if err:
        raise Error(err)
    try:
        return fn(conn, *args)
    finally:
        mcp.close(conn)


def busy_session(name, doing, fn, *args):
    """with_session() with a spinner shown."""
    return term.busy(doing + " ...", with_session, name, fn, *args)


def _call(name, tool, text):
    import jsonstream
    if text:
        try:
            args = jsonstream.loads(text)
        except jsonstream.JSONError as e:
            raise Error("mcp call: the arguments are not JSON (%s); "
                              "example: mcp call %s %s {\"key\": \"value\"}" % (e, name, tool))
        if not isinstance(args, dict):
            raise Error("mcp call: the arguments must be a JSON object {...}")
    else:
        args = {}
    from compat import ticks_ms, ticks_diff
    t0 = ticks_ms()
    from shell import mcplist
    mcplist.result(name, "calling %s on %s" % (tool, name), mcp.call, tool, args)
    if shell.tty():
        out("(%d ms)" % ticks_diff(ticks_ms(), t0), shell.DIM)


def _serve(what, more):
    import mcpserver as server
    if what == "token":
        from mcpserver import admin
        if more not in (None, "new"):
            raise shell.UsageError("mcp serve token [new]")
        if more is None:
            t = store.get("mcp.serve.token")
            return out("token: %s (mcp serve token new makes another, shown once)" % (
                store.mask(t) if t else "none yet; mcp serve makes one"))
        out("new token (shown once; clients with the old one are refused from now on):")
        return out("  " + admin.token(True), shell.BOLD_CYAN)
    if more is not None:
        raise shell.UsageError("too many arguments")
    if what == "stop":
        return out("stopped serving" if server.stop() else "not serving")
    if what == "status":
        if server.SERVER is None:
            return out("not serving (mcp serve [PORT] starts)")
        from mcpserver import admin
        for line in admin.status(server.SERVER):
            out(line)
        return
    port = what or store.get("mcp.serve.port") or 8765
    try:
        port = int(port)
    except ValueError:
        raise shell.UsageError("PORT must be a number, or stop, status, token")
    if not 0 < port < 65536:    # (a socket would take it modulo 65536)
        if what:
            raise shell.UsageError("PORT must be from 1 to 65535, not %d" % port)
        raise Error("mcp serve: mcp.serve.port is %d; set it to a port from 1 to 65535" % port)
    fresh = not store.get("mcp.serve.token")
    url, err = server.start(port, str(store.get("mcp.serve.bind") or "0.0.0.0"))
    if err:
        raise Error("mcp serve: " + err)
    out("serving MCP at %s while the console waits at its prompt (mcp serve stop)" % url)
    if fresh:
        out("token (shown once; mcp serve token new makes another):")
        out("  " + store.get("mcp.serve.token"), shell.BOLD_CYAN)
    from mcpserver import admin
    out("tools: %s (more: set mcp.serve.allow \"rm mv ...\")" % " ".join(
        admin.tool_names()))
