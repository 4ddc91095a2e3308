"""lib/ai/styles/openai.py against the FakeOpenAI server (every flavor).

The style functions are driven the way lib/ai drives them (request ->
encoded_len + dump through httpc -> read_reply / read_stream / error_info),
then end to end through ai.ask, then under the MicroPython unix port in a
small heap (CHAT_HEAP below; scenarios ai_openai_*.py).
"""
import json

import pytest

import httpc
import jsonstream
from ai.styles import StyleError
from ai.styles import openai as style
from styletest import Trickle, base_cfg, body_json, style_helpers
from fakes import Calls, Fail, FakeOpenAI, Raw, Text, Think

FLAVORS = ("openai", "groq", "ollama", "kimi")
MODEL = {"openai": "gpt-4o-mini", "groq": "llama-3.3-70b-versatile",
         "ollama": "llama3.2:latest", "kimi": "kimi-k2-0905-preview"}
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
CLOCK = {"name": "get_time", "description": "Current time"}


@pytest.fixture(params=FLAVORS)
def srv(request):
    with FakeOpenAI(flavor=request.param) as s:
        yield s


def make_cfg(srv, **kw):
    o = {"provider": srv.flavor, "name": srv.flavor, "style": "openai",
         "base_url": srv.base_url, "key": None if srv.flavor == "ollama" else "sk-test",
         "model": MODEL[srv.flavor]}
    o.update(kw)
    return base_cfg(**o)


send, ask, error_of = style_helpers(style)


# ------------------------------------------------------------ request shape

class Rewind:
    """A history that is not a list: every iteration restarts (the driver
    serializes twice)."""

    def __init__(self, items):
        self.items = items
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        return iter(self.items)


def test_request_translates_history_lazily():
    hist = Rewind([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Rochdale? \u00e9\U0001F600"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "get_weather", "args": '{"city":"Rochdale"}'},
            {"id": "c2", "name": "get_time", "args": ""}],
         "_echo": {"style": "openai", "provider": "openai",
                   "reasoning_content": "hmm"}},
        {"role": "tool", "tool_call_id": "c1", "name": "get_weather",
         "content": "12 C"},
        {"role": "tool", "tool_call_id": "c2", "name": "get_time",
         "content": "no clock", "is_error": True},
        {"role": "assistant", "content": "It is 12 C.",
         "_echo": {"style": "gemini", "parts": "[]"}},
        {"role": "user", "content": "thanks"},
    ])
    cfg = base_cfg(system="You are a device.", max_tokens=300, temperature=0.5,
                   thinking="max", base_url="https://api.example.test/v1", key="sk-abc")
    url, headers, body = style.request(cfg, hist, [WEATHER, CLOCK], True)
    assert url == "https://api.example.test/v1/chat/completions"
    assert headers["Authorization"] == "Bearer sk-abc"
    assert headers["Accept"] == "text/event-stream"
    assert headers["Content-Type"] == "application/json"
    got = body_json(body)
    assert hist.passes >= 3          # dumps, dump, encoded_len: restartable
    assert got["model"] == "gpt-5-mini" and got["stream"] is True
    assert got["max_completion_tokens"] == 300 and "max_tokens" not in got
    assert got["temperature"] == 0.5
    assert got["reasoning_effort"] == "high"
    assert got["stream_options"] == {"include_obfuscation": False}
    m = got["messages"]
    assert m[0] == {"role": "system", "content": "You are a device.\n\nBe brief."}
    assert m[1]["content"] == "Weather in Rochdale? \u00e9\U0001F600"
    assert m[2] == {"role": "assistant", "content": None,
                    "reasoning_content": "hmm", "tool_calls": [
                        {"id": "c1", "type": "function", "function": {
                            "name": "get_weather", "arguments": '{"city":"Rochdale"}'}},
                        {"id": "c2", "type": "function", "function": {
                            "name": "get_time", "arguments": "{}"}}]}
    assert m[3] == {"role": "tool", "tool_call_id": "c1", "content": "12 C"}
    assert m[4] == {"role": "tool", "tool_call_id": "c2",
                    "content": "Error: no clock"}
    assert m[5] == {"role": "assistant", "content": "It is 12 C."}  # gemini echo ignored
    assert m[6] == {"role": "user", "content": "thanks"}
    assert got["tools"] == [
        {"type": "function", "function": WEATHER},
        {"type": "function", "function": {
            "name": "get_time", "description": "Current time",
            "parameters": {"type": "object", "properties": {}}}}]


@pytest.mark.parametrize("provider,model,field,effort", [
    ("openai", None, "max_completion_tokens", {"minimal": "minimal", "max": "high"}),
    # Groq: only the models that have the knob
    ("groq", "openai/gpt-oss-20b", "max_completion_tokens",
     {"minimal": "low", "medium": "medium", "max": "high"}),
    ("groq", "qwen/qwen3-32b", "max_completion_tokens", {"minimal": "none", "high": "default"}),
    ("groq", "llama-3.3-70b-versatile", "max_completion_tokens", {"high": None}),
    ("ollama", None, "max_tokens", {"low": "low", "max": "high"}),
    ("kimi", None, "max_tokens", {"high": None}),
    ("copilot", None, "max_completion_tokens", {"high": None}),
])
def test_request_tokens_and_thinking_per_provider(provider, model, field, effort):
    for word, want in effort.items():
        cfg = base_cfg(provider=provider, max_tokens=50, thinking=word, model=model,
                       key=None if provider == "ollama" else "k")
        url, headers, body = style.request(cfg, [{"role": "user", "content": "hi"}],
                                           None, False)
        got = body_json(body)
        assert got[field] == 50
        assert got.get("reasoning_effort") == want
        assert got["stream"] is False and "stream_options" not in got
        assert "tools" not in got
        assert headers["Accept"] == "application/json"
        assert ("Authorization" in headers) == (provider != "ollama")
        assert headers.get("X-Initiator") == ("user" if provider == "copilot" else None)


def test_request_system_only_from_cfg_and_echo_only_to_its_provider():
    hist = [{"role": "user", "content": "a"},
            {"role": "assistant", "content": "b",
             "_echo": {"style": "openai", "provider": "kimi",
                       "reasoning_content": "secret thoughts"}},
            {"role": "user", "content": "c"}]
    got = body_json(style.request(base_cfg(system="S"), hist, None, False)[2])
    assert got["messages"][0] == {"role": "system", "content": "S"}
    assert "reasoning_content" not in got["messages"][2]     # openai != kimi
    got = body_json(style.request(base_cfg(provider="kimi"), hist, None, False)[2])
    assert got["messages"][0]["role"] == "user"
    assert got["messages"][1]["reasoning_content"] == "secret thoughts"
    # an empty history still carries the system prompt
    got = body_json(style.request(base_cfg(system="S"), [], None, False)[2])
    assert got["messages"] == [{"role": "system", "content": "S"}]


# ------------------------------------------------------------ whole replies

def test_plain_reply(srv):
    cfg = make_cfg(srv, system="Be kind.", max_tokens=64)
    srv.queue(Text("Hello from the fake \u00e9\U0001F600"))
    reply, _ = ask(cfg, [{"role": "user", "content": "hi"}])
    assert reply.text == "Hello from the fake \u00e9\U0001F600"
    assert reply.finish == "stop" and reply.calls is None
    assert reply.turn == {"role": "assistant", "content": reply.text}
    sent = srv.last.json
    assert sent["messages"][0] == {"role": "system", "content": "Be kind."}
    if srv.flavor == "ollama":
        assert "authorization" not in srv.last.headers
    else:
        assert srv.last.headers["authorization"] == "Bearer sk-test"


@pytest.mark.parametrize("finish,want", [("length", "length"),
                                         ("content_filter", "filter"),
                                         ("weird_reason", "weird_reason")])
def test_finish_reasons(finish, want):
    with FakeOpenAI() as s:
        s.queue(Text("", finish=finish))
        reply, _ = ask(make_cfg(s), [{"role": "user", "content": "x"}])
        assert reply.text == "" and reply.finish == want


def tool_round(srv, cfg, stream):
    """Parallel calls, then the follow-up the fake validates strictly."""
    hist = [{"role": "user", "content": "Weather and time in Rochdale?"}]
    srv.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})],
                    text="Let me look."))
    reply, _ = ask(cfg, hist, [WEATHER, CLOCK], stream)
    assert reply.finish == "tool_calls"
    assert [c["name"] for c in reply.calls] == ["get_weather", "get_time"]
    assert json.loads(reply.calls[0]["args"]) == {"city": "Rochdale"}
    assert json.loads(reply.calls[1]["args"]) == {}
    assert reply.text == "Let me look."
    ids = [c["id"] for c in reply.calls]
    if srv.flavor == "kimi":
        assert ids == ["functions.get_weather:0", "functions.get_time:1"]
    else:
        assert all(i.startswith("call_") for i in ids) and ids[0] != ids[1]
    assert reply.turn["tool_calls"] == reply.calls
    hist.append(reply.turn)
    json.dumps(hist)                     # history is JSON-serializable
    hist.append({"role": "tool", "tool_call_id": ids[0], "name": "get_weather",
                 "content": "12 C, drizzle"})
    # one result missing: the fake answers 400 like the real service
    status, (msg, retry, kind) = error_of(cfg, hist, [WEATHER, CLOCK], stream)
    assert status == 400 and ids[1] in msg and "tool_call_id" in msg
    assert retry is None and kind is None
    hist.append({"role": "tool", "tool_call_id": ids[1], "name": "get_time",
                 "content": "13:05"})
    reply, _ = ask(cfg, hist, [WEATHER, CLOCK], stream)
    assert reply.text == "tool said: 12 C, drizzle; 13:05"
    assert reply.calls is None and reply.finish == "stop"
    return hist


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_parallel_tool_calls_round_trip(srv, stream):
    tool_round(srv, make_cfg(srv), stream)


def test_invalid_arguments_are_kept_as_text():
    with FakeOpenAI() as s:
        s.queue(Calls([("get_weather", '{"city": "Roch')]))
        reply, _ = ask(make_cfg(s), [{"role": "user", "content": "x"}], [WEATHER])
        assert reply.calls[0]["args"] == '{"city": "Roch'


def test_groq_tool_use_failed():
    with FakeOpenAI(flavor="groq") as s:
        s.queue(Calls([("get_weather", "{not json")]))
        status, (msg, retry, kind) = error_of(make_cfg(s), [{"role": "user", "content": "x"}],
                                              [WEATHER])
        assert status == 400 and msg.startswith("Failed to call a function.")
        assert kind is None


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_kimi_reasoning_content_is_echoed(stream):
    with FakeOpenAI(flavor="kimi") as s:
        cfg = make_cfg(s, model="kimi-k2-thinking", thinking="high")
        hist = [{"role": "user", "content": "weather?"}]
        s.queue(Calls([("get_weather", {"city": "Rochdale"})],
                      think=Think("The user wants the weather. I will call the tool.")))
        pieces = []
        with send(cfg, hist, [WEATHER], stream) as r:
            assert r.status == 200
            if stream:
                reply = style.read_stream(cfg, httpc.SSE(r), pieces.append)
            else:
                reply = style.read_reply(cfg, r)
        assert "reasoning_effort" not in s.last.json          # no knob on Kimi
        assert "think" not in "".join(pieces)                  # thinking never to the sink
        echo = reply.turn["_echo"]
        assert echo == {"style": "openai", "provider": "kimi", "reasoning_content":
                        "The user wants the weather. I will call the tool."}
        hist.append(reply.turn)
        hist.append({"role": "tool", "tool_call_id": reply.calls[0]["id"],
                     "name": "get_weather", "content": "12 C"})
        # without the echo the fake refuses, like Kimi
        bare = dict(reply.turn)
        del bare["_echo"]
        status, (msg, _, _) = error_of(cfg, [hist[0], bare, hist[2]], [WEATHER])
        assert status == 400 and "reasoning_content" in msg
        reply, _ = ask(cfg, hist, [WEATHER], stream)
        assert reply.text == "tool said: 12 C"
        assert s.last.json["messages"][1]["reasoning_content"].startswith("The user")


@pytest.mark.parametrize("flavor", ["ollama", "groq"])
def test_reasoning_field_is_not_text(flavor):
    with FakeOpenAI(flavor=flavor) as s:
        cfg = make_cfg(s)
        for stream in (False, True):
            s.queue(Text("Answer.", think=Think("private musing")))
            reply, pieces = ask(cfg, [{"role": "user", "content": "q"}], None, stream)
            assert reply.text == "Answer." and "_echo" not in reply.turn
            assert "musing" not in "".join(pieces or [])


def test_chunked_whole_body_in_small_pieces():
    with FakeOpenAI() as s:
        s.options(chunked=True, chunk_size=3)
        text = "chunked body " * 40
        s.queue(Text(text), Calls([("get_weather", {"city": "R" * 500})]))
        reply, _ = ask(make_cfg(s), [{"role": "user", "content": "x"}])
        assert reply.text == text
        reply, _ = ask(make_cfg(s), [{"role": "user", "content": "x"}], [WEATHER])
        assert json.loads(reply.calls[0]["args"]) == {"city": "R" * 500}


def test_reply_bound():
    with FakeOpenAI() as s:
        cfg = make_cfg(s, max_reply=100)
        for stream in (False, True):
            s.queue(Text("x" * 101))
            with send(cfg, [{"role": "user", "content": "x"}], None, stream) as r:
                with pytest.raises(StyleError, match="longer than 100"):
                    if stream:
                        style.read_stream(cfg, httpc.SSE(r), lambda p: None)
                    else:
                        style.read_reply(cfg, r)
            s.queue(Calls([("get_weather", {"city": "x" * 200})]))
            with send(cfg, [{"role": "user", "content": "x"}], [WEATHER], stream) as r:
                with pytest.raises(StyleError, match="arguments longer than 100"):
                    if stream:
                        style.read_stream(cfg, httpc.SSE(r), lambda p: None)
                    else:
                        style.read_reply(cfg, r)


# ------------------------------------------------------------ streaming

@pytest.mark.parametrize("crlf,comments", [(False, False), (True, True), (False, True)],
                         ids=["lf", "crlf+keepalive", "lf+keepalive"])
def test_streamed_text(srv, crlf, comments):
    srv.options(crlf=crlf, comments=comments)
    text = "Streaming \u00e9\U0001F600 reply in several small deltas."
    srv.queue(Text(text))
    reply, pieces = ask(make_cfg(srv), [{"role": "user", "content": "hi"}],
                        None, True)
    assert reply.text == text and reply.finish == "stop"
    assert len(pieces) > 5                         # really piece by piece
    assert srv.last.json["stream"] is True
    assert srv.last.headers["accept"] == "text/event-stream"


def test_stream_fragments_split_in_http_chunks():
    with FakeOpenAI() as s:
        s.options(chunk_size=2, crlf=True)
        s.queue(Calls([("get_weather", {"city": "Rochdale \u00e9"}), ("get_time", {})],
                      text="ok"))
        reply, pieces = ask(make_cfg(s), [{"role": "user", "content": "x"}],
                            [WEATHER, CLOCK], True)
        assert json.loads(reply.calls[0]["args"]) == {"city": "Rochdale \u00e9"}
        assert reply.text == "ok" and pieces == ["ok"]


class FakeEvent(Trickle):
    def __init__(self, data, event="message"):
        # at most 3 bytes per read: every boundary case of the [DONE] peek
        Trickle.__init__(self, data, 3)
        self.event = event
        self.empty = not data


class FakeSSE:
    def __init__(self, datas):
        self.events = [d if isinstance(d, FakeEvent) else FakeEvent(d) for d in datas]

    def next(self):
        return self.events.pop(0) if self.events else None


def chunk(delta, finish=None):
    return json.dumps({"choices": [{"index": 0, "delta": delta,
                                    "finish_reason": finish}]}).encode()


def test_stream_fragments_any_key_order_and_no_index():
    frag0 = {"function": {"arguments": '{"ci'}, "index": 0, "id": "a",
             "type": "function"}
    frag0["function"]["name"] = "get_weather"
    sse = FakeSSE([
        b"",                                     # a priming event
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [frag0]}),
        chunk({"tool_calls": [{"function": {"arguments": 'ty":"R"}'}, "index": 0}]}),
        chunk({"tool_calls": [{"index": 1, "id": "b", "function": {
            "name": "get_time", "arguments": {"tz": "UTC"}}}]}),   # object args
        chunk({"tool_calls": [{"id": "c", "function": {"name": "x", "arguments": "{}"}}]}),
        chunk({}, "tool_calls"),
        json.dumps({"choices": [], "usage": {"total_tokens": 3}}).encode(),
        b"[DONE]",
    ])
    reply = style.read_stream(base_cfg(), sse, lambda p: None)
    assert reply.calls == [
        {"id": "a", "name": "get_weather", "args": '{"city":"R"}'},
        {"id": "b", "name": "get_time", "args": '{"tz":"UTC"}'},
        {"id": "c", "name": "x", "args": "{}"}]
    assert reply.text == "" and reply.finish == "tool_calls"


def test_stream_done_must_come():
    with pytest.raises(StyleError, match="stream ended early"):
        style.read_stream(base_cfg(), FakeSSE([chunk({"content": "hi"}, "stop")]),
                          lambda p: None)
    # short data that only looks like the start of [DONE]
    with pytest.raises(jsonstream.JSONError):
        style.read_stream(base_cfg(), FakeSSE([b"[DON"]), lambda p: None)


def test_stream_error_event_name():
    sse = FakeSSE([chunk({"content": "hi"}),
                   FakeEvent(b'{"error":{"message":"overloaded, retry"}}', "error")])
    with pytest.raises(StyleError, match="overloaded, retry"):
        style.read_stream(base_cfg(), sse, lambda p: None)
    sse = FakeSSE([FakeEvent(b'"plain failure"', "error")])
    with pytest.raises(StyleError, match="plain failure"):
        style.read_stream(base_cfg(), sse, lambda p: None)


def test_midstream_error(srv):
    cfg = make_cfg(srv)
    srv.queue(Fail(503, "The engine is currently overloaded", midstream=True))
    pieces = []
    with send(cfg, [{"role": "user", "content": "x"}], None, True) as r:
        assert r.status == 200
        with pytest.raises(StyleError, match="currently overloaded"):
            style.read_stream(cfg, httpc.SSE(r), pieces.append)
    assert "".join(pieces).startswith("Parti")     # deltas arrived before it


@pytest.mark.parametrize("die", [1, 3, 7])
def test_stream_that_dies(srv, die):
    """The socket closes mid-stream (no final chunk): the transport says so
    (the driver words HTTPError as a network failure)."""
    cfg = make_cfg(srv)
    srv.options(die_after=die)
    srv.queue(Text("This reply is cut off before its end marker."))
    pieces = []
    with send(cfg, [{"role": "user", "content": "x"}], None, True) as r:
        with pytest.raises(httpc.HTTPError, match="connection closed"):
            style.read_stream(cfg, httpc.SSE(r), pieces.append)
    assert len(pieces) < 10


SSE_BODY = "".join("data: %s\n\n" % json.dumps(
    {"choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}]})
    for w in ("one ", "two ", "three")) + "data: %s\n\n" % json.dumps(
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})


@pytest.mark.parametrize("cut", [0, 1, 2, 4])
def test_stream_ends_cleanly_without_done(cut):
    """A well-framed body that simply stops before `data: [DONE]`."""
    events = SSE_BODY.split("\n\n")[:cut]
    body = "".join(e + "\n\n" for e in events)
    with FakeOpenAI() as s:
        cfg = make_cfg(s)
        s.queue(Raw(body, content_type="text/event-stream"),
                Raw(body + "data: [DONE]\n\n", content_type="text/event-stream"))
        with send(cfg, [{"role": "user", "content": "x"}], None, True) as r:
            with pytest.raises(StyleError, match="stream ended early"):
                style.read_stream(cfg, httpc.SSE(r), lambda p: None)
        reply, pieces = ask(cfg, [{"role": "user", "content": "x"}], None, True)
        assert reply.text == "one two three"[:len("".join(pieces))]
        assert reply.finish == ("stop" if cut == 4 else None)


# ------------------------------------------------------------ errors

@pytest.mark.parametrize("status,kind,part", [
    (400, None, "Invalid request."),
    (401, "key", "Incorrect API key"),
    (403, None, "not allowed"),
    (404, "model", "does not exist"),
    (429, None, "Rate limit reached"),
    (500, None, "server had an error"),
    (503, None, "overloaded"),
])
def test_error_bodies(srv, status, kind, part):
    srv.queue(Fail(status))
    got, (msg, retry, k) = error_of(make_cfg(srv), [{"role": "user", "content": "x"}])
    assert got == status
    if srv.flavor == "kimi" and status in (401, 404):
        kind = {401: "key", 404: "model"}[status]
    assert k == kind
    assert part in msg and len(msg) <= 300
    assert retry == (1.0 if status == 429 else None)


def test_real_auth_and_model_errors(srv):
    if srv.flavor != "ollama":
        st, (msg, _, kind) = error_of(make_cfg(srv, key="sk-wrong-key-123"),
                                      [{"role": "user", "content": "x"}])
        assert st == 401 and kind == "key" and "sk-wrong-key-123" not in msg
    st, (msg, _, kind) = error_of(make_cfg(srv, model="no-such-model"),
                                  [{"role": "user", "content": "x"}])
    assert st == 404 and kind == "model" and "no-such-model" in msg


@pytest.mark.parametrize("body,status,want", [
    (b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
     502, "502 Bad Gateway"),
    (b"<html><body><h1>oops</h1></body></html>", 500, "oops"),
    (b"<html><body></body></html>", 500, "HTTP 500"),
    (b"upstream connect error or disconnect/reset before headers", 503,
     "upstream connect error or disconnect/reset before headers"),
    (b"", 500, "HTTP 500"),
    (b"\xff\xfe\x00garbage\xc3", 500, "garbage"),
    (b'{"error": "model \\"llama9\\" not found, try pulling it first"}', 404,
     'model "llama9" not found, try pulling it first'),
    (b'{"error": {"message": "' + b"long " * 400 + b'", "type": "x"}}', 400, "long long"),
    (b'{"error": {"type": "server_error", "message": null}}', 500, "server_error"),
    (b'{"detail": "Not authenticated"}', 401, "Not authenticated"),
    (b'{"error": {"message": "Rate limit reached. Please try again in 1m2.5s.",'
     b' "code": "rate_limit_exceeded"}}', 429, "Please try again in 1m2.5s."),
    (b'{"error": {"message": "cut', 500, "cut"),
])
def test_error_bodies_odd(body, status, want):
    with FakeOpenAI() as s:
        s.queue(Raw(body, status=status, content_type="text/html"))
        got, (msg, retry, kind) = error_of(make_cfg(s), [{"role": "user", "content": "x"}])
        assert got == status
        assert want in msg and len(msg) <= 300
        if status == 429:
            assert retry == 62.5


def test_try_again_forms():
    from ai.styles.openai_errors import _try_again as t
    assert t("Please try again in 20ms.") == 0.02
    assert t("Please try again in 7.66s. Visit") == 7.66
    assert t("try again in 2m59.5s") == 179.5
    assert t("try again in 1h") == 3600
    assert t("try again later") is None
    assert t("nothing") is None


def test_error_info_never_raises():
    class Broken:
        def readinto(self, buf):
            raise OSError(104, "reset")
    msg, retry, kind = style.error_info(500, Broken(), {})
    assert msg == "HTTP 500" and retry is None


# ------------------------------------------------------------ models

def test_models(srv):
    cfg = make_cfg(srv)
    url, headers = style.models_request(cfg, None)
    assert url == srv.base_url + "/models"
    got = []
    with httpc.request("GET", url, headers, timeout=10) as r:
        assert r.status == 200
        assert style.read_models(cfg, r, got.append) is None
    assert got == list(FakeOpenAI.MODELS[srv.flavor])


def test_models_large_list():
    with FakeOpenAI(models=20000) as s:
        cfg = make_cfg(s)
        url, headers = style.models_request(cfg, None)
        got = []
        with httpc.request("GET", url, headers, timeout=30) as r:
            style.read_models(cfg, r, got.append)
        assert len(got) == 20000 and got[-1] == "fake-model-%05d" % (20000 - 4 - 1)


def test_models_bad_key():
    with FakeOpenAI(key="sk-right") as s:
        cfg = make_cfg(s, key="sk-wrong")
        url, headers = style.models_request(cfg, None)
        with httpc.request("GET", url, headers, timeout=10) as r:
            msg, _, kind = style.error_info(r.status, r, r.headers)
        assert r.status == 401 and kind == "key"


# ------------------------------------------------------------ end to end (ai.ask)

def overrides(srv, **kw):
    o = {"provider": srv.flavor, "base_url": srv.base_url, "model": MODEL[srv.flavor],
         "timeout": 10, "style": "openai"}     # OpenAI's default is responses
    if srv.flavor != "ollama":
        o["key"] = "sk-test"
    o.update(kw)
    return o


def test_ask_end_to_end(srv, flash):
    import ai
    model = "kimi-k2-thinking" if srv.flavor == "kimi" else MODEL[srv.flavor]
    think = Think("I need the weather tool.")
    srv.queue(Text("Hi there."),
              Calls([("get_weather", {"city": "Rochdale"}),
                     ("get_weather", {"city": "Leeds"})], think=think))
    hist = [{"role": "system", "content": "Be terse."},
            {"role": "user", "content": "hello"}]
    reply, err, calls = ai.ask(hist, overrides(srv, model=model))
    assert (reply, err, calls) == ("Hi there.", None, None) and len(hist) == 3
    hist.append({"role": "user", "content": "Weather in Rochdale and Leeds?"})
    pieces = []
    reply, err, calls = ai.ask(hist, overrides(srv, model=model, tools=[WEATHER],
                                               stream=pieces.append))
    assert err is None and reply == "" and pieces == []
    assert [json.loads(c["args"])["city"] for c in calls] == ["Rochdale", "Leeds"]
    if srv.flavor == "kimi":
        assert hist[-1]["_echo"]["reasoning_content"] == think.text
    for c in calls:
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "wet in " + json.loads(c["args"])["city"]})
    # the empty queue answers "tool said: ..." only when every result is there
    reply, err, calls = ai.ask(hist, overrides(srv, model=model, tools=[WEATHER],
                                               stream=pieces.append))
    assert (reply, err, calls) == ("tool said: wet in Rochdale; wet in Leeds", None, None)
    assert "".join(pieces) == reply
    sent = srv.last.json
    assert sent["messages"][0] == {"role": "system", "content": "Be terse."}
    assert [m["role"] for m in sent["messages"]] == [
        "system", "user", "assistant", "user", "assistant", "tool", "tool"]
    json.dumps(hist)
    assert srv.connections == 1                  # one kept-alive connection


def test_ask_end_to_end_errors(flash):
    import ai
    import time
    with FakeOpenAI() as srv:
        _, err, _ = ai.ask([{"role": "user", "content": "x"}],
                           overrides(srv, key="sk-wrong-12345"))
        assert err.startswith("openai: 401 Incorrect API key provided") and "(check" in err
        assert "sk-wrong-12345" not in err
        _, err, _ = ai.ask([{"role": "user", "content": "x"}],
                           overrides(srv, model="gpt-9"))
        assert err.startswith("openai: 404 The model `gpt-9` does not exist") and "(check" in err
        srv.queue(Fail(503, "The engine is overloaded", midstream=True))
        pieces = []
        _, err, _ = ai.ask([{"role": "user", "content": "x"}],
                           overrides(srv, stream=pieces.append))
        assert err == "openai: The engine is overloaded" and pieces
        srv.options(die_after=2)
        srv.queue(Text("cut short"))
        _, err, _ = ai.ask([{"role": "user", "content": "x"}],
                           overrides(srv, stream=lambda p: None))
        assert err.startswith("openai: connection closed")
        srv.options()
        # "Please try again in 1s" in the 429 body is the wait, then it works
        srv.queue(Fail(429), Text("after the wait"))
        t = time.monotonic()
        reply, err, _ = ai.ask([{"role": "user", "content": "x"}], overrides(srv))
        assert (reply, err) == ("after the wait", None)
        assert 0.9 <= time.monotonic() - t < 5
        srv.queue(Text("", finish="length"))
        _, err, _ = ai.ask([{"role": "user", "content": "x"}], overrides(srv))
        assert err == "openai: empty reply: max tokens reached (raise ai.chat.max_tokens)"


def test_fetch_models_end_to_end(flash):
    import ai
    import store
    with FakeOpenAI(flavor="groq", models=1200) as s:
        store.update({"ai.chat.provider": "groq", "ai.chat.base_url": s.base_url})
        models, err = ai.fetch_models(provider="groq", key="sk-test")
        assert err is None and len(models) == ai.MAX_MODELS
        assert models[:2] == ["llama-3.3-70b-versatile", "openai/gpt-oss-20b"]
        models, err = ai.fetch_models(provider="groq", key="bad")
        assert models is None and err.startswith("groq: 401 Invalid API Key")


# ------------------------------------------------------------ MicroPython

# `heap` is the heap left free once the emulated flash is in place (see
# mpyrun). This heavy scenario (plain, streamed, a tool round and three
# error replies, which import the style's and the driver's rare halves)
# runs at CHAT_HEAP, the 20000-model list at MODELS_HEAP (make measure
# bisects what each needs). The two-round budget is asserted in
# test_ai_heap.py.
CHAT_HEAP = "39K"
MODELS_HEAP = "35K"


def _chat_lines(flavor):
    return ["PLAIN 'Hello from %s.' None 2" % flavor,
            "'A streamed answer in many small pieces.' "
            "'A streamed answer in many small pieces.' None",
            "CALLS None [('get_weather', '{\"city\":\"Rochdale\"}'), "
            "('get_weather', '{\"city\":\"Leeds\"}')]",
            "FOLLOWUP 'tool said: 12 C, drizzle in get_weather; "
            "12 C, drizzle in get_weather' None 9",
            "ERR401 '%s: 401 Incorrect API key provided: sk-te**st. (check" % flavor,
            "ERRPAGE '%s: 400 Bad \\xe9 request'" % flavor,
            "ERRMID '%s: Engine overloaded'" % flavor]


def _chat(mpy, tmp_path, flavor, heap, live=False):
    with FakeOpenAI(flavor=flavor) as srv:
        model = "kimi-k2-thinking" if flavor == "kimi" else MODEL[flavor]
        srv.options(chunked=True)
        srv.queue(Text("Hello from %s." % flavor),
                  Text("A streamed answer in many small pieces."),
                  Calls([("get_weather", {"city": "Rochdale"}),
                         ("get_weather", {"city": "Leeds"})],
                        think=Think("Two cities, two calls.")),
                  Text("tool said: 12 C, drizzle in get_weather; "
                       "12 C, drizzle in get_weather"),
                  Fail(401, "Incorrect API key provided: sk-te**st."),
                  Raw(b"\xff\xfe<html><title>Bad \xc3\xa9 request</title>", status=400),
                  Fail(503, "Engine overloaded", midstream=True))
        r = mpy.run("ai_openai_chat", heap=heap,
                    args=[srv.base_url, flavor, model,
                          "-" if flavor == "ollama" else "sk-test", str(tmp_path)],
                    timeout=60, live=live)
        return r, srv.requests


@pytest.mark.parametrize("flavor", FLAVORS)
def test_micropython_chat_stream_and_tool_round(flavor, mpy, measure, tmp_path):
    r, requests = _chat(mpy, tmp_path, flavor, CHAT_HEAP)
    assert r.rc == 0, r
    out = r.out
    for line in _chat_lines(flavor):
        assert line in out, out
    assert int(out.split("STREAM ")[1].split()[0]) >= 5   # really streamed
    assert requests[1].json["stream"] is True
    if flavor == "kimi":
        assert requests[3].json["messages"][5]["reasoning_content"] == \
            "Two cities, two calls."
    live, _ = _chat(mpy, tmp_path, flavor, CHAT_HEAP, live=True)
    assert live.rc == 0, live
    assert live.working < 24 * 1024

    def passes(heap):
        x, _ = _chat(mpy, tmp_path, flavor, heap)
        return x.rc == 0 and all(line in x.out for line in _chat_lines(flavor))
    measure.smallest("heap", "%s: chat, stream, tool round, three errors" % flavor, passes,
                     CHAT_HEAP, imports=r.imports, working=live.working)


def _models(mpy, tmp_path, n, heap, live=False):
    with FakeOpenAI(models=n) as s:
        return mpy.run("ai_openai_models", heap=heap, live=live,
                       args=[s.base_url, "openai", "sk-test", str(tmp_path)], timeout=60)


def test_micropython_large_model_list(mpy, measure, tmp_path):
    """A 1.8 MB list (20000 models) costs no more heap than a 600-model one:
    only ids are materialized (the driver keeps the first 100 here)."""
    working = {}
    for n in (600, 20000):
        r = _models(mpy, tmp_path, n, MODELS_HEAP)
        assert r.rc == 0, r
        assert "MODELS 100 None 'fake-model-00095'" in r.out, r.out
        live = _models(mpy, tmp_path, n, MODELS_HEAP, live=True)
        assert live.rc == 0, live
        working[n] = live.working

    def passes(heap):
        x = _models(mpy, tmp_path, 20000, heap)
        return x.rc == 0 and "MODELS 100 None 'fake-model-00095'" in x.out
    measure.smallest("heap", "openai: a 1.8 MB model list (20000 ids)", passes, MODELS_HEAP,
                     working_600=working[600], working_20000=working[20000])
    assert working[20000] - working[600] < 2048
    assert working[20000] < 24 * 1024
