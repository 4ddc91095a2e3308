# A program's long run of MCP calls in one session (test_mcp_sequences.py):
# each round one mcp.call whose result the program holds as a str until the
# next call's result replaces it, as a loop of `text, err = mcp.call(...)`
# does; every tenth round (i % 10 == 5) a big result, and the round after
# the next (i % 10 == 7) a tool that fails. A big result must not make a
# later call fail: the heap stays whole enough for the next one.
# argv: store_root mcp_url rounds big_size
# Prints LIMIT <mcp.max_result> FREE <heap free before the calls>, then
# BAD <round> <size> <len> <err> per round that went wrong, then
# ROUNDS <rounds> BAD <count>, then the heap.
import gc
import sys
import store
import mcp
from mcp import client  # noqa: F401  (code in the baseline, as frozen)
from textcheck import Check
import heapmon

root, url, rounds, big = sys.argv[1:5]
store.set_root(root)
conn, err = mcp.connect(url, name="peer")
print("connect", repr(err))
heapmon.start()
limit = mcp.max_result()
print("LIMIT", limit, "FREE", gc.mem_free())
bad = 0
text = None
for i in range(int(rounds)):
    kind = i % 10
    n = int(big) if kind == 5 else 100 + 37 * kind
    if kind == 7:
        text, err = mcp.call(conn, "fail", {"reason": "no %d" % i})
        ok = text is None and err.startswith("tool error: ") and err.endswith(" no %d" % i)
    else:
        text, err = mcp.call(conn, "big_text", {"size": n})
        c = Check(limit)
        if text is not None:
            for j in range(0, len(text), 256):
                c.add(text[j:j + 256])
        ok = err is None and c.result(n)
    if not ok:
        bad += 1
        print("BAD", i, n, None if text is None else len(text), repr(err))
print("ROUNDS", rounds, "BAD", bad)
mcp.close(conn)
heapmon.report()
