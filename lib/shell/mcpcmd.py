"""The `mcp` console command: the configured MCP servers.

    mcp                          list the servers (URL, token masked)
    mcp add NAME URL [TOKEN]     add or replace a server
    mcp del NAME                 remove a server
    mcp test NAME                connect, list the tools, show count and time
    mcp tools NAME               each tool with its arguments and description
    mcp call NAME TOOL [JSON]    call a tool with JSON arguments, show the result

Servers live in the settings (mcp.<name>.url / mcp.<name>.token, see
lib/mcp/registry.py); this module only talks to a person. Every failure is
one line through shell.Error; a token is never printed whole.
"""
import shell
from shell import out, Error, count
import store
import mcp
from shell import term
from compat import const

_DESC_WIDTH = const(64)     # characters of a tool description shown in a listing
_MAX_SHOW = const(4000)     # characters of a tool result printed by `mcp call`


def main(args):
    if not args:
        servers = mcp.servers()
        if not servers:
            return out("no MCP servers; add one with: mcp add NAME URL [TOKEN]")
        for s in servers:
            tok = s.get("token")
            out("%-12s %s%s" % (s["name"], s["url"],
                                      ("  token " + store.mask(tok)) if tok else ""))
        return
    sub, name = args[0], args[1]
    third = args[3] if len(args) > 3 else None
    if sub == "add":
        err = mcp.add(name, args[2], third)
        if err:
            raise Error("mcp add: " + err)
        return out("added %s -> %s%s (try: mcp test %s)" % (
            name, args[2], " with a token" if third else "", name))
    if sub == "del":
        err = mcp.remove(name)
        if err:
            raise Error("mcp del: " + err)
        return out("removed %s" % name)
    if sub == "test":
        info, err = term.busy("connecting to %s ..." % name, mcp.test, name)
        if err:
            raise Error(err)
        names = info["names"]
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        return out("%s: ok, %s in %d ms%s" % (
            name, count(info["tools"], "tool"), info["ms"], (" (" + shown + ")") if names else ""))
    if sub == "tools":
        return _tools(name)
    if sub == "call":
        return _call(name, args[2], third)
    raise shell.UsageError("unknown sub-command %s" % sub)


def _params(schema):
    """Argument names of a tool, required ones first, optional ones with "?"."""
    if not isinstance(schema, dict):
        return ""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return ""
    req = schema.get("required")
    req = [r for r in req if r in props] if isinstance(req, list) else []
    return ", ".join(req + [k + "?" for k in sorted(props) if k not in req])


def _with(name, fn, *args):
    """fn(conn, *args) on a fresh session with server `name`."""
    conn, err = mcp.connect_named(name)
    if err:
        raise Error(err)
    try:
        return fn(conn, *args)
    finally:
        mcp.close(conn)


def _session(name, doing, fn, *args):
    """_with() with a spinner shown."""
    return term.busy(doing + " ...", _with, name, fn, *args)


def _tools(name):
    # each tool is shown as it is parsed: the list is never held
    spin = term.Spinner("listing the tools of %s ..." % name)

    def show(t):
        spin.stop()
        out("%s(%s)" % (t["name"], _params(t.get("parameters"))))
        # the first line of the description, cut to _DESC_WIDTH
        d = (t.get("description") or "").strip()
        i = d.find("\n")
        if i >= 0:
            d = d[:i].rstrip() + " ..."
        if len(d) > _DESC_WIDTH:
            d = d[:_DESC_WIDTH - 3] + "..."
        if d:
            out("    " + d)
    try:
        n, err = _with(name, mcp.tools, show)
    finally:
        spin.stop()
    if err:
        raise Error(err)
    out(count(n, "tool") if n else "%s offers no tools" % name)


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
    result, err = _session(name, "calling %s on %s" % (tool, name), mcp.call, tool, args)
    if err:
        raise Error(err)
    result = result or "(empty result)"
    if len(result) > _MAX_SHOW:
        result = result[:_MAX_SHOW] + "\n... (%d more characters)" % (len(result) - _MAX_SHOW)
    out(result)
    if shell.tty():
        out("(%d ms)" % ticks_diff(ticks_ms(), t0), shell.DIM)
