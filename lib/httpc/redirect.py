"""A redirect's target and the headers it may carry to it, imported by
the first redirect."""


def join(scheme, host, port, path, loc):
    """Resolve a Location header against the current URL."""
    if loc.startswith("//"):
        return scheme + ":" + loc
    low = loc[:8].lower()
    if low.startswith("http://") or low.startswith("https://"):
        return loc
    base = "%s://%s:%d" % (scheme, host, port)
    if loc.startswith("/"):
        return base + loc
    q = path.find("?")
    if q >= 0:
        path = path[:q]
    if loc.startswith("?"):
        return base + path + loc
    return base + path[:path.rfind("/") + 1] + loc


def credential(name, secret):
    """True for a (lowercase) header name that carries credentials:
    Authorization, Cookie, x-api-key, x-goog-api-key and their kin (any
    name with auth, cookie, key or token in it), or one the caller named
    in secret."""
    if ("auth" in name or "cookie" in name or "key" in name
            or "token" in name):
        return True
    for s in secret:
        if name == s.lower():
            return True
    return False
