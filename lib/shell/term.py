"""Terminal input for the console: line editor, masked input, menus, spinner.

On a raw terminal (the board's UART/USB, or the host terminal that
tools/sim.py puts in raw mode) we read single bytes, echo them ourselves and
write "\r\n". Keys: printable text, Backspace, Delete, Left/Right, Home/End
(also Ctrl-A/Ctrl-E), Up/Down through a bounded history, Tab completion,
Ctrl-U clears, Ctrl-C cancels the line (KeyboardInterrupt), Ctrl-D on an
empty line ends input (readline returns None). Escape sequences understood:
ESC [ A/B/C/D/H/F, ESC [ 1~ 4~ 3~, ESC O H/F. Every other sequence is read
whole and dropped (CSI with private parameters, DCS/OSC/APC strings up to
ST or BEL): a terminal's answers to queries (device attributes, XTVERSION:
"ESC P>|tmux 3.3a ESC \\") never become typed text.

When the console is not a terminal (a pipe) lines are read plainly and no
escape codes are written.

While readline(..., serve=True) (the console's own prompt) waits for a key
it also watches WATCH, set by the board's MCP server (mcp/server.py): an
object with .sock (the listening socket, polled beside the keyboard),
.poll (None, or the poll object of this wait, kept there), .due() (ms
until it wants to run anyway, -1: never) and .serve(ready) (answer what
is waiting; ready: the socket is readable). One request is
served at a time, and nothing while a command runs: a request that comes
then waits in the socket's backlog until the prompt is back. Before the
server writes to the console it calls aside(): the prompt line is cleared
and drawn again, with what was typed, once the request is answered.

    line = readline(prompt, history=None, complete=None)   # None at the end
    secret = masked("key: ")            # echoes "*"
    c = ask("run it? [y/n/a] ", "yna")  # a typed line "y", "n" or "a" + Enter
    drain()             # forget type-ahead and what the terminal sent unasked
    i = menu(labels, title, page=10, typed=False)  # index, typed str, None
    s = Spinner("thinking"); s.stop()
    r = busy("fetching", fn, *args)     # fn(*args) with a spinner shown
    check_interrupt()   # call while streaming: raises KeyboardInterrupt
                        # when Ctrl-C was typed (raw mode sends no SIGINT)
"""
import sys

import shell
from shell import out, write, raw, clean, tty
from compat import MICROPYTHON, const

_MAX_LINE = const(512)
_BURST = const(30)  # ms: bytes a program writes at once arrive closer than this
_MAX_STRING = const(512)   # bytes of an escape sequence we read and drop

_pending = []      # bytes read while polling for Ctrl-C: type-ahead
_poll = None
WATCH = None       # the MCP server while it listens (see the docstring)
_aside = [0]       # 1: serving from the prompt wait, 2: and the prompt was cleared
_REDRAW = const(0x105)  # _read1: the prompt line must be drawn again


def _kbd(ch):
    """Let Ctrl-C reach us as a byte (-1) or raise KeyboardInterrupt (3)."""
    if MICROPYTHON:
        try:
            import micropython
            micropython.kbd_intr(ch)
        except (ImportError, AttributeError):
            pass


def _read1(serve=False):
    """One byte as an int, or None at the end of input; serve=True: WATCH
    is served while no key comes (then _REDRAW if the prompt was cleared)."""
    if _pending:
        return _pending.pop(0)
    if serve and WATCH is not None and _wait():
        return _REDRAW
    return _read_raw()


def _wait():
    """Serve WATCH until a key (or the end of input) is ready. -> True if
    the server wrote over the prompt line."""
    w = WATCH
    p = w.poll
    if p is None:     # one poll object per server start, kept by the server
        import select
        p = w.poll = select.poll()
        p.register(sys.stdin, select.POLLIN)
        p.register(w.sock, select.POLLIN)
    while WATCH is w:
        ready = p.poll(w.due())
        mine = False
        for r in ready:
            if r[0] is w.sock or (not MICROPYTHON and r[0] == w.sock.fileno()):
                mine = True
            else:
                return False    # a key
        _aside[0] = 1
        try:
            w.serve(mine)
        finally:
            wrote = _aside[0] == 2
            _aside[0] = 0
        if wrote:
            return True
    return False


def aside():
    """The MCP server is about to write to the console: from the prompt
    wait, the prompt line is cleared first (drawn again afterwards)."""
    if _aside[0] == 1:
        _aside[0] = 2
        if tty():
            raw("\r\x1b[K")
        else:
            raw("\n")


def _read_raw():
    b = getattr(sys.stdin, "buffer", None)
    if not MICROPYTHON:
        import os
        d = os.read(0, 1)
    elif b is not None:
        d = b.read(1)
    else:
        d = sys.stdin.read(1)
        if isinstance(d, str):
            d = d.encode()
    if not d:
        return None
    return d[0]


def _ready(ms=0):
    """True when a byte can be read within ms milliseconds (0: now)."""
    global _poll
    try:
        if _poll is None:
            import select
            _poll = select.poll()
            _poll.register(sys.stdin, select.POLLIN)
        return bool(_poll.poll(ms))
    except (OSError, ValueError, AttributeError, TypeError):
        return False


def _follows(byte):
    """True, and the byte taken, when the next input byte is `byte` and comes
    within _BURST ms: sent together with the one before by a program, not
    typed. Any other byte stays as type-ahead."""
    if not _pending:
        if not _ready(_BURST):
            return False
        c = _read_raw()
        if c is None:
            return False
        _pending.append(c)
    if _pending[0] != byte:
        return False
    _pending.pop(0)
    return True


def check_interrupt():
    """Raise KeyboardInterrupt if Ctrl-C was typed. Other keys are kept as
    type-ahead for the next line. Cheap when nothing was typed."""
    _take(True)


def drain():
    """Forget all pending input: the type-ahead check_interrupt kept and the
    bytes already waiting (keys typed early, a terminal's answers). A
    question only a person may answer starts with this; a Ctrl-C among the
    bytes still raises KeyboardInterrupt."""
    del _pending[:]
    _take(False)


def _take(keep):
    """Read the bytes waiting now (no wait), kept as type-ahead or dropped;
    Ctrl-C drops the type-ahead and raises KeyboardInterrupt."""
    if not tty():
        return
    for _ in range(64 if keep else 4096):
        if not _ready():
            return
        c = _read_raw()
        if c is None:
            return
        if c == 3:
            del _pending[:]
            raise KeyboardInterrupt
        if keep and len(_pending) < 64:
            _pending.append(c)


class History:
    """The last lines typed, bounded by count and bytes (RAM only)."""

    def __init__(self, lines=20, size=2048):
        self.items = []
        self.lines = lines
        self.size = size

    def add(self, line):
        if not line.strip() or (self.items and self.items[-1] == line):
            return
        self.items.append(line)
        while len(self.items) > self.lines or (
                len(self.items) > 1 and sum(len(i) for i in self.items) > self.size):
            self.items.pop(0)


def _plain_line(prompt, serve=False):
    write(prompt)
    while serve and WATCH is not None and _wait():
        write(prompt)
    line = sys.stdin.readline()
    if not line:
        return None
    return line[:_MAX_LINE].rstrip("\r\n")


# Keys an escape sequence names, as codes above any byte.
_UP = const(0x100)
_DOWN = const(0x101)
_RIGHT = const(0x102)
_LEFT = const(0x103)
_DEL = const(0x104)


def _escape():
    """Read the rest of an escape sequence -> a key code (a control byte or
    one of _UP.._DEL) or None. Sequences that name no key are read whole
    (bounded) and give None."""
    c = _read1()
    if c in (0x50, 0x5D, 0x58, 0x5E, 0x5F):    # DCS OSC SOS PM APC: a string
        for _ in range(_MAX_STRING):
            c = _read1()
            if c is None or c == 0x07:          # BEL ends an OSC
                return None
            if c == 0x1B:                       # ST is ESC \
                _read1()
                return None
        return None
    if c not in (0x5B, 0x4F):      # "[" or "O"; ESC + another byte: dropped
        return None
    ss3 = c == 0x4F
    num = ""
    odd = False     # private parameters (< = > ?) or intermediates: an answer
    for _ in range(_MAX_STRING):
        c = _read1()
        if c is None:
            return None
        if ss3:
            break
        if 0x30 <= c <= 0x39 or c == 0x3B:
            if len(num) < 8:
                num += chr(c)
            continue
        if 0x20 <= c <= 0x3F:
            odd = True
            continue
        break
    if odd or not 0x40 <= c <= 0x7E:
        return None
    if c == 0x7E:                  # "~": 1/7 Home, 4/8 End, 3 Delete
        k = num.split(";")[0]
        i = "17483".find(k) if len(k) == 1 else -1
        return None if i < 0 else (1, 1, 5, 5, _DEL)[i]
    i = "ABCDHF".find(chr(c))
    return None if i < 0 else (_UP, _DOWN, _RIGHT, _LEFT, 1, 5)[i]


def readline(prompt, history=None, complete=None, mask=None, style=None, serve=False):
    """Read one line. None at the end of input or Ctrl-D on an empty line;
    Ctrl-C raises KeyboardInterrupt (after printing "^C"); "\x01" when
    mpremote asks for the raw REPL: Enter and Ctrl-C in one burst on an
    empty line (its first bytes).
    complete(text_before_cursor) -> (start, [candidates]) replaces
    text[start:cursor] by the candidate (see complete()).
    The prompt is shown sanitized (it may quote outside text), in style (an
    SGR attribute such as shell.BOLD_GREEN) on a terminal. serve=True (the
    console's prompt): the MCP server is served while it waits. A command
    run as a tool (output captured) gets None: nobody is there to type."""
    if shell._capture is not None:
        return None
    if not tty():
        return _plain_line(prompt, serve)
    prompt = clean(prompt)
    if style:
        prompt = "\x1b[" + style + "m" + prompt + "\x1b[0m"
    _kbd(-1)
    try:
        return _edit(prompt, history, complete, mask, serve)
    finally:
        _kbd(3)


def _edit(prompt, history, complete, mask, serve):
    buf = []        # the line as a list of characters
    pos = 0         # the cursor

    def redraw():
        s = "\r" + prompt + (mask * len(buf) if mask else clean("".join(buf))) + "\x1b[K"
        if len(buf) > pos:
            s += "\x1b[%dD" % (len(buf) - pos)
        raw(s)

    def insert(s):
        nonlocal pos
        for ch in s:
            if len(buf) >= _MAX_LINE:
                raw("\x07")
                return
            buf.insert(pos, ch)
            pos += 1
        if pos == len(buf):
            write(mask * len(s) if mask else s)     # typed: printable only
        else:
            redraw()

    raw(prompt)     # sanitized by readline
    hist = history.items if history is not None else []
    hpos = len(hist)
    saved = ""
    while True:
        c = _read1(serve)
        if c == _REDRAW:
            redraw()
            continue
        if c is None:
            write("\n")
            return "".join(buf) if buf else None
        if c == 0x1B:
            c = _escape()
            if c is None:
                continue
        if c in (0x0D, 0x0A):
            if not buf and _follows(0x03):
                # Enter + Ctrl-C in one burst: mpremote asking for the raw
                # REPL; its Enter, Ctrl-A that follow reach the REPL
                write("\n")
                return "\x01"
            if c == 0x0D and _pending[:1] == [0x0A]:
                _pending.pop(0)
            write("\n")
            line = "".join(buf)
            if history is not None and not mask:
                history.add(line)
            return line
        if c == 0x03:
            write("^C\n")
            raise KeyboardInterrupt
        if c == 0x04 and not buf:           # Ctrl-D on an empty line
            write("\n")
            return None
        if c == 0x04 or c == _DEL:          # Ctrl-D, Delete
            if pos < len(buf):
                buf.pop(pos)
                redraw()
        elif c in (0x7F, 0x08):             # Backspace
            if pos:
                pos -= 1
                buf.pop(pos)
                if pos == len(buf):
                    raw("\x08 \x08")
                else:
                    redraw()
        elif c == 0x15:                     # Ctrl-U
            buf, pos = [], 0
            redraw()
        elif c == 0x0C:                     # Ctrl-L
            raw("\x1b[2J\x1b[H")
            redraw()
        elif c == _LEFT:
            if pos:
                pos -= 1
                raw("\x1b[D")
        elif c == _RIGHT:
            if pos < len(buf):
                pos += 1
                raw("\x1b[C")
        elif c == 0x01:                     # Ctrl-A, Home
            pos = 0
            redraw()
        elif c == 0x05:                     # Ctrl-E, End
            pos = len(buf)
            redraw()
        elif c == _UP or c == _DOWN:
            if c == _UP and hpos > 0:
                if hpos == len(hist):
                    saved = "".join(buf)
                hpos -= 1
            elif c == _DOWN and hpos < len(hist):
                hpos += 1
            else:
                continue
            buf = list(hist[hpos] if hpos < len(hist) else saved)
            pos = len(buf)
            redraw()
        elif c == 0x09:                     # Tab
            if complete is None or mask:
                continue
            before = "".join(buf[:pos])
            try:
                start, cands = complete(before)
            except Exception:       # completion must never break the editor
                continue
            if not cands:
                raw("\x07")
                continue
            typed = before[start:]
            new = cands[0]
            if len(cands) > 1:
                for w in cands[1:]:                 # the common prefix
                    i = 0
                    while i < len(new) and i < len(w) and new[i] == w[i]:
                        i += 1
                    new = new[:i]
                if len(new) <= len(typed):
                    write("\n" + "  ".join(c.rstrip("/ ").split("/")[-1] +
                                                 ("/" if c.endswith("/") else "")
                                                 for c in cands[:40]) +
                                (" ..." if len(cands) > 40 else "") + "\n")
                    redraw()
                    continue
            if new.startswith(typed):
                insert(new[len(typed):])
            else:
                buf[start:pos] = list(new)
                pos = start + len(new)
                redraw()
        elif c >= 0x80:
            # the rest of the UTF-8 character that starts with byte c
            bs = bytearray([c])
            for _ in range((c >= 0xC0) + (c >= 0xE0) + (c >= 0xF0)):
                c = _read1()
                if c is None:
                    break
                bs.append(c)
            try:
                insert(bytes(bs).decode())
            except UnicodeError:
                pass
        elif c >= 0x20:
            insert(chr(c))


def complete(before):
    """Completion for the console line: command names in the first word, then
    by the argument's type (commands, settings, sub-commands, choices),
    file names otherwise. -> (start, candidates)."""
    if before.startswith("?"):
        return 0, []
    i = before.rfind(" ")
    word = before[i + 1:]
    start = i + 1
    typ = "cmd"         # the first word: a command name
    if i >= 0:
        words = before.split()
        spec = shell.find(words[0])
        idx = len(words) - 1 if word else len(words)
        typ = "path"
        if spec is not None:
            argspec = spec["args"]
            if spec.get("subs"):
                if idx == 1:
                    subs = _match([s[0] for s in spec["subs"]], word)
                    if subs:
                        return start, subs
                s = shell.sub_of(spec, words[1]) if len(words) > 1 else None
                if s is not None:
                    argspec, idx = s[1], idx - 1
            if 0 < idx <= len(argspec):
                typ = argspec[idx - 1][1]
            elif argspec and argspec[-1][2] in ("*", "+"):
                typ = argspec[-1][1]
    if typ == "cmd":
        return start, _match(shell.names(), word)
    if typ == "key":
        import store
        return start, [k + " " for k in store.keys(word)][:100]
    if isinstance(typ, tuple):
        return start, _match(typ, word)
    if typ in ("str", "int", "text"):
        return start, []
    return start, _files(word, typ == "dir")


def _match(names, word):
    """The names that start with word, sorted, each with a space after it."""
    return sorted(n + " " for n in names if n.startswith(word))


def _files(word, dirs):
    import os
    j = word.rfind("/")
    head, part = word[:j + 1], word[j + 1:]
    try:
        host = shell.resolve(head or ".")
        names = os.listdir(host)
    except OSError:
        return []
    out = []
    for n in names:
        if not n.startswith(part) or (n.startswith(".") and not part.startswith(".")):
            continue
        try:
            isdir = os.stat(host.rstrip("/") + "/" + n)[0] & 0x4000
        except OSError:
            continue
        if dirs and not isdir:
            continue
        out.append(head + n + ("/" if isdir else " "))
        if len(out) >= 200:
            break
    out.sort()
    return out


def masked(prompt):
    """Read a secret: "*" echoed on a terminal; None at the end of input."""
    return readline(prompt, mask="*")


def ask(prompt, choices="yn", default=None):
    """A decision only a person makes: pending input is drained first, then
    the answer is a line typed after the prompt, one letter of choices (a
    str) and Enter; anything else asks again (Enter alone gives default when
    there is one). Ctrl-C raises KeyboardInterrupt; the end of input gives
    default (None when there is none), and so does a command run as a tool
    (a remote caller never answers the console's questions)."""
    if shell._capture is not None:
        return default
    drain()
    while True:
        line = readline(prompt)
        if line is None:
            return default
        c = line.strip().lower()
        if not c and default:
            return default
        if len(c) == 1 and c in choices:
            return c
        out("please type one of %s, then Enter" % "/".join(choices))


def menu(labels, title=None, page=10, typed=False):
    """A numbered, paged menu. Returns the chosen index (int); with typed=True
    anything that is not a number is returned as the typed str (e.g. a model
    id not in the list); None when the person quits (q, empty input at the
    last page, end of input). Ctrl-C raises KeyboardInterrupt."""
    n = len(labels)
    first = 0
    if title:
        out(title)
    while True:
        last = min(first + page, n)
        for i in range(first, last):
            out("%3d  %s" % (i + 1, labels[i]))
        more = last < n
        hint = "number"
        if more:
            hint += ", Enter for more (%d left)" % (n - last)
        if first > 0:
            hint += ", p back"
        if typed:
            hint += ", or type a name"
        line = readline("%s, q to quit: " % hint)
        if line is None:
            return None
        s = line.strip()
        if not s:
            if more:
                first = last
                continue
            return None
        if s == "q":
            return None
        if s == "p" and first > 0:
            first = max(0, first - page)
            continue
        try:
            k = int(s)
        except ValueError:
            if typed:
                return s
            out("type a number from the list")
            continue
        if 1 <= k <= n:
            return k - 1
        out("no item %d; choose 1 to %d" % (k, n))


_spin = [None]      # the Spinner turning now


def spinner():
    """The Spinner turning now, or None (its .label may change: MCP
    progress; a dialogue stops it and starts another)."""
    return _spin[0]


class Spinner:
    """A one-line activity mark ("| label", dim) until the first output
    arrives; the caller stops it before writing. There is no thread: it
    turns while httpc waits for the network (httpc.ON_WAIT), which also
    looks for Ctrl-C there. Writes nothing when not a terminal."""

    def __init__(self, label=""):
        self.on = False
        self.label = label
        self.n = 0
        self.go()

    def go(self):
        """Turn (again, after stop(): a question was asked meanwhile)."""
        if tty() and not self.on:
            self.on = True
            self.turn()
            import httpc
            httpc.ON_WAIT = self.turn
            _spin[0] = self

    def turn(self):
        raw("\r\x1b[2m" + "|/-\\"[self.n & 3] + " ")
        write(self.label)       # may name a remote tool
        raw("\x1b[0m")
        self.n += 1
        check_interrupt()

    def stop(self):
        if self.on:
            import httpc
            httpc.ON_WAIT = None
            raw("\r\x1b[K")
            self.on = False
            if _spin[0] is self:
                _spin[0] = None


def busy(label, fn, *args, **kw):
    """fn(*args, **kw) with a Spinner(label) shown while it runs."""
    s = Spinner(label)
    try:
        return fn(*args, **kw)
    finally:
        s.stop()
