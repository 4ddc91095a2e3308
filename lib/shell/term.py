"""Terminal input for the console: line editor, masked input, menus, spinner.

On a raw terminal (the board's UART/USB, or the host terminal that
tools/sim.py puts in raw mode) we read single bytes, echo them ourselves and
write "\r\n". Keys: printable text, Backspace, Delete, Left/Right, Home/End
(also Ctrl-A/Ctrl-E), Up/Down through a bounded history, Tab completion,
Ctrl-U clears, Ctrl-L clears the screen (and measures it again), Ctrl-C
cancels the line (KeyboardInterrupt), Ctrl-D on an empty line ends input
(readline returns None). Escape sequences understood: ESC [ A/B/C/D/H/F,
ESC [ 1~ 4~ 3~, ESC O H/F, and the terminal's cursor position report
(ESC [ row ; col R) while one is awaited. Every other sequence is read
whole and dropped (CSI with private parameters, DCS/OSC/APC strings up to
ST or BEL): a terminal's answers to queries (device attributes, XTVERSION:
"ESC P>|tmux 3.3a ESC \\") never become typed text.

The line is UTF-8 bytes of at most _MAX_LINE (a long ai question fits; a
longer paste says so on screen). A line wider than the terminal scrolls
sideways: the prompt row shows a window of it around the cursor and never
wraps, so every redraw is "\r", prompt, window. The width is what the
terminal answers to ask_width() (cursor far right, then a position
report; run() asks at start, Ctrl-L again), 80 columns until it answers.

Ctrl-C while a command runs: on the board the UART raises
KeyboardInterrupt while micropython.kbd_intr(3) is set (the line editor
sets -1 to read Ctrl-C as a byte). A host terminal in raw mode (make sim)
sends no SIGINT, so there the terminal's ISIG is switched with it
(shell/hostterm.py): on while a command runs, off in the line editor.
Behind tools/simboard.py the board's UART is played: simboard sends
SIGINT while kbd_intr(3) is set, a byte otherwise.

When the console is not a terminal (a pipe) lines are read plainly, each
echoed after its prompt (a line that carries a secret shows "***"), and no
escape codes are written.

While readline(..., serve=True) (the console's own prompt) waits for a key
it also watches WATCH, set by the board's MCP server (lib/mcpserver/): an
object with .sock (the listening socket, polled beside the keyboard),
.poll (None, or the poll object of this wait, kept there), .due() (ms
until it wants to run anyway, -1: never) and .serve(ready) (answer what
is waiting; ready: the socket is readable). One request is
served at a time, and nothing while a command runs: a request that comes
then waits in the socket's backlog until the prompt is back. Before the
server writes to the console it calls aside(): the prompt line is cleared
and drawn again, with what was typed, once the request is answered.

    line = readline(prompt, history=None, complete=None)   # None at the end
    term.cols           # the terminal's columns (80 until it answered)
    ask_width()         # ask the terminal (run() at start, Ctrl-L)
    n = columns(b, i, j)                # columns of UTF-8 bytes b[i:j]
    secret(line)        # a line that carries a secret (kept out of history)
    key = masked("key: ")               # echoes "*"
    c = ask("run it? [y/n/a] ", "yna")  # a typed line "y", "n" or "a" + Enter
    drain()             # forget type-ahead and what the terminal sent unasked
    i = menu(labels, title, page=10, typed=False, keep=None)  # index, typed str, None
    s = Spinner("thinking"); s.stop()
    r = busy("fetching", fn, *args)     # fn(*args) with a spinner shown
    check_interrupt()   # call while streaming: raises KeyboardInterrupt
                        # when Ctrl-C was typed and came as a byte
"""
import sys

import shell
import store
from shell import out, write, raw, clean, tty
from compat import MICROPYTHON, const

_MAX_LINE = const(4096)    # bytes of a typed line
_FULL = "(a line holds %d bytes: the rest was not taken)"
_BURST = const(30)  # ms: bytes a program writes at once arrive closer than this
_MAX_STRING = const(512)   # bytes of an escape sequence we read and drop

_pending = []      # bytes read while polling for Ctrl-C: type-ahead
_poll = None
WATCH = None       # the MCP server while it listens (see the docstring)
_aside = [0]       # 1: serving from the prompt wait, 2: and the prompt was cleared
_REDRAW = const(0x105)  # _read1: the prompt line must be drawn again
cols = 80          # the terminal's width: its answer to ask_width(), else 80
_asked = False     # a cursor position report is awaited (ask_width)


def _kbd(ch):
    """Let Ctrl-C reach us as a byte (-1) or raise KeyboardInterrupt (3).
    A host terminal's ISIG follows (see the module text): off before the
    unix port drops its SIGINT handler, on only once it has one again."""
    host = not shell.BOARD and tty()
    if host and ch != 3:
        from shell import hostterm
        hostterm.mode(False)
    if MICROPYTHON:
        try:
            import micropython
            micropython.kbd_intr(ch)
        except (ImportError, AttributeError):
            pass
    if host and ch == 3:
        from shell import hostterm
        hostterm.mode(True)


def ask_width():
    """Ask the terminal for its width: the cursor goes to the far right of
    its row and the terminal reports where that is; the line editor reads
    the report like any escape sequence (never as typed text) while it is
    awaited. A terminal that does not answer leaves 80."""
    global _asked
    if tty() and shell.capturing is None:
        _asked = True
        raw("\r\x1b[999C\x1b[6n\r")


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


def _plain_line(prompt, serve=False, mask=None):
    """A line from a pipe: echoed after its prompt, so what a command
    prints starts on a line of its own (masked input and a line with a
    secret: "***")."""
    write(prompt)
    while serve and WATCH is not None and _wait():
        write(prompt)
    line = sys.stdin.readline()
    if not line:
        return None
    line = line.rstrip("\r\n")
    out("***" if line and (mask or secret(line)) else line)
    b = line.encode()
    if len(b) > _MAX_LINE:
        out(_FULL % _MAX_LINE)
        line = str(b[:shell.whole(b[:_MAX_LINE])], "utf-8")
    return line


# Keys an escape sequence names, as codes above any byte.
_UP = const(0x100)
_DOWN = const(0x101)
_RIGHT = const(0x102)
_LEFT = const(0x103)
_DEL = const(0x104)
_CTRL_A = const(0x01)   # Home
_CTRL_E = const(0x05)   # End
# "ESC [ N ~": N = 1 or 7 Home, 4 or 8 End, 3 Delete (VT220, xterm, rxvt)
_TILDE_N = "17483"
_TILDE_KEY = (_CTRL_A, _CTRL_A, _CTRL_E, _CTRL_E, _DEL)
# "ESC [ X": the arrows, H Home, F End
_CSI_X = "ABCDHF"
_CSI_KEY = (_UP, _DOWN, _RIGHT, _LEFT, _CTRL_A, _CTRL_E)


def _escape():
    """Read the rest of an escape sequence -> a key code (a control byte or
    one of _UP.._DEL), _REDRAW for the position report ask_width awaits
    (the width is taken), or None. Sequences that name no key are read
    whole (bounded) and give None."""
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
    global _asked, cols
    if c == 0x52 and _asked:       # "R": the position report ask_width awaits
        _asked = False
        k = num.split(";")
        if len(k) == 2 and k[1] and int(k[1]) >= 20:
            cols = int(k[1])
        return _REDRAW
    if c == 0x7E:                  # "~": 1/7 Home, 4/8 End, 3 Delete
        k = num.split(";")[0]
        i = _TILDE_N.find(k) if len(k) == 1 else -1
        return None if i < 0 else _TILDE_KEY[i]
    i = _CSI_X.find(chr(c))
    return None if i < 0 else _CSI_KEY[i]


def readline(prompt, history=None, complete=None, mask=None, style=None, serve=False):
    """Read one line. None at the end of input or Ctrl-D on an empty line;
    Ctrl-C raises KeyboardInterrupt("^C") (after printing "^C": the args
    tell a catcher it was shown); "\x01" when
    mpremote asks for the raw REPL: Enter and Ctrl-C in one burst on an
    empty line (its first bytes).
    complete(text_before_cursor) -> (start, [candidates]) replaces
    text[start:cursor] by the candidate (see complete()).
    The prompt is shown sanitized (it may quote outside text), in style (an
    SGR attribute such as shell.BOLD_GREEN) on a terminal. serve=True (the
    console's prompt): the MCP server is served while it waits. A command
    run as a tool (output captured) gets None: nobody is there to type.
    A line that carries a secret (secret()) is not kept in history."""
    if shell.capturing is not None:
        return None
    if not tty():
        return _plain_line(prompt, serve, mask)
    prompt = clean(prompt)
    plen = len(prompt)
    if style:
        prompt = "\x1b[" + style + "m" + prompt + "\x1b[0m"
    _kbd(-1)
    try:
        return _edit(prompt, plen, history, complete, mask, serve)
    finally:
        _kbd(3)


def columns(b, i, j):
    """Characters (columns) in the UTF-8 bytes b[i:j] (a byte that does not
    continue a character starts one; md.py counts with it too)."""
    n = 0
    while i < j:
        if b[i] & 0xC0 != 0x80:
            n += 1
        i += 1
    return n


def _step(b, p, n):
    """The byte offset n characters after p (n < 0: before), within b."""
    end = len(b)
    while n > 0 and p < end:
        p += 1
        while p < end and b[p] & 0xC0 == 0x80:
            p += 1
        n -= 1
    while n < 0 and p > 0:
        p -= 1
        while p > 0 and b[p] & 0xC0 == 0x80:
            p -= 1
        n += 1
    return p


def _edit(prompt, plen, history, complete, mask, serve):  # noqa: C901 (the line editor's key loop)
    buf = bytearray()   # the line, UTF-8
    pos = 0             # the cursor: the byte offset of a character's start
    off = 0             # the first byte shown (a wide line scrolls)
    full = [False]      # the "line is full" note was shown

    def room():
        # columns for the text: the cursor may sit in the last column,
        # nothing is written there (no terminal wraps a row)
        return max(cols - 1 - plen, 8)

    def redraw():
        nonlocal off
        r = room()
        if columns(buf, 0, len(buf)) <= r:
            off = 0
        elif pos < off or columns(buf, off, pos) > r:
            off = _step(buf, pos, -(r // 2))     # the cursor mid-window
        end = _step(buf, off, r)
        s = "\r" + prompt + (mask * columns(buf, off, end) if mask else clean(str(buf[off:end], "utf-8"))) + "\x1b[K"
        n = columns(buf, pos, end)
        if n:
            s += "\x1b[%dD" % n
        raw(s)

    def insert(s):
        nonlocal pos
        if len(buf) + len(s) > _MAX_LINE:
            if full[0]:
                raw("\x07")
            else:
                full[0] = True
                write("\n" + _FULL % _MAX_LINE + "\n", shell.DIM)
                redraw()
            return
        buf[pos:pos] = s
        pos += len(s)
        if pos == len(buf) and columns(buf, off, pos) <= room():
            write(mask * columns(s, 0, len(s)) if mask else str(s, "utf-8"))
        else:
            redraw()

    raw(prompt)     # sanitized by readline
    hist = history.items if history is not None else []
    hpos = len(hist)
    saved = ""
    while True:
        c = _read1(serve)
        if c is None:
            write("\n")
            return str(buf, "utf-8") if buf else None
        if c == 0x1B:
            c = _escape()
            if c is None:
                continue
        if c == _REDRAW:
            redraw()
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
            line = str(buf, "utf-8")
            if history is not None and not mask and not secret(line):
                history.add(line)
            return line
        if c == 0x03:
            write("^C\n")
            raise KeyboardInterrupt("^C")
        if c == 0x04 and not buf:           # Ctrl-D on an empty line
            write("\n")
            return None
        if c == 0x04 or c == _DEL:          # Ctrl-D, Delete
            if pos < len(buf):
                buf[pos:_step(buf, pos, 1)] = b""
                redraw()
        elif c in (0x7F, 0x08):             # Backspace
            if pos:
                end = pos == len(buf)
                p = _step(buf, pos, -1)
                buf[p:pos] = b""
                pos = p
                if end and pos > off:
                    raw("\x08 \x08")
                else:
                    redraw()
        elif c == 0x15:                     # Ctrl-U
            buf[0:len(buf)] = b""
            pos = 0
            redraw()
        elif c == 0x0C:                     # Ctrl-L
            raw("\x1b[2J\x1b[H")
            ask_width()
            redraw()
        elif c == _LEFT:
            if pos:
                pos = _step(buf, pos, -1)
                if pos >= off:
                    raw("\x1b[D")
                else:
                    redraw()
        elif c == _RIGHT:
            if pos < len(buf):
                pos = _step(buf, pos, 1)
                if columns(buf, off, pos) <= room():
                    raw("\x1b[C")
                else:
                    redraw()
        elif c == _CTRL_A:                  # and Home
            pos = 0
            redraw()
        elif c == _CTRL_E:                  # and End
            pos = len(buf)
            redraw()
        elif c == _UP or c == _DOWN:
            if c == _UP and hpos > 0:
                if hpos == len(hist):
                    saved = str(buf, "utf-8")
                hpos -= 1
            elif c == _DOWN and hpos < len(hist):
                hpos += 1
            else:
                continue
            buf[0:len(buf)] = (hist[hpos] if hpos < len(hist) else saved).encode()
            pos = len(buf)
            redraw()
        elif c == 0x09:                     # Tab
            if complete is None or mask:
                continue
            before = str(buf[:pos], "utf-8")
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
                insert(new[len(typed):].encode())
            else:
                p = pos - len(typed.encode())
                buf[p:pos] = new.encode()
                pos = p + len(new.encode())
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
                bytes(bs).decode()
                insert(bs)
            except UnicodeError:
                pass
        elif c >= 0x20:
            insert(bytes((c,)))


def secret(line):
    """True when a console line carries a secret typed inline: a value for
    a secret setting (set ai.chat.key sk-...) or an argument named token or
    password (mcp add NAME URL TOKEN, wifi connect SSID PASS). Such a line
    is not kept in the Up-arrow history and not echoed (plain input)."""
    try:
        name, rest = shell.split_words(line, True)
        spec = shell.find(name) if name else None
        if spec is None:
            return False
        args = shell.parse(spec, rest)
    except Exception:
        return False
    argspec = spec["args"]
    sub = shell.sub_of(spec, args[0]) if args and spec.get("subs") else None
    if sub is not None:
        argspec, args = sub[1], args[1:]
    for i in range(min(len(args), len(argspec))):
        a = argspec[i]
        if a[0] in ("token", "password") or (
                a[1] == "key" and i + 1 < len(args) and store.is_secret(args[i])):
            return True
    return False


def complete(before):
    """Completion for the console line: command names in the first word, then
    by the argument's type (commands, settings, MCP servers, sub-commands,
    choices), file names otherwise (and after -f). -> (start, candidates)."""
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
        prev = words[idx - 1]       # (the word before the one completed)
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
            if prev == "-f":        # (ai -f FILE: a file)
                typ = "path"
    if typ == "cmd":
        return start, _match(shell.names(), word)
    if typ == "key":
        return start, [k + " " for k in store.keys(word)][:100]
    if typ == "server":         # mcp.<name>.url names a server
        return start, _match([k[4:-4] for k in store.keys("mcp.")
                              if k.endswith(".url") and k.count(".") == 2], word)
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
    if shell.capturing is not None:
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


def menu(labels, title=None, page=10, typed=False, keep=None):
    """A numbered, paged menu. Returns the chosen index (int); with typed=True
    anything that is not a number is returned as the typed str (e.g. a model
    id not in the list); keep (the index of the current value, or -1 for
    "keep none of them") for Enter at the last page; None when the person
    quits (q, Enter at the last page without keep, end of input). Ctrl-C
    raises KeyboardInterrupt."""
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
            return keep
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


class Waiting:
    """A reply's screen (shell/md.py's Render, shell/aijson.py's Printer):
    a spinner from wait() until unspin() (the first piece, or the end);
    end() is the screen's own."""
    spin = None

    def wait(self, label="thinking"):
        self.end()
        self.spin = Spinner(label)

    def unspin(self):
        if self.spin is not None:
            self.spin.stop()
            self.spin = None


def busy(label, fn, *args, **kw):
    """fn(*args, **kw) with a Spinner(label) shown while it runs."""
    s = Spinner(label)
    try:
        return fn(*args, **kw)
    finally:
        s.stop()
