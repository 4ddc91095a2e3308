"""Asking a person before a model's tool call runs (the `ai` chat's
approval; imported when a call needs it).

    ok = approve.ask(call, line)    # call as ai.run's approve() gets it:
                                    # id, name, args, server, tool, annotations

A tool trusted for always runs at once (line(name, args) shows it): an MCP
tool when mcp.<server>.allow names it at the server's current URL
(mcp/registry.py), a local tool when ai.tools.allow names it. Otherwise the
person sees, before deciding:
- the tool and where it runs: the server's name and URL (masked), or
  "local";
- the tool's annotations when its definition carries them (title,
  readOnlyHint, destructiveHint: the server's own claims, shown as such);
- the complete arguments: pretty-printed JSON (2 spaces a level) wrapped
  at WIDTH columns, or the text as sent when it is not JSON; more than PAGE
  lines are paged (Enter shows the next page, n refuses), so nothing is
  decided on arguments not shown.
Then term.ask: pending input (type-ahead, a terminal's answers) is drained
and only a line typed after the question counts: y, n or a, then Enter. a
(always) is remembered for that tool on that server at that URL.
"""
import shell
from shell import out, term
import store
from compat import const

WIDTH = const(78)       # columns of an argument line (a serial terminal: 80)
PAGE = const(20)        # argument lines shown before "Enter for more"
_INDENT = "    "
_MAX_FLAT = const(160)  # arguments up to this long may fit on one line


def trusted(call):
    server = call.get("server")
    if server:
        from mcp import registry
        return registry.trusted(server, call["tool"])
    return call["name"] in str(store.get("ai.tools.allow") or "").split(",")


def _trust(call):
    server = call.get("server")
    if server:
        from mcp import registry
        registry.trust(server, call["tool"])
        return
    allow = [n for n in str(store.get("ai.tools.allow") or "").split(",") if n]
    allow.append(call["name"])
    store.set("ai.tools.allow", ",".join(allow))


def ask(call, line):
    """True when the call may run (see the module text)."""
    args = call.get("args") or "{}"
    if trusted(call):
        line(call["name"], args)
        return True
    server = call.get("server")
    if server:
        from mcp import registry
        s = registry.get(server)
        where = "on %s (%s)" % (server, store.mask_url(s["url"]) if s else "not configured")
    else:
        where = "(local)"
    out("  tool call: %s %s" % (call.get("tool") or call["name"], where), shell.BOLD_CYAN)
    notes = _annotations(call.get("annotations"))
    if notes:
        out("  the server says: " + notes)
    if not _show(args):
        return False
    c = term.ask("  run it? [y]es [n]o [a]lways: ", "yna")
    if c == "a":
        _trust(call)
    return c in ("y", "a")


def _annotations(a):
    """Title and hints of an MCP tool definition, as words (or "")."""
    if not isinstance(a, dict):
        return ""
    words = []
    t = a.get("title")
    if isinstance(t, str) and t:
        words.append("title %r" % t[:WIDTH])
    for k, word in (("readOnlyHint", "read-only"), ("destructiveHint", "destructive")):
        v = a.get(k)
        if v is True or v is False:
            words.append(word if v else "not " + word)
    return ", ".join(words)


def _is_json(text):
    import jsonstream
    try:
        p = jsonstream.Parser(text)
        p.skip_value()
        p.finish()
        return True
    except jsonstream.JSONError:
        return False


def _show(args):
    """Show the whole of args (paged past PAGE lines). False when the person
    refused on the way (n at a page break, end of input)."""
    ok = _is_json(args)
    if ok and len(args) <= _MAX_FLAT:
        flat = ""
        for ln in lines(args, True, 0):
            if flat and flat[-1] not in "{[" and ln[0] not in "}]":
                flat += " "
            flat += ln
        if len(flat) <= WIDTH - 13:
            out("  arguments: " + flat)
            return True
    out("  arguments:")
    total = 0
    for _ in lines(args, ok, WIDTH - len(_INDENT)):
        total += 1
    shown = 0
    for ln in lines(args, ok, WIDTH - len(_INDENT)):
        if shown and shown % PAGE == 0:
            term.drain()
            a = term.readline("  -- %d more lines of arguments: Enter shows them, n refuses -- "
                              % (total - shown))
            if a is None or a.strip().lower() == "n":
                return False
        out(_INDENT + ln)
        shown += 1
    return True


def lines(text, is_json, width):
    """The lines of text as shown: JSON re-indented (2 spaces a level, ": "
    after keys), other text as its own lines; each cut to width columns
    (0: not cut) with the rest on lines indented 2 more. Walks the UTF-8
    bytes (MicroPython interns every one-character str)."""
    b = text.encode()
    if not is_json:
        i = 0
        while i <= len(b):
            j = b.find(b"\n", i)
            if j < 0:
                j = len(b)
            for s in _cut(b[i:j], 0, width):
                yield s
            i = j + 1
        return
    ln = bytearray()
    depth = 0
    q = esc = False
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        i += 1
        if q:
            ln.append(c)
            if esc:
                esc = False
            elif c == 92:           # backslash
                esc = True
            elif c == 34:
                q = False
        elif c == 34:               # a string starts
            q = True
            ln.append(c)
        elif c == 123 or c == 91:   # { [
            ln.append(c)
            k = i
            while k < n and b[k] in b" \t\r\n":
                k += 1
            if k < n and b[k] == c + 2:     # empty: {} []
                ln.append(c + 2)
                i = k + 1
                continue
            for s in _cut(ln, depth, width):
                yield s
            depth += 1
            ln = bytearray()
        elif c == 125 or c == 93:   # } ]
            if ln:
                for s in _cut(ln, depth, width):
                    yield s
            depth = max(0, depth - 1)
            ln = bytearray([c])
        elif c == 44:               # ,
            ln.append(c)
            for s in _cut(ln, depth, width):
                yield s
            ln = bytearray()
        elif c == 58:               # :
            ln.extend(b": ")
        elif c not in b" \t\r\n":
            ln.append(c)
    if ln:
        for s in _cut(ln, depth, width):
            yield s


def _cut(b, depth, width):
    """Line bytes b at nesting depth as str lines of at most width columns
    (0: any), never splitting a UTF-8 character."""
    pad = 2 * depth if width else 0
    room = max(width - pad, 16) if width else len(b) or 1
    i = 0
    while True:
        j = min(i + room, len(b))
        while j < len(b) and j > i + 1 and (b[j] & 0xC0) == 0x80:
            j -= 1              # not inside a character
        yield " " * pad + str(b[i:j], "utf-8")
        if j >= len(b):
            return
        i = j
        if width:
            pad = 2 * depth + 2
            room = max(width - pad, 16)
