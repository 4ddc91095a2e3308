# A server's tool list in several pages under a small heap.
# argv: store_root mcp_url list
#       store_root mcp_url run provider base_url model key
# list: mcp.tools(conn, each=fn), each tool shown as parsed; prints LIST
#       <count> <err> <first> <last> and the tools/list pages asked for.
# run:  ai.run(turn on flash, mcps=["pages"]): the tools are listed into a
#       file page by page and offered from it; prints RUN <reply> <err>.
import sys
import mcp
import store
from mcp import client  # noqa: F401  (code in the baseline, as frozen)

root, url, mode = sys.argv[1:4]
store.set_root(root)
mcp.add("pages", url)
import heapmon
if mode == "list":
    heapmon.start()
    conn, err = mcp.connect_named("pages")
    seen = []

    def each(t):
        if not seen:
            seen.append(t["name"])
        seen[1:] = [t["name"]]

    n, err = mcp.tools(conn, each)
    mcp.close(conn)
    print("LIST", n, repr(err), seen)
else:
    import ai
    from ai import history, loop  # noqa: F401
    from ai.styles import load
    ov = {"provider": sys.argv[4], "base_url": sys.argv[5], "model": sys.argv[6],
          "key": sys.argv[7], "timeout": 10, "keep": False}
    if sys.argv[4] == "openai":
        ov["style"] = "openai"      # FakeOpenAI speaks chat completions
    load(sys.argv[4])
    t = history.History("chat").turn({"role": "user", "content": "hello"})
    heapmon.start()
    reply, err = ai.run(t, ov, mcps=["pages"])
    print("RUN", repr(reply), repr(err))
    t.drop()
heapmon.report()
