"""lib/ai/styles/gemini.py: unit tests of the translation, then against the
FakeGemini server the way lib/ai drives a style (request -> encoded_len +
dump through httpc -> read_reply / read_stream / error_info / models), then
end to end through ai.ask / ai.fetch_models, then under the MicroPython unix
port in a small heap (HEAP below; scenarios ai_gemini_*.py).
"""
import json

import pytest

import httpc
from ai.styles import StyleError
from ai.styles import gemini as style
from styletest import Trickle, base_cfg, body_json, style_helpers
from fakes import Blocked, Calls, Fail, FakeGemini, Raw, Text, Think

MODEL = "gemini-2.5-flash"
MODEL3 = "gemini-3-pro-preview"
KEY = "AIza-test"
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "$schema": "http://json-schema.org/x",
                          "additionalProperties": False,
                          "properties": {"city": {"type": "string",
                                                  "minLength": 1}},
                          "required": ["city"]}}
CLOCK = {"name": "get_time", "description": "Current time",
         "parameters": {"type": "object", "properties": {}}}


def make_cfg(base="http://127.0.0.1:9/v1beta", **kw):
    o = {"provider": "gemini", "name": "Google Gemini", "style": "gemini",
         "base_url": base, "key": KEY, "model": MODEL}
    o.update(kw)
    return base_cfg(**o)


class Events:
    """Stand-in for httpc.SSE in unit tests: a list of data payloads (None
    = the connection dies there)."""

    class Ev:
        def __init__(self, data):
            self.body = Trickle(data, 5)
            self.empty = not self.body.data

        def readinto(self, buf):
            return self.body.readinto(buf)

    def __init__(self, datas):
        self.datas = list(datas)

    def next(self):
        if not self.datas:
            return None
        d = self.datas.pop(0)
        if d is None:
            raise httpc.HTTPError("connection reset by 127.0.0.1 while reading the body")
        return self.Ev(d if isinstance(d, (str, bytes)) else json.dumps(d))


def cand(parts, finish=None):
    c = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        c["finishReason"] = finish
    return {"candidates": [c]}


# ---------------------------------------------------------------- request

def test_request_urls_headers_and_body():
    cfg = make_cfg(max_tokens=300, temperature=0.2, system="Be brief.")
    url, h, body = style.request(cfg, [{"role": "user", "content": "hi"}], None, False)
    assert url == "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent"
    assert h["x-goog-api-key"] == KEY and h["content-type"] == "application/json"
    assert "accept" not in h
    b = body_json(body)
    assert b == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                 "systemInstruction": {"parts": [{"text": "Be brief."}]},
                 "generationConfig": {"maxOutputTokens": 300, "temperature": 0.2}}
    url, h, body = style.request(make_cfg(model="models/gemini-2.5-pro"),
                                 [{"role": "user", "content": "x"}], None, True)
    assert url.endswith("/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
    assert h["accept"] == "text/event-stream"
    assert set(body_json(body)) == {"contents"}     # nothing unset is sent


class Flash:
    """A re-iterable history (like one streamed from flash) that counts
    passes: the style must translate lazily, never copy it."""

    def __init__(self, msgs):
        self.msgs = msgs
        self.passes = 0

    def __iter__(self):
        self.passes += 1
        for m in self.msgs:
            yield dict(m)      # a fresh object per pass, as a file reader would


def test_history_translation_tools_results_and_system():
    hist = Flash([
        {"role": "system", "content": "From history."},
        {"role": "user", "content": "Weather and time?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "name": "get_weather", "args": '{"city": "Rochdale"}'},
            {"id": "call_2", "name": "get_time", "args": "not json{"}]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
         "content": "12 C"},
        {"role": "tool", "tool_call_id": "call_2", "content": "no clock",
         "is_error": True},
        {"role": "system", "content": "Late note."},
        {"role": "user", "content": "Thanks"},
    ])
    url, h, body = style.request(make_cfg(system="Cfg first."), hist,
                                 [WEATHER, CLOCK], False)
    b = body_json(body)
    assert hist.passes <= 4     # system scan + count + dump + dumps in body_json
    assert b["systemInstruction"] == {"parts": [{"text": "Cfg first."},
                                                {"text": "From history."}]}
    c = b["contents"]
    assert [x["role"] for x in c] == ["user", "model", "user", "user", "user"]
    assert c[1]["parts"] == [
        {"text": "Checking."},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rochdale"}}},
        {"functionCall": {"name": "get_time", "args": {"text": "not json{"}}}]
    # one user content, a functionResponse per call, response an object, no
    # foreign ids sent, the name recovered from the call when missing
    assert c[2]["parts"] == [
        {"functionResponse": {"name": "get_weather", "response": {"output": "12 C"}}},
        {"functionResponse": {"name": "get_time", "response": {"error": "no clock"}}}]
    assert c[3]["parts"] == [{"text": "[system] Late note."}]
    decls = b["tools"][0]["functionDeclarations"]
    assert decls[0] == {"name": "get_weather", "description": "Weather for a city",
                        "parameters": {"type": "object", "required": ["city"],
                                       "properties": {"city": {"type": "string",
                                                               "minLength": 1}}}}
    assert decls[1] == {"name": "get_time", "description": "Current time"}
    # the caller's tool definitions are untouched
    assert "$schema" in WEATHER["parameters"]


def test_no_tools_unless_native():
    for level in ("none", "text-fallback"):
        _, _, body = style.request(make_cfg(tools_level=level),
                                   [{"role": "user", "content": "x"}], [WEATHER], False)
        assert "tools" not in body_json(body)


@pytest.mark.parametrize("model,word,want", [
    ("gemini-2.5-flash", "minimal", {"thinkingBudget": 0}),
    ("gemini-2.5-flash", "low", {"thinkingBudget": 1024}),
    ("gemini-2.5-flash-lite", "max", {"thinkingBudget": 24576}),
    ("gemini-2.5-pro", "minimal", {"thinkingBudget": 128}),
    ("gemini-2.5-pro", "max", {"thinkingBudget": 32768}),
    ("gemini-3-pro-preview", "minimal", {"thinkingLevel": "low"}),
    ("gemini-3-pro-preview", "medium", {"thinkingLevel": "high"}),
    ("gemini-3.1-pro-preview", "medium", {"thinkingLevel": "medium"}),
    ("gemini-3-flash-preview", "minimal", {"thinkingLevel": "minimal"}),
    ("gemini-3.5-flash", "max", {"thinkingLevel": "high"}),
    ("gemini-flash-latest", "low", {"thinkingLevel": "low"}),
    ("gemini-2.0-flash", "high", None),
    ("gemma-3-27b-it", "high", None),
    ("gemini-2.5-flash", None, None),
])
def test_thinking_vocabulary(model, word, want):
    _, _, body = style.request(make_cfg(model=model, thinking=word),
                               [{"role": "user", "content": "x"}], None, False)
    got = body_json(body).get("generationConfig", {}).get("thinkingConfig")
    assert got == want


def test_clean_schema_keeps_only_gemini_schema_fields():
    s = {"type": "object", "$schema": "x", "additionalProperties": {"type": "string"},
         "properties": {
             # property NAMES that look like keywords are kept
             "const": {"type": ["integer", "null"], "exclusiveMinimum": 0,
                       "multipleOf": 2},
             "additionalProperties": {"const": "fixed"},
             "mode": {"enum": ["a", "b"], "format": "uri"},
             "level": {"enum": [1, 2, 3], "type": "integer", "format": "int32"},
             "tags": {"type": "array", "uniqueItems": True,
                      "items": {"type": "object", "patternProperties": {"x": {}},
                                "properties": {"k": {"oneOf": [{"type": "string"},
                                                               {"type": "number"}]}}}},
             "when": {"allOf": [{"type": "string"}], "format": "date-time",
                      "$ref": "#/defs/x"}},
         "propertyNames": {"pattern": "^a"}, "$defs": {"x": {}}}
    before = json.dumps(s, sort_keys=True)
    assert style.clean_schema(s) == {
        "type": "object",
        "properties": {
            "const": {"type": "integer", "nullable": True},
            "additionalProperties": {"enum": ["fixed"]},
            "mode": {"enum": ["a", "b"]},
            "level": {"type": "integer", "format": "int32"},
            "tags": {"type": "array", "items": {
                "type": "object", "properties": {"k": {"anyOf": [
                    {"type": "string"}, {"type": "number"}]}}}},
            "when": {"format": "date-time"}}}
    assert json.dumps(s, sort_keys=True) == before
    # deep nesting is iterative
    deep = {"type": "object"}
    cur = deep
    for _ in range(500):
        cur["properties"] = {"a": {"type": "object"}}
        cur = cur["properties"]["a"]
    assert style.clean_schema(deep)["properties"]["a"]["type"] == "object"


def test_echo_rebuilds_model_content_with_signatures():
    turn = {"role": "assistant", "content": "Let me look.",
            "tool_calls": [{"id": "abc1", "name": "get_weather", "args": '{"city":"A"}'},
                           {"id": "abc2", "name": "get_weather", "args": '{"city":"B"}'}],
            "_echo": {"style": "gemini", "thoughts": [["Hmm.", "SIG-T"]],
                      "text_sig": "SIG-X", "call_sigs": ["SIG-1", None], "ids": True}}
    hist = [{"role": "user", "content": "q"}, turn,
            {"role": "tool", "tool_call_id": "abc1", "name": "get_weather", "content": "1"},
            {"role": "tool", "tool_call_id": "abc2", "name": "get_weather", "content": "2"}]
    b = body_json(style.request(make_cfg(model=MODEL3), hist, None, False)[2])
    assert b["contents"][1]["parts"] == [
        {"text": "Hmm.", "thought": True, "thoughtSignature": "SIG-T"},
        {"text": "Let me look.", "thoughtSignature": "SIG-X"},
        {"functionCall": {"name": "get_weather", "args": {"city": "A"}, "id": "abc1"},
         "thoughtSignature": "SIG-1"},
        {"functionCall": {"name": "get_weather", "args": {"city": "B"}, "id": "abc2"}}]
    assert [p["functionResponse"]["id"] for p in b["contents"][2]["parts"]] == [
        "abc1", "abc2"]
    # another style's echo is ignored; gemini-3 then gets Google's documented
    # placeholder signature on the first call (history made elsewhere)
    turn["_echo"] = {"style": "anthropic", "blocks": "[]"}
    b = body_json(style.request(make_cfg(model=MODEL3), hist, None, False)[2])
    parts = b["contents"][1]["parts"]
    assert parts[1]["thoughtSignature"] == style.SKIP_SIG
    assert "thoughtSignature" not in parts[2] and "id" not in parts[1]["functionCall"]
    assert "id" not in b["contents"][2]["parts"][0]["functionResponse"]
    b = body_json(style.request(make_cfg(model=MODEL), hist, None, False)[2])
    assert not any("thoughtSignature" in p for p in b["contents"][1]["parts"])


# ---------------------------------------------------------------- replies

def test_read_reply_text_thought_and_signature():
    data = cand([{"text": "Thinking hard.", "thought": True},
                 {"text": "Hello ", "thoughtSignature": "SIGNED"},
                 {"text": "world"}], "STOP")
    data["usageMetadata"] = {"promptTokenCount": 3}
    r = style.read_reply(make_cfg(), Trickle(json.dumps(data).encode(), 3))
    assert r.text == "Hello world" and r.calls is None and r.finish == "stop"
    # unsigned thought text is dropped; the text signature is kept
    assert r.turn == {"role": "assistant", "content": "Hello world",
                      "_echo": {"style": "gemini", "text_sig": "SIGNED"}}
    json.dumps(r.turn)          # history is persisted as JSON lines


def test_read_reply_calls_ids_and_signature():
    data = cand([{"functionCall": {"name": "get_weather", "args": {"city": "Rochdale",
                                                                   "n": [1, 2.5]}},
                  "thoughtSignature": "S1"},
                 {"functionCall": {"name": "get_time"}}], "STOP")
    r = style.read_reply(make_cfg(), Trickle(data))
    assert r.finish == "tool_calls" and r.text == ""
    assert [c["name"] for c in r.calls] == ["get_weather", "get_time"]
    assert json.loads(r.calls[0]["args"]) == {"city": "Rochdale", "n": [1, 2.5]}
    assert r.calls[1]["args"] == "{}"
    ids = [c["id"] for c in r.calls]
    assert len(set(ids)) == 2 and all(i.startswith("gemini-") for i in ids)
    assert r.turn["_echo"] == {"style": "gemini", "call_sigs": ["S1", None]}
    data = cand([{"functionCall": {"name": "f", "thoughtSignature": "OLD"}}], "STOP")
    r = style.read_reply(make_cfg(), Trickle(data))
    assert r.turn["_echo"] == {"style": "gemini", "call_sigs": ["OLD"]}
    data = cand([{"functionCall": {"name": "f", "args": {}, "id": "x9"}}], "STOP")
    r = style.read_reply(make_cfg(), Trickle(data))
    assert r.calls == [{"id": "x9", "name": "f", "args": "{}"}]
    assert r.turn["_echo"] == {"style": "gemini", "ids": True}


@pytest.mark.parametrize("data,finish", [
    (cand([{"text": "cut"}], "MAX_TOKENS"), "length"),
    ({"candidates": [{"finishReason": "SAFETY", "index": 0}]}, "filter"),
    (cand([], "MALFORMED_FUNCTION_CALL"), "MALFORMED_FUNCTION_CALL"),
    ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}, "blocked:PROHIBITED_CONTENT"),
])
def test_finish_mapping(data, finish):
    assert style.read_reply(make_cfg(), Trickle(data)).finish == finish


def test_reply_bounds():
    big = cand([{"text": "x" * 5000}], "STOP")
    with pytest.raises(StyleError) as e:
        style.read_reply(make_cfg(max_reply=4000), Trickle(big, 512))
    assert "longer than 4000" in str(e.value)
    # a 150 KB signature passes, under MAX_OPAQUE
    sig = "A" * 150000
    r = style.read_reply(make_cfg(), Trickle(cand([{"text": "ok", "thoughtSignature": sig}],
                                               "STOP"), 4096))
    assert r.turn["_echo"]["text_sig"] == sig
    with pytest.raises(StyleError):
        style.read_reply(make_cfg(), Trickle(cand([{"text": "", "thoughtSignature": "B" * (
            style.MAX_OPAQUE + 1)}], "STOP"), 8192))


def test_read_stream_unit():
    got = []
    evs = Events([
        cand([{"text": "Plan: weather.", "thought": True}]),
        "",                                                    # an empty event
        cand([{"text": "Hel", "thoughtSignature": "TS"}]),
        cand([{"text": "lo"}]),
        cand([{"text": " there"}], "STOP"),
        {"usageMetadata": {"totalTokenCount": 9}},
    ])
    r = style.read_stream(make_cfg(), evs, got.append)
    assert got == ["Hel", "lo", " there"] and r.text == "Hello there"
    assert r.turn["_echo"] == {"style": "gemini", "text_sig": "TS"}
    # a signed thought run streamed as text parts then an empty signed part
    evs = Events([cand([{"text": "a ", "thought": True}]),
                  cand([{"text": "b", "thought": True}]),
                  cand([{"text": "", "thought": True, "thoughtSignature": "RUN"}]),
                  cand([{"functionCall": {"name": "f", "args": {"a": 1}},
                         "thoughtSignature": "C"}], "STOP")])
    r = style.read_stream(make_cfg(), evs, got.append)
    assert r.turn["_echo"] == {"style": "gemini", "thoughts": [["a b", "RUN"]],
                               "call_sigs": ["C"]}
    assert r.finish == "tool_calls"


def test_read_stream_failures():
    with pytest.raises(StyleError) as e:
        style.read_stream(make_cfg(), Events([cand([{"text": "a"}])]), print)
    assert str(e.value) == "stream ended early"
    with pytest.raises(StyleError) as e:
        style.read_stream(make_cfg(), Events([cand([{"text": "a"}]), None]), print)
    assert str(e.value).startswith("stream ended early (connection reset")
    # the connection dying after the finish event loses nothing
    r = style.read_stream(make_cfg(), Events([cand([{"text": "a"}], "STOP"), None]),
                          lambda p: None)
    assert r.text == "a"
    with pytest.raises(StyleError) as e:
        style.read_stream(make_cfg(), Events([
            cand([{"text": "a"}]),
            {"error": {"code": 503, "message": "The model is overloaded.\nmore",
                       "status": "UNAVAILABLE"}}]), print)
    assert str(e.value) == "The model is overloaded."
    with pytest.raises(StyleError):     # a 200 body that is an error
        style.read_reply(make_cfg(), Trickle({"error": {"code": 500, "status": "INTERNAL"}}))


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("status,body,want", [
    (400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid "
                     "API key.", "status": "INVALID_ARGUMENT", "details": [
                         {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                          "reason": "API_KEY_INVALID"}]}},
     ("API key not valid. Please pass a valid API key.", None, "key")),
    (429, {"error": {"code": 429, "message": "You exceeded your current quota.\n* "
                     "Quota exceeded for metric: x", "status": "RESOURCE_EXHAUSTED",
                     "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                  "retryDelay": "31.5s"}]}},
     ("You exceeded your current quota.", 31.5, None)),
    (404, {"error": {"code": 404, "message": "models/x is not found",
                     "status": "NOT_FOUND"}}, ("models/x is not found", None, "model")),
    (400, {"error": {"code": 400, "message": "User location is not supported for the "
                     "API use.", "status": "FAILED_PRECONDITION"}},
     ("User location is not supported for the API use.", None, "blocked")),
    (503, {"error": {"code": 503, "status": "UNAVAILABLE"}}, ("UNAVAILABLE", None, None)),
    (502, b"<html><body>\n<h1>502   Bad Gateway</h1></body></html>",
     ("502 Bad Gateway", None, None)),
    (500, b"", ("internal server error", None, None)),
    (500, b'{"error": {"message": "cut \xc3', ('{"error": {"message": "cut', None, None)),
    (400, b"\xff\xfe garbage", ("garbage", None, None)),
])
def test_error_info_shapes(status, body, want):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    assert style.error_info(status, Trickle(data, 11), {}) == want


def test_error_info_bounds_long_messages():
    msg, _, _ = style.error_info(400, Trickle({"error": {"message": "m" * 5000}}), {})
    assert msg == "m" * style.MAX_ERROR
    # a page that is not JSON: its first bytes (ai.errors.Head), not all 100 KB
    msg, _, _ = style.error_info(500, Trickle(b"x" * 100000, 4096), {})
    assert msg == "x" * 256


# ---------------------------------------------------------------- models

def test_models_request_and_page_unit():
    url, h = style.models_request(make_cfg(), None)
    assert url == "http://127.0.0.1:9/v1beta/models?pageSize=1000" and h == {
        "x-goog-api-key": KEY}
    url, _ = style.models_request(make_cfg(), "a+b/c==")
    assert url.endswith("&pageToken=a%2Bb%2Fc%3D%3D")
    page = {"models": [
        {"name": "models/gemini-2.5-flash", "supportedGenerationMethods": [
            "generateContent", "countTokens"]},
        {"supportedGenerationMethods": ["embedContent"], "name": "models/text-embed"},
        {"name": "models/no-methods-listed"},
        {"displayName": "nameless"}], "nextPageToken": "T2"}
    got = []
    assert style.read_models(make_cfg(), Trickle(page), got.append) == "T2"
    assert got == ["gemini-2.5-flash", "no-methods-listed"]
    assert style.read_models(make_cfg(), Trickle({"models": []}), got.append) is None


# ---------------------------------------------------------------- against FakeGemini

@pytest.fixture
def srv():
    with FakeGemini() as s:
        yield s


send, exchange, error_of = style_helpers(style)


def user(text):
    return [{"role": "user", "content": text}]


@pytest.mark.parametrize("chunked", [False, True])
def test_fake_plain_reply(srv, chunked):
    srv.options(chunked=chunked, chunk_size=7 if chunked else None)
    srv.queue(Text("Hello from the fake."))
    cfg = make_cfg(srv.base_url, system="Be kind.", max_tokens=100, temperature=0.3)
    r, _ = exchange(cfg, user("hi"))
    assert r.text == "Hello from the fake." and r.finish == "stop" and r.calls is None
    req = srv.last
    assert req.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert req.headers["x-goog-api-key"] == KEY
    assert req.json["systemInstruction"] == {"parts": [{"text": "Be kind."}]}
    assert req.json["generationConfig"] == {"maxOutputTokens": 100, "temperature": 0.3}
    # the default answer echoes; a /v1 base works the same
    r, _ = exchange(make_cfg(srv.base_url.replace("/v1beta", "/v1")), user("ping"))
    assert r.text == "echo: ping"
    # bodies are read to their end: one kept-alive connection for both
    assert srv.connections == 1


def run_tool_round(srv, cfg, script, stream, tools=(WEATHER, CLOCK)):
    """Calls round then the follow-up with the results: returns (reply1,
    history, follow-up reply)."""
    srv.queue(script)
    hist = user("Weather in Rochdale and the time?")
    r, _ = exchange(cfg, hist, list(tools), stream)
    assert r.finish == "tool_calls"
    hist.append(r.turn)
    json.loads(json.dumps(hist))          # the history survives JSON lines
    for c in r.calls:
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "%s -> %s" % (c["name"], c["args"])})
    r2, _ = exchange(cfg, hist, list(tools), stream)
    return r, hist, r2


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("ids", [False, True])
def test_fake_parallel_calls_follow_up_with_signature(srv, stream, ids):
    think = Think("Two tools needed.")
    cfg = make_cfg(srv.base_url, model=MODEL3, thinking="high")
    script = Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})],
                   think=think, ids=ids)
    r, hist, r2 = run_tool_round(srv, cfg, script, stream)
    assert [c["name"] for c in r.calls] == ["get_weather", "get_time"]
    assert json.loads(r.calls[0]["args"]) == {"city": "Rochdale"}
    assert r.calls[1]["args"] == "{}"
    echo = r.turn["_echo"]
    assert echo["call_sigs"] == [think.signature, None]
    assert echo.get("ids", False) is ids
    if ids:
        assert all(not c["id"].startswith("gemini-") for c in r.calls)
    # the follow-up passed the fake's strict checks and carried the results
    assert r2.text.startswith("tool said: get_weather -> ")
    sent = srv.last.json["contents"]
    assert sent[1]["parts"][0]["thoughtSignature"] == think.signature
    assert srv.requests[0].json["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "high"}
    if ids:
        assert [p["functionResponse"]["id"] for p in sent[2]["parts"]] == [
            c["id"] for c in r.calls]
    # prove the echo: without it the fake answers 400 like the real service
    del hist[1]["_echo"]
    cfg2 = make_cfg(srv.base_url, model=MODEL)    # no placeholder signature
    status, (msg, _, _) = error_of(cfg2, hist, [WEATHER, CLOCK])
    assert status == 400 and "missing a thought_signature" in msg
    # and a missing tool result is a 400 as well
    hist[1]["_echo"] = echo
    status, (msg, _, _) = error_of(cfg, hist[:-1], [WEATHER, CLOCK])
    assert status == 400 and "number of function response parts" in msg
    # replies, streams and error bodies were all read to the end: one
    # kept-alive connection served every round
    assert srv.connections == 1


def test_fake_text_with_thinking_echo_and_next_round(srv):
    think = Think("Pondering.")
    srv.queue(Text("The answer is 4.", think=think))
    cfg = make_cfg(srv.base_url, thinking="low")
    hist = user("2+2?")
    r, _ = exchange(cfg, hist)
    assert r.text == "The answer is 4."          # thought text never in the reply
    assert r.turn["_echo"] == {"style": "gemini", "text_sig": think.signature}
    assert srv.last.json["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 1024}
    hist += [r.turn, {"role": "user", "content": "and 3+3?"}]
    r2, _ = exchange(cfg, hist)                  # the signature is accepted back
    assert r2.text == "echo: and 3+3?"
    assert srv.last.json["contents"][1]["parts"] == [
        {"text": "The answer is 4.", "thoughtSignature": think.signature}]


def test_fake_schema_cleaning_accepted(srv):
    tool = {"name": "search", "description": "Search",
            "parameters": {"type": "object", "$schema": "x",
                           "additionalProperties": False,
                           "properties": {"q": {"type": ["string", "null"],
                                                "const": "x", "format": "uri"},
                                          "n": {"type": "integer", "exclusiveMinimum": 0,
                                                "enum": [1, 2]},
                                          "opts": {"oneOf": [{"type": "string"},
                                                             {"type": "object",
                                                              "patternProperties": {}}]}}}}
    srv.queue(Text("fine"))
    r, _ = exchange(make_cfg(srv.base_url), user("x"), [tool])
    assert r.text == "fine"
    # the same tool sent raw is refused: the cleaning is what makes it pass
    url, headers, _ = style.request(make_cfg(srv.base_url), user("x"), None, False)
    raw = json.dumps({"contents": [{"role": "user", "parts": [{"text": "x"}]}],
                      "tools": [{"functionDeclarations": [tool]}]}).encode()
    with httpc.request("POST", url, headers, raw, timeout=10) as resp:
        assert resp.status == 400
        msg, _, _ = style.error_info(resp.status, resp, resp.headers)
    assert "Unknown name" in msg


@pytest.mark.parametrize("crlf,comments,chunk", [(True, False, None), (False, False, None),
                                                  (True, True, 3), (False, True, 1)])
def test_fake_stream(srv, crlf, comments, chunk):
    srv.options(crlf=crlf, comments=comments, chunk_size=chunk)
    text = "Streaming is fun, \u00e9t\u00e9 \U0001F600 and long enough to split."
    srv.queue(Text(text, think=Think("thinking text never shown")))
    r, pieces = exchange(make_cfg(srv.base_url), user("go"), stream=True)
    assert r.text == text and len(pieces) > 5 and r.finish == "stop"
    assert "thinking" not in r.text
    assert srv.last.path.endswith(":streamGenerateContent")
    assert srv.last.query == {"alt": "sse"}


def test_fake_stream_huge_signature(srv):
    think = Think("deep", size=150000)
    srv.queue(Calls([("get_weather", {"city": "Oslo"})], think=think))
    cfg = make_cfg(srv.base_url, model=MODEL3)
    hist = user("Oslo?")
    r, _ = exchange(cfg, hist, [WEATHER], stream=True)
    assert r.turn["_echo"]["call_sigs"] == [think.signature]
    hist += [r.turn, {"role": "tool", "tool_call_id": r.calls[0]["id"],
                      "name": "get_weather", "content": "cold"}]
    r2, _ = exchange(cfg, hist, [WEATHER], stream=True)
    assert r2.text == "tool said: cold"


def test_fake_stream_finish_outcomes(srv):
    srv.queue(Text("", finish="length"), Blocked("SAFETY"), Text("", finish="safety"))
    r, _ = exchange(make_cfg(srv.base_url), user("x"), stream=True)
    assert r.text == "" and r.finish == "length"
    r, _ = exchange(make_cfg(srv.base_url), user("x"), stream=True)
    assert r.finish == "blocked:SAFETY"
    r, _ = exchange(make_cfg(srv.base_url), user("x"))
    assert r.finish == "filter"


def test_fake_midstream_error_and_dying_stream(srv):
    srv.queue(Fail(503, midstream=True))
    got = []
    with send(make_cfg(srv.base_url), user("x"), stream=True) as r:
        with pytest.raises(StyleError) as e:
            style.read_stream(make_cfg(), httpc.SSE(r), got.append)
    assert "overloaded" in str(e.value) and "".join(got) == "Partial answer"
    srv.options(die_after=2)
    srv.queue(Text("a long answer that will be cut off by the server"))
    with send(make_cfg(srv.base_url), user("x"), stream=True) as r:
        with pytest.raises(StyleError) as e:
            style.read_stream(make_cfg(), httpc.SSE(r), got.append)
    assert str(e.value).startswith("stream ended early")


def test_fake_malformed_call_finish(srv):
    srv.queue(Calls([("get_weather", "{not json")]))
    r, _ = exchange(make_cfg(srv.base_url), user("x"), [WEATHER])
    assert r.calls is None and r.text == "" and r.finish == "MALFORMED_FUNCTION_CALL"


@pytest.mark.parametrize("fail,status,want", [
    (Fail(400, kind="bad_key"), 400, ("API key not valid. Please pass a valid API key.",
                                      None, "key")),
    (Fail(429), 429, ("You exceeded your current quota, please check your plan and "
                      "billing details.", 2.0, None)),
    (Fail(503), 503, ("The model is overloaded. Please try again later.", None, None)),
    (Fail(500), 500, ("An internal error has occurred. Please retry or report the "
                      "problem.", None, None)),
    (Raw(b"<html>upstream broke</html>", status=502, content_type="text/html"), 502,
     ("upstream broke", None, None)),
])
def test_fake_error_bodies(srv, fail, status, want):
    srv.queue(fail)
    assert error_of(make_cfg(srv.base_url), user("x")) == (status, want)


def test_fake_auth_and_model_errors(srv):
    st, (msg, _, kind) = error_of(make_cfg(srv.base_url, key="wrong"), user("x"))
    assert st == 400 and kind == "key" and "API key not valid" in msg
    st, (msg, _, kind) = error_of(make_cfg(srv.base_url, key=None), user("x"))
    assert st == 403 and kind == "key" and "unregistered callers" in msg
    st, (msg, _, kind) = error_of(make_cfg(srv.base_url, model="gemini-nope"), user("x"))
    assert st == 404 and kind == "model" and "gemini-nope" in msg


def list_models(cfg):
    got, token, pages = [], None, 0
    while True:
        url, headers = style.models_request(cfg, token)
        with httpc.request("GET", url, headers, timeout=10) as r:
            assert r.status == 200
            token = style.read_models(cfg, r, got.append)
        pages += 1
        if not token:
            return got, pages


def test_fake_models_pagination_and_filter():
    with FakeGemini(models=23) as s:
        from ai import models
        models.GEMINI_PAGE, old = 5, models.GEMINI_PAGE
        try:
            got, pages = list_models(make_cfg(s.base_url))
        finally:
            models.GEMINI_PAGE = old
        assert pages == 5 and len(got) == 22       # the embedding model is left out
        assert got[:3] == ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview"]
        assert "gemini-embedding-001" not in got and got[-1] == "gemini-fake-00018"
        assert s.requests[1].query["pageToken"]


def test_fake_models_large_list():
    with FakeGemini(models=2500) as s:
        got, pages = list_models(make_cfg(s.base_url))
        assert pages == 3 and len(got) == 2499 and len(set(got)) == 2499


# ---------------------------------------------------------------- end to end (ai)

def overrides(srv, **kw):
    o = {"provider": "gemini", "base_url": srv.base_url, "key": KEY,
         "model": MODEL, "timeout": 10}
    o.update(kw)
    return o


def test_ask_end_to_end_tool_round_trip(srv, flash):
    import ai
    think = Think("Use the weather tool.")
    srv.queue(Text("Hi there."),
              Calls([("get_weather", {"city": "Rochdale"}),
                     ("get_weather", {"city": "Leeds"})], think=think),
              Text("Both are wet."))
    hist = [{"role": "system", "content": "Be terse."},
            {"role": "user", "content": "hello"}]
    reply, err, calls = ai.ask(hist, overrides(srv, model=MODEL3))
    assert (reply, err, calls) == ("Hi there.", None, None) and len(hist) == 3
    hist.append({"role": "user", "content": "Weather in Rochdale and Leeds?"})
    pieces = []
    reply, err, calls = ai.ask(hist, overrides(srv, model=MODEL3, tools=[WEATHER],
                                               stream=pieces.append))
    assert err is None and reply == "" and pieces == []
    assert [json.loads(c["args"])["city"] for c in calls] == ["Rochdale", "Leeds"]
    assert hist[-1]["_echo"]["call_sigs"] == [think.signature, None]
    for c in calls:
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "wet"})
    reply, err, calls = ai.ask(hist, overrides(srv, model=MODEL3, tools=[WEATHER],
                                               stream=pieces.append))
    assert (reply, err, calls) == ("Both are wet.", None, None)
    assert "".join(pieces) == "Both are wet."
    assert srv.last.json["systemInstruction"] == {"parts": [{"text": "Be terse."}]}


def test_ask_end_to_end_errors(srv, flash):
    import ai
    import time
    srv.queue(Fail(400, kind="bad_key"))
    reply, err, _ = ai.ask(user("x"), overrides(srv))
    assert reply is None and err.startswith("gemini: 400 API key not valid")
    assert "check" in err and KEY not in err
    srv.queue(Fail(404, message="models/gemini-x is not found"))
    _, err, _ = ai.ask(user("x"), overrides(srv))
    assert err.startswith("gemini: 404 models/gemini-x is not found (check")
    srv.queue(Blocked("PROHIBITED_CONTENT"))
    _, err, _ = ai.ask(user("x"), overrides(srv, stream=lambda p: None))
    assert err == "gemini: prompt blocked (PROHIBITED_CONTENT)"
    srv.queue(Fail(503, midstream=True))
    _, err, _ = ai.ask(user("x"), overrides(srv, stream=lambda p: None))
    assert err == "gemini: The model is overloaded. Please try again later."
    # the body's RetryInfo.retryDelay (2s) is honoured, then the retry works
    srv.queue(Fail(429), Text("after the wait"))
    t = time.monotonic()
    reply, err, _ = ai.ask(user("x"), overrides(srv))
    assert reply == "after the wait" and err is None
    assert 1.9 <= time.monotonic() - t < 6


def test_fetch_models_end_to_end(flash):
    import ai
    import store
    with FakeGemini(models=1200) as s:
        store.update({"ai.chat.provider": "gemini", "ai.chat.base_url": s.base_url})
        models, err = ai.fetch_models(provider="gemini", key=KEY)
        assert err is None and len(models) == ai.MAX_MODELS and models[0] == "gemini-2.5-flash"
        models, err = ai.fetch_models(provider="gemini", key="bad")
        assert models is None and "API key not valid" in err


# ---------------------------------------------------------------- MicroPython

# `heap` is the heap left free once the emulated flash is in place (see
# mpyrun); make measure bisects what each scenario needs
# (tools/bench/MEASUREMENTS.md). The two-round budget of the issue is
# asserted in test_ai_heap.py.
CHAT_HEAP = "37K"       # plain, streamed, a tool round with a 2 KB thought signature
MODELS_HEAP = "29K"     # 2500 models over three pages, an error reply


def _chat_scenario(srv, mpy, tmp_path, heap):
    think = Think("Two cities.", size=2000)
    srv.forget()        # (what a run that failed left)
    srv.options(chunked=True)
    srv.queue(Text("Hello from Gemini."),
              Text("A streamed answer in many small pieces."),
              Calls([("get_weather", {"city": "Rochdale"}),
                     ("get_weather", {"city": "Leeds"})], think=think))
    root = tmp_path / ("chat-%s" % heap)
    root.mkdir()
    return mpy.run("ai_gemini_chat", heap=heap, args=[srv.base_url, MODEL3, KEY, str(root)],
                   timeout=60)


def test_micropython_chat_stream_and_tool_round(srv, mpy, measure, tmp_path):
    r = _chat_scenario(srv, mpy, tmp_path, CHAT_HEAP)
    assert r.rc == 0, r
    out = r.out
    assert "PLAIN 'Hello from Gemini.' None 2" in out
    assert "'A streamed answer in many small pieces.' " \
           "'A streamed answer in many small pieces.' None" in out
    assert "CALLS None [('get_weather', '{\"city\":\"Rochdale\"}'), " \
           "('get_weather', '{\"city\":\"Leeds\"}')]" in out
    assert "SIG 2000" in out
    assert "FOLLOWUP 'tool said: 12 C, drizzle; 12 C, drizzle' None 9" in out
    # the streamed round really streamed (many pieces), on the wire too
    n = int(out.split("STREAM ")[1].split()[0])
    assert n >= 5
    assert srv.requests[1].path.endswith(":streamGenerateContent")
    print("gemini chat: baseline %d B, peak %d B, working %d B"
          % (r.baseline, r.peak, r.working))
    assert r.working < 40 * 1024

    def passes(heap):
        x = _chat_scenario(srv, mpy, tmp_path, heap)
        return x.rc == 0 and "FOLLOWUP 'tool said: 12 C, drizzle; 12 C, drizzle' None 9" in x.out
    measure.smallest("heap", "gemini: chat, stream, a tool round with a 2 KB thought signature",
                     passes, CHAT_HEAP)


def _models(mpy, heap):
    with FakeGemini(models=2500) as s:
        return mpy.run("ai_gemini_models", heap=heap, args=[s.base_url, KEY], timeout=60)


def test_micropython_large_model_list(mpy, measure):
    r = _models(mpy, MODELS_HEAP)
    assert r.rc == 0, r
    assert "MODELS 2499 3 gemini-fake-02495" in r.out
    assert "ERROR 400 ('API key not valid. Please pass a valid API key.', None, 'key')" \
        in r.out, r.out
    print("gemini models: working %d B" % r.working)
    assert r.working < 24 * 1024

    def passes(heap):
        x = _models(mpy, heap)
        return x.rc == 0 and "ERROR 400" in x.out and "MODELS 2499 3" in x.out
    measure.smallest("heap", "gemini: a 2500-model list over three pages, an error", passes,
                     MODELS_HEAP)
