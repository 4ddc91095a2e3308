"""lib/ai/styles/responses.py (OpenAI Responses) against FakeResponses.

Driven as lib/ai drives a style (request -> encoded_len + dump through
httpc -> read_reply / read_stream / error_info), then end to end through
ai.ask (provider openai uses this style by default; ai.<use>.style switches
it back to chat completions), then under the MicroPython unix port at 64K
(scenarios/ai_responses.py: a chat with a tool round, whole and streamed).
"""
import json

import pytest

import httpc
import jsonstream
from ai.styles import StyleError
from ai.styles import responses as style
from fakes import Calls, Fail, FakeResponses, Raw, Text, Think
from styletest import Trickle, base_cfg, body_json, style_helpers

WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
CLOCK = {"name": "get_time", "description": "Current time"}
send, ask, error_of = style_helpers(style)


@pytest.fixture(params=["named", "data-only"])
def srv(request):
    """The fake, its streams framed as OpenAI's (`event:` lines) or as
    LiteLLM's (data lines only, the type inside, keys sorted, [DONE])."""
    with FakeResponses() as s:
        s.data_only = request.param == "data-only"
        yield s


def make_cfg(srv, **kw):
    o = {"provider": "openai", "base_url": srv.base_url, "model": "gpt-5-mini"}
    o.update(kw)
    return base_cfg(**o)


# ------------------------------------------------------------ request shape

def test_request_shape_for_a_reasoning_model():
    hist = [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather? \u00e9\U0001F600"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "call_1", "name": "get_weather", "args": '{"city":"Rochdale"}'}]},
            {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
             "content": "no data", "is_error": True},
            {"role": "system", "content": "later note"},
            {"role": "user", "content": "thanks"}]
    cfg = base_cfg(system="You are a device.", max_tokens=300, temperature=0.5,
                   thinking="max", base_url="https://api.example.test/v1", key="sk-abc")
    url, headers, body = style.request(cfg, hist, [WEATHER, CLOCK], True)
    assert url == "https://api.example.test/v1/responses"
    assert headers["Authorization"] == "Bearer sk-abc"
    assert headers["Accept"] == "text/event-stream"
    got = body_json(body)
    assert got["model"] == "gpt-5-mini" and got["store"] is False and got["stream"] is True
    assert got["instructions"] == "You are a device.\n\nBe brief."
    assert got["max_output_tokens"] == 300
    assert got["reasoning"] == {"effort": "high"}         # gpt-5-mini's highest
    assert got["include"] == ["reasoning.encrypted_content"]
    assert "temperature" not in got                      # reasoning models refuse it
    assert got["input"] == [
        {"role": "user", "content": "Weather? \u00e9\U0001F600"},
        {"role": "assistant", "content": "Looking."},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather",
         "arguments": '{"city":"Rochdale"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "Error: no data"},
        {"role": "system", "content": "later note"},
        {"role": "user", "content": "thanks"}]
    assert got["tools"] == [
        dict(WEATHER, type="function", strict=False),
        {"type": "function", "name": "get_time", "description": "Current time",
         "parameters": {"type": "object", "properties": {}}, "strict": False}]


def test_request_for_a_plain_model_and_presets():
    cfg = base_cfg(model="gpt-4.1-mini", temperature=0.2, thinking="high")
    got = body_json(style.request(cfg, [{"role": "user", "content": "hi"}], None, False)[2])
    assert got["temperature"] == 0.2
    assert "reasoning" not in got and "include" not in got and "tools" not in got
    assert "instructions" not in got and got["stream"] is False
    # another model id in a preset: its family's words (catalogue EFFORTS)
    cfg = base_cfg(model="gpt-nano,model=gpt-5.2,thinking=max")
    assert cfg["model"] == "gpt-5.2" and cfg["thinking_map"] == "effort"
    got = body_json(style.request(cfg, [{"role": "user", "content": "hi"}], None, False)[2])
    assert got["reasoning"] == {"effort": "xhigh"}
    cfg = base_cfg(model="gpt-nano,model=gpt-4.1-mini,thinking=low")
    got = body_json(style.request(cfg, [{"role": "user", "content": "hi"}], None, False)[2])
    assert "reasoning" not in got and "include" not in got


def test_history_content_may_stream_from_a_file(tmp_path):
    """A message whose content is a jsonstream.RawFile (pre-encoded JSON on
    flash) is copied into the request, not read into RAM."""
    f = tmp_path / "text.json"
    f.write_text(json.dumps("a long question \u00e9"))
    rf = jsonstream.RawFile(str(f), 0, f.stat().st_size)
    got = body_json(style.request(base_cfg(), [{"role": "user", "content": rf}], None, False)[2])
    assert got["input"] == [{"role": "user", "content": "a long question \u00e9"}]


# ------------------------------------------------------------ replies

def test_plain_reply_after_a_reasoning_item(srv):
    srv.queue(Text("Hello \u00e9\U0001F600"))
    reply, _ = ask(make_cfg(srv), [{"role": "user", "content": "hi"}])
    assert reply.text == "Hello \u00e9\U0001F600" and reply.finish == "stop"
    assert reply.calls is None
    assert reply.turn == {"role": "assistant", "content": reply.text}     # no echo
    out = srv.last.json
    assert out["include"] == ["reasoning.encrypted_content"]


def test_plain_model_reply(srv):
    srv.queue(Text("Plain."))
    reply, _ = ask(make_cfg(srv, model="gpt-4.1-mini", temperature=0.3),
                   [{"role": "user", "content": "hi"}])
    assert reply.text == "Plain." and srv.last.json["temperature"] == 0.3


def tool_round(srv, cfg, stream, model="gpt-5-mini"):
    hist = [{"role": "user", "content": "Weather and time in Rochdale?"}]
    srv.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})],
                    text="Let me look.", think=Think(size=3000)))
    reply, _ = ask(cfg, hist, [WEATHER, CLOCK], stream)
    assert reply.finish == "tool_calls" and reply.text == "Let me look."
    assert [c["name"] for c in reply.calls] == ["get_weather", "get_time"]
    assert json.loads(reply.calls[0]["args"]) == {"city": "Rochdale"}
    assert reply.calls[1]["args"] == "{}"
    assert all(c["id"].startswith("call_") for c in reply.calls)
    hist.append(reply.turn)
    json.dumps(hist)
    for c in reply.calls:
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "result of " + c["name"]})
    return hist, reply


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_tool_round_replays_reasoning_and_results(srv, stream):
    cfg = make_cfg(srv)
    hist, reply = tool_round(srv, cfg, stream)
    echo = reply.turn["_echo"]
    assert echo["style"] == "responses" and echo["provider"] == "openai"
    kinds = [it["type"] for it in echo["items"]]
    assert kinds == ["reasoning", "message", "function_call", "function_call"]
    rs = echo["items"][0]
    assert rs["id"].startswith("rs_") and len(rs["encrypted_content"]) > 3000
    assert "arguments" not in echo["items"][2]        # rebuilt from tool_calls
    # the follow-up: every item replayed in order, then the outputs
    reply2, _ = ask(cfg, hist, [WEATHER, CLOCK], stream)
    assert reply2.text == "tool said: result of get_weather; result of get_time"
    sent = srv.last.json["input"]
    assert [it.get("type", it.get("role")) for it in sent] == [
        "user", "reasoning", "message", "function_call", "function_call",
        "function_call_output", "function_call_output"]
    assert sent[1] == rs
    assert sent[3]["arguments"] == '{"city":"Rochdale"}' and sent[3]["id"].startswith("fc_")
    assert sent[2]["content"][0]["text"] == "Let me look."


def test_the_service_refuses_a_dropped_reasoning_item_or_result(srv):
    """What the real service answers when a follow-up loses an item: the
    replay above must not do either."""
    cfg = make_cfg(srv)
    hist, reply = tool_round(srv, cfg, False)
    # a result missing
    status, (msg, _, _) = error_of(cfg, hist[:-1], [WEATHER, CLOCK])
    assert status == 400 and msg.startswith("No tool output found for function call call_")
    # the reasoning item dropped from the echo
    turn = dict(hist[1])
    turn["_echo"] = dict(turn["_echo"], items=turn["_echo"]["items"][1:])
    status, (msg, _, _) = error_of(cfg, [hist[0], turn] + hist[2:], [WEATHER, CLOCK])
    assert status == 400 and "without its required 'reasoning' item" in msg
    # encrypted content that is not the service's
    items = list(hist[1]["_echo"]["items"])
    items[0] = dict(items[0], encrypted_content="gAAAAAforged")
    turn["_echo"] = dict(turn["_echo"], items=items)
    status, (msg, _, _) = error_of(cfg, [hist[0], turn] + hist[2:], [WEATHER, CLOCK])
    assert status == 400 and "could not be verified" in msg
    # without an echo (e.g. history from another provider) the turn is
    # rebuilt without item ids, which the service accepts
    turn = dict(hist[1])
    turn["_echo"] = dict(turn["_echo"], provider="groq")
    reply, _ = ask(cfg, [hist[0], turn] + hist[2:], [WEATHER, CLOCK])
    assert reply.text.startswith("tool said:")
    sent = srv.last.json["input"]
    assert [it.get("type", it.get("role")) for it in sent][:4] == [
        "user", "assistant", "function_call", "function_call"]
    assert "id" not in sent[2]


def test_calls_from_a_plain_model_carry_no_echo(srv):
    cfg = make_cfg(srv, model="gpt-4.1-mini")
    srv.queue(Calls([("get_weather", {"city": "Leeds"})]))
    reply, _ = ask(cfg, [{"role": "user", "content": "x"}], [WEATHER], True)
    assert reply.calls[0]["name"] == "get_weather" and "_echo" not in reply.turn


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_incomplete_replies(srv, stream):
    cfg = make_cfg(srv)
    srv.queue(Text("The beginning of a long", finish="length"))
    reply, pieces = ask(cfg, [{"role": "user", "content": "x"}], None, stream)
    assert reply.finish == "length"
    assert reply.text == "The beginning of a long"      # (the driver marks it)
    srv.queue(Text("", finish="content_filter"))
    reply, _ = ask(cfg, [{"role": "user", "content": "x"}], None, stream)
    assert reply.finish == "filter" and reply.text == ""
    srv.queue(Calls([("get_weather", {"city": "Le"})], finish="length"))
    with pytest.raises(StyleError, match=r"cut short \(max_output_tokens\) in a tool call"):
        ask(cfg, [{"role": "user", "content": "x"}], [WEATHER], stream)


def test_whole_reply_of_any_key_order_and_failures():
    body = {"output": [
        {"content": [{"text": "Hi ", "type": "output_text"}], "type": "message", "id": "m1"},
        {"arguments": '{"a":1}', "name": "f", "type": "function_call", "call_id": "c1"},
        {"type": "message", "content": [{"type": "refusal", "refusal": "no"}, 7]}],
        "status": "completed", "instructions": "x" * 5000, "tools": [{"a": [1, 2]}]}
    reply = style.read_reply(base_cfg(), Trickle(body))
    assert reply.text == "Hi no"
    assert reply.calls == [{"id": "c1", "name": "f", "args": '{"a":1}'}]
    body = {"status": "failed", "error": {"code": "server_error", "message": "it broke"},
            "output": []}
    with pytest.raises(StyleError, match="it broke"):
        style.read_reply(base_cfg(), Trickle(body))
    with pytest.raises(StyleError, match="not a JSON object"):
        style.read_reply(base_cfg(), Trickle("[]"))


def test_reply_bounds(srv):
    cfg = make_cfg(srv, max_reply=100)
    srv.queue(Text("x" * 101))
    with pytest.raises(StyleError, match="reply longer than 100"):
        ask(cfg, [{"role": "user", "content": "x"}])
    srv.queue(Calls([("get_weather", {"city": "x" * 200})]))
    with pytest.raises(StyleError, match="arguments longer than 100"):
        ask(cfg, [{"role": "user", "content": "x"}], [WEATHER], True)
    for stream in (False, True):
        srv.queue(Text("hi", think=Think(size=100000)))
        with pytest.raises(StyleError, match="longer than 65536 bytes .reasoning: lower "
                           "the thinking setting"):
            ask(make_cfg(srv), [{"role": "user", "content": "x"}], None, stream)


# ------------------------------------------------------------ streaming

@pytest.mark.parametrize("crlf,comments,chunk", [(False, False, None), (True, True, 3)],
                         ids=["lf", "crlf+keepalive+small-chunks"])
def test_streamed_text(srv, crlf, comments, chunk):
    srv.options(crlf=crlf, comments=comments, chunk_size=chunk)
    text = "Streaming \u00e9\U0001F600 reply in several small deltas."
    srv.queue(Text(text))
    reply, pieces = ask(make_cfg(srv), [{"role": "user", "content": "hi"}], None, True)
    assert reply.text == text and len(pieces) > 5
    assert srv.last.headers["accept"] == "text/event-stream"


class FakeEvent(Trickle):
    def __init__(self, name, data):
        Trickle.__init__(self, dict(data, type=name), 5)
        self.event = name
        self.empty = False


class FakeSSE:
    def __init__(self, events):
        self.events = [FakeEvent(n, d) for n, d in events]

    def next(self):
        return self.events.pop(0) if self.events else None


def test_stream_arguments_keyed_by_output_index():
    """Deltas of two calls interleaved (a server may), keyed by output_index
    whatever the key order; a call without deltas takes its arguments from
    output_item.done."""
    sse = FakeSSE([
        ("response.created", {"response": {"output": [], "instructions": "long"}}),
        ("response.output_item.added", {"item": {"type": "function_call", "call_id": "a",
                                                 "name": "f", "arguments": ""},
                                        "output_index": 0}),
        ("response.output_item.added", {"output_index": 1, "item": {
            "type": "function_call", "call_id": "b", "name": "g"}}),
        ("response.function_call_arguments.delta", {"delta": '{"x"', "output_index": 0}),
        ("response.function_call_arguments.delta", {"output_index": 1, "delta": '{"y":2}'}),
        ("response.function_call_arguments.delta", {"output_index": 0, "delta": ':1}'}),
        ("response.output_item.added", {"output_index": 2, "item": {
            "type": "function_call", "call_id": "c", "name": "h"}}),
        ("response.output_item.done", {"output_index": 2, "item": {
            "type": "function_call", "call_id": "c", "name": "h", "arguments": '{"z":3}'}}),
        ("response.completed", {"response": {"status": "completed", "output": [
            {"type": "function_call", "arguments": "x" * 3000}]}}),
    ])
    reply = style.read_stream(base_cfg(), sse, lambda p: None)
    assert reply.calls == [{"id": "a", "name": "f", "args": '{"x":1}'},
                           {"id": "b", "name": "g", "args": '{"y":2}'},
                           {"id": "c", "name": "h", "args": '{"z":3}'}]


def test_stream_errors_after_200():
    sse = FakeSSE([("response.output_text.delta", {"delta": "Hi"}),
                   ("error", {"code": "server_error", "message": "overloaded, retry"})])
    with pytest.raises(StyleError, match="overloaded, retry"):
        style.read_stream(base_cfg(), sse, lambda p: None)
    sse = FakeSSE([("response.failed", {"response": {"status": "failed", "error": {
        "code": "server_error", "message": "model failed"}}})])
    with pytest.raises(StyleError, match="model failed"):
        style.read_stream(base_cfg(), sse, lambda p: None)
    sse = FakeSSE([("response.output_text.delta", {"delta": "Hi"})])
    with pytest.raises(StyleError, match="stream ended early"):
        style.read_stream(base_cfg(), sse, lambda p: None)


@pytest.mark.parametrize("kind", [None, "failed"], ids=["error-event", "response.failed"])
def test_midstream_failure(srv, kind):
    cfg = make_cfg(srv)
    srv.queue(Fail(500, "The server had an error", kind=kind, midstream=True))
    pieces = []
    with send(cfg, [{"role": "user", "content": "x"}], None, True) as r:
        assert r.status == 200
        with pytest.raises(StyleError, match="The server had an error"):
            style.read_stream(cfg, httpc.SSE(r), pieces.append)
    assert pieces == ["Partial"]


def test_stream_that_dies(srv):
    cfg = make_cfg(srv)
    srv.options(die_after=6)
    srv.queue(Text("This reply is cut off before its end event."))
    with send(cfg, [{"role": "user", "content": "x"}], None, True) as r:
        with pytest.raises((StyleError, httpc.HTTPError)):
            style.read_stream(cfg, httpc.SSE(r), lambda p: None)


# ------------------------------------------------------------ errors, models

def test_error_replies(srv):
    status, (msg, retry, kind) = error_of(make_cfg(srv, key="sk-wrong-123456"),
                                          [{"role": "user", "content": "x"}])
    assert status == 401 and kind == "key" and "Incorrect API key" in msg
    status, (msg, retry, kind) = error_of(make_cfg(srv, model="gpt-9"),
                                          [{"role": "user", "content": "x"}])
    assert status == 404 and kind == "model"
    # a value the service refuses: its own words
    cfg = make_cfg(srv, max_tokens=5)
    status, (msg, _, _) = error_of(cfg, [{"role": "user", "content": "x"}])
    assert status == 400 and "Invalid 'max_output_tokens'" in msg


# ------------------------------------------------------------ through ai.ask

def overrides(srv, **kw):
    o = {"provider": "openai", "base_url": srv.base_url, "model": "gpt-5-mini",
         "key": "sk-test", "timeout": 10}
    o.update(kw)
    return o


def test_ask_end_to_end_with_a_tool_round(srv, flash):
    import ai
    hist = [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hello"}]
    srv.queue(Text("Hi there."), Calls([("get_weather", {"city": "Leeds"})]))
    reply, err, calls = ai.ask(hist, overrides(srv))
    assert (reply, err, calls) == ("Hi there.", None, None)
    assert srv.last.path == "/v1/responses"
    hist.append({"role": "user", "content": "Weather in Leeds?"})
    pieces = []
    reply, err, calls = ai.ask(hist, overrides(srv, tools=[WEATHER], stream=pieces.append))
    assert err is None and calls[0]["name"] == "get_weather"
    hist.append({"role": "tool", "tool_call_id": calls[0]["id"], "name": "get_weather",
                 "content": "wet"})
    reply, err, calls = ai.ask(hist, overrides(srv, tools=[WEATHER], stream=pieces.append))
    assert (reply, err) == ("tool said: wet", None)
    assert srv.last.json["instructions"] == "Be terse."
    assert srv.connections == 1


def test_style_setting_switches_between_the_two_endpoints(srv, flash):
    import ai
    import store
    store.update({"ai.chat.provider": "openai", "ai.chat.key": "sk-test",
                  "ai.chat.base_url": srv.base_url, "ai.chat.model": "gpt-4.1-mini"})
    srv.queue(Text("one"), Text("two"))
    assert ai.ask_simple("x")[0] == "one" and srv.last.path == "/v1/responses"
    store.set("ai.chat.style", "openai")
    assert ai.ask_simple("x")[0] == "two" and srv.last.path == "/v1/chat/completions"
    store.set("ai.chat.style", "gemini")
    _, err = ai.ask_simple("x")
    assert err == "ai.chat.style: openai speaks only the responses style, not 'gemini'"
    store.update({"ai.chat.style": "responses", "ai.chat.provider": "anthropic",
                  "ai.chat.key": "k"})
    _, err = ai.ask_simple("x")
    assert "anthropic speaks only the anthropic style" in err


def test_fetch_models_and_errors_end_to_end(srv, flash):
    import ai
    import store
    store.update({"ai.general.provider": "openai", "ai.general.base_url": srv.base_url,
                  "ai.general.key": "sk-test"})
    models, err = ai.fetch_models()
    assert err is None and models == list(FakeResponses.MODELS["openai"])
    _, err, _ = ai.ask([{"role": "user", "content": "x"}], overrides(srv, key="sk-bad-key-999"))
    assert err.startswith("openai: 401 Incorrect API key") and "sk-bad-key-999" not in err
    assert err.endswith('(check overrides["key"])')
    srv.queue(Raw({"status": "completed", "output": []}))
    _, err, _ = ai.ask([{"role": "user", "content": "x"}], overrides(srv))
    assert err == "openai: empty reply (finish reason: stop)"


# ------------------------------------------------------------ MicroPython

HEAP = "35K"


def _scenario(mpy, tmp_path, heap, stream, live=False, data_only=False):
    with FakeResponses(models=["gpt-5-mini"]) as s:
        s.data_only = data_only
        s.options(chunked=True)
        s.queue(Text("Hello from the fake."),
                Calls([("get_weather", {"city": "Rochdale"})], think=Think(size=2000)))
        r = mpy.run("ai_responses", heap=heap, timeout=60,
                    args=[s.base_url, "gpt-5-mini", "sk-test", tmp_path,
                          "stream" if stream else "whole"], live=live)
        return r, s


@pytest.mark.parametrize("stream,data_only", [(False, False), (True, False), (True, True)],
                         ids=["whole", "stream", "stream-data-only"])
def test_micropython_chat_with_a_tool_round(mpy, measure, tmp_path, stream, data_only):
    r, s = _scenario(mpy, tmp_path, HEAP, stream, data_only=data_only)
    assert r.rc == 0, r
    assert "PLAIN 'Hello from the fake.' None 2" in r.out, r.out
    assert "CALLS None [('get_weather', '{\"city\":\"Rochdale\"}')]" in r.out, r.out
    assert "FOLLOWUP 'tool said: 12 C, drizzle in get_weather' None 6" in r.out, r.out
    assert "ECHO ['reasoning', 'function_call']" in r.out, r.out
    last = s.last.json["input"]
    assert [it.get("type", it.get("role")) for it in last][-3:] == [
        "reasoning", "function_call", "function_call_output"]
    live, _ = _scenario(mpy, tmp_path, HEAP, stream, live=True, data_only=data_only)
    assert live.rc == 0, live
    assert live.working < 24 * 1024

    def passes(heap):
        x, _ = _scenario(mpy, tmp_path, heap, stream, data_only=data_only)
        return x.rc == 0 and "FOLLOWUP 'tool said" in x.out
    measure.smallest("heap", "responses %s%s: chat and a tool round with reasoning"
                     % ("stream" if stream else "whole", " data-only" if data_only else ""),
                     passes, HEAP, imports=r.imports, working=live.working)


# an ai.run tool round whose follow-up replays a reasoning item with 2.7 KB
# of encrypted content, as the console's chat with tools does: a local
# tool costs no MCP client, a streamed reply no more than a whole one but
# its SSE reader (one pull parser, no rules compiled per reply)
RUN_HEAP = "37K"


def _run_scenario(mpy, tmp_path, heap, stream, data_only):
    with FakeResponses(models=["gpt-5-mini"]) as s:
        s.data_only = data_only
        s.options(chunked=True)
        s.queue(Calls([("get_weather", {"city": "Rochdale"})], think=Think(size=2000)))
        root = tmp_path / ("run-%s" % heap)
        root.mkdir()
        r = mpy.run("ai_run_responses", heap=heap, timeout=60,
                    args=[s.base_url, "gpt-5-mini", "sk-test", root,
                          "stream" if stream else "whole"])
        return r, s.last.json["input"] if s.requests else None


@pytest.mark.parametrize("stream,data_only", [(False, False), (True, False), (True, True)],
                         ids=["whole", "stream", "stream-data-only"])
def test_micropython_run_with_a_reasoning_item(mpy, measure, tmp_path, stream, data_only):
    r, replayed = _run_scenario(mpy, tmp_path, RUN_HEAP, stream, data_only)
    assert r.rc == 0, r
    assert ("RUN 'tool said: 12 C, drizzle in Rochdale' None "
            "['user', 'assistant', 'tool', 'assistant']") in r.out, r.out
    assert "ECHO ['reasoning', 'function_call']" in r.out
    rs = [it for it in replayed if it.get("type") == "reasoning"]
    assert len(rs) == 1 and len(rs[0]["encrypted_content"]) > 2700

    def passes(heap):
        x = _run_scenario(mpy, tmp_path, heap, stream, data_only)[0]
        return x.rc == 0 and "RUN 'tool said: 12 C, drizzle in Rochdale' None" in x.out
    measure.smallest("heap", "responses %s%s: ai.run replaying a 2.7 KB reasoning item"
                     % ("stream" if stream else "whole", " data-only" if data_only else ""),
                     passes, RUN_HEAP)
