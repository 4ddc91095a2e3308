"""Every style under the MicroPython unix port inside a small heap (heap= is
the heap left free once the emulated flash is in place, see mpyrun): one
chat round and one streamed round, the same with a tool-call round trip
first (scenarios/ai_rounds.py), and ai.run with a tool of the real MCP SDK
server (scenarios/ai_mcp_loop.py: the server's tools listed into a file
on flash and offered from it, a second session for the call).

Each case runs at its CAP with the firmware's GC setting, within the
project's GOAL (mpyrun: the board keeps 64K of its 112K GC heap for a
program of the user's own). The working sets are asserted from live=True
runs (the sampler collects every 1 KB: live data). `make measure` bisects
each case's smallest heap, and the MCP loop's with every name charged to
the heap as the unix port does (tools/bench/MEASUREMENTS.md).
"""
import pytest

from fakes import Calls, FakeAnthropic, FakeGemini, FakeOpenAI, Text
from mpyrun import GOAL, parse_size

STYLES = [
    ("openai", FakeOpenAI, "gpt-4o-mini", "sk-test"),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test"),
    ("gemini", FakeGemini, "gemini-2.5-flash", "AIza-test"),
]
WORKING_BUDGET = 24 * 1024
LOOP_BUDGET = 24 * 1024
CAP = {"rounds": "34K", "mcp": "44K"}
RAW_CAP = "58K"          # the MCP loop with the names in the heap


def _rounds(mpy, tmp_path, fake, provider, model, key, tools, heap, live=False):
    with fake(key=key, models=[model]) as srv:
        srv.options(chunked=True)
        if tools:
            srv.queue(Calls([("get_weather", {"city": "Rochdale"})]))
        srv.queue(Text("Hello from the fake."), Text("A streamed answer in small pieces."))
        args = [provider, srv.base_url, model, key, tmp_path] + (["tools"] if tools else [])
        return mpy.run("ai_rounds", heap=heap, args=args, timeout=60, live=live)


@pytest.mark.parametrize("provider,fake,model,key", STYLES, ids=[s[0] for s in STYLES])
@pytest.mark.parametrize("tools", [False, True], ids=["chat", "tools"])
def test_two_rounds_in_a_small_heap(mpy, measure, tmp_path, provider, fake, model, key,
                                    tools):
    cap = CAP["rounds"]
    assert parse_size(cap) <= parse_size(GOAL)
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
    live = _rounds(mpy, tmp_path, fake, provider, model, key, tools, cap, live=True)
    assert live.rc == 0, live
    assert live.working < WORKING_BUDGET

    def passes(heap):
        x = _rounds(mpy, tmp_path, fake, provider, model, key, tools, heap)
        return x.rc == 0 and "small pieces.' None" in x.out
    measure.smallest("heap", "%s %s: two rounds" % (provider, "tools" if tools else "chat"),
                     passes, cap, goal=GOAL, imports=r.imports,
                     working=live.working)


def _loop(mpy, sdk, tmp_path, fake, provider, model, key, heap, frozen=True, live=False):
    with fake(key=key, models=[model]) as srv:
        srv.options(chunked=True)
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        return mpy.run("ai_mcp_loop", heap=heap, frozen=frozen, live=live,
                       args=[provider, srv.base_url, model, key, tmp_path, sdk], timeout=60)


@pytest.mark.parametrize("provider,fake,model,key", STYLES, ids=[s[0] for s in STYLES])
def test_micropython_loop_with_mcp_tool(mpy, measure, sdk_server, tmp_path, provider, fake,
                                        model, key):
    cap = CAP["mcp"]
    assert parse_size(cap) <= parse_size(GOAL)
    sdk = sdk_server()
    r = _loop(mpy, sdk, tmp_path, fake, provider, model, key, cap)
    assert r.rc == 0, r
    assert "RUN 'tool said: Rochdale: 12 C, drizzle' None " \
           "['user', 'assistant', 'tool', 'assistant']" in r.out, r.out
    live = _loop(mpy, sdk, tmp_path, fake, provider, model, key, cap, live=True)
    assert live.rc == 0, live
    assert live.working < LOOP_BUDGET

    def passes(heap, frozen=True):
        x = _loop(mpy, sdk, tmp_path, fake, provider, model, key, heap, frozen)
        return x.rc == 0 and "RUN 'tool said" in x.out
    measure.smallest("heap", "%s: ai.run with an MCP tool" % provider, passes, cap,
                     goal=GOAL, imports=r.imports, working=live.working)
    # the same with every name charged to the heap as the unix port does
    measure.smallest("heap", "%s: ai.run with an MCP tool, names in the heap" % provider,
                     lambda heap: passes(heap, False), RAW_CAP)


IMPORTS = ["compat", "jsonstream", "httpc", "store", "ai", "ai.styles.openai", "ai.files",
           "ai.styles.anthropic", "ai.styles.gemini", "mcp", "mcp.registry", "mcp.client",
           "ai.loop"]


def test_import_costs(mpy, measure):
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
    for m in IMPORTS:
        measure.record("imports", m, heap=cost[m])
    chat = sum(cost[m] for m in ("compat", "jsonstream", "httpc", "store", "ai",
                                 "ai.styles.openai"))
    assert chat < 44 * 1024, cost
