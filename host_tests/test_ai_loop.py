"""ai.run, the tool-use loop, with local tools against every style's fake."""
import re

import pytest

import ai
import store
from ai import loop
from fakes import (Calls, FakeAnthropic, FakeGemini, FakeOpenAI, FakeResponses,
                   FakeTextOnly)

STYLES = [
    ("openai", FakeResponses, "gpt-5-mini", "sk-test", "native"),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "sk-ant-test", "native"),
    ("gemini", FakeGemini, "gemini-2.5-flash", "AIza-test", "native"),
    ("openai", FakeTextOnly, "text-model-1", "sk-test", "text-fallback"),
]


def weather_tool(log):
    def run(args):
        log.append(args)
        return "%s: 12 C, drizzle" % args["city"]
    return {"name": "get_weather", "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]}, "run": run}


@pytest.fixture(params=STYLES, ids=["openai", "anthropic", "gemini", "text-fallback"])
def srv(request, tmp_path):
    provider, fake, model, key, level = request.param
    store.set_root(str(tmp_path))
    with fake(key=key, models=[model]) as s:
        store.update({"ai.chat.provider": provider, "ai.chat.key": key,
                      "ai.chat.base_url": s.base_url, "ai.chat.model": model,
                      "ai.chat.tools": level,
                      # the text-only fake speaks chat completions
                      "ai.chat.style": "openai" if fake is FakeTextOnly else None})
        yield s
    store.set_root(None)


def test_loop_runs_parallel_calls_in_order_and_answers(srv):
    log, shown = [], []
    srv.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_weather", {"city": "Leeds"})]))
    hist = [{"role": "user", "content": "weather in Rochdale and Leeds?"}]
    reply, err = ai.run(hist, tools=[weather_tool(log)],
                        show=lambda c, t, bad: shown.append((c["name"], t, bad)))
    assert err is None
    assert log == [{"city": "Rochdale"}, {"city": "Leeds"}]
    assert "Rochdale: 12 C, drizzle" in reply and "Leeds: 12 C, drizzle" in reply
    assert shown == [("get_weather", "Rochdale: 12 C, drizzle", False),
                     ("get_weather", "Leeds: 12 C, drizzle", False)]
    roles = [m["role"] for m in hist]
    assert roles == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["tool_call_id"] for m in hist[2:4]] == [c["id"] for c in hist[1]["tool_calls"]]
    assert len(srv.requests) == 2


def test_failures_go_back_to_the_model_as_errors(srv):
    def boom(args):
        raise RuntimeError("sensor unplugged")
    tools = [weather_tool([]), {"name": "read_sensor", "description": "d",
                                "parameters": {"type": "object", "properties": {}},
                                "run": boom}]
    calls = [("no_such_tool", {}), ("read_sensor", {})]
    # only chat completions and Responses hand over the model's raw argument
    # text; the other wires carry parsed objects (or refuse a malformed call themselves)
    raw_args = isinstance(srv, FakeOpenAI) and not isinstance(srv, FakeTextOnly)
    if raw_args:
        calls.append(("get_weather", '{"city": "Roch'))
    srv.queue(Calls(calls))
    hist = [{"role": "user", "content": "go"}]
    reply, err = ai.run(hist, tools=tools)
    assert err is None
    results = [m["content"] for m in hist if m["role"] == "tool"]
    assert results[0] == "Error: unknown tool 'no_such_tool'"
    assert results[1] == "Error: read_sensor failed: sensor unplugged"
    if raw_args:
        assert results[2].startswith("Error: arguments are not valid JSON")
    assert "unknown tool" in reply          # the model saw the errors


def test_refused_calls_are_reported_to_the_model(srv):
    log = []
    srv.queue(Calls([("get_weather", {"city": "Rochdale"})]))
    hist = [{"role": "user", "content": "weather?"}]
    reply, err = ai.run(hist, tools=[weather_tool(log)], approve=lambda call: False)
    assert err is None and log == []
    assert hist[2]["content"] == "Error: the user refused this call"
    assert "refused" in reply


def test_rounds_are_bounded(srv):
    srv.queue(*[Calls([("get_weather", {"city": "X%d" % i})]) for i in range(3)])
    reply, err = ai.run([{"role": "user", "content": "loop"}],
                        tools=[weather_tool([])], max_rounds=3)
    assert reply is None and err == "tool rounds exhausted (3 model requests)"
    assert len(srv.requests) == 3


def test_name_clash_is_an_error_before_any_request(srv):
    ai.register_tool("get_weather", "dup", {"type": "object"}, lambda a: "x")
    try:
        reply, err = ai.run([{"role": "user", "content": "x"}],
                            tools=["get_weather", weather_tool([])])
    finally:
        loop._LOCAL.pop("get_weather")
    assert reply is None and "offered twice" in err and srv.requests == []


def test_unknown_registry_tool_is_an_error():
    reply, err = ai.run([{"role": "user", "content": "x"}], tools=["nope"])
    assert reply is None and "unknown local tool 'nope'" in err


def test_tool_names_are_made_legal_for_every_provider():
    assert loop.tool_name("srv", "get_weather-2") == "srv__get_weather-2"     # legal: as is
    # changed or cut: a stable hash of server and tool keeps them apart
    name = loop.tool_name("my.server", "get weather/now")
    assert re.fullmatch(r"my_server__get_weather_now_[0-9a-f]{5}", name), name
    assert loop.tool_name("my.server", "get weather/now") == name
    assert loop.tool_name("s", "a.b") != loop.tool_name("s", "a_b") == "s__a_b"
    long = loop.tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long != loop.tool_name("s" * 40, "t" * 41)
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", loop.tool_name("s", "\u00e9t\u00e9 \U0001F600"))


def test_provider_errors_end_the_loop(srv):
    from fakes import Fail
    srv.queue(Fail(400))
    reply, err = ai.run([{"role": "user", "content": "x"}], tools=[weather_tool([])])
    assert reply is None and err.startswith("%s: 400" % store.get("ai.chat.provider"))
