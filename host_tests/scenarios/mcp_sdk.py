# lib/mcp against the Python SDK server under the MicroPython unix port:
# connect, list tools, call add / get_weather (args as JSON text) / fail /
# slow_count (progress + log notifications skipped), close; prints the heap.
#   mcp_sdk <url> [token]
import sys
import mcp
from mcp import client  # noqa: F401  (the protocol code counts as import cost)
import store  # noqa: F401  (mcp.call keeps a result for its str in a store.Spool; the console loads store on the board)
import heapmon

heapmon.start()
url = sys.argv[1]
token = sys.argv[2] if len(sys.argv) > 2 else None
conn, err = mcp.connect(url, token=token, name="sdk")
print("connect", err, conn is not None and conn.version)
if conn:
    tools, err = mcp.tools(conn)
    print("tools", err, tools and ",".join(sorted(t["name"] for t in tools)))
    print("add-params", tools and sorted(tools[0]["parameters"].get("properties", {})))
    print("add", mcp.call(conn, "add", {"a": 2, "b": 3}))
    print("weather", mcp.call(conn, "get_weather", '{"city": "Rochdale"}'))
    print("fail", mcp.call(conn, "fail", {"reason": "nope"}), conn.last_is_error)
    print("slow", mcp.call(conn, "slow_count", {"n": 3}))
    mcp.close(conn)
heapmon.report()
