"""The `mcp` command's listings (shell/mcpcmd.py hands them over, so the
module that `mcp serve` loads stays small): tools with titles, hints and
the task-only ones counted, resources, a resource read, a result shown
(scrubbed of secrets, cut at _MAX_SHOW), and a server's tools taken out
of the tools cache (mcp add over a name, mcp del)."""
import shell
from shell import out, Error, count, term, mcpcmd
import store
import mcp
from compat import const

_DESC_WIDTH = const(64)     # characters of a description shown in a listing
_MAX_SHOW = const(4000)     # characters of a result printed
_SECRET_MAX = const(2048)   # characters past the cut scrubbed (a secret across it)


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


def uncache(name, then):
    """The tools of server name leave the tools cache (the chat's)."""
    from ai.tools import tools_cache_drop
    n = tools_cache_drop(name)
    if n and then:
        out("%s of %s left the tools cache; %s" % (count(n, "tool"), name, then))


def _first(d):
    """The first line of a description, cut to _DESC_WIDTH."""
    d = (d or "").strip()
    i = d.find("\n")
    if i >= 0:
        d = d[:i].rstrip() + " ..."
    if len(d) > _DESC_WIDTH:
        d = d[:_DESC_WIDTH - 3] + "..."
    return d


def tools(name):
    # each tool is shown as it is parsed: the list is never held
    spin = term.Spinner("listing the tools of %s ..." % name)

    def show(t):
        spin.stop()
        out("%s(%s)" % (t["name"], _params(t.get("parameters"))))
        a = t.get("annotations") or {}
        hints = [w for k, w in (("readOnlyHint", "read-only"),
                                ("destructiveHint", "destructive")) if a.get(k) is True]
        if t.get("title") or hints:     # the server's claims
            out("    %s%s" % (t.get("title") or "", (" [" + ", ".join(hints) + "]") if hints else ""),
                shell.DIM)
        d = _first(t.get("description"))
        if d:
            out("    " + d)

    def listing(conn):
        n, err = mcp.tools(conn, show)
        res = 0
        if not err and "resources" in conn.caps:
            # counted, not assumed: a server may declare resources and list
            # none (the SDK's servers do), and mcp resources would say so
            res = mcp.resources(conn, lambda r: None)[0] or 0
        return n, err, conn.hidden, res
    try:
        n, err, hidden, res = mcpcmd.with_session(name, listing)
    finally:
        spin.stop()
    if err:
        raise Error(err)
    out(count(n, "tool") if n else "%s offers no tools" % name)
    if hidden:
        out("%s hidden: %s run only as tasks, which this console does not do" % (
            count(hidden, "task-only tool"), "it would" if hidden == 1 else "they"))
    if res:
        out("%s has %s too: mcp resources %s" % (name, count(res, "resource"), name), shell.DIM)


def resources(name):
    spin = term.Spinner("listing the resources of %s ..." % name)

    def show(r):
        spin.stop()
        size = r.get("size")
        meta = ", ".join([str(v) for v in (r.get("mimeType"),
                                          ("%d bytes" % size) if isinstance(size, int) else None) if v])
        out("%s  %s%s" % (r["uri"], r.get("title") or r.get("name") or "",
                          (" (" + meta + ")") if meta else ""))
        d = _first(r.get("description"))
        if d:
            out("    " + d, shell.DIM)
    try:
        n, err = mcpcmd.with_session(name, mcp.resources, show)
    finally:
        spin.stop()
    if err:
        raise Error(err)
    out(count(n, "resource") if n else "%s lists no resources" % name)


def read(name, uri):
    text, err = mcpcmd.busy_session(name, "reading %s on %s" % (uri, name), mcp.read, uri)
    if err:
        raise Error(err)
    show(text)


def show(result):
    # cut first: a result may be mcp.max_result long, and scrubbing it whole
    # would copy it all again. Scrubbed with a margin past the cut, so that
    # a secret across it is masked whole (a token may echo a setting's).
    n = len(result)
    if n > _MAX_SHOW:
        result = store.scrub(result[:_MAX_SHOW + _SECRET_MAX])[:_MAX_SHOW]
    else:
        result = store.scrub(result)
    out(result or "(empty)")
    if n > _MAX_SHOW:
        out("... (%d more characters)" % (n - _MAX_SHOW))
