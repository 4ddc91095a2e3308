"""The OpenAI-compatible services in the catalogue (issue 39): Mistral,
DeepSeek, OpenRouter, xAI, Cerebras, Together, LM Studio and llama.cpp's
llama-server. Each is a catalogue row and quirks, no code path of its
own: a chat (whole and streamed) and a tool round through ai.ask / ai.run
against a fake flavour that speaks its documented differences, and whose
key goes where (never to another vendor's host)."""
import json

import pytest

import ai
import store
from ai import catalog
from fakes import Calls, FakeOpenAI, Text, Think

NEW = ("mistral", "deepseek", "openrouter", "xai", "cerebras", "together", "lmstudio",
       "llamacpp")
KEYLESS = ("lmstudio", "llamacpp")
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]},
           "run": lambda a: "12 C in " + a["city"]}


@pytest.fixture
def at_fakes(flash, monkeypatch):
    """A fake per new provider at the catalogue's base URL."""
    fakes = {p: FakeOpenAI(flavor=p, key="key-" + p).start() for p in NEW}
    monkeypatch.setattr(catalog, "PROVIDERS", tuple(
        p[:3] + ((fakes[p[0]].base_url,) if p[0] in fakes else (p[3],)) + p[4:]
        for p in catalog.PROVIDERS))
    yield fakes
    for f in fakes.values():
        f.stop()


def _o(p, **kw):
    o = {"provider": p, "timeout": 10}
    if p not in KEYLESS:
        o["key"] = "key-" + p
    o.update(kw)
    return o


def test_rows_are_complete():
    assert [p["id"] for p in ai.providers()][-len(NEW):] == list(NEW)    # ai config offers them
    for p in NEW:
        e = catalog.find(p)
        assert e["style"] == "openai" and e["tools"] == "native" and e["model"], p
        assert e["key"] == (p not in KEYLESS) and e["local"] == (p in KEYLESS)
        assert catalog.row(catalog.SCHEMAS, p, e["model"]), p     # each has its form
    src = open(catalog.__file__.replace(".mpy", ".py")).read()
    for p in NEW:     # each row says where it is documented
        head = src.index('("%s", ' % p)
        assert src.rfind("# ", 0, head) > src.rfind("),", 0, head), p


@pytest.mark.parametrize("p", NEW)
def test_chat_whole_and_streamed(at_fakes, p):
    srv = at_fakes[p]
    srv.queue(Text("Hello there, from a fake " + p), Text("A streamed answer in pieces."))
    reply, err = ai.ask_simple("hi", _o(p, max_tokens=100))
    assert (reply, err) == ("Hello there, from a fake " + p, None)
    b = srv.last.json
    assert b["model"] == catalog.find(p)["model"] and b["stream"] is False
    quirks = catalog.find(p)["quirks"].split()
    assert ("max_tokens" in b) == ("max_tokens" in quirks)
    assert ("max_completion_tokens" in b) == ("max_tokens" not in quirks)
    h = srv.last.headers
    assert ("authorization" in h) == (p not in KEYLESS)
    assert (h.get("x-title") == "AntOS AI") == (p == "openrouter")
    pieces = []
    reply, err = ai.ask_simple("more", _o(p, stream=pieces.append))
    assert err is None and reply == "A streamed answer in pieces." and len(pieces) > 3
    assert srv.last.json["stream"] is True


@pytest.mark.parametrize("p", NEW)
def test_tool_round(at_fakes, p):
    srv = at_fakes[p]
    srv.queue(Calls([("get_weather", {"city": "Rochdale"})]))
    hist = [{"role": "user", "content": "weather in Rochdale?"}]
    reply, err = ai.run(hist, _o(p), tools=[WEATHER])
    assert (reply, err) == ("tool said: 12 C in Rochdale", None)
    first, second = srv.requests[-2:]
    assert first.json["tools"][0]["function"]["name"] == "get_weather"
    call = second.json["messages"][1]["tool_calls"][0]
    assert second.json["messages"][2]["tool_call_id"] == call["id"]
    if p == "mistral":      # its own ids: 9 letters and digits
        assert len(call["id"]) == 9 and call["id"].isalnum()


def test_mistral_takes_other_providers_tool_ids(at_fakes):
    """A history whose calls another provider made (Kimi's ids): sent to
    Mistral as 9 letters and digits, the same on the call and its result;
    as they were, Mistral refuses them."""
    srv = at_fakes["mistral"]
    hist = [{"role": "user", "content": "weather?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "functions.get_weather:0", "name": "get_weather", "args": "{}"},
                {"id": "call_abc", "name": "get_weather", "args": "{}"}]},
            {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "12 C"},
            {"role": "tool", "tool_call_id": "call_abc", "content": "13 C"}]
    reply, err, _ = ai.ask(hist, _o("mistral"))
    assert err is None and reply == "tool said: 12 C; 13 C"
    m = srv.last.json["messages"]
    ids = [c["id"] for c in m[1]["tool_calls"]]
    assert [x["tool_call_id"] for x in m[2:]] == ids and ids[0] != ids[1]
    assert all(len(i) == 9 and i.isalnum() for i in ids)
    # the ids as they were: refused
    import urllib.request
    body = dict(srv.last.json, messages=[m[0], dict(m[1], tool_calls=[dict(
        m[1]["tool_calls"][0], id="call_abc")]), dict(m[2], tool_call_id="call_abc")])
    body.pop("stream", None)
    req = urllib.request.Request(srv.base_url + "/chat/completions", json.dumps(body).encode(),
                                 {"Authorization": "Bearer key-mistral",
                                  "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req)
    assert e.value.code == 422 and "length of 9" in json.loads(e.value.read())["message"]


def test_mistral_refuses_fields_it_does_not_take(at_fakes):
    """Mistral's 422 for max_completion_tokens: its row's quirk max_tokens
    sends the field it takes (the error through ai.ask, worded)."""
    from ai import catalog as c
    row = [p for p in c.PROVIDERS if p[0] == "mistral"][0]
    saved = c.PROVIDERS
    c.PROVIDERS = tuple(p if p[0] != "mistral" else p[:8] + ("",) + p[9:] for p in saved)
    try:
        _, err = ai.ask_simple("hi", _o("mistral", max_tokens=10))
    finally:
        c.PROVIDERS = saved
    assert row and err.startswith("mistral: ") and "Extra inputs are not permitted" in err, err


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_deepseek_reasoner_echoes_its_reasoning_on_tool_turns(at_fakes, stream):
    srv = at_fakes["deepseek"]
    srv.queue(Calls([("get_weather", {"city": "Leeds"})], think=Think("I should call it.")),
              Text("Wet in Leeds.", think=Think("Done.")))
    hist = [{"role": "user", "content": "weather?"}]
    o = _o("deepseek", model="deepseek-reasoner")
    if stream:
        o["stream"] = lambda piece: None
    reply, err = ai.run(hist, o, tools=[WEATHER])
    assert (reply, err) == ("Wet in Leeds.", None)
    assert srv.last.json["messages"][1]["reasoning_content"] == "I should call it."
    assert "_echo" not in hist[-1]      # an answer's reasoning is not kept


def test_openrouter_reasoning_object_and_text(at_fakes):
    srv = at_fakes["openrouter"]
    srv.queue(Text("Answer.", think=Think("private musing")))
    pieces = []
    reply, err = ai.ask_simple("q", _o("openrouter", thinking="max", stream=pieces.append))
    assert (reply, err) == ("Answer.", None) and "musing" not in "".join(pieces)
    b = srv.last.json
    assert b["reasoning"] == {"effort": "high"} and "reasoning_effort" not in b


def test_xai_effort_only_where_the_model_has_it(at_fakes):
    srv = at_fakes["xai"]
    srv.queue(Text("a"), Text("b"))
    assert ai.ask_simple("q", _o("xai", thinking="max")) == ("a", None)
    assert srv.last.json["reasoning_effort"] == "high"
    assert ai.ask_simple("q", _o("xai", model="grok-4", thinking="max")) == ("b", None)
    assert "reasoning_effort" not in srv.last.json


@pytest.mark.parametrize("p", NEW)
def test_errors_read_in_each_shape(at_fakes, p):
    if p in KEYLESS:
        srv = at_fakes[p]
        srv.queue(Text("x"))
        _, err = ai.ask_simple("hi", _o(p, model="no-such-model" if p == "lmstudio" else None))
        assert (err is None) == (p == "llamacpp"), err    # llama-server serves any name
        return
    _, err = ai.ask_simple("hi", _o(p, key="wrong"))
    assert err.startswith(p + ": ") and "401" in err and "wrong" not in err, err


def test_schemas_reach_each_provider_in_its_form(at_fakes):
    for p in NEW:
        srv = at_fakes[p]
        srv.queue(Text('{"city": "Leeds", "celsius": 9}'))
        value, err = ai.ask_json("weather?", "city, celsius int", _o(p))
        assert (value, err) == ({"city": "Leeds", "celsius": 9}, None), (p, err)
        rf = srv.last.json["response_format"]
        form = catalog.row(catalog.SCHEMAS, p, catalog.find(p)["model"])
        assert rf["type"] == form[0], p
        if form[0] == "json_object":
            assert "JSON Schema" in srv.last.json["messages"][0]["content"]
        else:
            assert rf["json_schema"]["schema"]["required"] == ["city", "celsius"]
            assert rf["json_schema"].get("strict", False) == ("strict" in form), p
        assert (srv.last.json.get("provider") == {"require_parameters": True}) == (
            p == "openrouter")


# ------------------------------------------------------------ whose key goes where

def test_each_key_goes_to_its_own_host_only(at_fakes):
    """Chat is set up for Mistral, ai.general for OpenRouter: each request
    carries the key of the provider it goes to, a provider set up nowhere
    gets none (an error before anything is sent), and a keyless local
    server gets no key at all."""
    store.update({"ai.chat.provider": "mistral", "ai.chat.key": "key-mistral",
                  "ai.general.provider": "openrouter", "ai.general.key": "key-openrouter"})
    for f in at_fakes.values():
        f.queue(Text("ok"))

    def sent():
        out = [(p, r.headers.get("authorization")) for p, f in at_fakes.items()
               for r in f.requests if not getattr(r, "_seen", False)]
        for f in at_fakes.values():
            for r in f.requests:
                r._seen = True
        return out
    assert ai.ask_simple("hi") == ("ok", None)
    assert sent() == [("mistral", "Bearer key-mistral")]
    assert ai.ask_simple("hi", {"provider": "openrouter"}) == ("ok", None)
    assert sent() == [("openrouter", "Bearer key-openrouter")]
    for p in ("deepseek", "xai", "cerebras", "together"):
        reply, err = ai.ask_simple("hi", {"provider": p})
        assert reply is None and err.startswith(p + ": no API key ("), err
        assert "key-" not in err
    assert sent() == []
    for p in KEYLESS:
        assert ai.ask_simple("hi", {"provider": p}) == ("ok", None)
        assert sent() == [(p, None)]
