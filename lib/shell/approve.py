"""Asking a person before a model's tool call runs (the `ai` chat's
approval; imported when a call needs it).

    ok = approve.ask(call, line)    # call as ai.run's approve() gets it: id,
                                    # name, args, server, tool, annotations, title

An MCP tool trusted for always (mcp.<server>.allow names it at the
server's current URL: mcp/registry.py) runs at once, line(name, args)
shows it. Otherwise the person sees, before deciding:
- the tool and where it runs: the server's name and URL (masked), "on
  this board" for a board command that changes something (ai.run's
  local tools: shell/chattools.py), or "local";
- the tool's title and annotations when its definition carries them
  (readOnlyHint, destructiveHint: the server's own claims, shown as such);
- the complete arguments: pretty-printed JSON (2 spaces a level) wrapped
  at WIDTH columns, or the text as sent when it is not JSON; more than PAGE
  lines are paged (Enter shows the next page, n refuses), so nothing is
  decided on arguments not shown.
Then term.ask: pending input (type-ahead, a terminal's answers) is drained
and only a line typed after the question counts: y, n or a, then Enter. a
(always) is remembered for that tool on that server at that URL (for a
local tool it is a yes, not remembered).
"""
import shell
from shell import out, term
import store
from compat import const

WIDTH = const(78)       # columns of an argument line (a serial terminal: 80)
PAGE = const(20)        # argument lines shown before "Enter for more"
_LF = const(0x0A)
_SP = const(0x20)
_QUOTE = const(0x22)        # "
_COMMA = const(0x2C)        # ,
_COLON_B = const(0x3A)      # :
_LBRACKET = const(0x5B)     # [
_BSLASH = const(0x5C)       # \
_RBRACKET = const(0x5D)     # ]
_LBRACE = const(0x7B)       # {
_RBRACE = const(0x7D)       # }


def ask(call, line):
    """True when the call may run (see the module text)."""
    args = call.get("args") or "{}"
    server = call.get("server")
    from mcp import registry
    if server and call["tool"] in registry.allowed(server):
        line(call["name"], args)
        return True
    s = registry.get(server) if server else None
    out("  tool call: %s %s" % (call["tool"], "on %s (%s)" % (
        server, store.mask_url(s["url"]) if s else "not configured") if server else
        "on this board (it changes something)" if call.get("board") else "(local)"),
        shell.BOLD_CYAN)
    a = call.get("annotations")
    if not isinstance(a, dict):
        a = {}
    title = call.get("title") or a.get("title")     # the server's own claims
    words = ["title %r" % title] if isinstance(title, str) else []
    for k in ("readOnlyHint", "destructiveHint"):
        v = a.get(k)
        if v is True or v is False:
            words.append(("" if v else "not ") + _HINTS[k])
    if words and not call.get("board"):
        out("  the server says: " + ", ".join(words))
    if not _show(args):
        return False
    c = term.ask("  run it? [y]es [n]o [a]lways: ", "yna")
    if c == "a" and s:
        registry.trust(server, call["tool"])
    return c in ("y", "a")


_HINTS = {"readOnlyHint": "read-only", "destructiveHint": "destructive"}


def _show(args):
    """Show the whole of args (paged past PAGE lines). False when the person
    refused on the way (n at a page break, end of input)."""
    import jsonstream
    try:
        p = jsonstream.Parser(args)
        p.skip_value()
        p.finish()
        ok = True
    except jsonstream.JSONError:
        ok = False
    if ok and len(args) <= WIDTH - 13 and "\n" not in args:
        out("  arguments: " + args)     # short: as sent, on one line
        return True
    out("  arguments:")
    total = 0
    for _ in lines(args, ok, WIDTH - 4):
        total += 1
    shown = 0
    for ln in lines(args, ok, WIDTH - 4):
        if shown and shown % PAGE == 0:
            term.drain()
            a = term.readline("  -- %d more lines of arguments: Enter shows them, n refuses -- "
                              % (total - shown))
            if a is None or a.strip().lower() == "n":
                return False
        out("    " + ln)
        shown += 1
    return True


def lines(text, is_json, width):
    """The lines of text as shown: JSON re-indented (2 spaces a level, ": "
    after keys), other text as its own lines; each cut to width columns
    with the rest on lines indented 2 more. Walks the UTF-8 bytes
    (MicroPython interns every one-character str)."""
    b = text.encode()
    ln = bytearray()
    depth = 0
    q = esc = False
    for c in b:
        brk = False             # the line ends after c
        if not is_json:
            brk = c == _LF
            if not brk:
                ln.append(c)
        elif q:
            ln.append(c)
            q = esc or c != _QUOTE
            esc = not esc and c == _BSLASH
        elif c == _RBRACE or c == _RBRACKET:
            if ln:
                for s in _cut(ln, depth, width):
                    yield s
            depth = max(0, depth - 1)
            ln = bytearray([c])
        elif c not in b" \t\r\n":
            ln.append(c)
            if c == _COLON_B:
                ln.append(_SP)
            q = c == _QUOTE
            brk = c == _LBRACE or c == _LBRACKET or c == _COMMA
        if brk:
            for s in _cut(ln, depth, width):
                yield s
            if c == _LBRACE or c == _LBRACKET:
                depth += 1
            ln = bytearray()
    if ln or not is_json:
        for s in _cut(ln, depth, width):
            yield s


def _cut(b, depth, width):
    """Line bytes b at nesting depth as str lines of at most width columns,
    never splitting a UTF-8 character."""
    i = 0
    while True:
        pad = 2 * depth + (2 if i else 0)
        j = min(i + max(width - pad, 16), len(b))
        while i + 1 < j < len(b) and (b[j] & 0xC0) == 0x80:
            j -= 1              # not inside a character
        yield " " * pad + str(b[i:j], "utf-8")
        if j >= len(b):
            return
        i = j
