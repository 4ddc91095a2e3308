"""The full loop: a fake provider asks for a tool of a real MCP server (the
official Python SDK server), gets the result through ai.run, answers."""
import json

import pytest

import ai
import mcp
import store
from fakes import Calls, FakeAnthropic, FakeGemini, FakeResponses, FakeTextOnly
from mpyrun import GOAL

STYLES = [
    ("openai", FakeResponses, "gpt-5-mini", "sk-test", "native"),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test", "native"),
    ("gemini", FakeGemini, "gemini-2.5-flash", "AIza-test", "native"),
    ("openai", FakeTextOnly, "text-model-1", "sk-test", "text-fallback"),
]
IDS = ["openai", "anthropic", "gemini", "text-fallback"]


@pytest.mark.parametrize("provider,fake,model,key,level", STYLES, ids=IDS)
def test_model_calls_an_mcp_tool_and_answers(flash, sdk_server, provider, fake, model, key, level):
    assert mcp.add("sdk", sdk_server()) is None
    with fake(key=key, models=[model]) as srv:
        store.update({"ai.chat.provider": provider, "ai.chat.key": key,
                      "ai.chat.base_url": srv.base_url, "ai.chat.model": model,
                      "ai.chat.tools": level,
                      # the text-only fake speaks chat completions
                      "ai.chat.style": "openai" if fake is FakeTextOnly else None})
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"}),
                         ("sdk__fail", {"reason": "no sensor"})]))
        hist = [{"role": "user", "content": "weather in Rochdale?"}]
        shown = []
        reply, err = ai.run(hist, mcps=["sdk"], show=lambda c, t, bad: shown.append((c["name"], t, bad)))
        assert err is None
        assert "Rochdale: 12 C, drizzle" in reply            # the fake echoes tool results
        assert shown[0] == ("sdk__get_weather", "Rochdale: 12 C, drizzle", False)
        assert shown[1][0] == "sdk__fail" and shown[1][2] and "no sensor" in shown[1][1]
        assert [m["role"] for m in hist] == ["user", "assistant", "tool", "tool", "assistant"]
        offered = srv.requests[0].json
        names = json.dumps(offered)
        for t in ("sdk__add", "sdk__echo", "sdk__get_weather", "sdk__fail"):
            assert t in names


def test_tools_cache_offers_mcp_tools_without_listing_servers(flash, sdk_server):
    assert mcp.add("sdk", sdk_server()) is None
    count, err = ai.tools_cache_build()
    # the SDK server declares resources: its read_resource tool comes too
    assert err is None and count == 6
    cached = ai.tools_cache()
    assert sorted(d["name"] for _, d in cached) == [
        "sdk__add", "sdk__echo", "sdk__fail", "sdk__get_weather", "sdk__read_resource",
        "sdk__slow_count"]
    with FakeResponses(key="sk-test") as srv:
        store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test",
                      "ai.chat.base_url": srv.base_url})
        srv.queue(Calls([("sdk__add", {"a": 2, "b": 3})]))
        hist = [{"role": "user", "content": "2+3?"}]
        reply, err = ai.run(hist)
        assert err is None and "5" in reply
        assert len(srv.requests[0].json["tools"]) == 6
    ai.tools_cache_clear()
    assert ai.tools_cache() == []


def _two_tools(fake, msg, req, w):
    from mcpfake import reply
    tools = [{"name": n, "description": "tool " + n,
              "inputSchema": {"type": "object", "properties": {}}} for n in ("one", "two")]
    w.respond(200, json.dumps(reply(msg["id"], {"tools": tools})).encode(),
              headers={"Content-Type": "application/json"})


DOWN = "http://127.0.0.1:9/mcp"


def test_servers_that_fail_leave_the_others_tools_in_the_cache(flash, mpy):
    """A working server, then two that are down: the cache keeps the
    working server's tools (the second failure cut the file at the
    position of an append-mode file, 0 under MicroPython)."""
    from mcpfake import McpFake
    with McpFake(_two_tools) as up:
        assert mcp.add("a", up.url) is None
        for name in ("b", "c"):
            assert mcp.add(name, DOWN) is None
        count, err = ai.tools_cache_build()
        assert count == 2 and "b:" in err and "c:" in err, err
        assert sorted(d["name"] for _, d in ai.tools_cache()) == ["a__one", "a__two"]
        root = flash / "mpy"
        root.mkdir()
        r = mpy.run("ai_toolcache_build", heap=GOAL, timeout=60,
                    args=[root, "a=" + up.url, "b=" + DOWN, "c=" + DOWN])
    assert r.rc == 0, r
    assert "BUILT 2 " in r.out and "CACHED ['a__one', 'a__two']" in r.out, r.out


def test_unreachable_mcp_server_is_an_error_before_the_model_is_asked(flash):
    assert mcp.add("gone", "http://127.0.0.1:9/mcp") is None
    with FakeResponses(key="sk-test") as srv:
        store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test",
                      "ai.chat.base_url": srv.base_url})
        reply, err = ai.run([{"role": "user", "content": "x"}], mcps=["gone"])
        assert reply is None and "gone" in err and "cannot connect" in err
        assert srv.requests == []


@pytest.mark.parametrize("awaited", [False, True], ids=["run", "aio"])
@pytest.mark.parametrize("model,sees", [("gpt-4o-mini", True), ("gpt-3.5-turbo", False)])
def test_an_mcp_picture_reaches_a_model_that_sees(flash, everything_server, model, sees, awaited):
    """The reference server's get-tiny-image: its PNG is decoded to flash
    while the result is read (mcp/items.py) and the next request carries it
    as a picture for a model that takes pictures (decoded strictly by the
    fake to the same bytes); for one that does not, the result's line says
    what there was and nothing else goes. The same through ai.aio.run
    (mcp.aio's call)."""
    import base64
    import re
    from fakes import FakeOpenAI
    assert mcp.add("everything", everything_server) is None
    with FakeOpenAI(key="sk-test", models=[model]) as srv:
        store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test",
                      "ai.chat.base_url": srv.base_url, "ai.chat.model": model,
                      "ai.chat.style": "openai"})
        srv.queue(Calls([("everything__get-tiny-image", {})]))
        hist = [{"role": "user", "content": "show me the picture"}]
        if awaited:
            import asyncio
            from ai import aio
            reply, err = asyncio.run(aio.run(hist, mcps=["everything"]))
        else:
            reply, err = ai.run(hist, mcps=["everything"])
        assert err is None, err
        m = re.search(r"\[image image/png, (\d+) bytes: (/mcp-files/[0-9a-f]{16}\.png)\]", hist[2]["content"])
        assert m, hist[2]
        saved = (flash / m.group(2)[1:]).read_bytes()
        assert len(saved) == int(m.group(1))
        if sees:
            assert hist[2]["files"][0]["path"] == m.group(2)
            assert len(srv.files) == 1 and srv.files[0]["data"] == saved
            assert srv.files[0]["mime"] == "image/png"
            parts = srv.requests[1].json["messages"][-1]["content"]
            assert parts[0] == {"type": "text", "text": "[file %s, %d KB, image/png]" % (
                m.group(2), round(len(saved) / 1024))}
            assert parts[1]["image_url"]["url"] == "data:image/png;base64," + \
                base64.b64encode(saved).decode()
        else:
            assert "files" not in hist[2] and not srv.files
