"""httpc's rarely used paths, imported on first use so that an exchange
pays no heap for them: the pool's figures and closing it (httpc.pool_stats,
httpc.close_all), why a connection could not be made or failed (a
socket's error, a TLS handshake's, as an HTTPError), a redirect's
target and the headers it may carry, and a small body read whole
(Response.read(), SSE Event.read())."""
import errno

from compat import ENETUNREACH, EPIPE, const, is_timeout
from httpc import HTTPError, _pool, _stats

# CPython's ssl errnos when the peer hangs up (SSLZeroReturnError, SSLEOFError)
_SSL_ERROR_ZERO_RETURN = const(6)
_SSL_ERROR_EOF = const(8)
# mbedTLS error codes (MicroPython raises them as OSError(code))
_MBEDTLS_CA_CHAIN_REQUIRED = const(-30336)
_MBEDTLS_CERT_VERIFY_FAILED = const(-9984)
# the errors that mean the peer dropped the connection
_RESETS = (errno.ECONNRESET, EPIPE, errno.ECONNABORTED)

_READ_LIMIT = const(16384)   # default bound of read() / Event.read()
_PIECE = const(1024)         # largest piece read() collects a body in


def pool_stats():
    """{"opened": TCP connections opened so far, "reused": pooled reuses}."""
    return dict(_stats)


def close_all():
    """Close every pooled connection."""
    for k in list(_pool):
        _pool.pop(k).close()


def reason(e):
    code = errno_of(e)
    if code == errno.ECONNREFUSED:
        return "connection refused"
    if code == errno.EHOSTUNREACH:
        return "no route to host"
    if code == ENETUNREACH:
        return "network unreachable"
    if code == errno.ECONNRESET or code == EPIPE:
        return "connection reset"
    if code == errno.ECONNABORTED:
        return "connection aborted"
    return short(e)


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


def too_long(what, limit):
    return HTTPError("%s larger than %d bytes" % (what, limit), "toolong", True)


def fill(src, mv):
    """Read from src into mv until it is full or src ends: the count."""
    n = 0
    while n < len(mv):
        k = src.readinto(mv[n:])
        if not k:
            break
        n += k
    return n


def read_all(src, limit, what, first=_PIECE):
    """All that src.readinto() gives until it returns 0, as bytes; an
    HTTPError "toolong" past limit bytes (None: 16 KB). Collected in pieces
    of `first` bytes (at most 1 KB) joined once: no buffer that doubles and
    copies, so N bytes need N in small pieces plus the N of the result,
    its only large block."""
    if limit is None:
        limit = _READ_LIMIT
    size = min(max(first, 1), _PIECE, limit + 1)
    parts = []
    got = 0
    while True:
        piece = bytearray(size)
        mv = memoryview(piece)
        n = fill(src, mv)
        got += n
        if got > limit:
            raise too_long(what, limit)
        if n:
            parts.append(piece if n == size else bytes(mv[:n]))
        if n < size:
            break
    return b"".join(parts)


def read_body(resp, n, limit, length):
    """Response.read(n, limit); length: the Content-Length left, or None."""
    if n is not None and n >= 0:
        mv = memoryview(bytearray(n))
        return bytes(mv[:fill(resp, mv)])
    if limit is None:
        limit = _READ_LIMIT
    what = "%s: response body" % (resp._c.host if resp._c else "server")
    first = _PIECE
    if length is not None:
        if length > limit:
            raise too_long(what, limit)
        first = length + 1      # all in one piece when small
    return read_all(resp, limit, what, first)


# ---------------------------------------------------------------- errors

def errno_of(e):
    code = getattr(e, "errno", None)
    if code is None and e.args:
        code = e.args[0]
    return code if isinstance(code, int) else None


def short(e):
    s = str(e).strip()
    i = s.find("\n")
    if i >= 0:
        s = s[:i]
    if len(s) > 80:
        s = s[:80]
    return s or type(e).__name__


def io_err(e, host, phase):
    """Map an OSError from a socket read/write to an HTTPError."""
    if is_timeout(e):
        return HTTPError("timed out waiting for %s" % host, "timeout")
    code = errno_of(e)
    if code in _RESETS or code in (errno.ENOTCONN, errno.EBADF, _SSL_ERROR_ZERO_RETURN,
                                   _SSL_ERROR_EOF):
        return HTTPError("connection reset by %s %s" % (host, phase), "reset")
    return HTTPError("connection to %s failed %s: %s" % (host, phase, short(e)),
                     "reset")


def handshake_error(e, host, where):
    """The HTTPError for a failed TLS handshake with host (where: host:port).
    CPython names the X.509 failure in e.verify_code, MicroPython in the
    text or the mbedTLS code."""
    if is_timeout(e):
        return HTTPError("timed out connecting to %s" % where, "timeout")
    vc = getattr(e, "verify_code", None)
    code = errno_of(e)
    low = str(e).lower()
    # CPython's X.509 codes: 2, 18-21 no trusted issuer / self-signed; 62,
    # 64 host or IP mismatch; 9, 10 not yet valid / expired. MicroPython:
    # mbedTLS's verify texts (an unknown or self-signed issuer reads "not
    # correctly signed by the trusted CA")
    if vc in (2, 18, 19, 20, 21) or "not correctly signed" in low:
        msg = "TLS: certificate not trusted for %s (unknown CA)" % host
    elif vc in (62, 64) or "does not match" in low:
        msg = "TLS: certificate does not match host %s" % host
    elif vc in (9, 10) or "expired" in low or "future" in low:
        msg = ("TLS: certificate for %s is expired or not yet valid "
               "(is the clock set?)" % host)
    elif code == _MBEDTLS_CA_CHAIN_REQUIRED or "ca_chain_required" in low:
        msg = "TLS: no CA certificates loaded (set httpc.CA_FILE)"
    elif code == _MBEDTLS_CERT_VERIFY_FAILED or "verify failed" in low:
        msg = "TLS: certificate verification failed for %s" % host
    elif code in _RESETS:
        msg = "TLS handshake with %s failed: connection reset" % where
    else:
        msg = "TLS handshake with %s failed: %s" % (where, short(e))
    return HTTPError(msg, "tls")
