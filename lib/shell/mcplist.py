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


class Shown:
    """What the console shows of a result, kept as it is read (the `out`
    of mcp's call and read): its first _MAX_SHOW characters and a margin
    past them (scrubbed with them, so that a secret across the cut is
    masked whole), the rest only counted. The console never holds a result
    as one str of mcp.max_result (16 KB: the largest block a console
    session needed, and the heap did not always have one free)."""

    def __init__(self):
        self.drop()

    def add(self, s):
        self.n += len(s)
        room = _MAX_SHOW + _SECRET_MAX - self.kept
        if room > 0:
            if len(s) > room:       # (a piece within room is kept as it is, no copy)
                s = s[:room]
            self.parts.append(s)
            self.kept += len(s)

    def drop(self):
        self.parts = []
        self.kept = self.n = 0

    def text(self):
        return "".join(self.parts)


def result(name, doing, fn, *args):
    """Run fn(conn, *args, None, shown) on a session with server name
    (mcp.call or mcp.read: into=None, out=shown) and show the result; a
    failed tool's text is its error."""
    shown = Shown()
    _, err = mcpcmd.busy_session(name, doing, fn, *(args + (None, shown)))
    if err == "tool error":
        err += ": " + (_scrubbed(shown) or "(no details)")
    if err:
        raise Error(err)
    show(shown)


def read(name, uri):
    result(name, "reading %s on %s" % (uri, name), mcp.read, uri)


def _scrubbed(shown):
    return store.scrub(shown.text())[:_MAX_SHOW]


def show(shown):
    out(_scrubbed(shown) or "(empty)")
    if shown.n > _MAX_SHOW:
        out("... (%d more characters)" % (shown.n - _MAX_SHOW))
