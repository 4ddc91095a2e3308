"""Whose key goes where: a use-type's key, base URL and model belong to the
provider its settings are set up for (lib/ai/config.py); a provider chosen
any other way takes its own. Every path that can choose a provider is
walked (a setting, a preset in a setting, `ai -m`, an override, `ai models
P`, the config wizard) against loopback fakes that stand in for every
provider's own host (the catalogue's base URLs point at them) and for a
Groq-compatible endpoint set in ai.chat.base_url; what each request
carried is read on the wire. The same resolution under MicroPython is at
the end, and the console's `ai -m` in test_shell_ai_commands.py."""
import pytest

import ai
import store
from ai import catalog, config, copilot
from fakes import FakeAnthropic, FakeGemini, FakeGitHub, FakeOpenAI, FakeResponses, Text
from mpyrun import GOAL

GROQ_KEY, ANT_KEY, GEM_KEY, LOGIN = "gsk_chat_1234567890", "sk-ant-general-123", "AIza-typed-456", None


def credential(req):
    """The credential a request carried (whichever header its style uses)."""
    h = req.headers
    auth = h.get("authorization") or ""
    return h.get("x-api-key") or h.get("x-goog-api-key") or (auth.split(" ", 1)[1] if auth else None)


class World:
    """A fake per provider at the catalogue's base URL, one for the Groq
    endpoint in ai.chat.base_url, and GitHub for Copilot."""

    def __init__(self, monkeypatch):
        self.fakes = {
            "groq": FakeOpenAI(flavor="groq", key=GROQ_KEY),
            "proxy": FakeOpenAI(flavor="groq", key=GROQ_KEY),
            "ollama": FakeOpenAI(flavor="ollama"),
            "openai": FakeResponses(key="sk-openai-never-set"),
            "anthropic": FakeAnthropic(key=ANT_KEY, models=["claude-sonnet-4-5", "claude-haiku-4-5"]),
            "gemini": FakeGemini(key=GEM_KEY),
            "github": FakeGitHub(),
        }
        for f in self.fakes.values():
            f.start()
        urls = {p: self.fakes[p].base_url for p in ("groq", "ollama", "openai", "anthropic",
                                                   "gemini")}
        monkeypatch.setattr(catalog, "PROVIDERS", tuple(
            p[:3] + (urls.get(p[0], p[3]),) + p[4:] for p in catalog.PROVIDERS))
        copilot.forget()
        self.login = self.fakes["github"].login()
        # chat is set up for Groq at its own endpoint; ai.general for Anthropic
        store.update({"ai.chat.provider": "groq", "ai.chat.key": GROQ_KEY,
                      "ai.chat.base_url": self.fakes["proxy"].base_url,
                      "ai.chat.model": "llama-3.3-70b-versatile",
                      "ai.general.provider": "anthropic", "ai.general.key": ANT_KEY,
                      "copilot.api": self.fakes["github"].root, "copilot.token": self.login})
        self.seen = 0

    def new(self):
        """[(fake name, request)] since the last call."""
        out = [(name, r) for name, f in self.fakes.items() for r in f.requests
               if not getattr(r, "_seen", False)]
        for _, r in out:
            r._seen = True
        return out

    def stop(self):
        for f in self.fakes.values():
            f.stop()
        copilot.forget()


@pytest.fixture
def world(flash, monkeypatch):
    w = World(monkeypatch)
    yield w
    w.stop()


def wire(w):
    """(fake, credential, model) of each request since the last call."""
    out = []
    for name, r in w.new():
        model = (r.json or {}).get("model") if isinstance(r.json, dict) else None
        if name == "gemini" and ":" in r.path:
            model = r.path.rsplit("/", 1)[1].split(":")[0]
        out.append((name, credential(r), model))
    return out


def test_settings_and_overrides_send_each_provider_its_own_key(world):
    w = world
    for f in w.fakes.values():
        f.queue(*[Text("ok")] * 3)
    # the settings: Groq's key to Groq's endpoint
    assert ai.ask_simple("hi") == ("ok", None)
    assert wire(w) == [("proxy", GROQ_KEY, "llama-3.3-70b-versatile")]
    # another provider by override: its own settings (ai.general's), its own model
    assert ai.ask_simple("hi", {"provider": "anthropic"}) == ("ok", None)
    assert wire(w) == [("anthropic", ANT_KEY, "claude-sonnet-4-5")]
    # a preset (ai -m claude-haiku): the same
    assert ai.ask_simple("hi", {"model": "claude-haiku"}) == ("ok", None)
    assert wire(w) == [("anthropic", ANT_KEY, "claude-haiku-4-5")]
    # a preset in a use-type's settings: that use-type is Anthropic's
    store.set("ai.code.model", "claude-haiku")
    assert ai.ask_simple("hi", {"use": "code"}) == ("ok", None)
    assert wire(w) == [("anthropic", ANT_KEY, "claude-haiku-4-5")]
    # Ollama takes no key: none is sent to it
    assert ai.ask_simple("hi", {"model": "ollama-small"}) == ("ok", None)
    assert wire(w) == [("ollama", None, "llama3.2")]
    # Copilot: its GitHub login (copilot.token), never ai.chat.key
    w.fakes["github"].queue(Text("ok"))
    assert ai.ask_simple("hi", {"model": "copilot-mini"}) == ("ok", None)
    got = wire(w)
    assert got[0] == ("github", w.login, None)      # the token exchange
    assert got[-1][0] == "github" and got[-1][1].startswith("tid=")
    # a key given with the call goes where the call goes (the fake refuses it)
    reply, err = ai.ask_simple("hi", {"model": "claude-haiku", "key": "sk-ant-call"})
    assert err.endswith('(check overrides["key"])')
    assert wire(w) == [("anthropic", "sk-ant-call", "claude-haiku-4-5")]
    # providers nobody set up: no key, nothing sent anywhere
    for o, who in (({"model": "gemini-flash"}, "gemini"), ({"provider": "openai"}, "openai")):
        reply, err = ai.ask_simple("hi", o)
        assert reply is None and err.startswith(who + ": no API key ("), err
        assert "groq" in err and GROQ_KEY not in err
    assert wire(w) == []
    # ai.chat.base_url is Groq's: a Gemini or Responses request never goes there
    assert all(n != "proxy" for n, _, _ in wire(w))


def test_models_of_a_provider_use_its_own_settings(world):
    w = world
    models, err = ai.fetch_models(provider="anthropic")
    assert err is None and models == ["claude-sonnet-4-5", "claude-haiku-4-5"]
    assert wire(w) == [("anthropic", ANT_KEY, None)]
    models, err = ai.fetch_models(provider="groq")      # chat's: its endpoint
    assert err is None and wire(w) == [("proxy", GROQ_KEY, None)]
    models, err = ai.fetch_models(provider="gemini")
    assert models is None and err.startswith("gemini: no API key") and wire(w) == []
    # the console's listing marks the model in use: Anthropic's, not Groq's
    from shell import aiprov
    import shell
    lines = []
    shell.capturing = lines.append       # (the console's own capture of its output)
    try:
        aiprov.models(["models", "anthropic"])
    finally:
        shell.capturing = None
    text = "".join(lines)
    assert "claude-sonnet-4-5*" in text and "llama" not in text, text
    assert wire(w) == [("anthropic", ANT_KEY, None)]


def test_console_model_option_sends_the_presets_provider_its_own_key(world):
    from shell import aicmd
    w = world
    w.fakes["anthropic"].queue(Text("from claude"))
    aicmd.main(["-m claude-haiku hello"])
    assert wire(w) == [("anthropic", ANT_KEY, "claude-haiku-4-5")]
    w.fakes["proxy"].queue(Text("from groq"))
    aicmd.main(["and you?"])
    got = wire(w)
    assert got == [("proxy", GROQ_KEY, "llama-3.3-70b-versatile")]


def test_the_wizard_tries_and_saves_a_key_for_its_provider_only(world, monkeypatch):
    """ai config chat, Gemini, a typed key: the list, the test and the
    probe carry that key to Gemini only; once saved, ai -m claude-haiku
    still sends Anthropic its own."""
    from shell import aiprov, term
    w = world
    answers = iter(["", GEM_KEY])       # base URL: the catalogue's; the key typed
    monkeypatch.setattr(aiprov, "_read", lambda prompt, mask=False: next(answers))
    picks = iter([[p["id"] for p in ai.providers()].index("gemini"), "gemini-2.5-flash"])
    monkeypatch.setattr(term, "menu", lambda labels, *a, **k: next(picks))
    w.fakes["gemini"].queue(Text("ready"), Text("no tool"))
    aiprov.wizard("chat")
    got = wire(w)
    assert [(n, c) for n, c, _ in got] == [("gemini", GEM_KEY)] * 3, got
    assert store.get("ai.chat.provider") == "gemini" and store.get("ai.chat.key") == GEM_KEY
    assert store.get("ai.chat.base_url") is None
    w.fakes["anthropic"].queue(Text("ok"))
    assert ai.ask_simple("hi", {"model": "claude-haiku"}) == ("ok", None)
    assert wire(w) == [("anthropic", ANT_KEY, "claude-haiku-4-5")]


def test_resolution_keeps_each_field_with_its_provider(flash):
    store.update({"ai.chat.provider": "groq", "ai.chat.key": "gsk_1", "ai.chat.model": "llama",
                  "ai.chat.base_url": "https://proxy.example/v1", "ai.chat.tools": "none"})
    cfg = config.resolve({"model": "claude-haiku", "key": "k"})
    assert (cfg["provider"], cfg["base_url"], cfg["key"], cfg["tools_level"]) == (
        "anthropic", "https://api.anthropic.com/v1", "k", "native")
    cfg = config.resolve({"provider": "anthropic", "key": "k"})
    assert cfg["model"] == "claude-sonnet-4-5"
    with pytest.raises(config.ConfigError) as e:
        config.resolve({"model": "claude-haiku"})
    assert str(e.value) == ("anthropic: no API key (the ai.chat settings are for groq; "
                            "set up anthropic with: ai config)")
    # ai.chat naming none, ai.general's: Groq's key there stays Groq's
    store.update({"ai.chat.provider": None, "ai.chat.model": None,
                  "ai.general.provider": "groq"})
    assert config.resolve()["key"] == "gsk_1"
    with pytest.raises(config.ConfigError) as e:
        config.resolve({"provider": "anthropic"})
    assert str(e.value) == ("anthropic: no API key (the ai.general settings are for groq; "
                            "set up anthropic with: ai config)")
    # no provider named anywhere (as ai.general's rule always was): whichever a call names
    store.set("ai.general.provider", None)
    cfg = config.resolve({"provider": "anthropic"})
    assert (cfg["key"], cfg["base_url"]) == ("gsk_1", "https://proxy.example/v1")


def test_an_error_names_the_setting_the_provider_came_from(flash):
    """The provider from ai.general: its key (or the one to make) is
    ai.general.key, never ai.chat.key."""
    with FakeOpenAI(flavor="groq", key="gsk_right") as s:
        store.update({"ai.general.provider": "groq", "ai.general.key": "gsk_wrong",
                      "ai.general.base_url": s.base_url})
        reply, err = ai.ask_simple("hi")
        assert err.startswith("groq: 401") and err.endswith("(check ai.general.key)"), err
    # a setting not made: the one of the settings that named the provider
    store.update({"ai.general.provider": "ollama", "ai.general.key": None})
    cfg = config.resolve()
    assert config.source(cfg, "key") == "ai.general.key"
    assert config.source(cfg, "model") == "ai.general.model"
    assert config.source(cfg, "timeout") == "ai.chat.timeout"      # (not a provider's)


# ------------------------------------------------------------ MicroPython

PATHS = [  # overrides -> (provider, base_url, key, model) under the World's settings
    ({}, ("groq", "https://proxy.example/v1", "gsk_1", "llama")),
    ({"provider": "anthropic"}, ("anthropic", "https://api.anthropic.com/v1", "sk-ant-g",
                                 "claude-sonnet-4-5")),
    ({"model": "claude-haiku"}, ("anthropic", "https://api.anthropic.com/v1", "sk-ant-g",
                                 "claude-haiku-4-5")),
    ({"model": "ollama-small"}, ("ollama", "http://localhost:11434/v1", None, "llama3.2")),
    ({"model": "gemini-flash"}, "gemini: no API key"),
    ({"use": "code"}, ("anthropic", "https://api.anthropic.com/v1", "sk-ant-g",
                       "claude-haiku-4-5")),
    ({"model": "copilot-mini"}, ("copilot", "https://api.githubcopilot.com", None, "gpt-5-mini")),
]


def test_micropython_resolves_the_same(mpy, tmp_path):
    import json
    settings = {"ai.chat.provider": "groq", "ai.chat.key": "gsk_1", "ai.chat.model": "llama",
                "ai.chat.base_url": "https://proxy.example/v1", "ai.code.model": "claude-haiku",
                "ai.general.provider": "anthropic", "ai.general.key": "sk-ant-g"}
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    r = mpy.run("ai_resolve", heap=GOAL, args=[tmp_path],
                input="".join(json.dumps(o) + "\n" for o, _ in PATHS))
    assert r.rc == 0, r
    got = r.out.strip().split("\n")
    for (o, want), line in zip(PATHS, got):
        if isinstance(want, str):
            assert line.startswith("ERR " + want), (o, line)
        else:
            assert json.loads(line) == list(want), (o, line)
    assert len(got) == len(PATHS)
