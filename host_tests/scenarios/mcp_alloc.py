# Bytes allocated per byte of a big MCP tool result (host_tests/test_alloc.py):
# mcp.call of the server's "big" tool, one call to warm up, then the same
# call counted (alloccount.py). argv: mcp_url [path: into= that file]
# Prints "ALLOC <bytes> <text length (into=: the size)> <err>".
import sys

import alloccount
import mcp

into = sys.argv[2] if len(sys.argv) > 2 else None
conn, err = mcp.connect(sys.argv[1])
text = None
if err is None:
    text, err = mcp.call(conn, "big", {}, into=into)
if err is None:
    text = None
    alloccount.start()
    text, err = mcp.call(conn, "big", {}, into=into)
print("ALLOC", alloccount.count(), -1 if text is None else text if into else len(text), repr(err))
