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

SETTINGS = "settings.json"
SECRET_WORDS = ("key", "token", "password", "secret")

_root = None
_settings = None


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
    _replace(tmp, p)


def _replace(src, dst):
    if hasattr(os, "replace"):
        os.replace(src, dst)
    else:  # MicroPython: rename replaces on unix and littlefs
        os.rename(src, dst)


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
        _replace(p, p + ".bad")
        print("settings: %s unreadable (%s); kept as %s.bad" % (p, e, SETTINGS))
    return _settings


def reload():
    """Forget the cached settings (read the file again on next access)."""
    global _settings
    _settings = None


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


def delete(key):
    set(key, None)


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
    write_atomic(path(SETTINGS), lambda w: jsonstream.dump(s, w))


def keys(prefix=""):
    return sorted(k for k in _load() if k.startswith(prefix))


def items(prefix=""):
    s = _load()
    return [(k, s[k]) for k in keys(prefix)]


def is_secret(key):
    last = key.split(".")[-1].lower()
    for w in SECRET_WORDS:
        if w in last:
            return True
    return False


def mask(value):
    """Show enough of a secret to recognise it, never enough to use it."""
    s = str(value)
    if len(s) <= 8:
        return "*" * len(s)
    return s[:3] + "..." + s[-2:]


def display(key, value):
    """The value as it may be shown on the console."""
    return mask(value) if is_secret(key) else str(value)
