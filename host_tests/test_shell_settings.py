"""Settings at the console (issue 15, items 4 and 7): which keys are
secret, `-h`/`--help` on every command, `set` checking the keys it knows
(lib/shell/keys.py: the one list that `set`, `help set` and the table of
lib/shell/README.md use) and refusing unknown ai./mcp. keys with the nearest known one.
CPython unit checks, then the console through a pseudo-terminal."""
import os
import re

import pytest

import store
from shell import keys
from test_shell_ai import ROOT, console, read_settings  # noqa: F401  (fixture)


def test_only_a_last_part_named_like_a_secret_is_secret():
    for k in ("ai.chat.key", "copilot.token", "wifi.password", "mcp.x.client_secret",
              "mcp.x.refresh_token", "mcp.x.client_key", "mcp.x.idp_token", "mcp.serve.token"):
        assert store.is_secret(k), k
    for k in ("ai.chat.max_tokens", "ai.chat.model", "mcp.x.reg_auth", "keys.count",
              "ai.key.model", "mcp.x.tokens_used"):
        assert not store.is_secret(k), k
    # a URL's query still hides anything named like a credential
    assert store.mask_url("https://h/p?apikey=abcdef12&x=1") == "https://h/p?apikey=********&x=1"


def test_known_keys_are_checked_with_the_valid_values_in_the_error():
    assert keys.check("ai.chat.max_tokens", 100) == 100
    assert keys.check("mcp.serve.port", 65535) == 65535
    assert keys.check("mcp.serve.port", 1) == 1
    assert keys.check("ai.code.temperature", "0.5") == 0.5
    assert keys.check("ai.general.tools", "text-fallback") == "text-fallback"
    assert keys.check("mcp.serve.autostart", True) is True
    assert keys.check("myscript.colour", "blue") == "blue"      # not ours: as typed
    assert keys.check("ai.chat.model", "gemini-flash,thinking=low") == "gemini-flash,thinking=low"
    bad = {
        ("ai.general.provider", "foo"): "ai.general.provider must be one of groq, ollama, openai,",
        ("ai.history.turns", "abc"): "ai.history.turns must be a whole number from 1 to 1000 (not 'abc')",
        ("mcp.serve.port", 99999): "mcp.serve.port must be a whole number from 1 to 65535 (not 99999)",
        ("mcp.serve.port", 0): "from 1 to 65535 (not 0)",
        ("ai.chat.temperature", "7"): "must be a number from 0 to 2 (not '7')",
        ("ai.chat.temperature", True): "must be a number from 0 to 2",
        ("ai.chat.max_tokens", -5): "from 1 to 1000000 (not -5)",
        ("wifi.wait", 100000): "wifi.wait must be a whole number from 1 to 300",
        ("ai.tools.approve", "maybe"): "must be one of ask, always, never (not 'maybe')",
        ("ai.chat.thinking", "huge"): "must be one of minimal, low, medium, high, max, off",
        ("ai.chat.style", "soap"): "must be one of openai, responses, anthropic, gemini",
        ("ai.chat.base_url", "localhost:11434"): "must be a URL starting with http://",
        ("ai.chat.model", "gpt-mega,thinking=low"): "unknown preset 'gpt-mega'",
        ("mcp.serve.autostart", "yes"): "must be true or false",
        ("ai.chat.modle", "x"): "unknown setting ai.chat.modle (did you mean ai.chat.model?",
        ("ai.histroy.turns", 3): "did you mean ai.history.turns?",
        ("mcp.weather.urll", "x"): "did you mean mcp.weather.url?",
        ("ai.bad/use.model", "x"): "unknown setting ai.bad/use.model",
        ("--help", "x"): "bad setting name '--help'",
    }
    for (k, v), want in bad.items():
        with pytest.raises(ValueError) as e:
            keys.check(k, v)
        assert want in str(e.value), (k, str(e.value))


def test_console_reference_lists_exactly_the_known_keys():
    with open(os.path.join(ROOT, "lib", "shell", "README.md")) as f:
        text = f.read()
    rows = re.findall(r"^\| `([A-Za-z_.]+)` \| (.+?) \| (.+) \|$", text, re.M)
    table = [(k, kind.replace("\\|", "|"), what) for k, kind, what in rows]
    assert table == list(keys.rows())


def test_every_numeric_setting_has_a_range():
    """A number without bounds is saved and then misread (a port of 99999
    wrapped to another one): every int and number kind names its range."""
    numeric = [(k, kind) for k, kind, _ in keys.rows() if kind.split(":")[0] in ("int", "number")]
    assert len(numeric) >= 12, numeric
    for k, kind in numeric:
        lo, hi = keys.limits(kind)
        assert lo < hi, k
        sample = k.replace("USE", "chat").replace("NAME", "weather")
        assert keys.check(sample, lo) == lo and keys.check(sample, hi) == hi
        for bad in (lo - 1, hi + 1):
            with pytest.raises(ValueError):
                keys.check(sample, bad)


def test_set_checks_asks_hidden_only_for_secrets_and_every_command_has_help(console):
    c = console({})
    for line, usage in (("set --help", "usage: set KEY [VALUE] | set -d KEY"),
                        ("mcp add -h", "usage: mcp | mcp add NAME URL [TOKEN]"),
                        ("ls -h", "usage: ls [PATH]"), ("ai --help", "usage: ai [-u TYPE]")):
        out = c.line(line)      # (help set is longer than the screen)
        assert usage in out, out
    out = c.line("help set")
    assert "ai.USE.provider" in out and "settings (USE:" in out
    c.clear()
    for line in ("set ai.general.provider foo", "set ai.history.turns abc",
                 "set ai.chat.modle llama3"):
        c.line(line)
    screen = c.text()
    assert "set: ai.general.provider must be one of groq, ollama" in screen
    assert "set: ai.history.turns must be a whole number" in screen
    assert "set: unknown setting ai.chat.modle (did you mean ai.chat.model?" in screen
    c.line("set ai.chat.max_tokens 100")
    assert "ai.chat.max_tokens = 100" in c.text()
    c.type("set ai.code.max_tokens\r")
    c.expect_exact("ai.code.max_tokens = ")          # not hidden
    c.type("250\r")
    c.expect_prompt()
    c.type("set wifi.password\r")
    c.expect_exact("wifi.password (hidden): ")
    c.type("pass-word-1\r")
    c.expect_prompt()
    assert read_settings(c.flash) == {"ai.chat.max_tokens": 100, "ai.code.max_tokens": 250,
                                      "wifi.password": "pass-word-1"}


def test_net_budget_settings_reach_httpc(flash):
    """set net.tls_max / net.sockets_max: httpc's budget at once (and at
    the console's start); set -d: the board profile's again."""
    import httpc
    import shell
    from shell import builtins
    saved = httpc.TLS_MAX, httpc.SOCKETS_MAX
    try:
        builtins.set(["net.tls_max", "1"])
        assert httpc.TLS_MAX == 1
        builtins.set(["net.sockets_max", "3"])
        assert httpc.SOCKETS_MAX == 3
        httpc.TLS_MAX = httpc.SOCKETS_MAX = None
        shell.net_budget()          # what shell.run() does at start
        assert (httpc.TLS_MAX, httpc.SOCKETS_MAX) == (1, 3)
        builtins.set(["-d", "net.tls_max"])
        assert httpc.TLS_MAX is None and httpc.SOCKETS_MAX == 3
        with pytest.raises(shell.Error, match="unknown setting net.tls"):
            builtins.set(["net.tls", "1"])
        with pytest.raises(shell.Error):
            builtins.set(["net.tls_max", "99"])
    finally:
        httpc.TLS_MAX, httpc.SOCKETS_MAX = saved
