"""make demo from a person's seat: through a pseudo-terminal, with no key
and no network beyond this computer, the demo provider (tools/demo.py)
streams a reply with markdown, calls the board's own tool a question
names (board_temp), the demo MCP server (tools/demo_weather.py,
the MCP Python SDK) is added, its tools cached, and a tool call is
approved and answered; ai history, ai config and ai status show the demo
for what it is; at the end nothing is left running and the throw-away
flash is gone. README.md's first section is checked against such a run,
line by line."""
import os
import re
import time

import pexpect
import pyte
import pytest

from toolrun import ROOT, make_env

ROWS, COLS = 60, 120
README = os.path.join(ROOT, "README.md")


class Demo:
    """`make demo` in a pty, every byte through a VT100 emulator."""

    def __init__(self, mpy):
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        env = make_env()
        env.pop("ANTOS_TTY", None)
        self.child = pexpect.spawn(
            "make", ["demo", "DEMO_ARGS=--lib " + os.path.join(mpy.build, "lib")], cwd=ROOT,
            env=env, encoding="utf-8", codec_errors="replace", dimensions=(ROWS, COLS),
            timeout=120)
        self.expect_exact("/> ")
        m = re.search(r"MCP server (http://127\.0\.0\.1:\d+/mcp), flash (\S+) ", self.raw)
        assert m, self.raw
        self.mcp_url, self.flash = m.group(1), m.group(2)
        self.provider_url = re.search(r"AI provider (http://\S+)", self.raw).group(1)

    def _take(self):
        text = (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
        self.raw += text
        self.stream.feed(text)

    def expect_exact(self, s, timeout=60):
        try:
            self.child.expect_exact(s, timeout=timeout)
        except (pexpect.TIMEOUT, pexpect.EOF):
            raise AssertionError("waited for %r; screen:\n%s\nraw tail: %r" % (
                s, self.text(), self.raw[-1500:] + str(self.child.before)))
        self._take()

    def type(self, text):
        for i in range(0, len(text), 8):
            self.child.send(text[i:i + 8])
            time.sleep(0.01)

    def line(self, text, answer=None):
        """A command, Enter (the answer typed at its question, if any), the
        next prompt; the screen holds only what it printed."""
        self.screen.reset()
        self.type(text + "\r")
        if answer is not None:
            self.expect_exact("[y]es [n]o [a]lways: ")
            self.type(answer + "\r")
        self.expect_exact("/> ")
        return self.text()

    def text(self):
        return "\n".join(ln.rstrip() for ln in self.screen.display).rstrip()

    def attrs(self, needle):
        for y in range(ROWS - 1, -1, -1):
            if needle in self.screen.display[y]:
                return self.screen.buffer[y][self.screen.display[y].index(needle)]
        raise AssertionError("%r not on screen:\n%s" % (needle, self.text()))

    def close(self):
        if self.child.isalive():
            self.child.send("exit\r")
            self.child.expect(pexpect.EOF, timeout=30)
        self._take()
        self.child.close(force=True)


def weather_pids():
    """Processes running the demo's MCP server."""
    pids = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if b"demo_weather.py" in f.read():
                    pids.append(int(pid))
        except (OSError, ValueError):
            pass
    return pids


@pytest.fixture
def demo(mpy):
    d = Demo(mpy)
    yield d
    d.close()


def test_make_demo_streams_a_chat_and_an_approved_tool_call_with_no_key(demo):
    d = demo
    banner = d.text()
    assert "AntOS console " in banner
    assert "ai: DEMO: canned replies from tools/demo.py, not a model" in banner
    assert d.attrs("ai: DEMO").bold
    # nothing but this computer, and no key anywhere
    out = d.line("get")
    urls = re.findall(r"https?://\S+", out)
    assert urls and all(u.startswith("http://127.0.0.1:") for u in urls), out
    assert "key" not in out and "token" not in out
    # a streamed reply rendered as markdown
    d.screen.reset()
    d.type("ai hello\r")
    d.expect_exact("You asked")
    t0 = time.monotonic()
    d.expect_exact("/> ")
    took = time.monotonic() - t0
    assert took > 0.5, took         # pieces kept coming after the first
    screen = d.text()
    assert "A demo reply" in screen and "# A demo" not in screen
    assert d.attrs("A demo reply").bold and d.attrs("A demo reply").underscore
    assert d.attrs("demo provider").bold and d.attrs("markdown").italics
    # the reply's table, its cells padded into columns
    assert "\n".join([
        "\u2502 try                                 \u2502 what it shows                  \u2502",
        "\u2500" * 72,
        "\u2502 mcp add weather URL                 \u2502 an MCP server                  \u2502",
        "\u2502 ai -tools                           \u2502 its tools offered to the model \u2502",
        "\u2502 ai what is the chip temperature?    \u2502 a board tool that only reads   \u2502",
        "\u2502 ai what is the weather in Rochdale? \u2502 a tool call you approve        \u2502"]) in screen, screen
    assert d.attrs("mcp add weather URL").fg == "cyan"
    assert "\u2022 tool calls wait for your y before anything runs" in screen
    # the board's own tool the question names, run at once: it only reads
    out = d.line("ai what is the chip temperature?")
    assert "-> board_temp {}" in out and "<- chip temperature: 41 C" in out, out
    assert "\u2502 chip temperature: 41 C" in out and "weather" not in out, out
    # the MCP server, its tools, a call the person approves
    out = d.line("mcp add weather " + d.mcp_url)
    assert "added weather -> %s (try: mcp test weather)" % d.mcp_url in out
    out = d.line("ai -tools")
    assert "  weather: 3 tools" in out and "tools cache: 3 tools" in out
    d.screen.reset()
    d.type("ai what is the weather in Rochdale?\r")
    d.expect_exact("[y]es [n]o [a]lways: ")
    asked = d.text()
    assert "tool call: get_weather on weather (%s)" % d.mcp_url in asked
    assert re.search(r'arguments: \{"city": ?"Rochdale"\}', asked), asked
    assert "Rochdale: 12 C" not in asked            # nothing ran before the y
    d.type("y\r")
    d.expect_exact("/> ")
    screen = d.text()
    assert "<- Rochdale: 12 C, drizzle" in screen
    assert "\u2502 Rochdale: 12 C, drizzle" in screen        # the reply's quote
    out = d.line("ai history")
    for want in ("you> hello", "ai> A demo reply", "you> what is the weather in Rochdale?",
                 "-> weather__get_weather", "<- Rochdale: 12 C, drizzle", "chat: 3 turns"):
        assert want in out, (want, out)
    # ai config and ai status say it is a demo
    d.screen.reset()
    d.type("ai config\r")
    d.expect_exact("q to quit: ")
    assert re.search(r"ollama +Ollama \(local\)  \(current: DEMO: canned replies", d.text()), d.text()
    d.child.send("\x03")
    d.expect_exact("/> ")
    out = d.line("ai status")
    assert re.search(r"^general +ollama demo, tools native, no key needed", out, re.M), out
    assert re.search(r"^chat +the same as general$", out, re.M), out
    assert "; DEMO: canned replies" in " ".join(out.split())
    assert re.search(r"last request: chat, ollama demo: \d+ tokens in, \d+ out", out), out
    flash = d.flash
    assert os.path.isdir(flash) and weather_pids()
    d.close()
    assert "demo: stopped" in d.raw
    assert not os.path.exists(flash)
    deadline = time.monotonic() + 20
    while weather_pids():
        assert time.monotonic() < deadline, weather_pids()
        time.sleep(0.1)


# ---------------------------------------------------------------- which tool

WEATHER_TOOLS = [      # as the demo's MCP server lists them (a chat names them server__tool)
    {"name": "weather__get_weather", "description": "Current weather for a city: temperature and sky.",
     "parameters": {"type": "object", "required": ["city"],
                    "properties": {"city": {"type": "string", "title": "City"}}}},
    {"name": "weather__get_forecast", "description": "Weather for the next days (1 to 3) in a city.",
     "parameters": {"type": "object", "required": ["city"],
                    "properties": {"city": {"type": "string", "title": "City"},
                                   "days": {"type": "integer", "default": 3, "title": "Days"}}}}]


@pytest.fixture(scope="module")
def provider():
    import importlib.util
    spec = importlib.util.spec_from_file_location("demo", os.path.join(ROOT, "tools", "demo.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def offered(weather=True):
    """The tools a chat offers: the board's read-only commands (the
    console's own list), then the MCP server's."""
    from shell import chattools
    board = [dict(d) for d in chattools.Local("read")]
    return [{"type": "function", "function": {k: d[k] for k in ("name", "description", "parameters")}}
            for d in board + (WEATHER_TOOLS if weather else [])]


@pytest.mark.parametrize("question,call", [
    ("what is the chip temperature?", ("board_temp", {})),
    ("how much free memory is there?", ("board_free", {})),
    ("what is the weather in Rochdale?", ("weather__get_weather", {"city": "Rochdale"})),
    ("what is the forecast for Lisbon?", ("weather__get_forecast", {"city": "Lisbon", "days": 3})),
    ("show me the file boot.py", ("board_cat", {"file": "boot.py"})),
    ("hello", None),
])
def test_the_demo_calls_the_tool_the_question_names(provider, question, call):
    text, calls = provider.answer({"messages": [{"role": "user", "content": question}],
                                   "tools": offered()})
    assert calls == ([call] if call else []), (question, calls)
    assert bool(text) == (call is None)


def test_the_demo_says_how_to_add_a_weather_tool_when_none_is_offered(provider):
    text, calls = provider.answer({"messages": [{"role": "user", "content": "weather in Rochdale?"}],
                                   "tools": offered(weather=False)})
    assert calls == [] and "no weather tool" in text


# ---------------------------------------------------------------- README

MARK = "<!-- a make demo run: host_tests/test_demo.py checks it -->"
VARIES = ((r"\d+ ms\b", "N ms"), (r"\d+ tokens in, \d+ out", "N tokens in, N out"))


def demo_sessions():
    """The demo sessions the documents show (a fenced block right after
    MARK): [(document, [lines before the first command], [(command, the
    answer typed at its question, [expected lines])])]; "..." lines stand
    for lines left out."""
    found = []
    for doc in (README, os.path.join(ROOT, "lib", "shell", "README.md")):
        text = open(doc, encoding="utf-8").read()
        for block in re.findall(re.escape(MARK) + r"\n```\n(.*?)^```", text, re.M | re.S):
            head, steps = [], []
            for line in block.rstrip("\n").split("\n"):
                if line.startswith("/> "):
                    steps.append((line[3:], None, []))
                elif steps:
                    m = re.search(r"\[y\]es \[n\]o \[a\]lways: (\w)$", line)
                    if m:
                        steps[-1] = (steps[-1][0], m.group(1), steps[-1][2])
                    steps[-1][2].append(line)
                else:
                    head.append(line)
            found.append((os.path.relpath(doc, ROOT), head, steps))
    return found


def _same(line, urls):
    for a, b in urls:
        line = line.replace(a, b)
    for pattern, repl in VARIES:
        line = re.sub(pattern, repl, line)
    return line


def in_order(want, got, urls):
    """Each wanted line (the run's URLs in it, times and counts that vary
    let be) is a line of got, in order; "..." skips. -> the first one that
    is not, or None."""
    rows = [_same(r, ()) for r in got.split("\n")]
    i = 0
    for w in want:
        if w.strip() == "...":
            continue
        w = _same(w, urls)
        while i < len(rows) and rows[i] != w:
            i += 1
        if i == len(rows):
            return w
        i += 1
    return None


def test_the_documents_demo_sessions_are_real_runs(demo):
    d = demo
    sessions = demo_sessions()
    docs = [s[0] for s in sessions]
    assert docs == ["README.md", os.path.join("lib", "shell", "README.md")], docs
    commands = " | ".join(s[0] for s in sessions[0][2])
    for want in ("ai hello", "ai what is the chip temperature", "mcp add weather", "ai -tools",
                 "ai what is the weather", "ai history"):       # README's first section: the tour
        assert want in commands, commands
    urls = [("http://127.0.0.1:8392/mcp", d.mcp_url), ("http://127.0.0.1:8391/v1", d.provider_url)]
    first = d.raw.replace("\r", "")
    for doc, head, steps in sessions:
        for w in head:
            if w.strip() and w.strip() != "...":
                w = re.sub(r"flash \S+ ", "flash %s " % d.flash, _same(w, urls))
                assert w in first, (doc, w, first)
        for command, answer, want in steps:
            command = _same(command, urls)
            if command == "exit":
                continue
            if command.startswith("mcp add ") and "added weather" in d.raw:
                d.line("mcp del weather")       # the second document adds it again
            got = d.line(command, answer)
            missing = in_order(want, got, urls)
            assert missing is None, "%s: /> %s\nmissing: %r\nscreen:\n%s" % (
                doc, command, missing, got)


def test_make_sim_demo_1_is_make_demo():
    from toolrun import make
    for args in (("demo",), ("sim", "DEMO=1")):
        r = make(*args)
        assert r.returncode == 0 and r.stdout.split()[1:] == ["tools/demo.py"], r.stdout
    assert make("sim").stdout.split()[1:] == ["tools/sim.py", "--board", "ANTOS_ESP32"]
    assert make("sim", "BOARD=ANTOS_ESP32S3").stdout.split()[1:] == [
        "tools/sim.py", "--board", "ANTOS_ESP32S3"]
