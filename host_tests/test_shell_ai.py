"""The ai and mcp console commands, driven as a person would: through a
pseudo-terminal, tools/sim.py running the console on the MicroPython unix
port (raw terminal, ANTOS_TTY=1), against the loopback fake providers and the
official Python SDK MCP server. The screen is rendered with pyte (a VT100
emulator), so assertions are on what a person sees (text and attributes),
plus the files left on the simulated flash. Also: the markdown renderer
(CPython unit tests) and the 24 KB working-heap budget of one ai round with
an MCP tool call (a scenario under the unix port)."""
import json
import os
import random
import re
import sys
import time

import pexpect
import pyte
import pytest

from fakes import Calls, FakeOpenAI, FakeTextOnly, Text
from shell import md

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIM = os.path.join(ROOT, "tools", "sim.py")
PROMPT = "/> "
ROWS, COLS = 60, 120
BUDGET = 24 * 1024


# ---------------------------------------------------------------- harness

class Console:
    """The console in a pty; every byte it writes also goes through a VT100
    emulator so tests can read the screen as a person sees it."""

    def __init__(self, mpy, flash, heap="256K"):
        self.flash = str(flash)
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        env = dict(os.environ)
        env.pop("ANTOS_TTY", None)
        self.child = pexpect.spawn(
            sys.executable, [SIM, "--flash", self.flash, "--heap", heap,
                             "--lib", os.path.join(mpy.build, "lib")],
            cwd=ROOT, env=env, encoding="utf-8", codec_errors="replace",
            dimensions=(ROWS, COLS), timeout=20)
        self.expect_prompt()

    def _take(self):
        text = (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
        self.raw += text
        self.stream.feed(text)
        return text

    def expect(self, pattern, timeout=20):
        """Wait for a regex (or list of regexes); returns the index."""
        try:
            i = self.child.expect(pattern, timeout=timeout)
        except (pexpect.TIMEOUT, pexpect.EOF):
            self._take_rest()
            raise AssertionError("waited for %r; screen:\n%s\nraw tail: %r" % (
                pattern, self.text(), self.raw[-1500:]))
        self._take()
        return i

    def expect_exact(self, s, timeout=20):
        try:
            self.child.expect_exact(s, timeout=timeout)
        except (pexpect.TIMEOUT, pexpect.EOF):
            self._take_rest()
            raise AssertionError("waited for %r; screen:\n%s\nraw tail: %r" % (
                s, self.text(), self.raw[-1500:]))
        return self._take()

    def _take_rest(self):
        b = self.child.before
        if isinstance(b, str):
            self.raw += b
            self.stream.feed(b)

    def expect_prompt(self, timeout=20):
        return self.expect_exact(PROMPT, timeout)

    def type(self, text):
        """Type like a person: a few keys at a time."""
        for i in range(0, len(text), 8):
            self.child.send(text[i:i + 8])
            time.sleep(0.01)

    def line(self, text, timeout=20):
        """Type a command, Enter, wait for the next prompt; returns the
        output of the command (raw, escape codes included)."""
        mark = len(self.raw)
        self.type(text + "\r")
        self.expect_prompt(timeout)
        return self.raw[mark:]

    def text(self):
        """The screen as a person reads it; a line that fills the width is
        joined with the next (the terminal wrapped it)."""
        out = []
        for line in self.screen.display:
            out.append(line.rstrip())
            out.append("" if len(line.rstrip()) == COLS else "\n")
        return "".join(out).rstrip()

    def row_of(self, needle):
        """Screen row (index) of the LAST line containing needle."""
        for y in range(ROWS - 1, -1, -1):
            if needle in self.screen.display[y]:
                return y
        raise AssertionError("%r not on screen:\n%s" % (needle, self.text()))

    def attrs(self, needle):
        """pyte Char of the first character of needle on its last row."""
        y = self.row_of(needle)
        x = self.screen.display[y].index(needle)
        return self.screen.buffer[y][x]

    def clear(self):
        self.screen.reset()

    def close(self):
        if self.child.isalive():
            self.child.send("exit\r")
            try:
                self.child.expect(pexpect.EOF, timeout=5)
            except pexpect.TIMEOUT:
                pass
        self.child.close(force=True)
        assert "Traceback" not in self.raw, self.raw[-3000:]


@pytest.fixture
def console(mpy, tmp_path):
    made = []

    def start(settings=None, heap="256K"):
        flash = tmp_path / "flash"
        flash.mkdir(exist_ok=True)
        if settings is not None:
            (flash / "settings.json").write_text(json.dumps(settings))
        c = Console(mpy, flash, heap)
        made.append(c)
        return c

    yield start
    for c in made:
        c.close()


def read_settings(flash):
    with open(os.path.join(flash, "settings.json")) as f:
        return json.load(f)


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def ollama_settings(srv, **extra):
    s = {"ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
         "ai.general.model": "llama3.2"}
    s.update(extra)
    return s


# ---------------------------------------------------------------- ai chat

REPLY_MD = ("# Weather report\n"
            "It is **sunny** and *warm*, use `wear_hat()` today.\n"
            "- first point\n"
            "- second point\n"
            "```python\n"
            "print('**not bold**')\n"
            "```\n"
            "More at [the site](http://127.0.0.1/x).")


def test_ai_hello_streams_markdown_and_keeps_history(console):
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(gap=0.02)
        srv.queue(Text(REPLY_MD), Text("Second answer."))
        c = console(ollama_settings(srv))
        out = c.line("ai hello")
        # streamed: the fake sent the reply as many small SSE deltas
        req = srv.requests[-1]
        assert req.json["stream"] is True
        assert [m["content"] for m in req.json["messages"]] == ["hello"]
        # a spinner showed until the first token, then went away
        assert "thinking" in out
        assert "thinking" not in c.text()
        # rendered as markdown: markers gone, attributes on
        screen = c.text()
        assert "Weather report" in screen and "# Weather" not in screen
        assert c.attrs("Weather report").bold and c.attrs("Weather report").underscore
        assert c.attrs("sunny").bold and not c.attrs("It is").bold
        assert c.attrs("warm").italics
        assert c.attrs("wear_hat()").fg == "cyan"
        assert "It is sunny and warm, use wear_hat() today." in screen
        assert "\u2022 first point" in screen and "\u2022 second point" in screen
        assert "print('**not bold**')" in screen          # code is literal
        assert c.attrs("print(").fg == "cyan"
        assert "```" not in screen
        assert "More at the site <http://127.0.0.1/x>." in screen
        assert c.attrs("the site").underscore
        # the turn is on flash: user + assistant, one JSON line each
        hist = os.path.join(c.flash, "history", "chat.jsonl")
        msgs = read_lines(hist)
        assert [m["role"] for m in msgs] == ["user", "assistant"]
        assert msgs[1]["content"] == REPLY_MD
        # the next question streams the saved conversation from the file
        c.line("ai and tomorrow?")
        sent = srv.requests[-1].json["messages"]
        assert [(m["role"], m["content"]) for m in sent] == [
            ("user", "hello"), ("assistant", REPLY_MD), ("user", "and tomorrow?")]
        assert "Second answer." in c.text()
        assert len(read_lines(hist)) == 4
        # ai history shows it; ai -new forgets it
        c.clear()
        c.line("ai history")
        screen = c.text()
        assert "you> hello" in screen and "you> and tomorrow?" in screen
        assert "ai> Weather report" in screen and "ai> Second answer." in screen
        assert "chat: 2 turns" in screen
        c.line("ai -new")
        assert "new conversation (chat)" in c.text()
        assert not os.path.exists(hist)
        c.line("ai history")
        assert "no conversation for chat yet" in c.text()


def test_ai_use_types_trim_and_errors(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{"ai.history.turns": 2}))
        # -u TYPE keeps its own conversation file
        c.line("ai -u code first")
        assert "echo: first" in c.text()
        assert os.path.exists(os.path.join(c.flash, "history", "code.jsonl"))
        assert not os.path.exists(os.path.join(c.flash, "history", "chat.jsonl"))
        # trimmed to ai.history.turns whole turns
        c.line("ai -u code second")
        c.line("ai -u code third")
        msgs = read_lines(os.path.join(c.flash, "history", "code.jsonl"))
        assert [m["content"] for m in msgs] == ["second", "echo: second", "third", "echo: third"]
        # the provider failing: one red line, no half turn
        srv.queue(Text("x"))
        srv.options(die_after=1)
        out = c.line("ai -u code fourth")
        assert "\x1b[31mollama:" in out, out
        srv.options()
        assert len(read_lines(os.path.join(c.flash, "history", "code.jsonl"))) == 4
        # wrong options and arguments: the error and the usage, one line each
        out = c.line("ai -u")
        assert "ai: -u needs a use-type" in c.text()
        assert "usage: ai [-u TYPE] [-new] QUESTION" in c.text()
        c.line("ai -x hello")
        assert "ai: unknown option -x" in c.text()
        c.line("ai -u bad/type hi")
        assert "a use-type is 1 to 16 letters" in c.text()
        c.line("ai tools frob")
        assert "action must be one of: list, clear" in c.text()
        c.line("ai")
        assert "ai: ask a question" in c.text()


def test_ai_unconfigured_and_ollama_not_running(console):
    c = console({})
    c.line("ai hello")
    assert "no AI provider set for 'chat'" in c.text()
    assert "ai config chat" in c.text()
    c.clear()
    # the simulator's default: ai.general at Ollama on localhost, not running
    with FakeOpenAI(flavor="ollama") as srv:
        port = srv.port
    c.line("set ai.general.provider ollama")
    c.line("set ai.general.base_url http://127.0.0.1:%d/v1" % port)
    c.line("ai hello")
    screen = c.text()
    assert "is Ollama (local) running? or run: ai config chat" in screen, screen
    assert not os.path.exists(os.path.join(c.flash, "history", "chat.jsonl"))


# ---------------------------------------------------------------- mcp

def test_mcp_add_list_test_tools_call_del(console, sdk_server):
    url = sdk_server()
    c = console({})
    c.line("mcp")
    assert "no MCP servers; add one with: mcp add NAME URL [TOKEN]" in c.text()
    c.line("mcp add sdk " + url)
    assert "added sdk -> %s (try: mcp test sdk)" % url in c.text()
    c.line("mcp add other http://127.0.0.1:9/mcp tok-abcdef123456")
    c.clear()
    out = c.line("mcp")
    screen = c.text()
    assert re.search(r"^other +http://127\.0\.0\.1:9/mcp  token tok\.\.\.56$", screen, re.M), screen
    assert re.search(r"^sdk +%s$" % re.escape(url), screen, re.M), screen
    assert "abcdef1234" not in out            # the token is never shown
    s = read_settings(c.flash)
    assert s["mcp.sdk.url"] == url and s["mcp.other.token"] == "tok-abcdef123456"
    # test: connects, lists the tools, count and time
    c.clear()
    out = c.line("mcp test sdk")
    m = re.search(r"sdk: ok, 5 tools in (\d+) ms \((.*)\)", c.text())
    assert m, c.text()
    assert set(m.group(2).split(", ")) == {"add", "echo", "get_weather", "fail", "slow_count"}
    assert "connecting to sdk" in out and "connecting" not in c.text()   # status erased
    # tools: names with arguments and descriptions
    c.clear()
    c.line("mcp tools sdk")
    screen = c.text()
    assert "get_weather(city)\n    Current weather for a city (canned, deterministic)." in screen
    assert "add(a, b)" in screen and "5 tools" in screen
    # call: JSON arguments (spaces and quotes kept), the result, errors
    c.clear()
    c.line('mcp call sdk get_weather {"city": "Lisbon"}')
    assert "Lisbon: 24 C, sunny" in c.text()
    c.line('mcp call sdk add {"a": 2, "b": 40}')
    assert re.search(r"^42$", c.text(), re.M)
    c.line('mcp call sdk fail {"reason": "on purpose"}')
    assert "tool error: Error executing tool fail: on purpose" in c.text()
    c.line("mcp call sdk get_weather {city: Lisbon}")
    assert "mcp call: the arguments are not JSON" in c.text()
    c.line("mcp call sdk echo [1, 2]")
    assert "the arguments must be a JSON object" in c.text()
    # unreachable server and unknown names: one line each
    c.clear()
    c.line("mcp test other")
    assert len([l for l in c.text().splitlines() if l.strip()]) == 3, c.text()
    assert "127.0.0.1:9" in c.text()
    c.line("mcp test nosuch")
    assert "no MCP server named nosuch; add it with: mcp add nosuch <url> [token]" in c.text()
    # wrong arguments
    c.clear()
    c.line("mcp add onlyname")
    assert "mcp: missing url" in c.text() and "usage: mcp | mcp add NAME URL [TOKEN]" in c.text()
    c.line("mcp add bad.name http://x/")
    assert "mcp add: server name may only use letters" in c.text()
    c.line("mcp frob")
    assert "mcp: too many arguments" in c.text()
    c.line("mcp del other")
    assert "removed other" in c.text()
    c.line("mcp del other")
    assert "mcp del: no MCP server named other" in c.text()
    assert "mcp.other.url" not in read_settings(c.flash)
