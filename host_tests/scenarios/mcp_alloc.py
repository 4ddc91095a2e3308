# Bytes allocated per byte of a big MCP tool result (host_tests/test_alloc.py):
# mcp.call of the server's "big" tool, one call to warm up, then the same
# call counted (alloccount.py). argv: mcp_url
# Prints "ALLOC <bytes> <text length> <err>".
import sys

import alloccount
import mcp

conn, err = mcp.connect(sys.argv[1])
text = None
if err is None:
    text, err = mcp.call(conn, "big", {})
if err is None:
    text = None
    alloccount.start()
    text, err = mcp.call(conn, "big", {})
print("ALLOC", alloccount.count(), -1 if text is None else len(text), repr(err))
