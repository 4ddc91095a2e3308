"""Settings and files looked after by hand: settings listed, shown,
deleted and read again, a URL's secrets masked, a file truncated. Imported
on first use (store's __getattr__ finds store.items() and the rest here):
a chat needs none of it."""
import store
from store import copy, get, is_secret, keys, mask, set, write_atomic

_CRED = "auth"      # also masked in a URL query: auth=, authorization=


def reload():
    """Forget the cached settings (read the file again on next access)."""
    store.set_root(store.root())


def items(prefix=""):
    return [(k, get(k)) for k in keys(prefix)]


def display(key, value):
    """The value as it may be shown on the console."""
    return mask(value) if is_secret(key) else str(value)


def mask_url(url):
    """A URL as it may be shown: user:password@ and the values of query
    parameters that look like credentials (named like a secret or "auth",
    or 16 characters and longer) masked."""
    url = str(url)
    i = url.find("://")
    start = i + 3 if i >= 0 else 0
    end = len(url)
    for c in "/?#":
        j = url.find(c, start)
        if 0 <= j < end:
            end = j
    at = url[start:end].rfind("@")
    if at >= 0:
        url = url[:start] + "***" + url[start + at:]
    q = url.find("?")
    if q < 0:
        return url
    h = url.find("#", q)
    if h < 0:
        h = len(url)
    parts = []
    for p in url[q + 1:h].split("&"):
        j = p.find("=")
        k, v = (p[:j], p[j + 1:]) if j >= 0 else (p, "")
        if v and (len(v) >= 16 or is_secret(k, True) or _CRED in k.lower()):
            p = k + "=" + mask(v)
        parts.append(p)
    return url[:q + 1] + "&".join(parts) + url[h:]


def delete(key):
    set(key, None)


def truncate(p, size):
    """Keep the first `size` bytes of file p (atomically: the VFS has no
    truncate)."""
    write_atomic(p, lambda w: copy(p, w, 0, size))
