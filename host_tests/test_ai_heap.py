"""Every style under the MicroPython unix port inside a small heap (heap= is
the heap left free once the emulated flash is in place, see mpyrun): one
chat round and one streamed round, the same with a tool-call round trip
first (scenarios/ai_rounds.py), and ai.run with a tool of the real MCP SDK
server (scenarios/ai_mcp_loop.py: the server's tools listed into a file
on flash and offered from it, a second session for the call).

Each case runs at its CAP, which is its smallest passing heap (measured by
bisection, printed by the test) plus 4K: the smallest varies by 1-2K
from run to run with the timing of the reads and the heap's layout. The
GOAL is the budget the project promises (a chat in 56K, the MCP loop in
64K); a chat's CAP never exceeds it. The MCP loop misses it by its margin:
it passes from 61-63K since the server's GET stream is held during each
call (2K of it: serve.py and the second connection). Measured (64-bit
unix port):
  chat   openai 45K   anthropic 46K   gemini 46K
  tools  openai 46K   anthropic 48K   gemini 47K
  MCP    openai 63K   anthropic 61K   gemini 63K   (names charged: 84-86K)
A chat case's imports keep about 33 KB (module, function and class objects
of jsonstream, httpc, store, ai and the style on the 64-bit port, the
kept connection buffer, ~1 KB of scenarios/aisteps.py), the MCP cases
about 42 KB (mcp, mcp.registry, mcp.client, ai.loop too: 43 KB); the working sets
are asserted (24 KB; the loop measures 16-17 KB: the MCP session and its
connection, the tool file's reading, ai/toolcache.py and httpc/sse.py
imported on the way).
"""
import pytest

from fakes import Calls, FakeAnthropic, FakeGemini, FakeOpenAI, Text
from mpyrun import parse_size

STYLES = [
    ("openai", FakeOpenAI, "gpt-4o-mini", "sk-test"),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test"),
    ("gemini", FakeGemini, "gemini-2.5-flash", "AIza-test"),
]
WORKING_BUDGET = 24 * 1024
LOOP_BUDGET = 24 * 1024
GOAL = {"rounds": "56K", "mcp": "64K"}
CAP = {"rounds": "52K", "mcp": "66K"}


RAW_CAP = "100K"         # the MCP loop with the names in the heap
FLOOR = "40K"            # the bisections start here (it fails)


def _rounds(mpy, tmp_path, fake, provider, model, key, tools, heap):
    with fake(key=key, models=[model]) as srv:
        srv.options(chunked=True)
        if tools:
            srv.queue(Calls([("get_weather", {"city": "Rochdale"})]))
        srv.queue(Text("Hello from the fake."), Text("A streamed answer in small pieces."))
        args = [provider, srv.base_url, model, key, tmp_path] + (["tools"] if tools else [])
        return mpy.run("ai_rounds", heap=heap, args=args, timeout=60)


@pytest.mark.parametrize("provider,fake,model,key", STYLES, ids=[s[0] for s in STYLES])
@pytest.mark.parametrize("tools", [False, True], ids=["chat", "tools"])
def test_two_rounds_in_a_small_heap(mpy, tmp_path, provider, fake, model, key, tools):
    cap = CAP["rounds"]
    assert parse_size(cap) <= parse_size(GOAL["rounds"])
    r = _rounds(mpy, tmp_path, fake, provider, model, key, tools, cap)
    assert r.rc == 0, r
    if tools:
        assert """CALLS None [('get_weather', '{"city":"Rochdale"}')]""" in r.out.replace(
            '{"city": "Rochdale"}', '{"city":"Rochdale"}'), r.out
    n = 4 if tools else 2
    assert "PLAIN 'Hello from the fake.' None %d" % n in r.out, r.out
    pieces = int(r.out.split("STREAM ")[1].split()[0])
    assert pieces >= 3, r.out     # it really streamed
    assert "'A streamed answer in small pieces.' 'A streamed answer in small pieces.' None" in r.out
    assert r.working < WORKING_BUDGET

    def passes(heap):
        x = _rounds(mpy, tmp_path, fake, provider, model, key, tools, heap)
        return x.rc == 0 and "small pieces.' None" in x.out
    least = mpy.smallest(passes, cap, FLOOR)
    print("%s %s: imports %d B, working %d B, smallest passing heap %dK (cap %s, goal %s)"
          % (provider, "tools" if tools else "chat", r.imports, r.working,
             least // 1024, cap, GOAL["rounds"]))


def _loop(mpy, sdk, tmp_path, fake, provider, model, key, heap, frozen=True):
    with fake(key=key, models=[model]) as srv:
        srv.options(chunked=True)
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        return mpy.run("ai_mcp_loop", heap=heap, frozen=frozen,
                       args=[provider, srv.base_url, model, key, tmp_path, sdk], timeout=60)


@pytest.mark.parametrize("provider,fake,model,key", STYLES, ids=[s[0] for s in STYLES])
def test_micropython_loop_with_mcp_tool(mpy, sdk_server, tmp_path, provider, fake, model, key):
    cap = CAP["mcp"]
    sdk = sdk_server()
    r = _loop(mpy, sdk, tmp_path, fake, provider, model, key, cap)
    assert r.rc == 0, r
    assert "RUN 'tool said: Rochdale: 12 C, drizzle' None " \
           "['user', 'assistant', 'tool', 'assistant']" in r.out, r.out
    assert r.working < LOOP_BUDGET

    def passes(heap, frozen=True):
        x = _loop(mpy, sdk, tmp_path, fake, provider, model, key, heap, frozen)
        return x.rc == 0 and "RUN 'tool said" in x.out
    least = mpy.smallest(passes, cap, FLOOR)
    # the same with every name charged to the heap as the unix port does
    raw = mpy.smallest(lambda heap: passes(heap, False), RAW_CAP)
    print("%s loop with MCP call: imports %d B, working %d B, smallest passing heap %dK "
          "(cap %s, goal %s; %dK with the names in the heap)"
          % (provider, r.imports, r.working, least // 1024, cap, GOAL["mcp"], raw // 1024))


IMPORTS = ["compat", "jsonstream", "httpc", "store", "ai", "ai.styles.openai",
           "ai.styles.anthropic", "ai.styles.gemini", "mcp", "mcp.registry", "mcp.client",
           "ai.loop"]


def test_import_costs(mpy):
    """Heap kept by each import from the ROM image, in order (qstr pools
    grow in steps, so a module can be charged a new pool): printed, and the
    modules of a chat round bounded as a whole."""
    r = mpy.run("ai_imports", heap="256K", args=IMPORTS)
    assert r.rc == 0, r
    cost = {}
    for line in r.out.splitlines():
        _, name, n = line.split()
        cost[name] = int(n)
    print("import costs (B): " + ", ".join("%s %d" % (m, cost[m]) for m in IMPORTS))
    chat = sum(cost[m] for m in ("compat", "jsonstream", "httpc", "store", "ai",
                                 "ai.styles.openai"))
    assert chat < 44 * 1024, cost
