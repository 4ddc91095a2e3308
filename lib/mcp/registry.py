# Registry of configured MCP servers, persisted through store.
#
# Storage (flat settings keys): "mcp.<name>.url" and "mcp.<name>.token"
# (token optional, raw; store masks it on display because the last key part
# contains "token"). Names are ^[A-Za-z0-9_-]{1,32}$, so a name can never
# contain the "." that separates the key parts.
# "mcp.<name>.allow": the tools a person trusts for always on that server
# (the console's [a]lways), a JSON array [url, tool, tool...]. The trust
# holds only while the server's URL is that url; mcp.remove() and add() with
# another URL drop it, so a new server reusing a name inherits nothing.
# OAuth (mcp/oauth.py) keeps its state and a person's client settings under
# the same "mcp.<name>." prefix (those add() drops, and client_id, client_secret,
# client_key, idp_*); removing a server removes every key under its prefix.
import store
from compat import const

_MAX_NAME = const(32)
_MAX_URL = const(512)
_MAX_TOKEN = const(4096)
_SP = const(0x20)
_MINUS = const(0x2D)      # -
_ZERO = const(0x30)
_NINE = const(0x39)
_UPPER_A = const(0x41)
_UPPER_Z = const(0x5A)
_UNDER = const(0x5F)      # _
_LOWER_A = const(0x61)
_LOWER_Z = const(0x7A)
_DEL = const(0x7F)


def check_name(name):
    """None when name is a valid server name, else the error text."""
    if not isinstance(name, str) or not name:
        return "server name is empty"
    if len(name) > _MAX_NAME:
        return "server name longer than %d characters" % _MAX_NAME
    # bytes, not characters: MicroPython interns every one-character str
    for b in name.encode():
        if not (_LOWER_A <= b <= _LOWER_Z or _UPPER_A <= b <= _UPPER_Z or _ZERO <= b <= _NINE
                or b == _UNDER or b == _MINUS):
            for c in name:
                if not ("a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9" or c in "_-"):
                    return "server name may only use letters, digits, _ and - (not %r)" % c
    return None


def check_url(url):
    if not isinstance(url, str) or not url:
        return "URL is empty"
    if len(url) > _MAX_URL:
        return "URL longer than %d characters" % _MAX_URL
    if url.startswith("http://"):
        rest = url[7:]
    elif url.startswith("https://"):
        rest = url[8:]
    else:
        return "URL must start with http:// or https://"
    if not rest or rest[0] in "/?#:":
        return "URL has no host"
    end = len(rest)
    for c in "/?#":
        j = rest.find(c)
        if 0 <= j < end:
            end = j
    if "@" in rest[:end]:
        return "URL must not hold user:password@ (give a token after the URL)"
    for b in url.encode():
        # no spaces or control characters: they would end up in the request line
        if b <= _SP or b == _DEL:
            return "URL must not contain spaces or control characters"
    return None


def check_token(token):
    if not isinstance(token, str) or not token:
        return "token is empty"
    if len(token) > _MAX_TOKEN:
        return "token longer than %d characters" % _MAX_TOKEN
    for b in token.encode():
        # it goes into an Authorization header line
        if b <= _SP or b >= _DEL:
            return "token must be printable ASCII without spaces"
    return None


def _key(name, part):
    return "mcp.%s.%s" % (name, part)


def get(name):
    """{"name", "url", "token", "expires"} of one server, or None (expires:
    when an OAuth token runs out, Unix seconds, else None)."""
    if check_name(name):
        return None
    url = store.get(_key(name, "url"))
    if url is None:
        return None
    return {"name": name, "url": url, "token": store.get(_key(name, "token")),
            "expires": store.get(_key(name, "expires"))}


def add(name, url, token=None):
    """Add or replace a server (a replaced entry loses its old token and
    OAuth login unless a new token is given). Returns None or an error string."""
    err = check_name(name) or check_url(url)
    if err is None and token is not None:
        err = check_token(token)
    if err:
        return err
    pairs = {}
    # what an OAuth login wrote (tokens, the authorization server, a dynamic
    # client registration): tied to the server's URL, dropped when it changes
    for part in ("token", "refresh_token", "expires", "scope", "issuer", "resource",
                 "reg_id", "reg_secret", "reg_auth"):
        pairs[_key(name, part)] = None
    pairs[_key(name, "url")] = url
    pairs[_key(name, "token")] = token
    if store.get(_key(name, "url")) != url:
        pairs[_key(name, "allow")] = None      # trust was for the old URL
    store.update(pairs)
    return None


def allowed(name):
    """The tools trusted for always on server name at its current URL."""
    import jsonstream
    try:
        a = jsonstream.loads(store.get(_key(name, "allow")) or "0")
    except (jsonstream.JSONError, TypeError):
        a = 0
    if isinstance(a, list) and a and a[0] == store.get(_key(name, "url")):
        return a[1:]
    return []


def trust(name, tool):
    """Remember always for tool on server name (which exists) at its URL."""
    import jsonstream
    store.set(_key(name, "allow"), jsonstream.dumps(
        [store.get(_key(name, "url"))] + allowed(name) + [tool]))
