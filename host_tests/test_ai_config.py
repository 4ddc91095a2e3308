"""Catalogue and use-type settings resolution (no network)."""
import pytest

import ai
import store
from ai import catalog
from ai.config import ConfigError, resolve


@pytest.fixture(autouse=True)
def _flash(flash):
    return flash


def test_catalogue_has_every_provider_with_all_fields():
    by_id = {p["id"]: p for p in ai.providers()}
    assert set(by_id) >= {"groq", "ollama", "openai", "kimi", "gemini", "anthropic"}
    for pid in ("groq", "ollama", "kimi", "copilot"):
        assert by_id[pid]["style"] == "openai"
    assert by_id["openai"]["style"] == "responses"
    assert by_id["gemini"]["style"] == "gemini"
    assert by_id["anthropic"]["style"] == "anthropic"
    for p in by_id.values():
        assert p["name"] and p["base_url"].startswith("http") and p["model"]
        assert p["tools"] in ("native", "text-fallback", "none")
        assert isinstance(p["key"], bool)
    assert by_id["ollama"]["key"] is False
    # providers() hands out copies: the catalogue cannot be changed by callers
    by_id["groq"]["model"] = "x"
    assert catalog.find("groq")["model"] != "x"


def test_no_provider_names_the_setting_to_make():
    with pytest.raises(ConfigError) as e:
        resolve({"use": "helper"})
    assert str(e.value) == ("no AI provider set for 'helper' (run: ai config; "
                            "or set ai.helper.provider for helper alone)")
    reply, err = ai.ask_simple("hi", {"use": "helper"})
    assert reply is None and "ai.helper.provider" in err


def test_unknown_provider_lists_the_known_ones():
    with pytest.raises(ConfigError) as e:
        resolve({"provider": "nope"})
    assert "unknown provider 'nope'" in str(e.value) and "groq" in str(e.value)


def test_resolution_order_override_type_general_default():
    store.update({"ai.general.provider": "groq", "ai.general.key": "gk-general",
                  "ai.general.max_tokens": "300", "ai.chat.max_tokens": 200})
    cfg = resolve({"use": "chat"})
    assert cfg["provider"] == "groq" and cfg["key"] == "gk-general"
    assert cfg["max_tokens"] == 200 and cfg["sources"]["max_tokens"] == "ai.chat.max_tokens"
    assert cfg["model"] == catalog.find("groq")["model"]       # provider default
    assert cfg["base_url"] == "https://api.groq.com/openai/v1"
    cfg = resolve({"use": "code"})
    assert cfg["max_tokens"] == 300 and cfg["sources"]["max_tokens"] == "ai.general.max_tokens"
    cfg = resolve({"use": "chat", "max_tokens": 50, "model": "m1"})
    assert cfg["max_tokens"] == 50 and cfg["model"] == "m1"


def test_provider_bound_fields_do_not_leak_across_providers():
    store.update({"ai.general.provider": "groq", "ai.general.key": "gk-general",
                  "ai.general.model": "llama", "ai.general.timeout": 30,
                  "ai.chat.provider": "gemini"})
    with pytest.raises(ConfigError) as e:
        resolve({"use": "chat"})
    assert "ai.chat.key" in str(e.value)          # Groq's key is not offered to Gemini
    store.set("ai.chat.key", "AIza-chat")
    cfg = resolve({"use": "chat"})
    assert cfg["model"] == catalog.find("gemini")["model"] and cfg["timeout"] == 30


def test_bad_numbers_and_thinking_words_are_clear_errors():
    store.update({"ai.general.provider": "ollama", "ai.general.temperature": "warm"})
    with pytest.raises(ConfigError) as e:
        resolve()
    assert "ai.general.temperature must be a number" in str(e.value)
    store.set("ai.general.temperature", "0.5")
    assert resolve()["temperature"] == 0.5
    with pytest.raises(ConfigError) as e:
        resolve({"thinking": "lots"})
    assert "minimal|low|medium|high|max" in str(e.value)
    assert resolve({"thinking": "high"})["thinking"] == "high"
    assert resolve({"thinking": "off"})["thinking"] is None


def test_local_provider_needs_no_key():
    store.set("ai.general.provider", "ollama")
    cfg = resolve()
    assert cfg["key"] is None and cfg["local"] and cfg["base_url"] == "http://localhost:11434/v1"
