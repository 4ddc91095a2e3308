"""Persistent settings and small files on flash, with atomic writes.

Settings are one flat JSON object in <root>/settings.json, keyed with dotted
names ("ai.chat.provider", "mcp.servers.weather.url"). The whole object is
small and kept in RAM once read. Every change rewrites the file through
write_atomic(): the new content goes to "<file>.tmp", then a rename puts it
in place. A rename is atomic on POSIX and on littlefs (the ESP32 default
filesystem), so a crash or power cut at any byte leaves either the old or the
new settings, never a mix.

The root is "/" on the board; elsewhere $ANTOS_FLASH, else the current
directory (make sim points it at a git-ignored folder).
"""
import os
import sys

import jsonstream
from compat import const, lazy

SETTINGS = "settings.json"
SECRET_WORDS = ("key", "token", "password", "secret")
_WINDOW = const(512)    # characters scrub() lowers at a time
_RUN = const(8)         # a run of this many characters of a secret is scrubbed
_MASK_SHOWS = const(16)  # a secret this long or longer shows its ends when masked

_root = None
_settings = None
# What a session remembers between console commands, which forget the
# modules they imported (shell._call): the last AI request, [use, provider,
# model, tokens in, tokens out, error or None] (ai.styles.LAST).
LAST_REQUEST = [None, None, None, None, None, None]


def root():
    global _root
    if _root is None:
        env = os.getenv("ANTOS_FLASH") if hasattr(os, "getenv") else None
        _root = env or ("." if sys.platform in ("linux", "darwin", "win32") else "")
    return _root


def set_root(path):
    """Point the store at another folder (tests, the simulator)."""
    global _root, _settings
    _root = path
    _settings = None


def path(*parts):
    """A path under the flash root."""
    return "/".join((root(),) + parts)


def exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def size(p):
    """The size of file p in bytes, or None when it is not there."""
    try:
        return os.stat(p)[6]
    except OSError:
        return None


def is_dir(p):
    try:
        return os.stat(p)[0] & 0x4000 != 0     # S_IFDIR
    except OSError:
        return False


def remove(p):
    """Delete file p if it is there."""
    try:
        os.remove(p)
    except OSError:
        pass


def makedirs(p):
    """mkdir -p (MicroPython's os has no makedirs)."""
    cur = ""
    for part in p.split("/"):
        cur = cur + "/" + part if cur or p.startswith("/") else part
        if part and not exists(cur):
            os.mkdir(cur)


def write_atomic(p, data):
    """Replace file p with data (bytes/str, or a callable(write) that writes
    pieces) so that a crash leaves either the old or the new file."""
    tmp = p + ".tmp"
    with open(tmp, "wb") as f:
        if callable(data):
            data(f.write)
        else:
            f.write(data.encode() if isinstance(data, str) else data)
        f.flush()
        if hasattr(os, "fsync"):
            os.fsync(f.fileno())
    replace(tmp, p)


def replace(src, dst):
    """Rename src over dst (atomic on POSIX and littlefs)."""
    if hasattr(os, "replace"):
        os.replace(src, dst)
    else:  # MicroPython: rename replaces on unix and littlefs
        os.rename(src, dst)


def copy(p, write, offset=0, size=1 << 30):
    """write(bytes) the file p's bytes from offset, at most size of them,
    in 256-byte pieces."""
    buf = bytearray(256)
    mv = memoryview(buf)
    with open(p, "rb") as f:
        f.seek(offset)
        while size > 0:
            n = f.readinto(mv[0:size if size < 256 else 256])
            if not n:
                break
            write(bytes(mv[0:n]))
            size -= n


# Text pieces held in RAM up to this many characters, then spooled to flash
# (MicroPython only: CPython has the memory, and its tests no flash folder).
SPOOL_RAM = 1024 if sys.implementation.name == "micropython" else 1 << 30


class Spool:
    """A long str built with one allocation. Pieces stay in RAM up to
    SPOOL_RAM characters, then go to the file tmp/<name> on flash; text()
    reads that back in one read, and MicroPython's str() of bytes shares
    their buffer: the text is in RAM once, where joining the pieces would
    hold it twice (a 16 KB reply needs 16 KB, not 32 KB plus the pieces'
    headers). size counts characters; drop() empties it for reuse."""

    def __init__(self, name, spill=True):
        self.path = path("tmp", name)
        self.spill = spill      # False: RAM only (short text, no file)
        self.f = None
        self.parts = []
        self.drop()

    def add(self, s):
        if s:
            self.size += len(s)
            self.parts.append(s)
            self.held += len(s)
            if self.held >= 256:
                self._out(self.spill and self.size > SPOOL_RAM)

    def _out(self, spill):
        """Join the small pieces since the last chunk (they cost more than
        their characters) into one chunk of about 256; past SPOOL_RAM write
        the chunks to the file. No allocation grows with the text: a
        fragmented heap has no large free block."""
        parts = self.parts
        s = "".join(parts[self.k:])
        del parts[self.k:]
        parts.append(s)
        self.held = 0
        if not spill and self.f is None:
            self.k = len(parts)
            return
        if self.f is None:
            makedirs(path("tmp"))
            self.f = open(self.path, "wb")
        for s in parts:
            self.f.write(s.encode())
        del parts[:]
        self.k = 0

    def text(self):
        """The whole text (the spool is emptied)."""
        if self.f is None:
            s = "".join(self.parts)
        else:
            self._out(True)
            n = self.f.tell()
            self.f.close()
            self.f = True       # (a file to remove: see drop)
            with open(self.path, "rb") as f:
                s = str(f.read(n), "utf-8")
        self.drop()
        return s

    def pieces(self, sink):
        """Hand the text to sink in str pieces (then the spool is empty)."""
        if self.f is not None:
            self._out(True)
            self.f.close()
            self.f = None
            buf = bytearray(256)
            mv = memoryview(buf)
            k = 0       # bytes of a character the last read cut
            with open(self.path, "rb") as f:
                while True:
                    n = f.readinto(mv[k:])
                    if not n:
                        break
                    n += k
                    e = n   # the end of the last whole character
                    j = n - 1
                    while j > 0 and j > n - 4 and buf[j] & 0xC0 == 0x80:
                        j -= 1
                    c = buf[j]
                    if c >= 0xC0 and n - j < (2 if c < 0xE0 else 3 if c < 0xF0 else 4):
                        e = j
                    if e:
                        sink(str(mv[0:e], "utf-8"))
                    k = n - e
                    mv[0:k] = mv[e:n]
            self.f = True
        for p in self.parts:
            sink(p)
        self.drop()

    def drop(self):
        """Forget the text (and its file); the spool can be filled again."""
        if self.f is not None:
            if self.f is not True:
                self.f.close()
            self.f = None
            remove(self.path)
        # the same list, emptied: a spool kept across calls keeps nothing
        # a call made (a new one would sit wherever the heap's frontier was)
        del self.parts[:]
        self.size = self.held = self.k = 0


def _load():
    global _settings
    if _settings is not None:
        return _settings
    p = path(SETTINGS)
    _settings = {}
    try:
        f = open(p, "rb")
    except OSError:
        return _settings
    try:
        with f:
            data = jsonstream.load(f, max_value=65536)
        if not isinstance(data, dict):
            raise jsonstream.JSONError("JSON: settings are not an object")
        _settings = data
    except (jsonstream.JSONError, OSError) as e:
        # Never lose data silently: keep the unreadable file for inspection.
        replace(p, p + ".bad")
        print("settings: %s unreadable (%s); kept as %s.bad" % (p, e, SETTINGS))
    return _settings


def get(key, default=None):
    return _load().get(key, default)


def set(key, value):
    """Set a setting (str, int, float, bool); None deletes it. Persisted now."""
    s = _load()
    if value is None:
        if key not in s:
            return
        del s[key]
    else:
        if not isinstance(value, (str, int, float, bool)):
            raise TypeError("setting values are str, int, float or bool")
        s[key] = value
    _save()


def update(pairs):
    """Set several settings with one write (None deletes)."""
    s = _load()
    for k, v in pairs.items():
        if v is None:
            s.pop(k, None)
        else:
            s[k] = v
    _save()


def _save():
    s = _load()
    write_atomic(path(SETTINGS), lambda w: jsonstream.dump(s, w, view=True))


def keys(prefix=""):
    return sorted(k for k in _load() if k.startswith(prefix))


def is_secret(key, loose=False):
    """True for a setting that holds a secret: its last part is, or ends
    in "_" and, key, token, password or secret (ai.chat.key, copilot.token,
    mcp.x.refresh_token; not ai.chat.max_tokens). loose=True: the last
    part contains one of the words (URL query names: apikey=, access_token=)."""
    last = key.split(".")[-1].lower()
    for w in SECRET_WORDS:
        if (w in last) if loose else (last == w or last.endswith("_" + w)):
            return True
    return False


def mask(value):
    """Show enough of a secret to recognise it, never enough to use it:
    the first 3 and last 2 characters of one of 16 or more (at most a
    third of it), a shorter one whole as stars."""
    s = str(value)
    if len(s) < _MASK_SHOWS:
        return "*" * len(s)
    return s[:3] + "..." + s[-2:]


def _secrets(extra=None):
    """The lowered values scrub() hides: every is_secret() setting and
    extra, those of 4 characters or more."""
    vals = [str(v).lower() for k, v in _load().items() if v and is_secret(k)]
    if extra:
        vals.append(str(extra).lower())
    return [v for v in vals if len(v) >= 4]


def _spans(text, vals):
    """Sorted, joined (start, end) of the runs of text to hide: any run of
    min(len, _RUN) characters of a value, any case. Read in windows of
    _WINDOW characters: the working heap is a window, whatever the size."""
    spans = []
    n = len(text)
    at = 0
    while at < n:
        w = text[at:at + _WINDOW]
        low = w.lower()
        if len(low) != len(w):  # CPython: a few letters lower to two
            low = "".join(c if len(c.lower()) != 1 else c.lower() for c in w)
        for v in vals:
            run = min(len(v), _RUN)
            for j in range(len(v) - run + 1):
                g = v[j:j + run]
                i = low.find(g)
                while i >= 0:
                    spans.append((at + i, at + i + run))
                    i = low.find(g, i + 1)
        if at + len(w) >= n:
            break
        at += _WINDOW - _RUN + 1        # overlap: no run is split
    if not spans:
        return spans
    spans.sort()
    joined = []
    a, b = spans[0]
    for s, e in spans:
        if s > b:
            joined.append((a, b))
            a = s
        if e > b:
            b = e
    joined.append((a, b))
    return joined


def scrub(text, extra=None):
    """text with every secret hidden, for text from outside (error bodies,
    tool results) that may echo one: each setting is_secret() names and
    extra (a key or token in use that is not in the settings), found
    case-insensitively, whole or any run of 8 or more of its characters,
    becomes "***" (secrets shorter than 4 characters are left alone).
    Beyond the scrubbed copy it returns (only when a secret was found) the
    working heap is a window of _WINDOW characters, whatever the size."""
    if not text or not isinstance(text, str):
        return text
    vals = _secrets(extra)
    spans = _spans(text, vals) if vals else None
    if not spans:
        return text
    runs = []       # the text of each span: replace() makes one copy per run
    for a, b in spans:
        if text[a:b] not in runs:
            runs.append(text[a:b])
    runs.sort(key=len, reverse=True)
    for r in runs:
        text = text.replace(r, "***")
    return text


class Scrub:
    """scrub() for text that arrives in pieces (a tool result written to
    flash as it is read): add(piece) hands sink the scrubbed text but the
    last characters, which may begin a secret; close() the rest. A secret
    that runs across the cut is cut after it, so it is hidden whole."""

    def __init__(self, sink, extra=None):
        self.sink = sink
        self.vals = _secrets(extra)
        self.hold = min(max([len(v) for v in self.vals] + [0]), _WINDOW)
        self.buf = ""

    def add(self, piece):
        if not self.vals:
            return self.sink(piece)
        b = self.buf + piece
        cut = len(b) - self.hold
        if cut < _WINDOW:
            self.buf = b
            return
        self._out(b, cut)

    def _out(self, b, cut):
        spans = _spans(b, self.vals)
        for a, e in spans:
            if a < cut < e:
                cut = e             # a secret across the cut goes out whole
        p = 0
        for a, e in spans:
            if a >= cut:
                break
            if a > p:
                self.sink(b[p:a])
            self.sink("***")
            p = e
        if cut > p:
            self.sink(b[p:cut])
        self.buf = b[cut:]

    def close(self):
        if self.buf:
            self._out(self.buf, len(self.buf))


# The calls a chat never makes, imported on first use (CONTRIBUTING.md:
# Loading lazily); any other name is a submodule (from store import admin).
__getattr__ = lazy((("items", "store.admin"), ("display", "store.admin"),
                    ("mask_url", "store.admin"), ("reload", "store.admin"),
                    ("delete", "store.admin"), ("truncate", "store.admin")), "store")
