"""The serial console: run loop, command registry, dispatch, /bin scripts.

    import shell
    shell.run()          # prompt, read lines, dispatch; returns to the REPL

REGISTRY CONTRACT (read by help, `help CMD`, the ? helper, Tab completion,
the local tool catalogue, and the ai/mcp command modules):

  Each command is declared ONCE, in TABLE below, and seen as a spec dict
  (a command of _NEEDS only on a board whose profile has that part: camera):
    {"name": "ls", "desc": "one line", "usage": "ls [PATH]",
     "args": (ARG, ...), "tags": ("files",),
     "module": "shell.builtins", "func": "ls",
     "subs": None | ((SUBNAME, (ARG, ...), "one line"), ...),
     "path": None | "<host path of a /bin script>"}
  (a /bin script's spec also has "readonly": its SPEC says it changes nothing)
  ARG is a tuple (name, type, count[, description]):
    type:  "str" | "int" | "path" (file or folder under the flash root)
           | "file" | "dir" | "cmd" (a command name) | "key" (a setting)
           | "server" (the name of a configured MCP server)
           | "text" (the REST of the line, raw, quotes and spaces kept:
             questions, JSON; one pair of quotes around all of it is
             dropped: '{"a": 1}') | a tuple of allowed words ("on", "off")
    count: "1" required, "?" optional, "*" zero or more, "+" one or more
  "subs": when present and the first word names a sub-command, the words
  after it are checked against that sub-command's args instead.
  An optional last argument that the usage shows as "[-x NAME]" (x its
  name's first letter: "camera [PATH] [-s SIZE]") is given that way,
  anywhere on the line; an optional argument before it that is left out
  arrives as None.
  The dispatcher checks the count of words, int-ness and choices before the
  call; on a mismatch it prints the error and "usage: ..." on one line each.
  "-h" or "--help" after a command (or after a sub-command) shows `help
  CMD` instead of running it.

  The function is  main(args) -> None  with args the list of str after the
  command name (a "text" arg arrives as ONE string with the raw rest).
  Output: shell.out(text, style=None) prints a line; shell.write(piece,
  style=None) writes a piece with no newline added (streaming);
  shell.err(msg) prints one error line (red). All three sanitize their text
  (shell.clean: control characters and escape sequences from models,
  servers and files are shown as visible text, never interpreted); style is
  one of shell.DIM, RED, BOLD_GREEN, BOLD_CYAN. Only the console's own code
  writes escape codes, through shell.raw(s). Every "\n" becomes "\r\n" on a
  raw terminal (a host terminal does that itself: cooked), so never
  print() directly.
  To fail: raise shell.Error("what went wrong, what to do") -> one line;
  raise shell.UsageError("detail") -> the line plus "usage: ...".
  Anything else raised is shown as one line too (never a traceback);
  KeyboardInterrupt (Ctrl-C) prints "^C" (unless a prompt showed it: its
  args say so) and the console stays.
  Command modules are imported when the command runs and dropped from
  sys.modules afterwards (RAM on the board): keep state in store / files.
  Terminal helpers for commands (prompts, menus, spinner, Ctrl-C polling
  while streaming) are in shell/term.py.

  A user script /bin/NAME.py becomes the command NAME when it declares
    SPEC = {"desc": "...", "usage": "NAME ARG", "args": (("arg", "str", "1"),),
            "tags": ("mine",)}          # optional: "name"
    def main(args): ...
  SPEC is read from the file text (a dict literal, evaluated alone) without
  running the script; the script runs only when the command is typed. A
  script without a readable SPEC is no command: typing its name says why
  (read_spec(path, True)); one named like a built-in is reported once when
  run() starts. A script's error names its file and line
  ("/bin/boom.py line 3: ValueError: kaboom"); `run FILE ARGS` sets
  sys.argv to [FILE, ARGS...] while it runs.

Helpers: shell.count(n, "tool") -> "1 tool" / "2 tools";
shell.fold(line, hang) -> the line broken between words to the terminal's
width (help, usage and error lines; err() folds its own);
shell.commands(tag=None) iterates specs (built-ins, then /bin);
shell.find(name) -> spec or None (spec["usage"]: the usage line);
shell.tty() -> True on a raw terminal (escape codes, line editor);
shell.BOARD: True on the board (MicroPython, not the unix port);
shell.cwd() / shell.resolve(path) -> host path / shell.show(host) -> "/x";
shell.private(shown) -> True for the settings and history files (never tools');
shell.tasks() -> [[id, name, started_ms]] of what the console runs.
The local tool catalogue: shell.local_tools(level) -> inline ai tools made
from the commands (read-only ones, and /bin scripts whose SPEC has
"readonly": True; level "all": those that change something too; the
mapping and its guardrails are shell/tools.py, shared with the MCP server;
a chat offers them through ai.run(local=...), a line at a time);
shell.here(name) -> False for a built-in this board has not (camera);
shell.capture(line) -> a command's output as text; shell.attach(path): a
command running as a tool hands the model a file it made (the camera's);
shell.run_captured(line, sink) -> True when the command failed, its output
given to sink(piece) instead of the console (both run it from /);
before = shell.loaded(), then shell.forget(before): drop the modules loaded
since (what the console does after a command, the MCP server after a
request).
"""
import sys
import os

import hooks
import store
from compat import collect, const, ticks_ms, tighten, loosen, MICROPYTHON, VERSION  # noqa: F401  (shell.VERSION)

BOARD = MICROPYTHON and sys.platform not in ("linux", "darwin")    # not the unix port

# One string per command, fields split by "~":
#   name~desc~usage~args~tags~module~subs
# usage: empty when it is the name and the args (upper case, [optional],
# [many...]); args: "name:type:count" words (choices as "a/b"); tags: words; module:
# the leaf under shell/ whose main() runs it ("leaf.func": that function of
# it), empty for shell.builtins (the function named like the command);
# subs: "NAME ARGS...=desc" joined by ";".
# Strings, not nested tuples: a fraction of the flash; _spec() expands one.
TABLE = (
    "help~list commands, or show one command's usage~~cmd:cmd:?"
    "~system help",
    "?~ask the machine in plain English (files, commands, tasks, memory)"
    "~~question:text:1~help ai~helper",
    "ls~list a folder~~path:path:?~files",
    "cd~change the current folder~~dir:dir:?~files",
    "pwd~show the current folder~~~files",
    "cat~show a file~~file:file:1~files",
    "mkdir~make a folder~~dir:path:1~files",
    "rm~remove a file or an empty folder~~path:path:+~files",
    "mv~move or rename a file~~src:path:1 dst:path:1~files",
    "write~write text to a file (replacing it)~~file:path:1 text:text:1~files~builtins.write_file",
    "free~free and used heap memory~~~system memory",
    "df~free and used flash space~~~system files memory",
    "ps~tasks the console runs~~~system",
    "date~show the date and time~~~system",
    "get~show settings (secrets masked)~~key:key:?~system settings",
    "set~change a setting (no VALUE: ask for it; -d: delete)"
    "~set KEY [VALUE] | set -d KEY~key:key:1 value:text:?~system settings",
    "wifi~WiFi status, networks in reach, or connect to one (board only)"
    "~wifi [status|scan|connect SSID PASS]~~network system~"
    "~connect ssid:str:1 password:str:?=join a WiFi network"
    ";status=show the connection;scan=list the networks in reach",
    "pin~read a GPIO pin, or set an output pin (no PIN: the board's pins)"
    "~~pin:int:? value:0/1/on/off:?~hardware~hw.pin",
    "adc~read an analog input (no PIN: the board's ADC pins)~~pin:int:?~hardware~hw.adc",
    "i2c~the addresses that answer on an I2C bus, or the board's buses~"
    "i2c scan [BUS] | i2c buses~action:scan/buses:1 bus:int:?"
    "~hardware~hw.i2c",
    "temp~the chip's temperature~~~hardware system~hw.temp",
    "camera~take a picture with the board's camera, saved as a JPEG on flash"
    "~camera [PATH] [-s SIZE]~path:path:? size:QQVGA/QVGA/CIF/HVGA/VGA/SVGA/XGA/HD/SXGA/UXGA:?"
    "~hardware~hw.camera",
    "run~run a Python file~~file:file:1 args:str:*"
    "~system python",
    "py~leave to the Python REPL (shell.run() comes back)~~~system python",
    "reboot~restart the board (the simulator ends)~~~system",
    "exit~leave the console (the simulator ends)~~~system",
    "ai~chat with the AI (files too: -f FILE); chat mode, status, config, models, presets,"
    " login, edit, history, tools"
    "~ai [-u TYPE] [-new] [-f FILE]... QUESTION | ai [-u TYPE] chat | ai -m MODEL QUESTION"
    " | ai -schema SCHEMA QUESTION | ai -schema-multi SCHEMA QUESTION | ai status"
    " | ai history | ai config [TYPE] | ai models [PROVIDER] | ai presets | ai login copilot"
    " | ai edit FILE[:S-E] [--before|--after] TEXT | ai undo | ai -tools | ai tools list|clear"
    "~question:text:*~ai network~aicmd"
    "~chat question:text:?=a chat mode (/exit leaves)"
    ";status=what each use-type resolves to"
    ";history use:str:?=show the conversation"
    ";config use:str:?=pick provider, key and model"
    ";models provider:str:?=list the models of a provider"
    ";presets=list the model presets (ai -m NAME)"
    ";login provider:str:1=log in to a provider (copilot: GitHub's device flow)"
    ";edit file:file:1 instruction:text:?=change a file region with the model"
    ";undo=put back the file the last ai edit changed"
    ";tools action:list/clear:?=list the tools a chat offers (clear: the MCP tools cache)"
    ";-tools=build the tools cache from every MCP server",
    "mcp~MCP servers: list, add, delete, log in, test, list tools, call a tool,"
    " read resources; serve this board"
    "~mcp | mcp add NAME URL [TOKEN] | mcp del NAME | mcp login NAME | mcp test NAME"
    " | mcp tools NAME | mcp call NAME TOOL JSON | mcp resources NAME | mcp read NAME URI"
    " | mcp serve [PORT|stop|status|token [new]]~~network ai mcp~mcpcmd"
    "~list=list the servers (the same as mcp alone)"
    ";add name:str:1 url:str:1 token:str:?=add a server"
    ";del name:server:1=remove a server"
    ";login name:server:1=OAuth login: open a URL anywhere, paste back where it went"
    ";test name:server:1=connect, list tools, time it"
    ";tools name:server:1=list a server's tools"
    ";call name:server:1 tool:str:1 json:text:?=call a tool with JSON arguments"
    ";resources name:server:1=list a server's resources"
    ";read name:server:1 uri:str:1=show a resource of a server"
    ";serve what:str:? more:str:?=be an MCP server: the console's commands as tools",
)

_MAX_SPEC = const(2048)     # bytes of a /bin script's SPEC literal


class Error(Exception):
    """A command failed: the message is shown as one line."""


class UsageError(Exception):
    """Wrong arguments: the message and the usage line are shown."""


class Leave(Exception):
    """Raised by py / exit: leave the run loop (args[0]: "repl" or "exit")."""


# ---- output -------------------------------------------------------------

_tty = None
cooked = [False]    # a host terminal turns "\n" into "\r\n" (shell/hostterm.py)
capturing = None     # while a command runs as a tool: sink(piece) takes its output
_failed = [False]   # an error line was printed (run_captured's verdict)
_MAX_CAPTURE = const(4000)  # characters of a command's output returned to a model


def tty():
    """True when the console is a raw terminal: we echo input ourselves,
    write "\r\n" and may use escape codes. False for a pipe."""
    global _tty
    if capturing is not None:
        return False
    if _tty is None:    # the board's UART / USB console is one
        _tty = BOARD or os.getenv("ANTOS_TTY") == "1"
    return _tty


def set_tty(on):
    global _tty
    _tty = on


def _put(s):
    """Write s to the console as is; "\n" -> "\r\n" on a raw terminal."""
    if not s:
        return
    if capturing is not None:
        capturing(s)
        return
    if tty() and not cooked[0]:
        s = s.replace("\r\n", "\n").replace("\n", "\r\n")
    b = getattr(sys.stdout, "buffer", None)
    if b is not None:
        b.write(s.encode())
        if hasattr(b, "flush"):
            b.flush()
    else:
        sys.stdout.write(s)


_TAB = const(0x09)
_LF = const(0x0A)
_CR = const(0x0D)
_SP = const(0x20)
_CARET = const(0x5E)    # ^
_DEL = const(0x7F)


def clean(s):
    """Text from outside the console (models, servers, files, errors) made
    safe to show: it can never drive the terminal. C0 controls but newline
    and tab become caret notation (ESC -> "^[", so an escape sequence shows
    as text), DEL "^?", CR a newline (CRLF one newline), C1 controls and
    bidi overrides (U+202A-U+202E, U+2066-U+2069) "<U+XXXX>", U+2028/U+2029
    newlines. Works on the UTF-8 bytes (MicroPython interns every
    one-character str)."""
    s = str(s)
    b = s.encode()
    n = len(b)
    i = 0
    while i < n:        # most text needs nothing: find the first suspect
        c = b[i]
        if (c < _SP and c != _LF and c != _TAB) or c == _DEL or c == 0xC2 or c == 0xE2:
            break
        i += 1
    if i == n:
        return s
    o = bytearray(b[:i])
    while i < n:
        c = b[i]
        i += 1
        if c == _CR:
            if i == n or b[i] != _LF:
                o.append(_LF)
        elif (c < _SP and c != _LF and c != _TAB) or c == _DEL:
            o.append(_CARET)
            o.append(c ^ 0x40)                  # ^@ .. ^_, and DEL ^?
        elif c == 0xC2 and i < n and 0x80 <= b[i] <= 0x9F:
            o.extend(("<U+%04X>" % b[i]).encode())
            i += 1
        elif c == 0xE2 and i + 1 < n and (b[i] == 0x80 and 0xA8 <= b[i + 1] <= 0xAE
                                          or b[i] == 0x81 and 0xA6 <= b[i + 1] <= 0xA9):
            cp = 0x2000 | (b[i] & 0x3F) << 6 | (b[i + 1] & 0x3F)
            i += 2
            if cp < 0x202A:
                o.append(_LF)                   # line / paragraph separator
            else:
                o.extend(("<U+%04X>" % cp).encode())
        else:
            o.append(c)
    return str(o, "utf-8")


def whole(data):
    """How much of the UTF-8 bytes data ends with a whole character: len(data),
    or where the character cut short at its end starts (a file read in pieces)."""
    cut = len(data)
    i = cut - 1
    while i >= 0 and i > cut - 4 and (data[i] & 0xC0) == 0x80:
        i -= 1
    if i >= 0:
        c = data[i]
        if cut - i < (1 if c < 0x80 else 2 if c >= 0xC0 and c < 0xE0 else 3 if c < 0xF0 else 4):
            cut = i
    return cut


# SGR attributes for write()/out(style=...): the console's own escape codes
DIM = "2"
RED = "31"
BOLD_GREEN = "1;32"
BOLD_CYAN = "1;36"


def raw(s):
    """The console's OWN output: prompts, cursor moves, attributes. Never
    pass text from outside through here (use write)."""
    _put(s)


def write(s, style=None):
    """Write a piece of text (no newline added), sanitized (see clean);
    style: an SGR attribute (DIM, RED...) shown on a terminal only."""
    if not s:
        return
    s = clean(s)
    if style and tty():
        s = "\x1b[" + style + "m" + s + "\x1b[0m"
    _put(s)


def out(s="", style=None):
    """Write one line (sanitized; style as for write)."""
    write(str(s), style)
    _put("\n")


def count(n, word):
    """"1 tool", "2 tools"."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def err(s):
    """One error line (red on a terminal), sanitized, newlines folded, any
    secret scrubbed (error text may quote a server that echoed one); on a
    terminal broken between words to its width (fold)."""
    s = store.scrub(str(s)).replace("\r", " ").replace("\n", " ")
    _failed[0] = True
    write(fold(s, 2), RED)
    _put("\n")


def fold(s, hang=0):
    """s broken at spaces so that no line reaches the terminal's last
    column, the lines after the first indented by hang spaces: help, usage
    and error lines, which a terminal would break in the middle of a word.
    Off a terminal (a pipe, a command run as a tool) s is unchanged. A
    word longer than a line stays whole (the terminal breaks it)."""
    t = sys.modules.get("shell.term")
    w = (t.cols if t else 80) - 1
    if len(s) <= w or not tty():
        return s
    lines, cur, first = [], "", True
    for word in s.split(" "):       # runs of spaces (columns) are kept
        if first:
            cur, first = word, False
        elif word and cur.strip() and len(cur) + 1 + len(word) > w:
            lines.append(cur.rstrip())
            cur = " " * hang + word
        else:
            cur += " " + word
    lines.append(cur)
    return "\n".join(lines)


# ---- paths --------------------------------------------------------------

_cwd = "/"      # as shown to the person; "/" is store.root()


def cwd():
    return _cwd


def _norm(p):
    """Absolute shown path ("/a/b") for p relative to the current folder."""
    if not p.startswith("/"):
        p = _cwd.rstrip("/") + "/" + p
    parts = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def resolve(p=""):
    """Host path of p (relative to the current folder, never above the root)."""
    n = _norm(p or ".")
    r = store.root()
    if n == "/":
        return r or "/"
    return (r.rstrip("/") if r else "") + n


def show(p):
    """The path as shown to the person, relative to the flash root."""
    r = store.root().rstrip("/")
    if r and p.startswith(r):
        p = p[len(r):]
    return p if p.startswith("/") else "/" + p


def chdir(p):
    global _cwd
    n = _norm(p)
    try:
        st = os.stat(resolve(n))
    except OSError:
        raise Error("cd: %s: no such folder" % n)
    if not st[0] & 0x4000:
        raise Error("cd: %s: not a folder" % n)
    _cwd = n


# ---- registry -----------------------------------------------------------

def _args(ws):
    """ARG tuples of "name:type:count" words (choices "a/b" -> a tuple)."""
    r = []
    for w in ws:
        n, t, c = w.split(":")
        r.append((n, tuple(t.split("/")) if "/" in t else t, c))
    return tuple(r)


def _spec(t):
    """The spec dict of a TABLE row."""
    f = t.split("~") + ["", "", ""]
    subs = None
    if f[6]:
        subs = []
        for s in f[6].split(";"):
            head, d = s.split("=")
            w = head.split()
            subs.append((w[0], _args(w[1:]), d))
        subs = tuple(subs)
    args = _args(f[3].split())
    u = f[2]
    if not u:       # NAME ARG [OPTIONAL] [MANY...] from the args
        u = f[0]
        for n, _t, c in args:
            n = n.upper()
            u += " " + ("[" + n + "]" if c == "?" else "[" + n + "...]" if c == "*" else n)
    m, _, fn = f[5].partition(".")      # "hw.pin": pin() of shell.hw
    return {"name": f[0], "desc": f[1], "usage": u, "args": args,
            "tags": tuple(f[4].split()), "module": "shell." + (m or "builtins"),
            "func": fn or ("main" if m else f[0]), "subs": subs, "path": None}


def read_spec(p, why=False):
    """SPEC of a /bin script (its dict), read from its text without running
    it, or None; why=True: why it is not a command (the exception:
    shell/script.py words it), or None when it is one. ValueError(n): SPEC
    problem n of script.WHY."""
    try:
        with open(p) as f:
            while True:
                line = f.readline()
                if not line:
                    raise ValueError(0)
                if line.startswith("SPEC") and "=" in line:
                    buf = line[line.index("=") + 1:].lstrip()
                    break
            # the dict literal that starts the text, up to its closing brace
            depth, q, i = 0, None, 0
            if buf[:1] != "{":
                raise ValueError(1)
            while len(buf) < _MAX_SPEC:
                while i < len(buf):
                    c = buf[i]
                    if q:
                        if c == "\\":
                            i += 1
                        elif c == q:
                            q = None
                    elif c in "'\"":
                        q = c
                    elif c in "{([":
                        depth += 1
                    elif c in "})]":
                        depth -= 1
                        if depth == 0:
                            d = _literal(buf, 0, i + 1)
                            if d[1] != i + 1 or not isinstance(d[0], dict):
                                raise ValueError(1)
                            d = d[0]
                            if not isinstance(d, dict):
                                raise ValueError(1)
                            for a in d.get("args") or ():
                                if not 3 <= len(a) <= 4 or a[2] not in ("1", "?", "*", "+"):
                                    raise ValueError(2)
                            return None if why else d
                    i += 1
                more = f.readline()
                if not more:
                    break
                buf += more
            raise ValueError(3)
    except MemoryError:
        raise       # not "no SPEC": a command that exists must not vanish
    except Exception as e:
        if why:
            return e
    return None


_WORDS = {"True": True, "False": False, "None": None}
_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _literal(s, i, end):
    """The Python literal at s[i:end] (dict, tuple, list, str, int, float,
    True/False/None), never evaluated: a SPEC is read without running the
    script (eval would run any call in it). -> (value, index after it and
    the blanks and comments that follow); ValueError(1) if it is not one."""
    def skip(i):
        while i < end:
            c = s[i]
            if c == "#":
                j = s.find("\n", i)
                i = end if j < 0 or j > end else j
            elif c not in " \t\r\n\\":
                break
            else:
                i += 1
        return i

    i = skip(i)
    if i >= end:
        raise ValueError(1)
    c = s[i]
    if c in "{([":
        close = "})]"["{([".index(c)]
        items = []
        one = False     # a parenthesized value without a comma: not a tuple
        i = skip(i + 1)
        while s[i:i + 1] != close:
            k, i = _literal(s, i, end)
            if c == "{":
                if s[i:i + 1] != ":":
                    raise ValueError(1)
                v, i = _literal(s, i + 1, end)
                items.append((k, v))
            else:
                items.append(k)
            one = s[i:i + 1] != ","
            if one:
                if s[i:i + 1] != close:
                    raise ValueError(1)
            else:
                i = skip(i + 1)
        i = skip(i + 1)
        if c == "{":
            return dict(items), i
        if c == "[":
            return items, i
        return (items[0] if one and len(items) == 1 else tuple(items)), i
    if c in "'\"":
        out = []
        while i < end and s[i] in "'\"":      # "a" "b": one str
            q = s[i]
            j = i + 1
            while True:
                k = j
                while k < end and s[k] not in q + "\\\n":
                    k += 1
                if k >= end or s[k] == "\n":
                    raise ValueError(1)
                out.append(s[j:k])
                if s[k] == q:
                    break
                e = s[k + 1:k + 2]
                if e in "xu" and e:
                    n = 2 if e == "x" else 4
                    out.append(chr(int(s[k + 2:k + 2 + n], 16)))
                    j = k + 2 + n
                else:
                    out.append(_ESC.get(e, e))
                    j = k + 2
            i = skip(k + 1)
        return "".join(out), i
    j = i
    while j < end and (s[j].isalpha() or s[j].isdigit() or s[j] in "_-+."):
        j += 1
    w = s[i:j]
    if w in _WORDS:
        return _WORDS[w], skip(j)
    try:
        return (float(w) if "." in w else int(w)), skip(j)
    except ValueError:
        raise ValueError(1)


def commands(tag=None):
    """Every command spec: built-ins, then /bin scripts that declare SPEC."""
    for n in names():
        s = find(n)
        if s is not None and (tag is None or tag in s["tags"]):
            yield s


# commands a board has only when its profile has that part
_NEEDS = ("camera",)


def here(name):
    """False for a built-in this board has not (its profile lacks its part)."""
    if name in _NEEDS:
        from compat import board
        return name in board()
    return True


def names():
    """All command names (for completion): built-ins, then /bin scripts."""
    r = [n for n in (t[:t.find("~")] for t in TABLE) if here(n)]
    try:
        bins = os.listdir(store.path("bin"))
    except OSError:
        bins = ()
    for n in sorted(bins):
        if n.endswith(".py") and not n.startswith(".") and n[:-3] not in r:
            r.append(n[:-3])
    return r


def find(name):
    for t in TABLE:
        if t.startswith(name) and t.find("~") == len(name) and here(name):   # (no str per row)
            return _spec(t)
    if name and "/" not in name and not name.startswith("."):
        p = store.path("bin") + "/" + name + ".py"
        d = read_spec(p)
        if d is not None:
            return {"name": name, "desc": str(d.get("desc") or ""),
                    "usage": str(d.get("usage") or name),
                    "args": tuple(tuple(a) for a in d.get("args") or ()),
                    "tags": tuple(d.get("tags") or ()), "module": None, "func": "main",
                    "subs": None, "path": p, "readonly": d.get("readonly") is True}
    return None


def sub_of(spec, w):
    """The sub-command tuple (name, args, desc) named w, or None."""
    for s in spec.get("subs") or ():
        if s[0] == w:
            return s
    return None


# ---- argument split and check --------------------------------------------

def split_words(s, first=False):
    """Words of s; "double" or 'single' quotes keep spaces. first=True:
    (the first word or None, the raw rest after it)."""
    words, cur, q, had = [], [], None, False
    s = s.lstrip()
    for i, c in enumerate(s):
        if q:
            if c == q:
                q = None
            else:
                cur.append(c)
        elif c in "'\"":
            q, had = c, True
        elif c == " " or c == "\t":
            if cur or had:
                if first:
                    return "".join(cur), s[i:]
                words.append("".join(cur))
                cur, had = [], False
        else:
            cur.append(c)
    if q:
        raise UsageError("unclosed quote")
    if cur or had:
        words.append("".join(cur))
    if first:
        return (words[0] if words else None), ""
    return words


def _check(name, t, w):
    """Word w for the arg name of type t: a number, or one of the choices."""
    if t == "int":
        try:
            int(w)
        except ValueError:
            raise UsageError("%s must be a number, not %s" % (name, w))
    elif isinstance(t, tuple) and w not in t:
        raise UsageError("%s must be one of: %s" % (name, ", ".join(t)))


def parse(spec, rest):
    """Split the raw text after a command name by its ARG list (or its
    sub-command's) and check it. -> list of str (None for an optional
    argument left out before one given as an option). Raises UsageError."""
    args = []
    argspec = spec["args"]
    if spec.get("subs"):
        w, after = split_words(rest, True)
        sub = sub_of(spec, w) if w is not None else None
        if sub is not None:
            args, argspec, rest = [w], sub[1], after
    opt = _option(spec, argspec, rest)
    if opt is not None:     # (-x VALUE: the last argument, anywhere)
        rest, argspec = opt[1], argspec[:-1]
    for i, a in enumerate(argspec):
        name, typ, count = a[0], a[1], a[2]
        rest = rest.strip()
        if typ == "text":
            q = rest[:1]
            if q and q in "'\"" and len(rest) > 1 and rest[-1] == q and q not in rest[1:-1]:
                rest = rest[1:-1]       # one quoted whole: '{"a": 1}'
            if rest:
                args.append(rest)
            elif count in ("1", "+"):
                raise UsageError("missing " + name)
            return args
        if count in ("*", "+"):
            words = split_words(rest)
            if count == "+" and not words:
                raise UsageError("missing " + name)
            for w in words:
                _check(name, typ, w)
            return args + words
        w, rest = split_words(rest, True)
        if w is None:
            if count == "1":
                raise UsageError("missing " + name)
            # optional: nothing left, so later args are missing too
            for b in argspec[i + 1:]:
                if b[2] in ("1", "+"):
                    raise UsageError("missing " + b[0])
            break
        _check(name, typ, w)
        args.append(w)
    else:
        if rest.strip():
            raise UsageError("too many arguments")
    if opt is not None:
        args += [None] * (len(argspec) - len(args)) + [opt[0]]
    return args


def _option(spec, argspec, rest):
    """The last argument given as -<its first letter> VALUE where the usage
    shows it so ("camera [PATH] [-s SIZE]": an optional argument after
    others): (value, the rest without it), or None."""
    if len(argspec) < 2 or argspec[-1][2] != "?":
        return None
    a = argspec[-1]
    flag = "-" + a[0][0]
    if "[%s " % flag not in spec["usage"]:
        return None
    ws = split_words(rest)
    if flag not in ws:
        return None
    k = ws.index(flag)
    if k + 1 >= len(ws):
        raise UsageError("%s needs a %s" % (flag, a[0]))
    _check(a[0], a[1], ws[k + 1])
    return ws[k + 1], " ".join('"%s"' % w if " " in w else w for w in ws[:k] + ws[k + 2:])


# ---- the local tool catalogue ---------------------------------------------

def local_tools(level="read"):
    """Registry commands as inline ai tools (see shell/tools.py); a chat
    gets them from ai.run(local=...) instead, made a line at a time."""
    from shell import chattools
    return chattools.local_tools(level)


def capture(line, status=False):
    """Run a command line with its output captured; -> the text (the first
    _MAX_CAPTURE characters), with any secret scrubbed (it goes to a model);
    status=True: (text, True when it failed)."""
    got = [0]

    def keep(s):
        if got[0] < _MAX_CAPTURE:
            got.append(s[:_MAX_CAPTURE - got[0]])
            got[0] += len(s)
    failed = run_captured(line, keep)
    text = store.scrub("".join(got[1:]).strip()) or "(no output)"
    return (text, failed) if status else text


made = []       # files the command running as a tool made for the model (attach)


def attach(p):
    """A command running as a tool hands the model a file it made (the
    camera's picture): the tool's result carries it (shell/chattools.py),
    and a model that takes pictures sees it. Nothing outside a tool."""
    if capturing is not None:
        made.append(p)


def run_captured(line, sink):
    """Run a command line from / (a model or an MCP client names its
    paths from the root) with its output (plain text, no escape codes)
    given to sink(piece) instead of the console. -> True when it failed
    (it printed an error line)."""
    global capturing, _cwd
    saved = capturing, _failed[0], _cwd
    capturing = sink
    _failed[0] = False
    _cwd = "/"
    try:
        dispatch(line)
        return _failed[0]
    finally:
        capturing, _failed[0], _cwd = saved


# ---- tasks (ps) ----------------------------------------------------------

_tasks = []     # [id, name, started_ms]
_next_id = [1]


def _task(name):
    """A new entry in the task list; _tasks.remove(entry) ends it."""
    t = [_next_id[0], name, ticks_ms()]
    _next_id[0] += 1
    _tasks.append(t)
    return t


def tasks():
    return _tasks[:]


# ---- dispatch -------------------------------------------------------------

def oneline(e):
    """An exception as one line a person can read (no traceback)."""
    if isinstance(e, OSError):
        code = e.args[0] if e.args else None
        for pair in ("2:no such file or folder;13:permission denied;17:already exists;"
                     "20:not a folder;21:is a folder;28:no space left;"
                     "39:folder not empty;66:folder not empty;110:timed out;"
                     "113:no route to host;111:connection refused;12:out of memory"
                     ).split(";"):
            n, w = pair.split(":")
            if isinstance(code, int) and str(code) == n:
                return w
        return "OS error %s" % (e.args[0] if len(e.args) == 1 else str(e))
    if isinstance(e, MemoryError):      # (a constant: no heap to build a line)
        return "out of memory (restart, or free memory: ai -new, ai tools clear)"
    msg = str(e)
    name = type(e).__name__
    return "%s: %s" % (name, msg) if msg else name


# Kept when a command imported them: the console's terminal, and what holds
# state worth a command's life: httpc's kept-alive connections and parsed CA
# roots, Copilot's session token.
_KEEP = ("shell.term", "shell.hostterm", "httpc", "httpc.ca", "ai.copilot")


def loaded():
    """The modules a command may leave behind: the console's own, and on
    MicroPython the library's (on CPython other code holds them too)."""
    return [k for k in sys.modules if k.startswith("shell.") or (MICROPYTHON and (
        k.startswith("store.") or k.split(".")[0] in ("ai", "mcp", "mcpserver", "httpc", "jsonstream")))]


def _call(spec, args):
    before = loaded()
    tasks = len(_tasks)
    m = None
    try:
        if spec.get("path"):
            return run_script(spec["path"], args, "main")
        mod = spec["module"]
        m = getattr(__import__(mod), mod[6:])      # mod is "shell.<leaf>"
        return getattr(m, spec["func"])(args)
    finally:
        # Forget the modules the command imported: their globals, functions
        # and classes are heap on the board (the code is frozen in flash and
        # reloads in milliseconds), and a session that kept every module
        # any command used would keep them all. The library's too, unless
        # the command left a task running (it uses them); then only the
        # console's. The same when the board's MCP server runs the command
        # for a client, or listens while a person types one (it keeps its
        # state in its own module, and forgets what each request imported).
        # Never what was imported before (boot.py's, with the tools it
        # registered).
        m = None
        forget(before, len(_tasks) <= tasks)


def forget(before, library=True):
    """Drop the modules loaded since before (a loaded() list), but those
    of _KEEP and the module of what the prompt's wait serves (term.WATCH,
    the MCP server: its state lives there); library=False: the console's
    only."""
    t = sys.modules.get("shell.term")
    w = t and t.WATCH
    w = w and type(w).__module__
    for k in loaded():
        if k in before or k in _KEEP or k == w or not (library or k.startswith("shell.")):
            continue
        del sys.modules[k]
        i = k.rfind(".")
        pkg = sys.modules.get(k[:i]) if i > 0 else None
        if pkg is not None:
            try:
                delattr(pkg, k[i + 1:])
            except (AttributeError, TypeError):
                pass


def private(p):
    """True for the files no tool (a chat's, an MCP client's) touches:
    settings (with the copies made while writing them) and chat history.
    p: the shown path ("/x")."""
    return p.startswith("/" + store.SETTINGS) or p == "/history" or p.startswith("/history/")


def run_script(p, args, func=None):
    """Run a Python file. With func: call that function with args after the
    file ran as a module (a /bin command); else run it as __main__ with
    sys.argv = [the file as shown, args...]. Its failure is an Error that
    names the file and line ("/bin/boom.py line 3: ValueError: kaboom")."""
    ns = {"__name__": "__main__" if func is None else "bin", "__file__": p}
    argv = sys.argv[:]
    try:
        with open(p) as f:
            code = compile(f.read(), p, "exec")     # its name: line numbers
        if func is None:
            sys.argv[:] = [show(p)] + args
        exec(code, ns)
        code = None
        if func is not None:
            fn = ns.get(func)
            if fn is None:
                raise Error("%s has no %s(args)" % (show(p), func))
            fn(args)
    except (Error, UsageError, Leave, SystemExit, KeyboardInterrupt):
        raise
    except Exception as e:
        from shell import script
        raise Error(script.where(e, p) + oneline(e))
    finally:
        sys.argv[:] = argv


def _usage(spec, rest):
    """The usage line's forms that name the first word typed after the
    command (a sub-command or an option: "mcp serve", "-u"), or all."""
    w = rest.split()
    forms = spec["usage"].split(" | ")
    if w and len(forms) > 1:
        mine = [f for f in forms if w[0] in f.split()[1:] or "[" + w[0] in f]
        if mine:
            return " | ".join(mine)
    return spec["usage"]


def dispatch(line):
    """Run one command line. Never raises (except SystemExit from exit)."""
    line = line.strip()
    if not line or line.startswith("#"):
        return
    if line[0] == "?":
        name, rest = "?", line[1:]
    else:
        try:
            name, rest = split_words(line, True)
        except UsageError:
            name, rest = line.split(" ", 1)[0], ""
    spec = find(name)
    if spec is None:        # (a /bin script that is none: script.py says why)
        try:
            _call({"module": "shell.script", "func": "unknown"}, [name])
        except Exception as e:
            err("%s: %s" % (name, oneline(e)))
        return
    t = _task(line if len(line) <= 40 else line[:37] + "...")
    # the GC collects early while the command runs (a quarter of what is
    # free now: less as the heap fills), as ai.* and mcp.* do
    gc_was = tighten()
    try:
        w = rest.split()
        if w and w[-1] in ("-h", "--help") and (
                len(w) == 1 or len(w) == 2 and sub_of(spec, w[0])):
            spec = find("help")     # every command's usage, args and subs
            w = [name]
        else:
            w = parse(spec, rest)
        _call(spec, w)
    except UsageError as e:
        err("%s: %s" % (name, e))
        out(fold("usage: " + _usage(spec, rest), 7))
    except Error as e:
        err(e)
    except KeyboardInterrupt as e:
        if not e.args:      # (a prompt that was cancelled showed its ^C)
            out("^C")
    except (SystemExit, Leave):
        raise
    except Exception as e:  # one line, never a traceback
        err("%s: %s" % (name, oneline(e)))
    finally:
        loosen(gc_was)
        _tasks.remove(t)
        h = sys.modules.get("httpc")
        if h:       # a spinner cut short by an error leaves no wait hook
            h.ON_WAIT = None
        collect()


left = None     # why run() returned: "repl" (py, Ctrl-D) or "exit"


def net_budget():
    """The settings net.tls_max / net.sockets_max over the board profile's
    budget (httpc.TLS_MAX, SOCKETS_MAX). httpc is imported (and kept: a
    console command does not forget it) only when one is set."""
    t, n = store.get("net.tls_max"), store.get("net.sockets_max")
    h = sys.modules.get("httpc")
    if h is None and t is None and n is None:
        return
    import httpc
    httpc.TLS_MAX, httpc.SOCKETS_MAX = t, n


def _ask(*args):
    """hooks.ask: an MCP server's question to the person at the console."""
    from shell import elicit
    return elicit.ask(*args)


def _board_tools(local, tools, routes):
    """hooks.local: ai.run(local=...)'s board commands ahead of tools."""
    from shell import chattools as board
    for name in routes:
        if board.tool_of(name):
            raise ValueError("tool name '%s' is the board's own (board_ names: ai.run(local=...))"
                             % name)
    return board.Local(board.level("all" if local == "all" else "read"), tools)


hooks.local = _board_tools


def run(banner=True):
    """The console loop. Returns None (nothing echoed by the REPL); why it
    ended is in shell.left: "repl" (py, Ctrl-D) or "exit" (exit, reboot
    off the board, end of piped input)."""
    global left
    from shell import term
    # A host terminal (unix port, CPython) goes into raw mode when the env
    # says it is one. The board's UART is raw already; tools/sim.py sets raw
    # mode too, this only matters when shell.run() is called again from the
    # Python REPL.
    old = None
    if tty() and sys.platform in ("linux", "darwin"):
        try:
            import termios
            old = termios.tcgetattr(0)
            if MICROPYTHON:
                termios.setraw(0)
            else:
                import tty as _t
                _t.setraw(0)
        except Exception:
            old = None
    term.ask_width()
    if banner:
        out("AntOS console %s. Type help, or ? followed by a question." % VERSION)
        label = store.get("ai.general.label")   # what ai talks to, when it needs saying
        if label:
            out("ai: " + str(label), BOLD_CYAN)
    _call({"module": "shell.script", "func": "shadowed"}, None)
    net_budget()
    history = term.History()
    t = _task("console")
    hooks.ask = _ask
    hooks.spinner = term.spinner
    try:
        while True:
            # (a Ctrl-C the VM raises between two commands, where the loop
            # jumps back outside the inner try, lands here: the prompt again)
            try:
                while True:
                    p = _cwd + "> "
                    try:
                        line = term.readline(p, history, term.complete, style=BOLD_GREEN,
                                             serve=True)
                        if line == "\x01":     # mpremote wants the raw REPL: step aside
                            out("(Python REPL for mpremote; shell.run() comes back)")
                            left = "repl"
                            return
                        if line is None:       # Ctrl-D on an empty line / end of input
                            left = "exit"
                            if tty():
                                out("(Python REPL; shell.run() comes back)")
                                left = "repl"
                            return
                        dispatch(line)
                    except KeyboardInterrupt:
                        # the line's own ^C, or one just after a command (a host
                        # terminal's SIGINT, the board's UART): the prompt again
                        continue
                    except MemoryError:
                        collect()
                        err("out of memory reading the line")
                    except Leave as e:
                        left = e.args[0] if e.args else "repl"
                        return
            except KeyboardInterrupt:
                continue
    finally:
        _tasks.remove(t)
        hooks.ask = hooks.spinner = None
        if old is not None:
            try:
                termios.tcsetattr(0, termios.TCSANOW, old)
                cooked[0] = False
            except Exception:
                pass
