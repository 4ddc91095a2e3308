"""Replies that follow a JSON schema (issue 39): ai/feed.py (the reply's
JSON parsed as its text arrives), ai/schema.py (the forms per provider,
the check, the errors), ai.ask_json and the schema override through
ai.ask and ai.run, against the fakes, which check the schema's place and
shape as each service does; then under MicroPython: the same values at
every cut, and 500 items taken one by one with the heap flat (blocking
and awaited: ai.aio runs the same steps)."""
import json

import pytest

import ai
import jsonstream
from ai import schema as sc
from ai.feed import Feed
from fakes import Calls, FakeAnthropic, FakeGemini, FakeOpenAI, FakeResponses, Text

VALUE = {"name": "Zo\u00eb \"Q\" \\ \U0001F600", "age": 41, "score": -12.5e-3,
         "tags": ["a\\b", "\u00e9", ""], "ok": True, "none": None, "big": 12345678901234567890}
# every awkward place: \" and \\, \u00eb and a surrogate pair escaped, numbers
ESCAPED = json.dumps(VALUE, ensure_ascii=True)
RAW = json.dumps(VALUE, ensure_ascii=False)         # the characters as UTF-8
SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer"}, "score": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}}, "ok": {"type": "boolean"},
    "none": {"type": ["string", "null"]}, "big": {"type": "integer"}},
    "required": ["name", "age", "score", "tags", "ok", "none", "big"]}


def root_value(text, cuts):
    """The value a root rule gets from text fed in pieces cut at cuts."""
    got = []
    f = Feed({"": lambda path, v: got.append(v)})
    a = 0
    for c in list(cuts) + [len(text)]:
        f.feed(text[a:c])
        a = c
    f.end()
    return got[0]


@pytest.mark.parametrize("text", [ESCAPED, RAW.encode()], ids=["escaped", "utf8"])
def test_every_cut_gives_what_json_loads_gives(text):
    ref = json.loads(text)
    for cut in range(len(text) + 1):
        assert root_value(text, [cut]) == ref, cut
    for size in (1, 2, 3, 5, 7):            # many pieces
        assert root_value(text, range(size, len(text), size)) == ref, size


@pytest.mark.parametrize("bad", ['{"a": 1,}', '{"a": 01}', '{"a": "\\x"}', '{"a": 1} x',
                                 '{"a": tru}', '{"a"', '{"a": "\\ud83d\\u00"}', '{"a": [1 2]}',
                                 '{"a": "\x01"}', '{"a": -}', '{"a": 1.}'])
def test_errors_are_the_parsers(bad):
    """A text that is not JSON fails with jsonstream's own message and
    offset, wherever it is cut."""
    with pytest.raises(jsonstream.JSONError) as want:
        jsonstream.loads(bad)
    for cut in range(len(bad) + 1):
        with pytest.raises(jsonstream.JSONError) as got:
            root_value(bad, [cut])
        assert str(got.value) == str(want.value), cut


def test_select_hands_each_value_once_complete_and_keeps_none():
    doc = {"items": [{"id": i, "tags": ["x"] * i} for i in range(4)], "n": 4}
    text = json.dumps(doc, indent=2)
    seen = []
    f = Feed({"items[*]": lambda p, v: seen.append((list(p), v)),
              "items[*].id": lambda p, v: seen.append(("id", v)),   # inside a taken value: not called
              "n": jsonstream.Stream(lambda p, v: seen.append(("n", v)))})
    for i, c in enumerate(text):
        f.feed(c)
        if c == "}" and text[i - 1] != "\n" and len(seen) < 4:
            pass
    f.end()
    assert seen == [(["items", i], doc["items"][i]) for i in range(4)] + [("n", 4)]
    assert f.build is None and f.path == []


def test_a_fence_is_passed_over_where_asked():
    for text in ('```json\n{"a": 1}\n```\n', ' ```\n{"a": 1}```', '{"a": 1}'):
        for cut in range(len(text) + 1):
            got = []
            f = Feed({"": lambda p, v: got.append(v)}, fence=True)
            f.feed(text[:cut])
            f.feed(text[cut:])
            f.end()
            assert got == [{"a": 1}], (text, cut)
    with pytest.raises(jsonstream.JSONError):
        root_value('```json\n{"a": 1}\n```', [])       # (without fence)


def test_a_long_piece_needs_no_long_buffer():
    """One piece of 21 KB (a whole reply read at once): the buffer holds a
    token, not the piece (max_value 1000 is no bound on the text)."""
    doc = json.dumps({"items": [{"id": i, "s": "x" * 50} for i in range(300)]})
    got = []
    f = Feed({"items[*]": lambda p, v: got.append(v)}, max_value=1000)
    f.feed(doc)
    f.end()
    assert got == json.loads(doc)["items"] and len(f.buf) <= 1024


def test_select_bounds_a_taken_value():
    text = json.dumps({"items": [list(range(50))]})
    f = Feed({"items[*]": lambda p, v: None}, max_items=20)
    with pytest.raises(jsonstream.JSONError, match="more than 20 elements"):
        f.feed(text)


# ------------------------------------------------------------ the schema itself

def test_concise_syntax_as_llm_reads_it():
    assert sc.parse("name, age int, bio: who they are") == {
        "type": "object", "required": ["name", "age", "bio"], "properties": {
            "name": {"type": "string"}, "age": {"type": "integer"},
            "bio": {"type": "string", "description": "who they are"}}}
    multi = sc.parse("name\nscore float: 0 to 1\nok bool", multi=True)
    assert multi["properties"]["items"]["items"]["properties"]["score"] == {
        "type": "number", "description": "0 to 1"}
    assert sc.parse(json.dumps(SCHEMA)) == SCHEMA
    for bad, says in (("age integer32", "int, float, str or bool"), ("", "names no field"),
                      ('{"type": "array"}', "root must be an object"), ("{nope", "not valid JSON")):
        with pytest.raises(ValueError, match=says):
            sc.parse(bad)


def test_every_schema_row_names_its_source():
    """Each SCHEMAS row has a known form and flags, and where it is
    documented in the comment above the table (row by row: comments cost
    the firmware no flash)."""
    from ai import catalog
    src = open(catalog.__file__.replace(".mpy", ".py")).read()
    above = src[:src.index("SCHEMAS = ")]
    for row in catalog.SCHEMAS.split("\n"):
        w = row.split()
        assert w[0] in catalog.ids() and w[2] in ("json_schema", "json_object", "tool",
                                                   "openapi", "prompt"), row
        assert all(f in ("strict", "closed", "nobounds", "nostream", "notools",
                         "require_parameters") for f in w[3:]), row
        line = [x for x in above.split("\n") if x.startswith("#   %s %s: " % (w[0], w[1]))]
        assert len(line) == 1 and len(line[0].split(": ", 1)[1]) > 20, row


def test_strict_adaptation():
    s = sc.adapt({"type": "object", "properties": {"a": {"type": "string"}, "b": {
        "type": "object", "properties": {"c": {"type": "integer", "minimum": 3}}}},
        "required": ["a"], "$schema": "x"}, "json_schema", ("strict",))
    assert s == {"type": "object", "additionalProperties": False, "required": ["a", "b"],
                 "properties": {"a": {"type": "string"}, "b": {
                     "type": ["object", "null"], "additionalProperties": False, "required": ["c"],
                     "properties": {"c": {"type": ["integer", "null"], "minimum": 3}}}}}
    s = sc.adapt(s, "json_schema", ("closed", "nobounds"))
    assert "minimum" not in s["properties"]["b"]["properties"]["c"]


# ------------------------------------------------------------ each style, on the wire

def _o(srv, provider, model, **kw):
    o = {"provider": provider, "base_url": srv.base_url, "key": srv.key, "model": model,
         "timeout": 10}
    if provider == "openai" and not isinstance(srv, FakeResponses):
        o["style"] = "openai"
    o.update(kw)
    return o


CASES = [   # provider, fake, model, where the schema goes, streamed
    ("openai", lambda: FakeOpenAI("openai"), "gpt-4o-mini", "response_format", True),
    ("openai", FakeResponses, "gpt-5-mini", "text", True),
    ("groq", lambda: FakeOpenAI("groq", key="gsk-test"), "llama-3.3-70b-versatile",
     "json_object", False),
    ("groq", lambda: FakeOpenAI("groq", key="gsk-test"), "openai/gpt-oss-20b",
     "response_format", False),
    ("anthropic", FakeAnthropic, "claude-sonnet-4-5", "output_config", True),
    ("anthropic", lambda: FakeAnthropic(models=["claude-3-5-haiku-latest"]),
     "claude-3-5-haiku-latest", "tool", True),
    ("gemini", FakeGemini, "gemini-2.5-flash", "responseJsonSchema", True),
]


def _answer(srv, where, text):
    """What the fake sends: the text, or the forced tool's input."""
    if where == "tool":
        return Calls([(sc.TOOL, text)])
    return Text(text)


@pytest.mark.parametrize("provider,fake,model,where,streamed", CASES,
                         ids=["%s-%s" % (c[0], c[3]) for c in CASES])
def test_schema_on_the_wire_and_the_value_at_every_cut(provider, fake, model, where, streamed):
    with fake() as srv:
        for size in (1, 3, 7):
            srv.delta_size = size
            srv.queue(_answer(srv, where, ESCAPED))
            value, err = ai.ask_json("who?", SCHEMA, _o(srv, provider, model,
                                                        stream=lambda p: None))
            assert err is None and value == json.loads(ESCAPED), (size, err)
        b = srv.last.json
        assert b.get("stream", False) is streamed or "stream" in srv.last.path
        if where == "response_format":
            js = b["response_format"]["json_schema"]
            assert b["response_format"]["type"] == "json_schema" and js["strict"] is True
            assert js["schema"]["additionalProperties"] is False
        elif where == "text":
            f = b["text"]["format"]
            assert f["type"] == "json_schema" and f["strict"] is True and f["name"] == sc.NAME
        elif where == "json_object":
            assert b["response_format"] == {"type": "json_object"}
            assert "JSON Schema" in b["messages"][0]["content"]
        elif where == "output_config":
            assert b["output_config"]["format"]["schema"]["additionalProperties"] is False
            assert "tools" not in b
        elif where == "tool":
            assert [t["name"] for t in b["tools"]] == [sc.TOOL]
            assert b["tool_choice"] == {"type": "tool", "name": sc.TOOL,
                                        "disable_parallel_tool_use": True}
        else:
            gc = b["generationConfig"]
            assert gc["responseMimeType"] == "application/json" and "$schema" not in gc[where]
        # the reply's text is the JSON, through ai.ask too
        srv.queue(_answer(srv, where, RAW))
        reply, err, calls = ai.ask([{"role": "user", "content": "who?"}],
                                   _o(srv, provider, model, schema=SCHEMA))
        assert err is None and calls is None and json.loads(reply) == VALUE


def _post(url, body, headers):
    """(status, the error's message) of a raw request to a fake."""
    import urllib.request
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 dict(headers, **{"Content-Type": "application/json"}))
    try:
        return urllib.request.urlopen(req).status, None
    except urllib.error.HTTPError as e:
        err = json.loads(e.read())
        return e.code, (err.get("error") or {}).get("message")


def test_the_fakes_refuse_a_schema_out_of_place():
    """What each service refuses, so that the tests above mean something."""
    msgs = [{"role": "user", "content": "hi"}]
    js = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
    with FakeOpenAI("groq", key="gsk-test") as srv:
        url, h = srv.base_url + "/chat/completions", {"Authorization": "Bearer gsk-test"}
        body = {"model": "llama-3.3-70b-versatile", "messages": msgs}
        assert "word 'json'" in _post(url, dict(body, response_format={"type": "json_object"}), h)[1]
        assert "does not support" in _post(url, dict(body, response_format=js), h)[1]
        b = dict(body, model="openai/gpt-oss-20b", response_format=js, stream=True)
        assert "streaming" in _post(url, b, h)[1]
        b["stream"] = False
        b["tools"] = [{"type": "function", "function": {"name": "f"}}]
        assert "tool" in _post(url, b, h)[1]
        del b["tools"]
        js["json_schema"]["strict"] = True
        assert "additionalProperties" in _post(url, b, h)[1]
        assert _post(url, dict(b, response_format={"type": "json_schema", "json_schema": {
            "name": "a", "strict": True, "schema": sc.adapt(sc.parse(SCHEMA), "json_schema",
                                                           ("strict",))}}), h)[0] == 200
    with FakeAnthropic() as srv:
        url, h = srv.base_url + "/messages", {"x-api-key": srv.key, "anthropic-version": "2023-06-01"}
        body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": msgs,
                "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}}
        assert "additionalProperties" in _post(url, body, h)[1]
        closed = sc.adapt(sc.parse(dict(SCHEMA, properties=dict(SCHEMA["properties"], age={
            "type": "integer", "minimum": 0}))), "json_schema", ("closed",))
        body["output_config"]["format"]["schema"] = closed
        assert "'minimum' is not supported" in _post(url, body, h)[1]
        del body["output_config"]
        body.update(thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=2000,
                    tools=[{"name": "t", "input_schema": {"type": "object"}}],
                    tool_choice={"type": "tool", "name": "t"})
        assert "Thinking may not be enabled" in _post(url, body, h)[1]
    with FakeGemini() as srv:
        url = srv.base_url + "/models/gemini-2.5-flash:generateContent"
        h = {"x-goog-api-key": srv.key}
        body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "tools": [{"functionDeclarations": [{"name": "f"}]}],
                "generationConfig": {"responseMimeType": "application/json",
                                     "responseJsonSchema": SCHEMA}}
        assert "Function calling with a response mime type" in _post(url, body, h)[1]
        del body["tools"]
        assert _post(url, body, h)[0] == 200


# ------------------------------------------------------------ errors, each its own

@pytest.mark.parametrize("provider,fake,model,where,streamed", CASES[:2] + CASES[4:5] + CASES[6:],
                         ids=["chat", "responses", "anthropic", "gemini"])
def test_each_failure_has_its_own_err(provider, fake, model, where, streamed):
    with fake() as srv:
        o = _o(srv, provider, model, stream=lambda p: None)
        if provider == "openai":
            refusal = Text("", refusal="I can't help with that.")
        else:
            refusal = Text("", finish="refusal")
        srv.queue(refusal)
        _, err = ai.ask_json("q", SCHEMA, o)
        assert "refused to answer" in err, err
        srv.queue(Text(ESCAPED[:40], finish="length"))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert "cut short by the token limit after 40 characters" in err, err
        assert "raise ai.chat.max_tokens" in err or "max_tokens" in err
        srv.queue(Text(ESCAPED.replace('"age"', "age")))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert "JSON does not parse (JSON: expected '\"' (object key) at byte" in err, err
        srv.queue(Text(ESCAPED.replace("41", '"41"')))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert err.endswith("breaks the schema: age is a string, not an integer"), err
        srv.queue(Text(json.dumps(dict(VALUE, tags=["a", 3]))))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert err.endswith("breaks the schema: tags[1] is an integer, not a string"), err
        v = dict(VALUE)
        del v["ok"]
        srv.queue(Text(json.dumps(v)))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert err.endswith("breaks the schema: the reply has no member 'ok' (required)"), err
        srv.queue(Text(ESCAPED + " trailing"))
        _, err = ai.ask_json("q", SCHEMA, o)
        assert "expected end of input" in err


@pytest.mark.parametrize("provider,fake,model,where,streamed", CASES,
                         ids=["%s-%s" % (c[0], c[3]) for c in CASES])
def test_the_awaited_calls(provider, fake, model, where, streamed):
    """ai.aio.ask_json, and the schema in ai.aio.ask and ai.aio.run: the
    same forms, values and errors as the blocking calls (Groq's whole
    reply too: its body read in the loop)."""
    import asyncio
    from ai import aio
    weather = {"name": "get_weather", "description": "Weather", "run": lambda a: "12 C",
               "parameters": {"type": "object", "properties": {}}}

    async def main(srv):
        srv.delta_size = 3
        srv.queue(_answer(srv, where, ESCAPED))
        got = await aio.ask_json("who?", SCHEMA, _o(srv, provider, model))
        assert got == (json.loads(ESCAPED), None), got
        assert srv.last.json.get("stream", False) is streamed or "stream" in srv.last.path
        srv.queue(_answer(srv, where, ESCAPED.replace("41", '"41"')))
        reply, err, calls = await aio.ask([{"role": "user", "content": "q"}],
                                          _o(srv, provider, model, schema=SCHEMA))
        assert err.endswith("the reply breaks the schema: age is a string, not an integer")
        srv.queue(Calls([("get_weather", {})]), _answer(srv, where, RAW))
        reply, err = await aio.run([{"role": "user", "content": "q"}],
                                   _o(srv, provider, model, schema=SCHEMA), tools=[weather])
        assert err is None and json.loads(reply) == VALUE
    with fake() as srv:
        asyncio.run(main(srv))


def test_the_awaited_values_one_by_one_and_streamed():
    """ai.aio.ask_json's select hands each item over while the reply still
    streams (the pieces after it not yet arrived), as the blocking call
    does; ai.aio.stream with a schema gives the JSON's pieces and the
    schema's err at the end."""
    import asyncio
    from ai import aio
    items = [{"id": i, "name": "n%d" % i} for i in range(5)]
    text = json.dumps({"items": items})

    async def main(srv):
        srv.delta_size = 4
        srv.queue(Text(text))
        seen = []
        value, err = await aio.ask_json("q", "id int, name", _o(
            srv, "openai", "gpt-4o-mini", schema_multi=True,
            stream=lambda p: seen.append(("piece", p)),
            select={"items[*]": lambda p, v: seen.append(("item", v))}))
        assert (value, err) == (None, None)
        assert [v for k, v in seen if k == "item"] == items
        assert "".join(v for k, v in seen if k == "piece") == text
        # the first item came before the second's pieces: one by one
        first = seen.index(("item", items[0]))
        assert first < len(seen) - 2 * len(json.dumps(items[1])) // 4
        srv.queue(Text(text))
        async with aio.stream([{"role": "user", "content": "q"}],
                              _o(srv, "openai", "gpt-4o-mini", schema="id int, name",
                                 schema_multi=True)) as s:
            got = [p async for p in s]
        assert "".join(got) == text and s.err is None and json.loads(s.reply) == {"items": items}
        srv.queue(Text(text.replace('"id": 3', '"id": "3"')))
        async with aio.stream([{"role": "user", "content": "q"}],
                              _o(srv, "openai", "gpt-4o-mini", schema="id int, name",
                                 schema_multi=True)) as s:
            got = [p async for p in s]
        assert s.reply is None and s.err.endswith("items[3].id is a string, not an integer")
    with FakeOpenAI("openai") as srv:
        asyncio.run(main(srv))


def test_a_value_is_handed_over_only_whole_and_checked():
    items = [{"id": i, "name": "n%d" % i} for i in range(3)] + [{"id": "3", "name": "x"}]
    with FakeOpenAI("openai") as srv:
        srv.queue(Text(json.dumps({"items": items})))
        got = []
        value, err = ai.ask_json("q", "id int, name", _o(srv, "openai", "gpt-4o-mini",
                                                          schema_multi=True,
                                                          select={"items[*]": lambda p, v:
                                                                  got.append(v)}))
        assert value is None and err.endswith("items[3].id is a string, not an integer")
        assert got == items[:3]


def test_run_with_tools_then_the_answer_as_json():
    weather = {"name": "get_weather", "description": "Weather for a city",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                              "required": ["city"]},
               "run": lambda a: "12 C in " + a["city"]}
    with FakeOpenAI("openai") as srv:
        srv.queue(Calls([("get_weather", {"city": "Rochdale"})]),
                  Text('{"city": "Rochdale", "celsius": 12}'))
        hist = [{"role": "user", "content": "weather?"}]
        reply, err = ai.run(hist, _o(srv, "openai", "gpt-4o-mini",
                                     schema="city, celsius int"), tools=[weather])
        assert err is None and json.loads(reply) == {"city": "Rochdale", "celsius": 12}
        assert [r.json.get("response_format", {}).get("type") for r in srv.requests] == \
            ["json_schema", "json_schema"]
    # Groq cannot take tools with a schema: the instructions then (and
    # the JSON in a code fence, as models fence it, is the answer)
    with FakeOpenAI("groq", key="gsk-test") as srv:
        srv.queue(Calls([("get_weather", {"city": "Leeds"})]),
                  Text('```json\n{"city": "Leeds", "celsius": 9}\n```'),
                  Calls([("get_weather", {"city": "Leeds"})]),
                  Text('```json\n{"city": "Leeds", "celsius": "9"}\n```'))
        reply, err = ai.run([{"role": "user", "content": "weather?"}],
                            _o(srv, "groq", "llama-3.3-70b-versatile",
                               schema="city, celsius int"), tools=[weather])
        assert err is None and json.loads(reply[8:-4])["celsius"] == 9
        reply, err = ai.run([{"role": "user", "content": "weather?"}],
                            _o(srv, "groq", "llama-3.3-70b-versatile",
                               schema="city, celsius int"), tools=[weather])
        assert err == "groq: the reply breaks the schema: celsius is a string, not an integer"
        assert all("response_format" not in r.json and "JSON Schema" in
                   r.json["messages"][0]["content"] for r in srv.requests)


def test_anthropic_forced_tool_beside_other_tools_and_without_thinking():
    weather = {"name": "get_weather", "description": "Weather", "run": lambda a: "12 C",
               "parameters": {"type": "object", "properties": {}}}
    with FakeAnthropic(models=["claude-3-5-haiku-latest"]) as srv:
        srv.queue(Calls([("get_weather", {})]), Calls([(sc.TOOL, {"celsius": 12})]))
        reply, err = ai.run([{"role": "user", "content": "weather?"}],
                            _o(srv, "anthropic", "claude-3-5-haiku-latest", thinking="high",
                               schema="celsius int"), tools=[weather])
        assert err is None and json.loads(reply) == {"celsius": 12}
        b = srv.last.json
        assert b["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}
        assert [t["name"] for t in b["tools"]] == ["get_weather", sc.TOOL]
        assert "thinking" not in b


def test_a_bad_schema_is_an_err_before_any_request():
    with FakeOpenAI("openai") as srv:
        _, err = ai.ask_json("q", "age integer32", _o(srv, "openai", "gpt-4o-mini"))
        assert err == ("schema: schema field 'age': the type is int, float, str or bool, "
                       "not 'integer32'") and srv.requests == []


# ------------------------------------------------------------ under MicroPython

def test_micropython_every_cut(mpy, tmp_path):
    for text in (ESCAPED.encode(), RAW.encode()):
        path = tmp_path / "doc.json"
        path.write_bytes(text)
        cuts = list(range(len(text) + 1))
        r = mpy.run("ai_feed", heap="64K", args=[path, ",".join(map(str, cuts))], timeout=120)
        assert r.rc == 0, r
        lines = r.out.splitlines()
        assert len(lines) == len(cuts), r
        for cut, line in zip(cuts, lines):
            assert line.startswith("VALUE "), (cut, line)
            assert json.loads(line[6:]) == json.loads(text), (cut, line)
    bad = b'{"a": "\\x"}'
    (tmp_path / "bad.json").write_bytes(bad)
    r = mpy.run("ai_feed", heap="64K", args=[tmp_path / "bad.json", "0,4,8,9"])
    with pytest.raises(jsonstream.JSONError) as want:
        jsonstream.loads(bad)
    assert r.out.splitlines() == ["ERROR %s" % want.value] * 4, r


@pytest.mark.parametrize("provider,fake,model,where,streamed", CASES,
                         ids=["%s-%s" % (c[0], c[3]) for c in CASES])
def test_micropython_each_style(mpy, tmp_path, provider, fake, model, where, streamed):
    """The reply cut at every character (a piece per character), through
    each style's stream (or Groq's whole reply), gives json.loads' value."""
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    with fake() as srv:
        srv.delta_size = 1
        style = "responses" if fake is FakeResponses else "-"
        for how in ("blocking", "aio"):
            srv.queue(_answer(srv, where, ESCAPED))
            r = mpy.run("ai_json_styles", heap="48K", timeout=120, args=[
                provider, srv.base_url, model, srv.key, tmp_path, tmp_path / "schema.json",
                style] + (["aio"] if how == "aio" else []))
            assert r.rc == 0 and r.out.startswith("VALUE "), (how, r)
            assert json.loads(r.out[6:]) == json.loads(ESCAPED), how
            assert srv.last.json.get("stream", False) is streamed or "stream" in srv.last.path


ITEMS_CAP = "34K"


def _items(mpy, tmp_path, n, heap, live=False, aio=False):
    with FakeOpenAI("openai") as srv:
        srv.delta_size = 40
        items = [{"id": i, "name": "item %d \u00e9\U0001F600" % i,
                  "note": "a sentence of about a hundred and thirty characters or so, with "
                          "\"quotes\", a backslash \\ and a line break\nin it.",
                  "ok": i % 2 == 0} for i in range(n)]
        text = json.dumps({"items": items}, indent=1)
        srv.queue(Text(text))
        r = mpy.run("ai_json_items", heap=heap, live=live, timeout=120,
                    args=["openai", srv.base_url, "gpt-4o-mini", "sk-test", tmp_path, n] +
                    (["aio"] if aio else []))
        return r, len(text)


def test_micropython_500_items_with_the_heap_flat(mpy, measure, tmp_path):
    r50, size50 = _items(mpy, tmp_path, 50, ITEMS_CAP)
    assert r50.rc == 0 and "ITEMS 50 0 49 None None" in r50.out, r50
    r500, size500 = _items(mpy, tmp_path, 500, ITEMS_CAP)
    assert r500.rc == 0 and "ITEMS 500 0 499 None None" in r500.out, r500
    assert size500 > 100 * 1024
    # the working sets, from runs of their own (live data: mpyrun)
    w50 = _items(mpy, tmp_path, 50, ITEMS_CAP, live=True)[0]
    w500 = _items(mpy, tmp_path, 500, ITEMS_CAP, live=True)[0]
    assert w50.rc == 0 and w500.rc == 0, (w50, w500)
    print("peak above the baseline: 50 items %d B, 500 items %d B (at %s: %d B, %d B)" % (
        w50.working, w500.working, ITEMS_CAP, r50.working, r500.working))
    assert abs(w500.working - w50.working) < 1024, (w50.working, w500.working)
    # ai.aio.ask_json in an asyncio loop, at the awaited chat's cap: as flat
    from test_aio import CHAT_CAP
    a50 = _items(mpy, tmp_path, 50, CHAT_CAP, live=True, aio=True)[0]
    a500 = _items(mpy, tmp_path, 500, CHAT_CAP, live=True, aio=True)[0]
    assert "ITEMS 500 0 499 None None" in a500.out and a50.rc == 0, (a50, a500)
    print("awaited: 50 items %d B, 500 items %d B" % (a50.working, a500.working))
    assert abs(a500.working - a50.working) < 1024, (a50.working, a500.working)
    measure.smallest("heap", "ai.ask_json: 500 items (100 KB) taken one by one",
                     lambda heap: "ITEMS 500 0 499 None None" in _items(mpy, tmp_path, 500, heap)[0].out,
                     ITEMS_CAP)
