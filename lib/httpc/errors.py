"""Why a connection could not be made or failed, as an HTTPError a person
can act on: a socket's error, a TLS handshake's (httpc/__init__.py imports
it on the first failure: an exchange that goes well pays no heap for it)."""
import errno

from compat import ENETUNREACH, EPIPE, const, is_timeout
from httpc import HTTPError

# CPython's ssl errnos when the peer hangs up (SSLZeroReturnError, SSLEOFError)
_SSL_ERROR_ZERO_RETURN = const(6)
_SSL_ERROR_EOF = const(8)
# mbedTLS error codes (MicroPython raises them as OSError(code))
_MBEDTLS_CA_CHAIN_REQUIRED = const(-30336)
_MBEDTLS_CERT_VERIFY_FAILED = const(-9984)
# the errors that mean the peer dropped the connection
_RESETS = (errno.ECONNRESET, EPIPE, errno.ECONNABORTED)


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
