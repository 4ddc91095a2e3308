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
    # plain ids are as before: the provider of the settings
    assert resolve({"model": "llama-3.1-8b-instant"})["provider"] == "groq"
    assert resolve({"model": "llama-3.1-8b-instant"})["thinking_map"] is None


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
    ("gpt-mini,thinking=max", {"reasoning": {"effort": "max"}}),
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
    for name, provider, model, tmap in presets():
        if provider == "copilot":
            continue        # needs a login (tests/test_ai_copilot.py)
        got = body(cfg_for(name))
        gen = got.get("generationConfig", {})
        assert not ({"reasoning", "reasoning_effort", "thinking"} & set(got)), name
        assert "thinkingConfig" not in gen, name
