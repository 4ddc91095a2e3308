# ai.tools_cache_build over the MCP servers named on the command line, in
# that order: argv store_root name=url ... Prints the count, the error and
# the tools the cache file holds.
import sys
import store
store.set_root(sys.argv[1])
import ai
import mcp
from ai.tools import tools_cache_lines

for arg in sys.argv[2:]:
    name, url = arg.split("=", 1)
    mcp.add(name, url)
n, err = ai.tools_cache_build()
print("BUILT", n, repr(err))
print("CACHED", [d["name"] for _, d in tools_cache_lines()])
