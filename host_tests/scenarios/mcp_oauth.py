# An OAuth login under the MicroPython unix port, as the console does it:
# register the server (settings in the current folder), connect_named with
# an authorize callback (mcp_conf.browser follows the redirect), list the
# tools, call one; prints the results and the heap.
#   mcp_oauth <url>
import sys
import mcp
from mcp import client  # noqa: F401  (the protocol code counts as import cost)
from mcp_conf import browser
import heapmon

heapmon.start()
print("add", mcp.add("fake", sys.argv[1]))
conn, err = mcp.connect_named("fake", authorize=browser)
print("connect", err)
if conn:
    tools, err = mcp.tools(conn)
    print("tools", err, tools and ",".join(t["name"] for t in tools))
    print("read", mcp.call(conn, "read", {}))
    mcp.close(conn)
heapmon.report()
