# An MCP tool result that is a picture, under a small heap: the Python SDK
# server's picture(size) tool (a PNG of size bytes as an image item).
# argv: store_root mcp_url size. mcp.call decodes the base64 to flash as
# it reads it (mcp/items.py); prints PICTURE <err> <the line> <files> and
# the saved file's size and SHA-256.
import sys
import binascii
import hashlib
import heapmon
import mcp
import store
from mcp import client, items  # noqa: F401  (code in the baseline, as frozen)

root, url, size = sys.argv[1], sys.argv[2], int(sys.argv[3])


class _Sampled:
    """The picture's file, sampling the live heap (after a collect) at each
    write: there the call holds its most (the piece read, its decoded
    bytes, the connection's buffers)."""

    def __init__(self, f):
        self.f = f

    def write(self, b):
        heapmon.probe()
        return self.f.write(b)

    def close(self):
        self.f.close()


if heapmon.LIVE:
    # the working set (live=True) is sampled where the picture is written,
    # not by a sampler thread: on a busy machine that thread missed the
    # 2 KB picture's one write (8,496 B beside 9,952 B)
    _init = items.Saved.__init__

    def _saved_init(self):
        _init(self)
        self.f = _Sampled(self.f)
    items.Saved.__init__ = _saved_init

store.set_root(root)
conn, err = mcp.connect(url, name="sdk")
heapmon.start(sampler=not heapmon.LIVE)
text, err = mcp.call(conn, "picture", {"size": size})
heapmon.sample()
print("PICTURE", repr(err), repr(text), conn.last_files)
mcp.close(conn)
for p in conn.last_files:
    h = hashlib.sha256()
    n = 0
    buf = bytearray(512)
    with open(root + p, "rb") as f:
        while True:
            k = f.readinto(buf)
            if not k:
                break
            n += k
            h.update(memoryview(buf)[0:k])
    print("SAVED", p, n, binascii.hexlify(h.digest()).decode())
heapmon.report()
