# lib/mcp against the reference "everything" server under the MicroPython
# unix port: the ~7.7 KB tools/list (one SSE data line), echo, and the tiny
# image (base64 counted, never held); prints the heap.
#   mcp_everything <url>
import sys
import mcp
from mcp import client  # noqa: F401  (the protocol code counts as import cost)
import store  # noqa: F401  (mcp.call keeps a result for its str in a store.Spool; the console loads store on the board)
import heapmon

heapmon.start()
conn, err = mcp.connect(sys.argv[1], name="everything")
print("connect", err, conn is not None and conn.server)
if conn:
    tools, err = mcp.tools(conn)
    print("tools", err, tools and len(tools))
    print("names", tools and ",".join(sorted(t["name"] for t in tools)))
    tools = None
    print("echo", mcp.call(conn, "echo", {"message": "hi from micropython"}))
    print("image", mcp.call(conn, "get-tiny-image", {}))
    print("long", mcp.call(conn, "trigger-long-running-operation", {"duration": 1, "steps": 2}))
    mcp.close(conn)
heapmon.report()
