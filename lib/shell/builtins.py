"""Built-in console commands: help, files, system, settings, wifi, run, py.

Each function is main(args) of one registry entry in shell/__init__.py
(args already checked against the declared usage). Paths shown to the
person are relative to the flash root (store.root()) and never leave it.
"""
import os

import shell
from shell import out, write, Error, show, resolve
import store
from shell import term
from compat import const

_TAB = const(0x09)
_LF = const(0x0A)
_FF = const(0x0C)
_CR = const(0x0D)
_ESC = const(0x1B)
_SP = const(0x20)


def _kb(n):
    if n < 10240:
        return "%d B" % n if n < 1024 else "%.1f KB" % (n / 1024)
    if n < 10 * 1024 * 1024:
        return "%d KB" % (n // 1024)
    if n < 10 * 1024 * 1024 * 1024:
        return "%.1f MB" % (n / 1048576)
    return "%.1f GB" % (n / 1073741824)


def _stat(host):
    try:
        return os.stat(host)
    except OSError:
        return None


def _isdir(st):
    return st is not None and bool(st[0] & 0x4000)


def _fail(cmd, host, what="no such file or folder"):
    raise Error("%s: %s: %s" % (cmd, show(host), what))


# ---- help -----------------------------------------------------------------

def help(args):
    if not args:
        out("Commands (help CMD for one; ? QUESTION asks the machine):")
        # built-ins straight from their table rows: name and description
        # only (a whole spec per row is heap the list does not need)
        builtin = 0
        for t in shell.TABLE:
            i = t.find("~")         # (not split: no copy of the row's rest)
            if shell.here(t[:i]):
                builtin += 1
                out(shell.fold("  %-7s %s" % (t[:i], t[i + 1:t.find("~", i + 1)]), 10))
        for n in shell.names()[builtin:]:
            s = shell.find(n)
            if s is not None:
                out(shell.fold("  %-7s %s (script)" % (n, s["desc"]), 10))
        return
    spec = shell.find(args[0])
    if spec is None:
        raise Error("help: no command %s (type help for the list)" % args[0])
    # usage, description, arguments, sub-commands, tags and where it lives
    out(shell.fold("usage: " + spec["usage"], 7))
    out(shell.fold("  " + spec["desc"], 2))
    if spec["args"]:
        out("arguments:")
        for a in spec["args"]:
            typ = "|".join(a[1]) if isinstance(a[1], tuple) else a[1]
            out(shell.fold("  %-10s %-8s %s%s" % (a[0], typ, {
                "1": "required", "?": "optional", "*": "any number",
                "+": "one or more"}.get(a[2], a[2]), ": " + a[3] if len(a) > 3 else ""), 23))
    subs_tags(spec)
    if spec["name"] == "set":
        from shell import keys
        keys.show(out)
    if spec["path"]:
        out("script: " + show(spec["path"]))
    else:
        out("built-in (%s)" % spec["module"])


def subs_tags(spec):
    """A command's sub-command lines, their descriptions in one column,
    and its tags (help CMD, ? what does)."""
    subs = spec.get("subs") or ()
    w = 0
    for s in subs:
        w = max(w, len(s[0]))
    for s in subs:
        out(shell.fold("  %s %-*s  %s" % (spec["name"], w, s[0], s[2]), len(spec["name"]) + w + 5))
    if spec["tags"]:
        out("tags: " + ", ".join(spec["tags"]))


# ---- files ------------------------------------------------------------------

def ls(args):
    target = args[0] if args else "."
    host = resolve(target)
    st = _stat(host)
    if st is None:
        _fail("ls", host)
    if not _isdir(st):
        out("%8s  %s" % (_kb(st[6]), show(host)))
        return
    n = 0
    for name in sorted(os.listdir(host)):
        if name.endswith(".tmp"):
            continue
        st = _stat(host.rstrip("/") + "/" + name)
        if _isdir(st):
            out("%8s  %s/" % ("", name))
        else:
            out("%8s  %s" % (_kb(st[6] if st else 0), name))
        n += 1
    if n == 0:
        out("(empty)")


def cd(args):
    shell.chdir(args[0] if args else "/")


def pwd(args):
    out(shell.cwd())


def _text(b):
    try:
        return bytes(b).decode()
    except UnicodeError:
        return "".join(chr(c) if c < 0x80 else "?" for c in b)


def _binary(buf, n):
    """Does the file's first chunk look binary? A NUL, bytes that are not
    UTF-8 (an unfinished character at the end of the chunk is fine), or
    more than one control byte in 16 (tab, newline, CR, form feed and
    escape are text)."""
    b = bytes(buf[:n])
    if b"\x00" in b:
        return True
    try:
        b.decode()
    except UnicodeError:
        cut = n - 1
        while cut > 0 and cut > n - 4 and b[cut] & 0xC0 == 0x80:
            cut -= 1
        try:
            b[:cut].decode()
        except UnicodeError:
            return True
    ctl = 0
    for c in b:
        if c < _SP and c not in (_TAB, _LF, _FF, _CR, _ESC):
            ctl += 1
    return ctl * 16 > n


def cat(args):
    host = resolve(args[0])
    st = _stat(host)
    if st is None:
        _fail("cat", host, "no such file")
    if _isdir(st):
        raise Error("cat: %s is a folder (try ls %s)" % (show(host), args[0]))
    if show(host).lower().startswith("/" + store.SETTINGS):    # also .bad, .tmp
        # a model runs cat as board_cat: keys and tokens never leave this way
        raise Error("cat: %s holds keys and tokens; get shows the settings, "
                    "secrets masked" % show(host))
    buf = bytearray(256)
    carry = b""
    last = b"\n"
    with open(host, "rb") as f:
        first = True
        while True:
            n = f.readinto(buf)
            if not n:
                break
            if first and _binary(buf, n):
                import binascii
                head = binascii.hexlify(buf[:16 if n > 16 else n], " ").decode()
                out("(binary file, %s: %s%s)" % (_kb(st[6]), head, " ..." if n > 16 else ""))
                return
            first = False
            data = carry + bytes(buf[:n])
            cut = shell.whole(data)
            write(_text(data[:cut]))
            carry = data[cut:]
            last = data[cut - 1:cut] if cut else last
            term.check_interrupt()
    if carry:
        write(_text(carry))
        last = carry[-1:]
    if last != b"\n":
        write("\n")


def write_file(args):
    """write FILE TEXT: the file holds TEXT and a newline afterwards."""
    host = resolve(args[0])
    if shell.private(show(host)):
        raise Error("write: %s is the board's settings or chat history (set changes a "
                    "setting)" % show(host))
    st = _stat(host)
    if st is not None and _isdir(st):
        raise Error("write: %s is a folder" % show(host))
    text = args[1] if args[1].endswith("\n") else args[1] + "\n"
    store.write_atomic(host, text)
    out("wrote %s (%s)" % (show(host), _kb(len(text.encode()))))


def mkdir(args):
    host = resolve(args[0])
    if _stat(host) is not None:
        raise Error("mkdir: %s already exists" % show(host))
    parent = host.rsplit("/", 1)[0]
    if parent and not _isdir(_stat(parent)):
        _fail("mkdir", parent, "no such folder")
    os.mkdir(host)


def rm(args):
    for a in args:
        host = resolve(a)
        if show(host) == "/":
            raise Error("rm: refusing to remove the root folder")
        st = _stat(host)
        if st is None:
            _fail("rm", host)
        if _isdir(st):
            if os.listdir(host):
                _fail("rm", host, "folder not empty")
            os.rmdir(host)
        else:
            os.remove(host)


def mv(args):
    src, dst = resolve(args[0]), resolve(args[1])
    if _stat(src) is None:
        _fail("mv", src)
    if show(src) == "/":
        raise Error("mv: refusing to move the root folder")
    if _isdir(_stat(dst)):
        dst = dst.rstrip("/") + "/" + src.rstrip("/").split("/")[-1]
    if _stat(dst) is not None:
        raise Error("mv: %s already exists" % show(dst))
    os.rename(src, dst)


# ---- system -------------------------------------------------------------------

def heap():
    """(used, free) heap bytes, or None where the interpreter cannot tell."""
    import gc
    if hasattr(gc, "mem_free"):
        gc.collect()
        from compat import HEAP_HELD
        return gc.mem_alloc() - HEAP_HELD, gc.mem_free()
    return None


def flash():
    """(total, free) bytes of the flash filesystem, or None."""
    try:
        st = os.statvfs(store.root() or "/")
    except (OSError, AttributeError):
        return None
    unit = st[1] or st[0]      # f_frsize counts the blocks
    return unit * st[2], unit * st[4]


def free(args):
    h = heap()
    if h is None:
        out("heap: not measurable on this interpreter")
        return
    used, fr = h
    out("heap: %s used, %s free, %s total" % (_kb(used), _kb(fr), _kb(used + fr)))


def df(args):
    f = flash()
    if f is None:
        out("flash: not measurable here")
        return
    total, fr = f
    out("flash: %s used, %s free, %s total (%s)" % (
        _kb(total - fr), _kb(fr), _kb(total), show(store.root() or "/")))


def ps(args):
    from compat import ticks_ms, ticks_diff
    now = ticks_ms()
    out("  id  running  task")
    for tid, name, t0 in shell.tasks():
        out("%4d  %6ds  %s" % (tid, ticks_diff(now, t0) // 1000, name))


def date(args):
    import time
    t = time.localtime()
    out("%04d-%02d-%02d %02d:%02d:%02d" % (t[0], t[1], t[2], t[3], t[4], t[5]))
    if t[0] < 2024:
        out("(the clock is not set: connect WiFi so it can sync)")


# ---- settings -------------------------------------------------------------------

def get(args):
    key = args[0] if args else ""
    if key and store.get(key) is not None:
        out("%s = %s" % (key, store.display(key, store.get(key))))
        return
    rows = store.items(key)
    if not rows:
        if key:
            raise Error("get: no setting %s (get lists them all)" % key)
        out("(no settings)")
        return
    for k, v in rows:
        out("%s = %s" % (k, store.display(k, v)))


def _value(key, text):
    """A typed value: true/false -> bool, a number -> int (never for
    secrets), "quoted" -> the text inside."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    if t == "true":
        return True
    if t == "false":
        return False
    if not store.is_secret(key):
        s = t[1:] if t[:1] == "-" else t
        if s and s.isdigit() and len(s) < 10:
            return int(t)
    return t


def set(args):
    key = args[0]
    if key == "-d":
        if len(args) < 2:
            raise shell.UsageError("missing key")
        k = args[1].strip()
        if store.get(k) is None:
            raise Error("set: no setting %s" % k)
        store.delete(k)
        out("deleted " + k)
        if k.startswith("net."):
            shell.net_budget()
        return
    from shell import keys      # what is known is checked: a typo is no setting
    try:
        keys.kind(key)
        if len(args) > 1:
            text = args[1]
        else:
            if store.is_secret(key):
                text = term.masked("%s (hidden): " % key)
            else:
                text = term.readline("%s = " % key)
            if not text:
                out("unchanged")
                return
        store.set(key, keys.check(key, _value(key, text)))
    except ValueError as e:
        raise Error("set: %s" % e)
    out("%s = %s" % (key, store.display(key, store.get(key))))
    if key.startswith("net."):
        shell.net_budget()


# ---- wifi -------------------------------------------------------------------------

def wifi(args):
    try:
        import network
    except ImportError:
        raise Error("wifi: only on the board (the simulator uses the host's network)")
    w = network.WLAN(network.STA_IF)
    if args and args[0] == "scan":
        return _scan(w)
    if args and args[0] == "connect":
        ssid = args[1]
        pw = args[2] if len(args) > 2 else term.masked("password for %s: " % ssid)
        from compat import sleep_ms
        w.active(True)
        w.connect(ssid, pw or "")
        write("connecting to %s" % ssid)
        for _ in range(80):         # 20 s in steps of 250 ms
            if w.isconnected():
                break
            sleep_ms(250)
            write(".")
            term.check_interrupt()
        out("")
        if not w.isconnected():
            raise Error("wifi: could not join %s within 20 s (check SSID and password)" % ssid)
        store.update({"wifi.ssid": ssid, "wifi.password": pw or None})
    if not w.active() or not w.isconnected():
        out("wifi: not connected (wifi connect SSID PASS)")
        return
    ip = w.ifconfig()[0]
    try:
        name = w.config("essid")
    except Exception:
        name = "?"
    out("wifi: connected to %s, address %s" % (name, ip))


_SCAN_MAX = const(20)    # networks listed by wifi scan


def _scan(w):
    """The networks in reach, strongest first (names are outside text:
    out() shows them sanitized)."""
    w.active(True)
    nets = w.scan()         # (ssid, bssid, channel, RSSI, security, hidden)
    nets.sort(key=lambda n: -n[3])
    for n in nets[:_SCAN_MAX]:
        try:
            name = str(n[0], "utf-8")
        except UnicodeError:
            name = repr(n[0])
        out("  %4d dBm  channel %2d  %-6s  %s" % (n[3], n[2], "open" if not n[4] else "secure",
                                                 name or "(hidden)"))
    out("wifi: %s in reach%s" % (shell.count(len(nets), "network"),
                                 " (the strongest %d shown)" % _SCAN_MAX if len(nets) > _SCAN_MAX else ""))


# ---- python -------------------------------------------------------------------------

def run(args):
    host = resolve(args[0])
    st = _stat(host)
    if st is None or _isdir(st):
        _fail("run", host, "no such file")
    shell.run_script(host, args[1:])


def py(args):
    raise shell.Leave("repl")


def exit(args):
    raise shell.Leave("exit")


def reboot(args):
    try:
        import machine
        reset = machine.reset   # a board; the simulated board has one too
    except (ImportError, AttributeError):
        reset = None            # the unix port (make sim), CPython
    if reset:
        reset()
    out("(simulator: reboot ends it; make sim starts it again)")
    raise shell.Leave("exit")
