"""The console's ai login copilot, ai presets, ai -m, ai edit and ai undo,
typed into a pseudo-terminal (the Console harness of test_shell_ai.py:
tools/sim.py on the MicroPython unix port, the screen read through a
VT100 emulator), against FakeGitHub and the fake providers. The device
flow's waits are the fake's interval (0, or long where Ctrl-C is tested),
so no test sits through a real polling interval."""
import os

from fakes import Calls, FakeGitHub, FakeOpenAI, Text
from test_shell_ai import (console, ollama_settings, provider_number,  # noqa: F401  (fixture)
                           read_settings)

SOURCE = 'def greet(name):\n    print("hi", name)\n\ngreet("x")\n'


def github_settings(g, **extra):
    s = {"copilot.github": g.root, "copilot.api": g.root}
    s.update(extra)
    return s


# ------------------------------------------------------------ ai login copilot

def test_login_shows_the_code_saves_the_token_and_copilot_answers(console):
    with FakeGitHub() as g:
        g.polls = ["pending", "pending", "ok"]
        c = console(github_settings(g))
        c.line("ai login copilot")
        screen = c.text()
        assert ("Open https://github.com/login/device and enter the code WDJB-MJHT "
                "(it expires in 15 min).") in screen, screen
        assert "logged in to GitHub (copilot.token, shown masked)" in screen
        token = read_settings(c.flash)["copilot.token"]
        assert token in g.logins and len(g.poll_times) == 3
        c.clear()
        c.line("get copilot.token")
        assert token not in c.text() and token[:3] + "..." in c.text()
        # the preset names the provider; the session comes from the login
        g.queue(Text("Hello from Copilot."))
        c.clear()
        c.line("ai -m copilot-mini hello")
        assert "Hello from Copilot." in c.text(), c.text()
        assert g.last.json["model"] == "gpt-5-mini" and g.exchanges == 1


def test_login_ctrl_c_while_waiting_and_refusals(console):
    with FakeGitHub() as g:
        g.interval = 30                 # GitHub would be polled in 30 s
        c = console(github_settings(g))
        c.clear()
        c.type("ai login copilot\r")
        c.expect_exact("WDJB-MJHT")
        c.expect("waiting for GitHub")
        c.child.send("\x03")
        c.expect_prompt()
        assert "^C cancelled; the login is unchanged" in c.text(), c.text()
        assert "copilot.token" not in read_settings(c.flash)
        assert g.poll_times == []
        # refused at GitHub: one line
        g.interval = 0
        g.polls = ["denied"]
        c.clear()
        c.line("ai login copilot")
        assert "copilot: the login was refused at GitHub (access_denied)" in c.text()
        c.clear()
        c.line("ai login groq")
        assert "only copilot logs in (groq takes an API key: ai config)" in c.text()
        # without a login, Copilot says what to do
        c.clear()
        c.line("ai -m copilot-4.1 hi")
        assert "copilot: not logged in to GitHub (run: ai login copilot)" in c.text()


# ------------------------------------------------------------ presets, -m

def test_presets_and_model_tokens(console):
    with FakeOpenAI(flavor="ollama", models=["llama3.2", "qwen3:4b"]) as srv:
        c = console(ollama_settings(srv))
        c.line("ai presets")
        screen = c.text()
        assert "gpt-mini       openai     gpt-5-mini" in screen, screen
        assert "ollama-think   ollama     qwen3:4b                   thinking: effort" in screen
        assert "presets; use one as ai -m NAME" in screen
        srv.queue(Text("thought about it"))
        c.clear()
        c.line("ai -m ollama-think,thinking=high why?")
        assert "thought about it" in c.text()
        sent = srv.last.json
        assert sent["model"] == "qwen3:4b" and sent["reasoning_effort"] == "high"
        c.clear()
        c.line("ai -m ollama-think,thinking=lots why?")
        assert "thinking must be one of minimal|low|medium|high|max, not 'lots'" in c.text()
        c.clear()
        c.line("ai -m nope,thinking=low why?")
        assert "unknown preset 'nope'" in c.text() and "gpt-mini" in c.text()


def test_the_wizard_takes_a_token_of_its_provider_only(console):
    with FakeOpenAI(flavor="groq", key="gsk-0123456789") as srv:
        c = console({})
        for token in ("gpt-mini", "groq-oss,thinking=low"):
            c.clear()
            c.type("ai config\r")
            c.expect_exact("q to quit: ")
            c.type(provider_number(c.text(), "groq") + "\r")
            c.expect_exact("Base URL [https://api.groq.com/openai/v1]: ")
            c.type(srv.base_url + "\r")
            c.expect_exact("API key: ")
            c.type("gsk-0123456789\r")
            c.expect_exact("or type a name, q to quit: ")
            srv.queue(Text("Ready"), Calls([("ping", {})]))
            c.type(token + "\r")
            c.expect_prompt()
        screen = c.text()
        assert "saved ai.general: provider groq, model groq-oss,thinking=low" in screen, screen
        assert read_settings(c.flash)["ai.general.model"] == "groq-oss,thinking=low"
        assert srv.last.json["model"] == "openai/gpt-oss-20b"
        assert srv.last.json["reasoning_effort"] == "low"
        assert "gpt-mini is a preset of openai, not groq; nothing changed" in c.raw


# ------------------------------------------------------------ ai edit / undo

def test_edit_and_undo(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        path = os.path.join(c.flash, "main.py")
        with open(path, "w") as f:
            f.write(SOURCE)
        srv.queue(Text('```python\n    print("HELLO", name)\n    return name\n```\nDone.'))
        c.line("ai edit main.py:2 shout it, see #file")
        assert "/main.py: +2 -1 lines at 2-2 (ai undo puts it back)" in c.text(), c.text()
        with open(path) as f:
            assert f.read() == SOURCE.replace('    print("hi", name)\n',
                                              '    print("HELLO", name)\n    return name\n')
        user = srv.last.json["messages"][1]["content"]
        assert user.startswith("The whole file main.py, for context:")
        assert user.endswith("shout it, see main.py")
        srv.queue(Text("# header\n"))
        c.clear()
        c.line("ai edit main.py:1-1 --before add a header")
        assert "+1 -0 lines at 1-1" in c.text()
        c.clear()
        c.line("ai undo")
        assert "main.py restored" in c.text()
        c.clear()
        c.line("ai edit nope.py:1 x")
        assert "nope.py: no such file" in c.text()
        c.clear()
        c.line("ai edit main.py")
        assert "say what to change" in c.text()


def test_ctrl_c_during_an_edit_leaves_the_file(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        path = os.path.join(c.flash, "main.py")
        with open(path, "w") as f:
            f.write(SOURCE)
        srv.options(gap=0.05)
        srv.queue(Text("".join("line %d\n" % i for i in range(300))))
        c.clear()
        c.type("ai edit main.py rewrite everything\r")
        c.expect("ai edit /main.py")
        c.child.send("\x03")
        c.expect_prompt(timeout=10)
        assert "^C cancelled; /main.py is unchanged" in c.text(), c.text()
        with open(path) as f:
            assert f.read() == SOURCE
        c.clear()
        c.line("ai undo")
        assert "nothing to undo" in c.text()
