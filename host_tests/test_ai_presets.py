"""Model tokens (<preset>[,thinking=W][,model=ID]) and the thinking word
mapped to each provider's native knob (lib/ai/config.py, catalog.PRESETS,
the styles' request bodies). No network."""
import pytest

import ai
import store
from ai import catalog
from ai.config import THINKING, ConfigError, parse_model, resolve
from ai.styles import load
from styletest import base_cfg, body_json
from mpyrun import GOAL

HI = [{"role": "user", "content": "hi"}]


def presets():
    return [tuple(line.split()) for line in catalog.PRESETS.split("\n")]


@pytest.fixture(autouse=True)
def _flash(flash):
    return flash


def body(cfg):
    return body_json(load(cfg["style"]).request(cfg, HI, None, False)[2])


def test_presets_are_unique_name_real_providers_and_known_maps():
    rows = presets()
    names = [p[0] for p in rows]
    assert len(names) == len(set(names)) >= len(catalog.PROVIDERS)
    for name, provider, model, tmap in rows:
        assert catalog.find(provider) is not None, name
        assert tmap in ("effort", "budget", "adaptive", "level", "none"), name
        assert parse_model(name) == ((name, provider, model, tmap), model, None)
        assert name not in catalog.ids()
    # every provider has at least one preset
    assert {p[1] for p in rows} == set(catalog.ids())
    assert parse_model("gpt")[0] is None and parse_model("")[0] is None
    assert parse_model("groq")[0] is None            # a provider is no preset


def test_parse_model_tokens():
    assert parse_model("llama3.2") == (None, "llama3.2", None)      # a plain id
    p, model, think = parse_model("gpt-mini")
    assert p == ("gpt-mini", "openai", "gpt-5-mini", "effort") and think is None
    assert model == "gpt-5-mini"
    assert parse_model("gpt-mini,thinking=high")[1:] == ("gpt-5-mini", "high")
    assert parse_model("gpt-mini, model=gpt-5 , thinking=low")[1:] == ("gpt-5", "low")
    # off, as ai.<use>.thinking takes it: no thinking for this token
    assert parse_model("gpt-mini,thinking=off")[1:] == ("gpt-5-mini", "off")
    store.update({"ai.chat.thinking": "high", "ai.chat.key": "sk-0123456789abcdef"})
    assert resolve({"model": "gpt-mini,thinking=off"})["thinking"] is None
    assert resolve({"model": "gpt-mini"})["thinking"] == "high"


@pytest.mark.parametrize("token,words", [
    ("gpt-mega,thinking=low", ["unknown preset 'gpt-mega'", "gpt-mini", "gemini-flash",
                               "claude-haiku"]),
    ("gpt-mini,thinking=huge", ["thinking must be one of minimal|low|medium|high|max",
                                "'huge'"]),
    ("gpt-mini,temp=1", ["unknown option 'temp=1'", "thinking=minimal|low|medium|high|max",
                         "model=<id>"]),
    ("gpt-mini,model=", ["unknown option 'model='"]),
])
def test_bad_tokens_list_the_valid_words(token, words):
    with pytest.raises(ConfigError) as e:
        parse_model(token)
    for w in words:
        assert w in str(e.value)
    _, err = ai.ask_simple("x", {"model": token})
    assert err == str(e.value)


def test_a_preset_names_the_provider_and_model():
    store.update({"ai.general.provider": "groq", "ai.general.key": "gk",
                  "ai.gemini.key": "x"})
    cfg = resolve({"model": "gemini-flash,thinking=low", "key": "AIza"})
    assert (cfg["provider"], cfg["model"], cfg["style"]) == ("gemini", "gemini-2.5-flash", "gemini")
    assert cfg["thinking"] == "low" and cfg["thinking_map"] == "budget"
    # model= keeps the preset's provider and thinking map
    cfg = resolve({"model": "gemini3-flash,model=gemini-exp-9", "key": "AIza"})
    assert cfg["model"] == "gemini-exp-9" and cfg["thinking_map"] == "level"
    # a preset in the settings of a use-type switches that use-type only
    store.update({"ai.code.model": "groq-oss,thinking=high"})
    cfg = resolve({"use": "code"})
    assert (cfg["provider"], cfg["model"], cfg["key"]) == ("groq", "openai/gpt-oss-20b", "gk")
    assert cfg["thinking"] == "high" and cfg["sources"]["thinking"] == "ai.code.model"
    store.update({"ai.chat.model": "claude-haiku"})
    with pytest.raises(ConfigError) as e:
        resolve({"use": "chat"})
    assert "anthropic: no API key" in str(e.value)       # groq's key is not offered
    assert resolve({"use": "chat", "key": "sk-ant"})["provider"] == "anthropic"
    # a plain id is for the provider the settings are set up for: ai.chat's
    # is anthropic now (the preset in ai.chat.model), a use-type without
    # settings has ai.general's
    assert resolve({"model": "claude-opus-4-1", "key": "k"})["provider"] == "anthropic"
    cfg = resolve({"use": "helper", "model": "llama-3.1-8b-instant"})
    assert (cfg["provider"], cfg["key"], cfg["thinking_map"]) == ("groq", "gk", None)


def test_thinking_precedence_and_conflicts():
    store.update({"ai.general.provider": "openai", "ai.general.key": "sk",
                  "ai.chat.thinking": "low"})
    assert resolve({"model": "gpt-mini"})["thinking"] == "low"               # settings
    assert resolve({"model": "gpt-mini,thinking=high"})["thinking"] == "high"  # token
    assert resolve({"model": "gpt-mini,thinking=high",
                    "thinking": "minimal"})["thinking"] == "minimal"     # override
    with pytest.raises(ConfigError) as e:
        resolve({"provider": "groq", "model": "gpt-mini", "key": "k"})
    assert str(e.value) == "model 'gpt-mini' is a preset of openai, not of provider groq"
    assert set(THINKING) == {"minimal", "low", "medium", "high", "max"}


# ------------------------------------------------------------ thinking maps

def cfg_for(token):
    """base_cfg with the preset's provider (base_cfg's default is openai,
    and a preset of another provider must not meet a provider override)."""
    return base_cfg(model=token, key="k", provider=parse_model(token.split(",")[0])[0][1])


@pytest.mark.parametrize("token,want", [
    # OpenAI Responses: reasoning.effort, the whole vocabulary
    ("gpt-mini,thinking=max", {"reasoning": {"effort": "high"}}),
    ("gpt-nano,thinking=minimal", {"reasoning": {"effort": "minimal"}}),
    # Groq: reasoning_effort only where the model has it
    ("groq-oss,thinking=max", {"reasoning_effort": "high"}),
    ("groq-oss,thinking=minimal", {"reasoning_effort": "low"}),
    ("groq-fast,thinking=high", {"reasoning_effort": None}),
    # Ollama: reasoning_effort on /v1 (its native think)
    ("ollama-think,thinking=medium", {"reasoning_effort": "medium"}),
    ("ollama-small,thinking=high", {"reasoning_effort": None}),
    ("kimi-turbo,thinking=high", {"reasoning_effort": None}),
    # Anthropic: a budget, adaptive, or off for minimal
    ("claude-haiku,thinking=medium", {"thinking": {"type": "enabled", "budget_tokens": 4096}}),
    ("claude-haiku,thinking=minimal", {"thinking": {"type": "disabled"}}),
    ("claude-sonnet,thinking=high", {"thinking": {"type": "adaptive"}}),
    ("claude-sonnet,thinking=minimal", {"thinking": {"type": "disabled"}}),
    # Gemini 2.5: thinkingBudget; Gemini 3: thinkingLevel (max -> high)
    ("gemini-flash,thinking=low", {"thinkingConfig": {"thinkingBudget": 1024}}),
    ("gemini-lite,thinking=minimal", {"thinkingConfig": {"thinkingBudget": 0}}),
    ("gemini3-flash,thinking=max", {"thinkingConfig": {"thinkingLevel": "high"}}),
    # model= keeps the map even where the id would say otherwise
    ("gemini3-flash,model=gemini-2.5-flash,thinking=low",
     {"thinkingConfig": {"thinkingLevel": "low"}}),
    ("gemini-flash,thinking=", None),      # an empty word is outside the vocabulary
])
def test_thinking_word_reaches_the_native_knob(token, want):
    if want is None:
        with pytest.raises(ConfigError, match="thinking must be one of"):
            cfg_for(token)
        return
    got = body(cfg_for(token))
    for k, v in want.items():
        where = got.get("generationConfig", {}) if k == "thinkingConfig" else got
        assert where.get(k) == v, (token, got)


def test_no_thinking_word_sends_no_knob():
    for name, provider, _model, _tmap in presets():
        if provider == "copilot":
            continue        # needs a login (tests/test_ai_copilot.py)
        got = body(cfg_for(name))
        gen = got.get("generationConfig", {})
        assert not ({"reasoning", "reasoning_effort", "thinking"} & set(got)), name
        assert "thinkingConfig" not in gen, name


# ------------------------------------------------------------ per model family

OPENAI_FAMILIES = ["gpt-5-mini", "gpt-5-nano", "gpt-5.1", "gpt-5.2", "gpt-5-pro", "o4-mini",
                   "gpt-4.1", "gpt-5-chat-latest"]


def _families():
    from fakes import FakeGemini, FakeOpenAI, FakeResponses
    from fakes.gemini import levels
    from fakes.openai import accepted_efforts

    def effort(body, style):
        return (body.get("reasoning") or {}).get("effort") if style == "responses" \
            else body.get("reasoning_effort")
    for m in OPENAI_FAMILIES:
        yield ("openai", "responses", FakeResponses, {}, m, accepted_efforts("openai", m),
               lambda b: effort(b, "responses"))
        yield ("openai", "openai", FakeOpenAI, {"flavor": "openai"}, m,
               accepted_efforts("openai", m), lambda b: effort(b, "openai"))
    for m in ("openai/gpt-oss-20b", "qwen/qwen3-32b", "llama-3.3-70b-versatile"):
        yield ("groq", None, FakeOpenAI, {"flavor": "groq"}, m, accepted_efforts("groq", m),
               lambda b: effort(b, "openai"))
    for m in ("gemini-3-pro-preview", "gemini-3.1-pro-preview", "gemini-3-flash-preview"):
        yield ("gemini", None, FakeGemini, {}, m, levels(m),
               lambda b: b.get("generationConfig", {}).get("thinkingConfig", {}).get(
                   "thinkingLevel"))


@pytest.mark.parametrize("provider,style,fake,kw,model,takes,sent",
                         list(_families()), ids=lambda v: v if isinstance(v, str) else None)
def test_every_thinking_word_sends_a_value_the_family_takes(provider, style, fake, kw, model,
                                                             takes, sent):
    """Against fakes that refuse what each service documents its model
    families refuse (a 400, as a value outside them is): every thinking
    word is sent as a value of the family, max as its highest; a family
    without the knob gets none."""
    with fake(key="k", models=[model], **kw) as s:
        for word in THINKING:
            o = {"provider": provider, "base_url": s.base_url, "key": "k", "model": model,
                 "thinking": word, "timeout": 10}
            if style:
                o["style"] = style
            reply, err = ai.ask_simple("hi", o)
            assert err is None, (model, word, err)
            got = sent(s.last.json)
            if takes is None:
                assert got is None, (model, word)
            else:
                assert got in takes, (model, word, got)
                if word == "max":
                    assert got == takes[-1]


@pytest.mark.parametrize("provider,model,word,want", [
    ("openai", "gpt-5-mini", "minimal", "minimal"),   # gpt-5 has minimal
    ("openai", "gpt-5.1", "minimal", "low"),          # gpt-5.1 has none, not minimal
    ("openai", "o4-mini", "minimal", "low"),
    ("openai", "gpt-5.2", "max", "xhigh"),
    ("groq", "qwen/qwen3-32b", "minimal", "none"),
    ("groq", "qwen/qwen3-32b", "low", "default"),
    ("gemini", "gemini-3-pro-preview", "medium", "high"),
])
def test_nearest_value_of_the_family(provider, model, word, want):
    from ai.styles import oai
    if provider == "gemini":
        from ai.styles import gemini
        cfg = base_cfg(provider=provider, model=model, thinking=word, key="k")
        assert gemini.thinking(cfg) == {"thinkingLevel": want}
    else:
        assert oai.effort(base_cfg(provider=provider, model=model, thinking=word,
                                   key="k")) == want


def _sources(table):
    """The comment lines beside a table of ai/catalog.py that name each
    row's source ("#   openai gpt-5.1: OpenAI API reference: ..."), in
    order: the board carries none of that text."""
    text = open(catalog.__file__.replace(".pyc", ".py"), encoding="utf-8").read()
    lines = text[:text.index("\n%s = \"\"\"" % table)].split("\n")
    out = []
    for line in reversed(lines):
        if not line.startswith("#   "):
            break
        out.insert(0, line[4:].partition(": "))
    return out


def test_every_effort_row_names_its_source():
    """Each EFFORTS row takes known words, and where it is documented is in
    the comment above the table (row by row: comments cost no flash)."""
    rows = catalog.EFFORTS.split("\n")
    ids = set(catalog.ids())
    sources = _sources("EFFORTS")
    assert len(sources) == len(rows)
    for row, (key, _, source) in zip(rows, sources):
        w = row.split()
        assert w[0] in ids and len(w) >= 3, row
        assert all(x in catalog.SCALE or x in ("-", "default") for x in w[2:]), row
        assert key == " ".join(w[:2]) and len(source.strip()) > 20, (row, key, source)
    # every provider of an OpenAI style has its rows (else it sends nothing)
    for p in catalog.PROVIDERS:
        if p[2] in ("openai", "responses"):
            assert any(r.startswith(p[0] + " * ") for r in rows), p[0]


def test_every_files_row_names_its_source():
    rows = catalog.FILES.split("\n")
    sources = _sources("FILES")
    assert len(sources) == len(rows)
    for row, (key, _, source) in zip(rows, sources):
        w = row.split()
        assert w[0] in set(catalog.ids()) and len(w) == 5, row
        assert key == " ".join(w[:2]) and len(source.strip()) > 8, (row, key, source)
    # every provider says what its models take (without a row: no pictures)
    for p in catalog.ids():
        assert any(r.startswith(p + " * ") for r in rows), p


def test_micropython_maps_the_same(mpy):
    cases = [(p, m, w) for p, ms in (("openai", OPENAI_FAMILIES),
                                     ("groq", ["openai/gpt-oss-20b", "qwen/qwen3-32b", "llama3"]),
                                     ("gemini", ["gemini-3-pro-preview", "gemini-3-flash"]),
                                     ("kimi", ["kimi-k2"]), ("ollama", ["qwen3:4b"]))
             for m in ms for w in THINKING]
    r = mpy.run("ai_efforts", heap=GOAL, input="".join("%s %s %s\n" % c for c in cases))
    assert r.rc == 0, r
    want = []
    for p, m, w in cases:
        words = catalog.efforts(p, m)
        want.append(str(catalog.nearest(w, words) if words else None))
    assert r.out.split() == want
    assert want[OPENAI_FAMILIES.index("gpt-5.2") * len(THINKING) + THINKING.index("max")] == "xhigh"
