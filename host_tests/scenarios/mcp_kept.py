# What a session keeps between calls is made once, not by each call: an
# object made mid-call that outlives it sits wherever the heap's frontier
# was and splits the free block the next result's str needs (results in a
# row ran out of memory that way). After each call and a collect, prints
# KEPT <i> <address of the spare connection buffer's bytes> <files kept is
# the empty tuple, not a list made by the call>.
# argv: store_root mcp_url count
import gc
import sys
import uctypes
import store
import mcp
import httpc

root, url, count = sys.argv[1:4]
store.set_root(root)
mcp.add("peer", url)
conn, err = mcp.connect_named("peer")
print("connect", repr(err))
for i in range(int(count)):
    text, err = mcp.call(conn, "big", {"size": 6144})
    text = None
    gc.collect()
    print("KEPT", i, uctypes.addressof(httpc._spare[0]), conn.last_files == (), err)
mcp.close(conn)
