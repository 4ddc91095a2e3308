# Every public function of ai and mcp called with almost no heap left: a
# MemoryError must come back as the function's error, never raised.
# argv: store_root provider_base_url mcp_url
# For each function, ballast leaves `level` bytes free (levels grow until
# the call no longer runs out of memory). Prints per function:
#   OOM <name> <level>:<oom|err|ok|ESCAPED> ... | <the first out-of-memory line>
import gc
import sys
# the ballast's list, made first while the heap is in one piece (a new 4 KB
# list at every fill needed a 4 KB hole in a heap the calls had fragmented)
BAL = [None] * 512
import store  # noqa: E402
root, base, url = sys.argv[1:4]
store.set_root(root)
import ai
import mcp
from ai import config, loop, toolcache, history, lines, errors, models, tools  # noqa: F401
from ai.styles import openai  # noqa: F401
from mcp import client, registry, errors as mcp_errors, items  # noqa: F401
import httpc  # noqa: F401
import jsonstream  # noqa: F401

store.update({"ai.chat.provider": "openai", "ai.chat.style": "openai", "ai.chat.key": "sk-test",
              "ai.chat.base_url": base, "ai.chat.model": "gpt-4o-mini",
              "ai.chat.timeout": 10})
mcp.add("sdk", url)
conn, err = mcp.connect_named("sdk")
assert err is None, err


def release():
    for i in range(len(BAL)):
        BAL[i] = None
    gc.collect()


def fill(leave):
    """Ballast: take the heap, then give back about `leave` bytes."""
    bal = BAL
    release()
    n = 0
    size = 8192
    while size >= 16 and n < len(bal):
        try:
            bal[n] = bytearray(size)
            n += 1
        except MemoryError:
            size //= 2
    freed = 0
    while n and freed < leave:
        n -= 1
        freed += len(bal[n])
        bal[n] = None


HIST = [{"role": "user", "content": "hi"}]
CALLS = (
    ("ai.ask", ai.ask, (HIST, None)),
    ("ai.ask_simple", ai.ask_simple, ("hi", None)),
    ("ai.run", ai.run, (HIST, None)),
    ("ai.fetch_models", ai.fetch_models, ("openai", "sk-test")),
    ("ai.tools_cache_build", ai.tools_cache_build, (None,)),
    ("mcp.connect", mcp.connect, (url, None, "sdk")),
    ("mcp.tools", mcp.tools, (conn, None)),
    ("mcp.call", mcp.call, (conn, "get_weather", {"city": "Rochdale"})),
    ("mcp.test", mcp.test, ("sdk",)),
    ("mcp.add", mcp.add, ("other", url, "tok-123456789")),
    ("mcp.remove", mcp.remove, ("other",)),
)
for name, fn, args in CALLS:
    seen = []
    first = ""
    for level in (512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576):
        fill(level)
        try:
            r = fn(*args)
            kind = None
        except MemoryError:
            kind = "ESCAPED"
        release()
        if kind is None:
            err = r[1] if isinstance(r, tuple) else r
            kind = "ok" if not err else ("oom" if "out of memory" in err else "err")
            if kind == "oom" and not first:
                first = err
        seen.append("%d:%s" % (level, kind))
        if kind in ("ok", "err"):
            break
        if name == "ai.ask" or name == "ai.run":
            del HIST[1:]
    print("OOM", name, " ".join(seen), "|", first)
mcp.close(conn)
# no connection was left behind half made: what httpc counts against the
# board's budget is what is open (netcount: the sockets of this process)
import netcount  # noqa: E402
print("SOCKETS httpc=%d open=%d" % (httpc.counts["sockets"], netcount.open_sockets()))
