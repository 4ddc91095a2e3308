"""A body read whole, bounded (Response.read(), SSE Event.read()),
imported on first use: an exchange that streams never needs it."""
from compat import const
from httpc import HTTPError

_READ_LIMIT = const(16384)   # default bound of read() / Event.read()
_PIECE = const(1024)         # largest piece read() collects a body in


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
