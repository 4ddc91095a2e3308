# MCP results of changing sizes one after another in one session, as a
# program on the board gets them: each call's text (cut at mcp.max_result
# while read) is one str it holds, then drops. The heap must not fragment
# from one result to the next.
# argv: store_root mcp_url count kind sizes
#   kind: call:TOOL (mcp.call(TOOL, {"size": n})), read:PREFIX (mcp.read of
#   PREFIX + n), fs:FOLDER (read_text_file of FOLDER/<n>.txt)
#   sizes: comma-separated, cycled over count results
# Prints LIMIT <mcp.max_result> FREE <heap free before the calls>, then
# SEQ <i> <size> <len> <pattern ok> <err> per result, then the heap.
import gc
import sys
import store
import mcp
from mcp import client  # noqa: F401  (code in the baseline, as frozen)
from textcheck import Check
import heapmon

root, url, count, kind, sizes = sys.argv[1:6]
store.set_root(root)
mcp.add("peer", url)
sizes = [int(x) for x in sizes.split(",")]
how, _, arg = kind.partition(":")
conn, err = mcp.connect_named("peer")
print("connect", repr(err))
heapmon.start()
limit = mcp.max_result()
print("LIMIT", limit, "FREE", gc.mem_free())
for i in range(int(count)):
    n = sizes[i % len(sizes)]
    if how == "call":
        text, err = mcp.call(conn, arg, {"size": n})
    elif how == "read":
        text, err = mcp.read(conn, arg + str(n))
    else:
        text, err = mcp.call(conn, "read_text_file", {"path": "%s/%d.txt" % (arg, n)})
    c = Check(limit)
    if text is not None:
        for j in range(0, len(text), 256):
            c.add(text[j:j + 256])
    print("SEQ", i, n, None if text is None else len(text), c.result(n), repr(err))
    text = None
mcp.close(conn)
heapmon.report()
