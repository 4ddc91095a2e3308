"""Tool calling through the text fallback, against a fake provider that has
no tools field at all (it answers 400 to any native tool traffic)."""
import json

import pytest

import ai
import store
from ai.styles import Reply, text
from fakes import Calls, FakeTextOnly, Text

WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}


@pytest.fixture
def srv(tmp_path):
    store.set_root(str(tmp_path))
    with FakeTextOnly(key="sk-test") as s:
        store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test",
                      "ai.chat.base_url": s.base_url, "ai.chat.model": "text-model-1",
                      "ai.chat.tools": "text-fallback",
                      "ai.chat.style": "openai"})       # chat completions
        yield s
    store.set_root(None)


def test_calls_come_back_parsed_and_results_go_back_as_text(srv):
    srv.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_weather", {"city": "Leeds"})]))
    hist = [{"role": "user", "content": "weather in Rochdale and Leeds?"}]
    reply, err, calls = ai.ask(hist, {"tools": [WEATHER]})
    assert err is None
    assert [(c["id"], c["name"], json.loads(c["args"])) for c in calls] == [
        ("text-1", "get_weather", {"city": "Rochdale"}),
        ("text-2", "get_weather", {"city": "Leeds"})]
    sent = srv.last.json
    assert "tools" not in sent and "get_weather" in sent["messages"][0]["content"]
    assert sent["messages"][0]["role"] == "system"
    assert hist[-1]["tool_calls"] == calls          # internal vocabulary kept
    for c in calls:
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "12 C"})
    reply, err, calls = ai.ask(hist, {"tools": [WEATHER]})
    assert err is None and calls is None
    assert reply.startswith("tool said:") and "12 C" in reply
    msgs = srv.last.json["messages"]
    # the fake refuses role "tool" and tool_calls: both became plain text
    assert msgs[-2]["role"] == "assistant" and "```tool_call" in msgs[-2]["content"]
    assert msgs[-1]["role"] == "user"
    assert msgs[-1]["content"].count("Tool result for get_weather") == 2


def test_streamed_fallback_reply_still_yields_calls(srv):
    srv.queue(Calls([("get_weather", {"city": "Rochdale"})], text="Let me look."))
    pieces = []
    reply, err, calls = ai.ask([{"role": "user", "content": "weather?"}],
                               {"tools": [WEATHER], "stream": pieces.append})
    assert err is None and calls[0]["name"] == "get_weather"
    assert reply == "Let me look."
    assert "".join(pieces).startswith("Let me look.")


def test_native_tools_to_this_fake_are_refused_so_the_fallback_matters(srv):
    store.set("ai.chat.tools", "native")
    reply, err, calls = ai.ask([{"role": "user", "content": "hi"}], {"tools": [WEATHER]})
    assert reply is None and "400" in err and "tools are not supported" in err


def test_plain_text_without_blocks_is_a_plain_reply(srv):
    srv.queue(Text("Just words, and a ```python\nprint(1)\n``` snippet."))
    reply, err, calls = ai.ask([{"role": "user", "content": "hi"}], {"tools": [WEATHER]})
    assert err is None and calls is None and "print(1)" in reply


def test_parse_ignores_invalid_blocks_and_strips_call_blocks():
    r = Reply('Sure.\n```tool_call\n{"name": "a", "arguments": {"x": 1}}\n```\n'
              '```tool_call\nnot json\n```\n', None, "stop",
              {"role": "assistant", "content": ""})
    p = text.parse(r)
    assert [(c["name"], json.loads(c["args"])) for c in p.calls] == [("a", {"x": 1})]
    assert p.text.startswith("Sure.") and '"name": "a"' not in p.text
    assert p.finish == "tool_calls"


def test_system_prompt_is_bounded():
    many = [{"name": "t%d" % i, "description": "x" * 200, "parameters": {}} for i in range(100)]
    prompt = text.system_prompt("Be brief.", many)
    assert prompt.startswith("Be brief.") and len(prompt) < text.MAX_TOOLS_PROMPT + 1500
    assert "(more tools not listed)" in prompt
