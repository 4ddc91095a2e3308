# Big MCP tool results under a small heap, from the Python SDK server's
# big (text + the same as structuredContent) and big_text (text only) tools.
# argv: store_root mcp_url size call
#       store_root mcp_url size run provider base_url model key
# call: mcp.call of both tools; prints CALL <tool> <len> <ok> <tail>.
# bare: the same from a Python caller that never loaded the store module
#      (no registry: mcp.connect(url); store_root unused, the flash root is
#      the working folder).
# into: the same as bare with into= a file under store_root: the whole
#      text; prints CALL <tool> <size> <err> <pattern ok> <bytes in the file>.
# run: `ai`-style round on a turn on flash (keep=False, tools of the
#      server): the fake provider calls sdk__big, the result goes to the
#      history and the next request; prints RUN <err> and, read back from
#      the history file, TOOL <chars> <ok> <tail>.
# call samples the heap (heapmon: `make bench` reads its peak); bare and run
# run as a program does, without the sampler's thread and its low
# gc.threshold (which alone lowers the heap a run needs by a few K).
import gc
import sys
import mcp
from mcp import client  # noqa: F401  (code in the baseline, as frozen)

from textcheck import Check  # noqa: E402

root, url, size, mode = sys.argv[1:5]
size = int(size)
limit = mcp.MAX_RESULT    # (the default of mcp.max_result and ai.max_tool_result: no setting here)
if mode != "bare":
    import store
    store.set_root(root)
    mcp.add("sdk", url)
if mode == "call":
    import heapmon
else:
    heapmon = None
if mode == "into":
    gc.collect()
    conn, err = mcp.connect(url, name="sdk")
    path = root + "/result.txt"
    buf = bytearray(256)
    for tool in ("big", "big_text"):
        n, err = mcp.call(conn, tool, {"size": size}, into=path)
        c = Check(size)
        got = 0
        with open(path, "rb") as f:
            while True:
                k = f.readinto(buf)
                if not k:
                    break
                got += k
                c.add(str(buf[:k], "utf-8"))     # (the pattern is ASCII)
        print("CALL", tool, n, repr(err), c.result(size), got)
    mcp.close(conn)
elif mode in ("call", "bare"):
    gc.collect()
    if heapmon:
        heapmon.start()
    conn, err = mcp.connect(url, name="sdk") if mode == "bare" else mcp.connect_named("sdk")
    for tool in ("big", "big_text"):
        text, err = mcp.call(conn, tool, {"size": size})
        c = Check(limit)
        i = 0
        while text is not None and i < len(text):
            c.add(text[i:i + 256])
            i += 256
        print("CALL", tool, None if text is None else len(text), repr(err), c.result(size),
              repr(c.rest))
        text = None
    mcp.close(conn)
    if heapmon:
        heapmon.report()
else:
    import ai
    from ai import history, loop  # noqa: F401
    from ai.styles import load
    ov = {"provider": sys.argv[5], "base_url": sys.argv[6], "model": sys.argv[7],
          "key": sys.argv[8], "timeout": 10, "keep": False}
    if sys.argv[5] == "openai":
        ov["style"] = "openai"      # FakeOpenAI speaks chat completions
    load(sys.argv[5])
    ov["max_reply"] = 65536
    h = history.History("chat")
    t = h.turn({"role": "user", "content": "call big"})
    gc.collect()
    reply, err = ai.run(t, ov, mcps=["sdk"], show=lambda call, text, bad: bad and print(
        "FAILED", repr(text)))
    print("RUN", repr(reply), repr(err))
    if err is None:
        t.commit()
    t = None
    for m in h:
        if m["role"] == "tool":
            c = Check(limit)
            history.pieces(m["content"], c.add)
            print("TOOL", c.n, c.result(size), repr(c.rest))
