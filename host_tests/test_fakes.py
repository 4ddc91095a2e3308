"""Self-tests of the loopback fake provider servers (host_tests/fakes), CPython.

They talk to the fakes with http.client / raw sockets only, so the fakes are
proven independently of lib/: wire shapes, streaming framing (LF/CRLF,
comments, chunked), fault injection and the 400s the real services give.
"""

import http.client
import json
import re
import socket

import pytest

from fakes import (Blocked, Calls, Drop, Fail, FakeAnthropic, FakeGemini, FakeOpenAI,
                   FakeTextOnly, Raw, Text, Think)

# ---------------------------------------------------------------- helpers

OA = {"Authorization": "Bearer sk-test", "Content-Type": "application/json"}
AN = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01",
      "Content-Type": "application/json"}
GE = {"x-goog-api-key": "AIza-test", "Content-Type": "application/json"}
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}},
           "required": ["city"]}


class Reply:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def text(self):
        return self.body.decode()


def call(srv, path, body=None, headers=None, method=None, conn=None):
    """One request; path is appended to srv.base_url's path unless absolute."""
    c = conn or http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    if not path.startswith("/"):
        path = srv.PREFIX + "/" + path
    data = None if body is None else (body if isinstance(body, bytes)
                                      else json.dumps(body).encode())
    c.request(method or ("GET" if body is None else "POST"), path, data, headers or {})
    r = c.getresponse()
    out = Reply(r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read())
    if conn is None:
        c.close()
    return out


def sse(raw):
    """Tiny SSE splitter: returns (events [(event, data)], comment count).
    Lines end in CRLF, LF or CR; a blank line ends an event."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    events, comments, name, data = [], 0, None, []
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            if data or name:
                events.append((name, "\n".join(data)))
            name, data = None, []
        elif line.startswith(":"):
            comments += 1
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
    return events, comments


def sse_json(raw):
    return [(n, json.loads(d) if d != "[DONE]" else d) for n, d in sse(raw)[0]]


def raw_exchange(port, request):
    """Send raw bytes, read until the server closes; return the bytes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(request)
    out = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        out += b
    s.close()
    return out


def dechunk(body):
    """Decode a chunked body; returns (data, number of chunks, complete)."""
    data, n = b"", 0
    while body:
        line, _, body = body.partition(b"\r\n")
        size = int(line, 16)
        if size == 0:
            return data, n, True
        data, body, n = data + body[:size], body[size + 2:], n + 1
    return data, n, False


def oa_chat(srv, messages, model="gpt-4o-mini", headers=OA, **kw):
    b = {"model": model, "messages": messages}
    b.update(kw)
    return call(srv, "chat/completions", b, headers)


def an_msg(srv, messages, headers=AN, model="claude-sonnet-4-5", **kw):
    b = {"model": model, "max_tokens": 4096, "messages": messages}
    b.update(kw)
    return call(srv, "messages", b, headers)


def ge_gen(srv, contents, model="gemini-2.5-flash", stream=False, headers=GE, **kw):
    b = {"contents": contents}
    b.update(kw)
    path = "models/%s:%s" % (model, "streamGenerateContent?alt=sse" if stream
                             else "generateContent")
    return call(srv, path, b, headers)


USER = [{"role": "user", "content": "hi"}]


@pytest.fixture
def oa():
    with FakeOpenAI() as s:
        yield s


@pytest.fixture
def an():
    with FakeAnthropic() as s:
        yield s


@pytest.fixture
def ge():
    with FakeGemini() as s:
        yield s


# ---------------------------------------------------------------- base machinery

def test_records_requests_and_keepalive(oa):
    assert oa.base_url == "http://127.0.0.1:%d/v1" % oa.port
    c = http.client.HTTPConnection("127.0.0.1", oa.port, timeout=5)
    for _ in range(3):
        assert call(oa, "chat/completions", {"model": "gpt-4o-mini", "messages": USER},
                    dict(OA, **{"X-Test": "yes"}), conn=c).status == 200
    assert oa.connections == 1
    assert call(oa, "/v1/models?x=1", headers=OA).status == 200
    assert oa.connections == 2
    r = oa.requests[0]
    assert (r.method, r.path, r.headers["x-test"]) == ("POST", "/v1/chat/completions",
                                                       "yes")
    assert r.json["messages"] == USER and json.loads(r.raw) == r.json
    assert oa.last.query == {"x": "1"} and oa.last.json is None
    c.close()


def test_chunked_request_body_is_decoded(oa):
    c = http.client.HTTPConnection("127.0.0.1", oa.port, timeout=5)
    body = json.dumps({"model": "gpt-4o-mini", "messages": USER}).encode()
    c.request("POST", "/v1/chat/completions", iter([body[:10], body[10:30], body[30:]]),
              OA, encode_chunked=True)
    r = c.getresponse()
    assert r.status == 200 and json.loads(r.read())["choices"][0]["message"][
        "content"] == "echo: hi"
    assert oa.last.headers["transfer-encoding"] == "chunked"
    assert oa.last.json["model"] == "gpt-4o-mini"


def test_queue_fifo_then_default_echo(oa):
    oa.queue(Text("one"), Text("two"))
    got = [oa_chat(oa, USER).json["choices"][0]["message"]["content"] for _ in range(3)]
    assert got == ["one", "two", "echo: hi"] and oa.pending() == 0


def test_whole_body_content_length_then_chunked_with_small_chunks(oa):
    r = oa_chat(oa, USER)
    assert r.headers["content-length"] == str(len(r.body))
    oa.options(chunked=True, chunk_size=16)
    req = json.dumps({"model": "gpt-4o-mini", "messages": USER}).encode()
    raw = raw_exchange(oa.port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                       b"Authorization: Bearer sk-test\r\nConnection: close\r\n"
                       b"Content-Length: %d\r\n\r\n" % len(req) + req)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head and b"Content-Length" not in head
    data, n, complete = dechunk(body)
    assert complete and n > 5 and json.loads(data)["object"] == "chat.completion"


def test_die_after_cuts_stream_and_whole_body(oa):
    oa.options(die_after=3)
    oa.queue(Text("a fairly long answer to be streamed"))
    c = http.client.HTTPConnection("127.0.0.1", oa.port, timeout=5)
    c.request("POST", "/v1/chat/completions", json.dumps(
        {"model": "gpt-4o-mini", "messages": USER, "stream": True}), OA)
    r = c.getresponse()
    with pytest.raises(http.client.IncompleteRead) as e:
        r.read()
    events = sse(e.value.partial)[0]
    assert len(events) == 3 and all(d != "[DONE]" for _, d in events)
    oa.options(die_after=20)
    with pytest.raises(http.client.IncompleteRead) as e:
        oa_chat(oa, USER)
    assert len(e.value.partial) == 20


def test_delay_drop_and_raw(oa):
    oa.options(delay=0.6)
    c = http.client.HTTPConnection("127.0.0.1", oa.port, timeout=0.2)
    with pytest.raises(socket.timeout):
        call(oa, "chat/completions", {"model": "gpt-4o-mini", "messages": USER}, OA,
             conn=c)
    oa.options()
    oa.queue(Drop(), Raw(b"{not json", 200, {"x-a": "1"}))
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        oa_chat(oa, USER)
    r = oa_chat(oa, USER)
    assert (r.status, r.body, r.headers["x-a"]) == (200, b"{not json", "1")


def test_sse_crlf_comments_and_gap(oa):
    oa.options(crlf=True, comments=True, gap=0.01)
    r = oa_chat(oa, USER, stream=True)
    assert r.headers["content-type"].startswith("text/event-stream")
    assert b"\r\n\r\n" in r.body and b"\n\n" not in r.body.replace(b"\r\n", b"")
    events, comments = sse(r.body)
    assert comments == len(events) and events[-1][1] == "[DONE]"
    oa.options()
    r = oa_chat(oa, USER, stream=True)
    assert b"\r" not in r.body and sse(r.body)[1] == 0


# ---------------------------------------------------------------- OpenAI

def test_openai_auth_and_model(oa):
    r = oa_chat(oa, USER, headers={})
    assert r.status == 401
    r = oa_chat(oa, USER, headers={"Authorization": "Bearer sk-wrong-secret-key"})
    e = r.json["error"]
    assert r.status == 401 and e["code"] == "invalid_api_key"
    assert e["type"] == "invalid_request_error" and "sk-wrong-secret-key" not in r.text
    assert set(e) == {"message", "type", "param", "code"}
    r = oa_chat(oa, USER, model="gpt-9")
    assert r.status == 404 and r.json["error"]["code"] == "model_not_found"
    assert "gpt-9" in r.json["error"]["message"]
    assert call(oa, "/v1/nope", {}, OA).status == 404
    r = call(oa, "chat/completions", b"{bad", OA)
    assert r.status == 400 and r.json["error"]["type"] == "invalid_request_error"


def test_openai_plain_and_parallel_calls(oa):
    r = oa_chat(oa, USER).json
    assert r["choices"][0]["message"] == {"role": "assistant", "content": "echo: hi",
                                          "refusal": None}
    assert r["choices"][0]["finish_reason"] == "stop" and r["usage"]["total_tokens"] > 0
    oa.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})]))
    m = oa_chat(oa, USER).json["choices"][0]
    assert m["finish_reason"] == "tool_calls" and m["message"]["content"] is None
    calls = m["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_time"]
    assert all(re.match(r"^call_[A-Za-z0-9]{24}$", c["id"]) for c in calls)
    assert json.loads(calls[0]["function"]["arguments"]) == {"city": "Rochdale"}
    assert calls[1]["function"]["arguments"] == "{}"
    oa.queue(Calls([("get_weather", '{"city": "Roch')]))
    bad = oa_chat(oa, USER).json["choices"][0]["message"]["tool_calls"][0]
    assert bad["function"]["arguments"] == '{"city": "Roch'


def test_openai_follow_up_validation(oa):
    oa.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})]))
    msg = oa_chat(oa, USER).json["choices"][0]["message"]
    ids = [c["id"] for c in msg["tool_calls"]]
    hist = USER + [msg]
    good = hist + [{"role": "tool", "tool_call_id": ids[0], "content": "12 C"},
                   {"role": "tool", "tool_call_id": ids[1], "content": "noon"}]
    r = oa_chat(oa, good)
    assert r.status == 200
    assert r.json["choices"][0]["message"]["content"] == "tool said: 12 C; noon"
    r = oa_chat(oa, good[:-1])
    assert r.status == 400 and ids[1] in r.json["error"]["message"]
    assert ids[0] not in r.json["error"]["message"]
    assert "must be followed by tool messages" in r.json["error"]["message"]
    r = oa_chat(oa, good[:-1] + [{"role": "user", "content": "and?"}])
    assert r.status == 400 and ids[1] in r.json["error"]["message"]
    r = oa_chat(oa, USER + [{"role": "tool", "tool_call_id": "call_x", "content": "?"}])
    assert r.status == 400 and "role 'tool'" in r.json["error"]["message"]
    parsed = dict(msg, tool_calls=[dict(c, function={"name": c["function"]["name"],
                                                     "arguments": {}})
                                   for c in msg["tool_calls"]])
    r = oa_chat(oa, USER + [parsed] + good[2:])
    assert r.status == 400 and "arguments" in r.json["error"]["param"]


def test_openai_tool_and_param_validation(oa):
    fn = {"name": "get_weather", "description": "d", "parameters": WEATHER}
    assert oa_chat(oa, USER, tools=[{"type": "function", "function": fn}]).status == 200
    r = oa_chat(oa, USER, tools=[fn])
    assert r.status == 400 and r.json["error"]["param"] == "tools[0].type"
    r = oa_chat(oa, USER, tools=[{"type": "function",
                                  "function": dict(fn, name="get weather!")}])
    assert r.status == 400 and r.json["error"]["param"] == "tools[0].function.name"
    r = oa_chat(oa, USER, tools=[{"type": "function",
                                  "function": dict(fn, name="x" * 65)}])
    assert r.status == 400
    assert oa_chat(oa, USER, tool_choice="auto").status == 400
    for model in ("o3-mini", "gpt-5-mini"):
        r = oa_chat(oa, USER, model=model, max_tokens=10)
        assert r.status == 400 and r.json["error"]["code"] == "unsupported_parameter"
        assert oa_chat(oa, USER, model=model, max_completion_tokens=10).status == 200
    assert oa_chat(oa, USER, max_tokens=10).status == 200
    assert oa_chat(oa, USER, stream_options={"include_usage": True}).status == 400


def test_openai_stream_text_and_calls(oa):
    oa.queue(Text("Hello there, friend"))
    ev = sse_json(oa_chat(oa, USER, stream=True,
                          stream_options={"include_usage": True}).body)
    assert all(n is None for n, _ in ev) and ev[-1][1] == "[DONE]"
    chunks = [d for _, d in ev[:-1]]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks
                   if c["choices"])
    assert text == "Hello there, friend" and len(chunks) > 4
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    oa.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})]))
    chunks = [d for _, d in sse_json(oa_chat(oa, USER, stream=True).body)[:-1]]
    frags = {}
    for c in chunks:
        for tc in c["choices"][0]["delta"].get("tool_calls") or ():
            frags.setdefault(tc["index"], []).append(tc)
    assert sorted(frags) == [0, 1] and len(frags[0]) > 2
    for fl in frags.values():
        assert "id" in fl[0] and fl[0]["function"]["name"] and fl[0]["type"] == "function"
        assert all("id" not in f and "name" not in f["function"] for f in fl[1:])
    args = "".join(f["function"]["arguments"] for f in frags[0])
    assert json.loads(args) == {"city": "Rochdale"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_openai_fail_shapes_midstream_and_finish(oa):
    for status, type_, code in [(400, "invalid_request_error", None),
                                (401, "invalid_request_error", "invalid_api_key"),
                                (404, "invalid_request_error", "model_not_found"),
                                (429, "tokens", "rate_limit_exceeded"),
                                (500, "server_error", None)]:
        oa.queue(Fail(status, headers={"retry-after": "1"}))
        r = oa_chat(oa, USER)
        e = r.json["error"]
        assert (r.status, e["type"], e["code"]) == (status, type_, code)
        assert set(e) == {"message", "type", "param", "code"} and e["message"]
        assert r.headers["retry-after"] == "1"
    oa.queue(Fail(429, kind="quota", headers={"retry-after-ms": "200"}))
    r = oa_chat(oa, USER)
    assert r.json["error"]["code"] == "insufficient_quota"
    assert r.headers["retry-after-ms"] == "200"
    oa.queue(Fail(500, midstream=True))
    ev = sse_json(oa_chat(oa, USER, stream=True).body)
    assert ev[-1][1]["error"]["type"] == "server_error"
    assert all(d != "[DONE]" for _, d in ev) and len(ev) >= 3
    oa.queue(Text("", finish="length"), Text("", finish="content_filter"))
    assert oa_chat(oa, USER).json["choices"][0]["finish_reason"] == "length"
    assert oa_chat(oa, USER).json["choices"][0]["finish_reason"] == "content_filter"


def test_openai_models_small_and_large():
    with FakeOpenAI(models=5000) as s:
        r = call(s, "models", headers=OA)
        data = r.json["data"]
        assert r.json["object"] == "list" and len(data) == 5000
        assert data[0]["id"] == "gpt-4o-mini" and data[0]["object"] == "model"
        assert len(r.body) > 300000
        assert oa_chat(s, USER, model=data[-1]["id"]).status == 200
        assert call(s, "models").status == 401


def test_groq_whole_calls_usage_and_tool_use_failed():
    with FakeOpenAI("groq", models=["llama-3.3-70b-versatile"]) as s:
        s.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})]))
        chunks = [d for _, d in sse_json(oa_chat(s, USER, "llama-3.3-70b-versatile",
                                                 stream=True).body)[:-1]]
        with_calls = [c for c in chunks if c["choices"][0]["delta"].get("tool_calls")]
        assert len(with_calls) == 1
        tcs = with_calls[0]["choices"][0]["delta"]["tool_calls"]
        assert [t["index"] for t in tcs] == [0, 1]
        assert json.loads(tcs[0]["function"]["arguments"]) == {"city": "Rochdale"}
        assert chunks[-1]["x_groq"]["usage"]["total_tokens"] > 0
        s.queue(Calls([("get_weather", "{city: Rochdale")]))
        r = oa_chat(s, USER, "llama-3.3-70b-versatile")
        e = r.json["error"]
        assert r.status == 400 and e["code"] == "tool_use_failed"
        assert "{city: Rochdale" in e["failed_generation"]
        r = oa_chat(s, USER, "llama-3.3-70b-versatile", headers={})
        assert r.status == 401 and r.json["error"]["code"] == "invalid_api_key"


def test_ollama_no_key_tags_reasoning_and_finish_chunk():
    with FakeOpenAI("ollama") as s:
        tags = call(s, "/api/tags").json["models"]
        assert tags[0]["name"] == "llama3.2:latest" and tags[0]["size"] > 0
        s.queue(Calls([("get_time", {})], think=Think("hmm, time")))
        chunks = [d for _, d in sse_json(oa_chat(s, USER, "llama3.2", headers={},
                                                 stream=True).body)[:-1]]
        deltas = [c["choices"][0]["delta"] for c in chunks]
        assert "".join(d.get("reasoning", "") for d in deltas) == "hmm, time"
        assert sum(1 for d in deltas if d.get("tool_calls")) == 1
        assert deltas[-1] == {} and chunks[-1]["choices"][0]["finish_reason"] == \
            "tool_calls"
        assert oa_chat(s, USER, "nope", headers={}).status == 404


def test_kimi_ids_reasoning_content_and_usage():
    with FakeOpenAI("kimi") as s:
        m = "kimi-k2-thinking"
        s.queue(Calls([("get_weather", {"city": "Rochdale"})], think=Think("plan")))
        msg = oa_chat(s, USER, m).json["choices"][0]["message"]
        tc = msg["tool_calls"][0]
        assert tc["id"] == "functions.get_weather:0" and msg["reasoning_content"] == "plan"
        res = [{"role": "tool", "tool_call_id": tc["id"], "content": "12 C"}]
        assert oa_chat(s, USER + [msg] + res, m).status == 200
        stripped = dict(msg)
        del stripped["reasoning_content"]
        r = oa_chat(s, USER + [stripped] + res, m)
        assert r.status == 400 and "reasoning_content is missing" in r.text
        assert "index 1" in r.text and set(r.json["error"]) == {"message", "type"}
        assert oa_chat(s, USER + [stripped] + res, "kimi-k2-0905-preview").status == 200
        s.queue(Calls([("get_time", {})], think=Think("again")))
        ev = sse_json(oa_chat(s, USER + [msg] + res, m, stream=True).body)
        chunks = [d for _, d in ev[:-1]]
        assert "".join(c["choices"][0]["delta"].get("reasoning_content", "")
                       for c in chunks) == "again"
        ids = [t["id"] for c in chunks
               for t in c["choices"][0]["delta"].get("tool_calls") or () if "id" in t]
        assert ids == ["functions.get_time:1"]
        assert chunks[-1]["choices"][0]["usage"]["total_tokens"] > 0


def test_textonly_refuses_tools_and_answers_calls_as_text():
    with FakeTextOnly() as s:
        m = "text-model-1"
        fn = {"type": "function", "function": {"name": "f", "parameters": WEATHER}}
        for kw in ({"tools": [fn]}, {"tool_choice": "auto"}):
            r = oa_chat(s, USER, m, **kw)
            assert r.status == 400 and "tools are not supported" in r.text
        r = oa_chat(s, USER + [{"role": "tool", "tool_call_id": "x", "content": "1"}], m)
        assert r.status == 400 and "tools are not supported" in r.text
        s.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})]))
        text = oa_chat(s, USER, m).json["choices"][0]["message"]["content"]
        blocks = re.findall(r"```tool_call\n(.*?)\n```", text, re.S)
        assert [json.loads(b) for b in blocks] == [
            {"name": "get_weather", "arguments": {"city": "Rochdale"}},
            {"name": "get_time", "arguments": {}}]
        r = oa_chat(s, [{"role": "user", "content": "Tool result get_weather: 12 C"}], m)
        assert r.json["choices"][0]["message"]["content"] == "tool said: 12 C"
        s.queue(Calls([("get_time", {})]))
        ev = sse_json(oa_chat(s, USER, m, stream=True).body)
        text = "".join(d["choices"][0]["delta"].get("content") or ""
                       for _, d in ev[:-1])
        assert '```tool_call\n{"name": "get_time", "arguments": {}}\n```' in text


# ---------------------------------------------------------------- Anthropic

def test_anthropic_auth_versions_and_basic_validation(an):
    assert an.base_url.endswith("/v1")
    r = an_msg(an, USER, headers={"x-api-key": "sk-ant-test"})
    assert r.status == 400 and "anthropic-version" in r.json["error"]["message"]
    assert an_msg(an, USER).status == 200
    bearer = {"Authorization": "Bearer sk-ant-test", "anthropic-version": "2026-10-21"}
    assert an_msg(an, USER, headers=bearer).status == 200
    r = an_msg(an, USER, headers=bearer, temperature=0.5)
    assert r.status == 400 and "temperature" in r.text
    r = an_msg(an, USER, headers=dict(AN, **{"x-api-key": "nope"}))
    assert r.status == 401 and r.json["type"] == "error"
    assert r.json["error"]["type"] == "authentication_error"
    r = call(an, "messages", {"model": "claude-sonnet-4-5", "messages": USER}, AN)
    assert r.status == 400 and r.json["error"]["message"] == "max_tokens: Field required"
    r = an_msg(an, [{"role": "system", "content": "be nice"}] + USER)
    assert r.status == 400 and "top-level `system`" in r.text
    r = an_msg(an, USER + USER)
    assert r.status == 400 and "alternate" in r.text
    r = an_msg(an, USER, model="claude-9")
    assert r.status == 404 and r.json["error"]["type"] == "not_found_error"
    r = an_msg(an, USER, tools=[{"type": "function", "function": {"name": "f"}}])
    assert r.status == 400
    r = an_msg(an, USER, tools=[{"name": "f", "description": "d",
                                 "input_schema": WEATHER}], system="sys")
    assert r.status == 200
    r = an_msg(an, USER, thinking={"type": "enabled", "budget_tokens": 500})
    assert r.status == 400 and "budget_tokens" in r.text
    assert an_msg(an, USER, thinking={"type": "enabled", "budget_tokens": 1024}).status \
        == 200


def test_anthropic_calls_and_follow_up(an):
    an.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})],
                   text="Checking."))
    r = an_msg(an, USER).json
    assert r["type"] == "message" and r["stop_reason"] == "tool_use"
    kinds = [b["type"] for b in r["content"]]
    assert kinds == ["text", "tool_use", "tool_use"]
    uses = r["content"][1:]
    assert all(re.match(r"^toolu_01[A-Za-z0-9]{22}$", u["id"]) for u in uses)
    assert uses[0]["input"] == {"city": "Rochdale"}
    asst = {"role": "assistant", "content": r["content"]}
    results = [{"type": "tool_result", "tool_use_id": u["id"], "content": c}
               for u, c in zip(uses, ["12 C", [{"type": "text", "text": "noon"}]])]
    r2 = an_msg(an, USER + [asst, {"role": "user", "content": results}])
    assert r2.status == 200
    assert r2.json["content"][0]["text"] == "tool said: 12 C; noon"
    r3 = an_msg(an, USER + [asst, {"role": "user", "content": results[:1]}])
    assert r3.status == 400 and uses[1]["id"] in r3.json["error"]["message"]
    assert "without `tool_result` blocks immediately after" in r3.text
    late = [{"type": "text", "text": "here"}] + results
    assert an_msg(an, USER + [asst, {"role": "user", "content": late}]).status == 400
    stray = [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "?"}]
    r4 = an_msg(an, [{"role": "user", "content": stray}])
    assert r4.status == 400 and "unexpected `tool_use_id`" in r4.text


def test_anthropic_thinking_must_be_echoed(an):
    th = {"type": "enabled", "budget_tokens": 2048}
    an.queue(Calls([("get_time", {})], think=Think("I should check the time.")))
    r = an_msg(an, USER, thinking=th).json
    think, use = r["content"]
    assert think["type"] == "thinking" and len(think["signature"]) >= 100
    res = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"],
                                        "content": "noon"}]}
    ok = an_msg(an, USER + [{"role": "assistant", "content": r["content"]}, res],
                thinking=th)
    assert ok.status == 200
    r1 = an_msg(an, USER + [{"role": "assistant", "content": [use]}, res], thinking=th)
    assert r1.status == 400 and "must start with a thinking block" in r1.text
    forged = dict(think, signature=think["signature"][:-4] + "AAAA")
    r2 = an_msg(an, USER + [{"role": "assistant", "content": [forged, use]}, res],
                thinking=th)
    assert r2.status == 400 and "signature" in r2.text
    edited = dict(think, thinking="something else")
    r3 = an_msg(an, USER + [{"role": "assistant", "content": [edited, use]}, res],
                thinking=th)
    assert r3.status == 400 and "cannot be modified" in r3.text
    # with thinking off the service does not insist on the thinking block
    assert an_msg(an, USER + [{"role": "assistant", "content": [use]}, res]).status \
        == 200


def test_anthropic_stream_sequence(an):
    an.queue(Calls([("get_weather", {"city": "Rochdale"})], text="Let me see.",
                   think=Think("thinking hard")))
    an.options(comments=True)
    r = an_msg(an, USER, stream=True)
    events, comments = sse(r.body)
    assert comments > 3
    ev = [(n, json.loads(d)) for n, d in events]
    assert all(n == d["type"] for n, d in ev)
    names = [n for n, _ in ev if n != "ping"]
    assert sum(1 for n, _ in ev if n == "ping") >= 3
    assert names[0] == "message_start" and names[-2:] == ["message_delta",
                                                          "message_stop"]
    blocks, text, args, thinking, sig = {}, "", "", "", ""
    for n, d in ev:
        if n == "content_block_start":
            blocks[d["index"]] = d["content_block"]["type"]
        elif n == "content_block_delta":
            dl = d["delta"]
            text += dl.get("text", "")
            args += dl.get("partial_json", "")
            thinking += dl.get("thinking", "")
            sig += dl.get("signature", "")
    assert blocks == {0: "thinking", 1: "text", 2: "tool_use"}
    assert (text, thinking) == ("Let me see.", "thinking hard")
    assert json.loads(args) == {"city": "Rochdale"} and len(sig) >= 100
    assert names.count("content_block_stop") == 3
    md = [d for n, d in ev if n == "message_delta"][0]
    assert md["delta"]["stop_reason"] == "tool_use" and md["usage"]["output_tokens"] > 0


def test_anthropic_fail_shapes_midstream_finish(an):
    for status, kind in [(400, "invalid_request_error"), (401, "authentication_error"),
                         (403, "permission_error"), (404, "not_found_error"),
                         (413, "request_too_large"), (429, "rate_limit_error"),
                         (500, "api_error"), (529, "overloaded_error")]:
        an.queue(Fail(status, headers={"retry-after": "1"}))
        r = an_msg(an, USER)
        assert (r.status, r.json["type"], r.json["error"]["type"]) == (status, "error",
                                                                       kind)
        assert r.headers["retry-after"] == "1" and r.json["error"]["message"]
    an.queue(Fail(529, midstream=True))
    ev = sse_json(an_msg(an, USER, stream=True).body)
    assert ev[-1][0] == "error" and ev[-1][1]["error"]["type"] == "overloaded_error"
    assert "message_stop" not in [n for n, _ in ev]
    assert any(n == "content_block_delta" for n, _ in ev)
    an.queue(Text("", finish="length"), Text("no", finish="refusal"))
    assert an_msg(an, USER).json["stop_reason"] == "max_tokens"
    assert an_msg(an, USER).json["stop_reason"] == "refusal"


def test_anthropic_models_pagination():
    ids = ["claude-m-%02d" % i for i in range(45)]
    with FakeAnthropic(models=ids) as s:
        seen, after, pages = [], None, 0
        while True:
            q = "models" + ("?after_id=" + after if after else "")
            r = call(s, q, headers=AN).json
            seen += [m["id"] for m in r["data"]]
            pages += 1
            assert r["data"][0]["type"] == "model" and r["data"][0]["display_name"]
            assert r["first_id"] == r["data"][0]["id"]
            if not r["has_more"]:
                break
            after = r["last_id"]
        assert seen == ids and pages == 3
        r = call(s, "models?limit=50", headers=AN).json
        assert len(r["data"]) == 45 and r["has_more"] is False
        assert call(s, "models").status == 400


# ---------------------------------------------------------------- Gemini

def G(text):
    return [{"role": "user", "parts": [{"text": text}]}]


def test_gemini_auth_model_and_versions(ge):
    assert ge.base_url.endswith("/v1beta")
    assert ge_gen(ge, G("hi")).json["candidates"][0]["content"]["parts"] == [
        {"text": "echo: hi"}]
    r = call(ge, "/v1/models/gemini-2.5-flash:generateContent?key=AIza-test",
             {"contents": G("hi")})
    assert r.status == 200
    r = ge_gen(ge, G("hi"), headers={"x-goog-api-key": "bad"})
    e = r.json["error"]
    assert (r.status, e["code"], e["status"]) == (400, 400, "INVALID_ARGUMENT")
    assert e["details"][0]["reason"] == "API_KEY_INVALID"
    r = ge_gen(ge, G("hi"), headers={})
    assert r.status == 403 and r.json["error"]["status"] == "PERMISSION_DENIED"
    for model in ("gemini-9", "gemini-embedding-001"):
        r = ge_gen(ge, G("hi"), model=model)
        assert r.status == 404 and r.json["error"]["status"] == "NOT_FOUND"


def test_gemini_calls_signatures_and_follow_up(ge):
    ge.queue(Calls([("get_weather", {"city": "Rochdale"}), ("get_time", {})],
                   think=Think("planning"), ids=True))
    r = ge_gen(ge, G("weather?"), model="gemini-3-pro-preview").json
    parts = r["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "planning", "thought": True}
    assert len(parts[1]["thoughtSignature"]) >= 100 and "thoughtSignature" not in parts[2]
    assert parts[1]["functionCall"]["args"] == {"city": "Rochdale"}
    assert parts[1]["functionCall"]["id"] and r["candidates"][0]["finishReason"] == "STOP"
    model = {"role": "model", "parts": parts}
    res = {"role": "user", "parts": [
        {"functionResponse": {"name": "get_weather", "id": parts[1]["functionCall"]["id"],
                              "response": {"output": "12 C"}}},
        {"functionResponse": {"name": "get_time", "response": {"output": "noon"}}}]}
    ok = ge_gen(ge, G("weather?") + [model, res], model="gemini-3-pro-preview")
    assert ok.status == 200
    assert ok.json["candidates"][0]["content"]["parts"][0]["text"] == \
        "tool said: 12 C; noon"
    dropped = dict(model, parts=[dict((k, v) for k, v in p.items()
                                      if k != "thoughtSignature") for p in parts])
    r1 = ge_gen(ge, G("weather?") + [dropped, res])
    assert r1.status == 400 and "missing a thought_signature" in r1.text
    assert "default_api:get_weather" in r1.text and "position 2" in r1.text
    bent = dict(model, parts=[parts[0], dict(parts[1], thoughtSignature="QUJD"),
                              parts[2]])
    assert ge_gen(ge, G("weather?") + [bent, res]).status == 400
    one = dict(res, parts=res["parts"][:1])
    r2 = ge_gen(ge, G("weather?") + [model, one])
    assert r2.status == 400 and "number of function response parts" in r2.text
    s = {"role": "user", "parts": [dict(res["parts"][0], functionResponse=dict(
        res["parts"][0]["functionResponse"], response="12 C")), res["parts"][1]]}
    r3 = ge_gen(ge, G("weather?") + [model, s])
    assert r3.status == 400 and "function_response.response" in r3.text
    r4 = ge_gen(ge, [{"role": "system", "parts": [{"text": "x"}]}] + G("hi"))
    assert r4.status == 400 and "valid role" in r4.text


def test_gemini_schema_and_config_validation(ge):
    def decl(params):
        return [{"functionDeclarations": [{"name": "f", "description": "d",
                                           "parameters": params}]}]
    assert ge_gen(ge, G("hi"), tools=decl(WEATHER)).status == 200
    nested = {"type": "object", "properties": {
        "city": {"type": "string"},
        "opts": {"type": "object", "additionalProperties": False}}}
    r = ge_gen(ge, G("hi"), tools=decl(nested))
    assert r.status == 400
    assert r.json["error"]["message"] == (
        'Invalid JSON payload received. Unknown name "additionalProperties" at '
        "'tools[0].function_declarations[0].parameters.properties[1].value': "
        "Cannot find field.")
    for bad, word in [(dict(WEATHER, **{"$schema": "x"}), "$schema"),
                      ({"type": "object", "properties": {"n": {"const": 1}}}, "const"),
                      ({"type": "object", "properties": {"n": {"type": "integer",
                                                              "enum": [1, 2]}}}, "enum"),
                      ({"type": ["string", "null"]}, "type"),
                      ({"type": "array", "items": {"oneOf": []}}, "oneOf"),
                      ({"type": "array", "uniqueItems": True}, "uniqueItems")]:
        r = ge_gen(ge, G("hi"), tools=decl(bad))
        assert r.status == 400 and word in r.json["error"]["message"], bad
    r = ge_gen(ge, G("hi"), generationConfig={"thinkingConfig": {
        "thinkingBudget": 100, "thinkingLevel": "low"}})
    assert r.status == 400 and "only one of thinking budget" in r.text
    assert ge_gen(ge, G("hi"), systemInstruction={"parts": [{"text": "be nice"}]},
                  generationConfig={"thinkingConfig": {"thinkingLevel": "low"}}
                  ).status == 200
    assert ge_gen(ge, G("hi"), system={"x": 1}).status == 400


def test_gemini_stream_crlf_and_long_signature(ge):
    sig = Think("deep", size=150000)
    ge.queue(Text("Hello from Gemini"), Calls([("get_weather", {"city": "R"}),
                                                ("get_time", {})], think=sig))
    r = ge_gen(ge, G("hi"), stream=True)
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.body.count(b"\r\n\r\n") == len(sse(r.body)[0]) and b"[DONE]" not in r.body
    ev = sse_json(r.body)
    assert all(n is None for n, _ in ev) and len(ev) > 2
    text = "".join(p.get("text", "") for _, d in ev
                   for p in d["candidates"][0]["content"]["parts"])
    assert text == "Hello from Gemini"
    assert "finishReason" in ev[-1][1]["candidates"][0] and "usageMetadata" in ev[-1][1]
    assert all("finishReason" not in d["candidates"][0] for _, d in ev[:-1])
    ge.options(crlf=False)
    r = ge_gen(ge, G("hi"), stream=True)
    assert b"\r" not in r.body
    lines = r.body.split(b"\n")
    assert max(len(x) for x in lines) > 150000
    parts = [p for _, d in sse_json(r.body) for p in d["candidates"][0]["content"][
        "parts"]]
    calls = [p for p in parts if "functionCall" in p]
    assert len(calls) == 2 and calls[0]["thoughtSignature"] == sig.signature
    assert parts[0].get("thought") is True


def test_gemini_outcomes_fails_and_pagination(ge):
    ge.queue(Blocked("SAFETY"), Text("", finish="length"), Text("", finish="safety"),
             Calls([("get_time", "{oops")]))
    r = ge_gen(ge, G("hi")).json
    assert "candidates" not in r and r["promptFeedback"]["blockReason"] == "SAFETY"
    c = ge_gen(ge, G("hi")).json["candidates"][0]
    assert c["finishReason"] == "MAX_TOKENS" and "parts" not in c["content"]
    assert ge_gen(ge, G("hi")).json["candidates"][0]["finishReason"] == "SAFETY"
    c = ge_gen(ge, G("hi")).json["candidates"][0]
    assert c["finishReason"] == "MALFORMED_FUNCTION_CALL" and "parts" not in c["content"]
    assert c["finishMessage"].endswith("{oops")
    ge.queue(Fail(429), Fail(503), Fail(400, kind="bad_key"), Fail(500))
    e = ge_gen(ge, G("hi")).json["error"]
    assert e["status"] == "RESOURCE_EXHAUSTED" and {"@type": "type.googleapis.com/"
                                                    "google.rpc.RetryInfo",
                                                    "retryDelay": "2s"} in e["details"]
    r = ge_gen(ge, G("hi"))
    assert r.status == 503 and r.json["error"]["status"] == "UNAVAILABLE"
    assert ge_gen(ge, G("hi")).json["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    assert ge_gen(ge, G("hi")).json["error"]["status"] == "INTERNAL"
    ge.queue(Fail(503, midstream=True))
    ev = sse_json(ge_gen(ge, G("hi"), stream=True).body)
    assert ev[-1][1]["error"]["code"] == 503 and "candidates" in ev[0][1]
    ge.queue(Text("abc def ghi"))
    r = call(ge, "models/gemini-2.5-flash:streamGenerateContent", {"contents": G("x")},
             GE).json
    assert isinstance(r, list) and "".join(
        d["candidates"][0]["content"]["parts"][0]["text"] for d in r) == "abc def ghi"
    names, token = [], None
    while True:
        r = call(ge, "models?pageSize=3" + ("&pageToken=" + token if token else ""),
                 headers=GE).json
        names += [m["name"] for m in r["models"]]
        token = r.get("nextPageToken")
        if not token:
            break
    assert names == ["models/" + m for m in FakeGemini.DEFAULT_MODELS]
    assert r["models"][0]["supportedGenerationMethods"] == ["embedContent"]


def test_malformed_requests_get_clean_4xx_not_crashes(oa, an, ge):
    junk = [b"", b"[]", b"null", b'"x"', b"{}", b'{"messages": 5}']
    oa_bodies = junk + [json.dumps(b).encode() for b in (
        {"model": "gpt-4o-mini", "messages": [5]},
        {"model": "gpt-4o-mini", "messages": [{"role": "assistant", "tool_calls": [5]}]},
        {"model": "gpt-4o-mini", "messages": USER, "tools": [5]},
        {"model": "gpt-4o-mini", "messages": USER, "tools": {"a": 1}})]
    an_bodies = junk + [json.dumps(dict(b, model="claude-sonnet-4-5", max_tokens=9)
                                   ).encode() for b in (
        {"messages": [5]}, {"messages": [{"role": "user", "content": [5]}]},
        {"messages": [{"role": "user", "content": 5}]}, {"messages": USER, "tools": [5]},
        {"messages": USER, "thinking": 5}, {"messages": USER, "system": 5})]
    ge_bodies = junk + [json.dumps(b).encode() for b in (
        {"contents": [5]}, {"contents": [{"parts": [5]}]},
        {"contents": [{"parts": [{"functionResponse": "x"}]}]},
        {"contents": [{"parts": [{"functionCall": 5}]}]},
        {"contents": G("hi"), "tools": [5]}, {"contents": G("hi"), "tools": 5},
        {"contents": G("hi"), "tools": [{"functionDeclarations": [5]}]})]
    for srv, path, bodies, h in ((oa, "chat/completions", oa_bodies, OA),
                                 (an, "messages", an_bodies, AN),
                                 (ge, "models/gemini-2.5-flash:generateContent",
                                  ge_bodies, GE)):
        for body in bodies:
            r = call(srv, path, body, h, method="POST")
            assert r.status == 400, (srv, body, r.body)
            assert r.json["error"]["message"]


def test_gemini_text_thought_signature_and_ollama_models():
    with FakeGemini() as ge:
        t = Think("musing")
        ge.queue(Text("answer", think=t))
        parts = ge_gen(ge, G("hi")).json["candidates"][0]["content"]["parts"]
        assert parts == [{"text": "musing", "thought": True},
                         {"text": "answer", "thoughtSignature": t.signature}]
        hist = G("hi") + [{"role": "model", "parts": parts}] + G("more")
        assert ge_gen(ge, hist).json["candidates"][0]["content"]["parts"] == [
            {"text": "echo: more"}]
    with FakeOpenAI("ollama", models=["a:latest"]) as s:
        r = call(s, "models").json
        assert [m["id"] for m in r["data"]] == ["a:latest"]
        assert oa_chat(s, USER, "a", headers={}).status == 200
