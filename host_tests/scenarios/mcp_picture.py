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
store.set_root(root)
conn, err = mcp.connect(url, name="sdk")
heapmon.start()
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
