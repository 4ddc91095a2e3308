"""The console's ai login copilot, ai presets, ai -m, ai edit and ai undo,
typed into a pseudo-terminal (the Console harness of test_shell_ai.py:
tools/sim.py on the MicroPython unix port, the screen read through a
VT100 emulator), against FakeGitHub and the fake providers. The device
flow's waits are the fake's interval (0, or long where Ctrl-C is tested),
so no test sits through a real polling interval."""
import os

from fakes import Calls, FakeGitHub, FakeOpenAI, Text
from test_shell_ai import (config_to_key, console, ollama_settings,  # noqa: F401  (fixture)
                           read_settings)

GROQ_URL = "https://api.groq.com/openai/v1"

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
            config_to_key(c, "groq", GROQ_URL, srv.base_url, "gsk-0123456789")
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


def test_ai_m_sends_the_presets_provider_its_own_key_and_host(console):
    """ai.chat is Groq's (its key, its endpoint), ai.general Anthropic's:
    ai -m claude-haiku goes to Anthropic's host with Anthropic's key, ai
    models anthropic lists Anthropic's, and Groq's endpoint sees only its
    own key (MicroPython, at the console)."""
    from fakes import FakeAnthropic
    with FakeOpenAI(flavor="groq", key="gsk-chat-0123456789") as groq, \
            FakeAnthropic(key="sk-ant-general-0123") as ant:
        c = console({"ai.chat.provider": "groq", "ai.chat.key": "gsk-chat-0123456789",
                     "ai.chat.base_url": groq.base_url,
                     "ai.chat.model": "llama-3.3-70b-versatile",
                     "ai.general.provider": "anthropic", "ai.general.key": "sk-ant-general-0123",
                     "ai.general.base_url": ant.base_url})
        ant.queue(Text("From Claude."))
        c.line("ai -m claude-haiku hello")
        assert "From Claude." in c.text(), c.text()
        assert ant.last.headers["x-api-key"] == "sk-ant-general-0123"
        assert ant.last.json["model"] == "claude-haiku-4-5"
        c.clear()
        c.line("ai models anthropic")
        assert "claude-sonnet-4-5*" in c.text() and "anthropic: 3 models" in c.text(), c.text()
        groq.queue(Text("From Groq."))
        c.line("ai and you?")
        assert "From Groq." in c.text()
        assert [r.headers.get("authorization") for r in groq.requests] == [
            "Bearer gsk-chat-0123456789"]
        assert all(r.headers.get("x-api-key") == "sk-ant-general-0123" for r in ant.requests)


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
        srv.queue(Text("```\n# header\n```\n"))
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


def test_edit_writes_an_answer_without_a_fence(console):
    # small models told to answer with the code only leave the fence out
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        path = os.path.join(c.flash, "main.py")
        with open(path, "w") as f:
            f.write(SOURCE)
        srv.queue(Text("tail line 1\ntail line 2"))
        c.line("ai edit main.py:4 --after add two lines after the last line")
        assert "/main.py: +2 -0 lines at 4-4 (ai undo puts it back)" in c.text(), c.text()
        with open(path) as f:
            assert f.read() == SOURCE + "tail line 1\ntail line 2\n"


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


# ------------------------------------------------------------ issue 15

def test_setup_hints_name_the_settings_that_resolved(console):
    with FakeOpenAI(flavor="ollama") as srv:
        port = srv.port             # a closed port: Ollama "not running"
    # the simulator's seed: ai.general at Ollama (here: nothing listening)
    c = console({"ai.general.provider": "ollama",
                 "ai.general.base_url": "http://127.0.0.1:%d/v1" % port})
    for line in ("ai hello", "? tell me a joke about robots", "ai -u code hello"):
        c.clear()
        c.line(line)
        assert "is Ollama (local) running? or run: ai config)" in c.flat(), c.text()
    c.line("set ai.code.provider groq")     # the use-type's own provider now
    c.clear()
    c.line("ai -u code hello")
    assert "groq: no API key (set ai.code.key or run: ai config code)" in c.text()


def test_the_wizard_keeps_with_enter_and_writes_nothing_before_the_end(console):
    with FakeOpenAI(flavor="ollama") as srv:
        before = ollama_settings(srv, **{"ai.general.tools": "text-fallback"})
        c = console(before)
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        c.type("\r")                                 # Enter keeps ollama (current)
        c.expect_exact("Base URL [%s]: " % srv.base_url)
        c.type("\r")
        c.expect_exact("or type a name, q to quit: ")
        assert read_settings(c.flash) == before      # nothing written yet
        srv.queue(Text("Caf\u00e9 \U0001f600 ready"), Calls([("ping", {})]))
        c.type("\r")                                 # Enter keeps the model
        c.expect_prompt()
        assert "test: llama3.2 replied 'Caf\u00e9 \U0001f600 ready' in" in c.text(), c.text()
        # the probe asked for a native call whatever the old level said
        assert srv.last.json["tools"][0]["function"]["name"] == "ping"
        after = read_settings(c.flash)
        assert after["ai.general.tools"] == "native" and after["ai.general.provider"] == "ollama"

        # a key that fails the test, then the board dies at "save anyway?"
        with FakeOpenAI(flavor="groq", key="gsk-right-123456") as groq:
            c.clear()
            config_to_key(c, "groq", GROQ_URL, groq.base_url, "gsk-wrong-000000")
            c.expect_exact("API key (again; Enter keeps it): ")
            c.type("\r")                             # keeps the refused one
            c.expect_exact("Model [llama-3.3-70b-versatile]: ")
            c.type("\r")
            c.expect_exact("save anyway? [y/n]: ")
            with open(os.path.join(c.flash, "settings.json"), "rb") as f:
                bytes_before = f.read()
            c.child.kill(9)
            c.child.wait()
            with open(os.path.join(c.flash, "settings.json"), "rb") as f:
                assert f.read() == bytes_before
            assert read_settings(c.flash) == after
            assert groq.requests and all(r.headers.get("authorization") == "Bearer gsk-wrong-000000"
                                         for r in groq.requests)


def test_history_tools_listing_and_ctrl_c_at_the_approval(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        with open(os.path.join(c.flash, "tools.jsonl"), "w") as f:
            f.write('{"server": "notes", "name": "notes__find", "remote": "find", '
                    '"description": "find a note", "parameters": {"type": "object"}}\n')
        c.line("ai tools")                  # alone: the list
        assert "notes__find" in c.text() and "1 from MCP servers" in c.text() and "missing" not in c.text()
        # a call whose arguments the model wrote with \u escapes
        srv.queue(Calls([("notes__find", '{"city": "M\\u00fcnchen"}')]))
        c.type("ai -u code where is it\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.child.send("\x03")
        c.expect_prompt()
        assert c.text().count("^C") == 1, c.text()
        assert "cancelled (the conversation is unchanged)" in c.text()
        c.line("set ai.tools.approve never")
        srv.queue(Calls([("notes__find", '{"city": "M\\u00fcnchen"}')]), Text("Not found."))
        c.line("ai -u code where is it")
        c.clear()
        c.line("ai history code")
        screen = c.text()
        assert '-> notes__find {"city":"M\u00fcnchen"}' in screen, screen
        assert "\\u00fc" not in screen
        assert "(ai -u code -new starts over)" in screen
