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
from httpserver import wait_for
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

    def __init__(self, mpy, flash, heap="256K", rows=ROWS, cols=COLS, board=None, env=None):
        self.flash = str(flash)
        self.rows, self.cols = rows, cols
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        env = dict(os.environ, **(env or {}))
        env.pop("ANTOS_TTY", None)
        self.child = pexpect.spawn(
            sys.executable, [SIM, "--flash", self.flash, "--heap", heap,
                             "--lib", os.path.join(mpy.build, "lib")]
            + (["--board", board] if board else []),
            cwd=ROOT, env=env, encoding="utf-8", codec_errors="replace",
            dimensions=(rows, cols), timeout=20)
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
            out.append("" if len(line.rstrip()) == self.cols else "\n")
        return "".join(out).rstrip()

    def flat(self):
        """The screen's text with the console's own line breaks between
        words (an error or usage line folded to the width: shell.fold)
        taken out: what a check of a long line's words reads."""
        return re.sub(r"\n +", " ", self.text())

    def row_of(self, needle):
        """Screen row (index) of the LAST line containing needle."""
        for y in range(self.rows - 1, -1, -1):
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

    def start(settings=None, heap="256K", files=None, rows=ROWS, cols=COLS, board=None, env=None):
        """settings: a dict, or the file's text as is; files: {path: text};
        board: the board profile (tools/sim.py --board); env: more of the
        console's environment."""
        flash = tmp_path / "flash"
        flash.mkdir(exist_ok=True)
        if settings is not None:
            (flash / "settings.json").write_text(
                settings if isinstance(settings, str) else json.dumps(settings))
        for rel, text in (files or {}).items():
            p = flash / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        c = Console(mpy, flash, heap, rows, cols, board, env)
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


# ---------------------------------------------------------------- md (CPython)

def render(src, sizes=None, tty=True, nl="\n", width=0):
    out = []
    r = md.Render(out.append, tty, nl, width)
    i = 0
    while i < len(src):
        n = sizes() if sizes else len(src)
        r.feed(src[i:i + n])
        i += n
    r.close()
    return "".join(out)


def test_md_same_output_for_any_split():
    whole = render(REPLY_MD + "\n> quote *x*\n1. one\n---\n***both*** a\\*b")
    rnd = random.Random(5)
    for _ in range(30):
        assert render(REPLY_MD + "\n> quote *x*\n1. one\n---\n***both*** a\\*b",
                      lambda: rnd.randint(1, 6)) == whole
    assert render(REPLY_MD, lambda: 1) == render(REPLY_MD)


def test_md_elements():
    B, b, It, i, C, c = md.BOLD, md.BOLD_OFF, md.ITAL, md.ITAL_OFF, md.CODE, md.CODE_OFF
    assert render("# T") == md.H1 + "T" + md.RESET + "\n"
    assert render("### T\n") == B + "T" + md.RESET + "\n"
    assert render("a **b** *c* _d_ `e*f*`") == (
        "a " + B + "b" + b + " " + It + "c" + i + " " + It + "d" + i + " " + C + "e*f*" + c
        + "\n")
    # not emphasis: spaced stars, words with underscores, escapes
    assert render("2 * 3 * 4 snake_case_name \\*x\\*") == "2 * 3 * 4 snake_case_name *x*\n"
    assert render("- a\n  * b\n+ c\n3) d") == (
        "\u2022 a\n  \u2022 b\n\u2022 c\n3) d\n")
    assert render("```sh\nls *\n```\nafter") == (
        md.DIM + "  sh" + md.RESET + "\n" + C + "  ls *" + c + "\n" + "after\n")
    assert render("[t](http://u)") == md.UNDER + "t" + md.UNDER_OFF + md.DIM + " <http://u>" + \
        md.RESET + "\n"
    assert render("[not a link] (x)") == "[not a link] (x)\n"
    assert render("> q") == md.DIM + "\u2502 " + md.RESET + "q\n"
    assert render("---") == md.DIM + md.RULE + md.RESET + "\n"
    # attributes never outlive a line, even when the stream is cut
    assert render("**open bold").endswith(md.RESET + "\n")
    assert render("```\ncut code").endswith(c + "\n")
    assert render("# **a** b\n") == md.H1 + B + "a" + b + md.H1 + " b" + md.RESET + "\n"
    assert render("**a [l](u) b**") == (B + "a " + md.UNDER + "l" + md.UNDER_OFF + md.DIM
                                        + " <u>" + md.RESET + B + " b" + b + "\n")
    # raw terminal line ends, CR in the input dropped
    assert render("a\r\nb", nl="\r\n") == "a\r\nb\r\n"


def test_md_plain_passes_markdown_through():
    assert render(REPLY_MD, tty=False) == REPLY_MD + "\n"
    assert render("x\n", tty=False) == "x\n"
    assert render("", tty=False) == ""


def test_md_memory_is_bounded_by_a_line_not_the_message():
    """A 64 KB paragraph fed at once (as `ai history` never does, but a
    caller may) is written in pieces of about one screen line; non-ASCII
    text is walked as bytes and rendered unchanged, emphasis included."""
    writes = []
    r = md.Render(writes.append, True)
    para = "word \u00e9\u4e2d\U0001F600 " * 6000
    r.feed(para)
    r.close()
    assert "".join(writes) == para + "\n"
    assert max(len(w.encode()) for w in writes) <= 600, max(len(w) for w in writes)
    got = render("\u00e9 **gr\u00fcn** _\u4e2d_ `\u00e0`")
    assert got == ("\u00e9 " + md.BOLD + "gr\u00fcn" + md.BOLD_OFF + " " + md.ITAL
                   + "\u4e2d" + md.ITAL_OFF + " " + md.CODE + "\u00e0" + md.CODE_OFF + "\n")
    # a long line of code in a fence, cut anywhere, is the same
    code = "```\n" + "x = '\u00e9' * 3  # " * 400 + "\n```\n"
    rnd = random.Random(3)
    assert render(code, lambda: rnd.randint(1, 9)) == render(code)


def test_md_bounds_a_pending_link():
    long = "[" + "x" * 1000 + "](y)"
    got = render(long)
    assert got.startswith("[" + "x" * 300) and got.rstrip().endswith("x](y)")


# ---------------------------------------------------------------- ai chat

REPLY_MD = ("# Weather report\n"
            "It is **sunny** and *warm*, use `wear_hat()` today.\n"
            "- first point\n"
            "- second point\n"
            "```python\n"
            "print('**not bold**')\n"
            "```\n"
            "| city | weather |\n"
            "|---|---|\n"
            "| Rochdale | **12 C**, drizzle |\n"
            "| Z\u00fcrich | sun |\n"
            "More at [the site](http://127.0.0.1/x).")


@pytest.mark.smoke
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
        # the table's cells padded into columns (held until it ended)
        table = ["\u2502 city     \u2502 weather       \u2502", "\u2500" * 28,
                 "\u2502 Rochdale \u2502 12 C, drizzle \u2502", "\u2502 Z\u00fcrich   \u2502 sun           \u2502"]
        assert "\n".join(table + ["More at the site <http://127.0.0.1/x>."]) in screen, screen
        assert c.attrs("12 C").bold and not c.attrs("Rochdale").bold
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


def test_an_escape_in_a_reply_shows_and_keeps_the_rest(console):
    """The ESC shows as ^[ and the text after it and the line end stay,
    as the reply streams and in ai history (the console wraps to its
    width: the renderer's end must settle the last word)."""
    with FakeOpenAI(flavor="ollama") as srv:
        srv.queue(Text("one \x1b two three"))
        c = console(ollama_settings(srv))
        c.line("ai say it")
        rows = c.text().split("\n")
        i = rows.index("one ^[ two three")
        assert rows[i + 1] == PROMPT.rstrip(), rows
        c.clear()
        c.line("ai history")
        assert "ai> one ^[ two three\n" in c.text(), c.text()
        assert "\x1b two" not in c.raw


def test_a_reply_cut_short_says_so_at_the_console(console):
    with FakeOpenAI(flavor="ollama") as srv:
        srv.queue(Text("The beginning of a long answer", finish="length"))
        c = console(ollama_settings(srv))
        c.line("ai tell me everything")
        assert ("The beginning of a long answer\n\n[reply cut short: max tokens reached "
                "(raise ai.chat.max_tokens)]\n" + PROMPT.rstrip()) in c.text(), c.text()
        c.clear()
        c.line("ai history")
        assert "[reply cut short: max tokens reached" in c.text()


def test_ai_schema_prints_json_as_it_arrives(console):
    """ai -schema: the request carries the schema in the provider's form,
    the reply's JSON shows indented as its pieces arrive, and goes into
    the history; -schema-multi and @FILE; a reply that breaks the schema
    is an error line and no turn."""
    reply = json.dumps({"name": "Damien George", "age": 41, "bio": "wrote \"MicroPython\" \u00e9"})
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(gap=0.01)
        srv.delta_size = 3
        items = {"items": [{"city": "Leeds", "celsius": 9}, {"city": "Rochdale", "celsius": 12}]}
        srv.queue(Text(reply), Text(json.dumps(items)), Text('{"city": "Leeds", "celsius": "nine"}'))
        schema = {"type": "object", "properties": {"city": {"type": "string"},
                                                   "celsius": {"type": "integer"}},
                  "required": ["city", "celsius"]}
        c = console(ollama_settings(srv), files={"schemas/city.json": json.dumps(schema)})
        c.line('ai -schema "name, age int, bio: who they are" who wrote MicroPython?')
        rf = srv.requests[-1].json["response_format"]
        assert rf["type"] == "json_schema" and rf["json_schema"]["schema"]["required"] == [
            "name", "age", "bio"]
        assert srv.requests[-1].json["messages"][-1]["content"] == "who wrote MicroPython?"
        shown = '{\n  "name": "Damien George",\n  "age": 41,\n  "bio": "wrote \\"MicroPython\\" \u00e9"\n}'
        assert shown + "\n" + PROMPT.rstrip() in c.text(), c.text()
        assert c.attrs('"age"').fg == "cyan" and c.attrs('"age"').bold
        msgs = read_lines(os.path.join(c.flash, "history", "chat.jsonl"))
        assert json.loads(msgs[-1]["content"]) == json.loads(reply)
        c.clear()
        c.line("ai -schema-multi @/schemas/city.json weather in two towns")
        assert srv.requests[-1].json["response_format"]["json_schema"]["schema"][
            "properties"]["items"]["items"]["required"] == ["city", "celsius"]
        assert ('{\n  "items": [\n    {\n      "city": "Leeds",\n      "celsius": 9\n    },'
                '\n    {\n      "city": "Rochdale",\n      "celsius": 12\n    }\n  ]\n}') in c.text()
        c.clear()
        c.line("ai -schema @/schemas/city.json weather in Leeds")
        assert ("ollama: the reply breaks the schema: celsius is a string, not an integer"
                in c.flat()), c.text()
        assert len(read_lines(os.path.join(c.flash, "history", "chat.jsonl"))) == 4
        c.clear()
        c.line("help ai")
        assert "ai -schema SCHEMA QUESTION | ai -schema-multi SCHEMA QUESTION" in c.flat()
        c.line("ai -schema")
        assert "-schema needs a schema and a question" in c.flat()


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
        assert "usage: ai [-u TYPE] [-new] [-f FILE]... QUESTION" in c.text()
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
    assert "no AI provider set for 'chat' (run: ai config;" in c.text()
    c.clear()
    # the simulator's default: ai.general at Ollama on localhost, not running
    with FakeOpenAI(flavor="ollama") as srv:
        port = srv.port
    c.line("set ai.general.provider ollama")
    c.line("set ai.general.base_url http://127.0.0.1:%d/v1" % port)
    c.line("ai hello")
    screen = c.flat()
    assert "is Ollama (local) running? or run: ai config)" in screen, screen
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
    c.clear()
    c.line("mcp list")                      # what the help's "list" suggests
    listed = c.text()
    assert listed.startswith("mcp list\n") and listed[9:] == screen[4:], (listed, screen)
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
    assert len([ln for ln in c.text().splitlines() if ln.strip()]) == 3, c.text()
    assert "127.0.0.1:9" in c.text()
    c.line("mcp test nosuch")
    assert "no MCP server named nosuch; add it with: mcp add nosuch <url> [token]" in c.text()
    # wrong arguments
    c.clear()
    c.line("mcp add onlyname")
    assert "mcp: missing url" in c.text() and "usage: mcp add NAME URL [TOKEN]\n" in c.text()
    c.line("mcp add bad.name http://x/")
    assert "mcp add: server name may only use letters" in c.text()
    c.line("mcp frob")
    assert "mcp: too many arguments" in c.text()
    c.line("mcp del other")
    assert "removed other" in c.text()
    c.line("mcp del other")
    assert "mcp del: no MCP server named other" in c.text()
    assert "mcp.other.url" not in read_settings(c.flash)


# ---------------------------------------------------------------- tools

def test_ai_tools_cache_and_approval(console, sdk_server):
    url = sdk_server()
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{"mcp.sdk.url": url}))
        c.line("ai tools list")
        assert "no tools cache (ai -tools builds it from the MCP servers)" in c.text()
        c.clear()
        c.line("ai -tools")
        screen = c.text()
        assert "  sdk: 6 tools" in screen       # its 5 and read_resource
        assert "tools cache: 6 tools; every ai chat offers them" in screen
        cache = read_lines(os.path.join(c.flash, "tools.jsonl"))
        assert sorted(d["name"] for d in cache) == [
            "sdk__add", "sdk__echo", "sdk__fail", "sdk__get_weather", "sdk__read_resource",
            "sdk__slow_count"]
        c.clear()
        c.line("ai tools list")
        screen = c.text()
        assert re.search(r"^sdk__get_weather +\(sdk\)\n    Current weather for a city", screen, re.M), screen
        assert "(ai.tools.local = read), 6 from MCP servers" in screen

        # the model calls a tool: the console asks; n refuses it
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        c.clear()
        c.type("ai weather in Rochdale?\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        screen = c.text()
        assert "tool call: get_weather on sdk (%s)" % url in screen, screen
        assert re.search(r'  arguments: \{"city": ?"Rochdale"\}\n  run it\? \[y\]es \[n\]o \[a\]lways:',
                         screen), screen
        offered = sorted(t["function"]["name"] for t in srv.requests[-1].json["tools"])
        assert [n for n in offered if not n.startswith("board_")] == sorted(d["name"] for d in cache)
        assert "board_ls" in offered        # the board's own, beside them
        c.type("n\r")
        c.expect_prompt()
        screen = c.text()
        assert "  x the user refused this call" in screen
        # the fake (empty queue) answers with the tool result it was sent
        assert "tool said: Error: the user refused this call" in screen
        # y runs it: the call and a short result line are shown
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        c.clear()
        c.type("ai and now?\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.type("y\r")
        c.expect_prompt()
        screen = c.text()
        assert "<- Rochdale: 12 C, drizzle" in screen
        assert "tool said: Rochdale: 12 C, drizzle" in screen
        hist = read_lines(os.path.join(c.flash, "history", "chat.jsonl"))
        tool_msgs = [m for m in hist if m["role"] == "tool"]
        assert [m["content"] for m in tool_msgs] == ["Error: the user refused this call",
                                                     "Rochdale: 12 C, drizzle"]
        assert [m["role"] for m in hist] == ["user", "assistant", "tool", "assistant"] * 2
        # a: always for that tool, remembered in the settings
        srv.queue(Calls([("sdk__get_weather", {"city": "Lisbon"})]),
                  Text("Sunny."),
                  Calls([("sdk__get_weather", {"city": "London"})]))
        c.type("ai Lisbon?\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.type("a\r")
        c.expect_prompt()
        # trusted for that tool on that server at that URL
        assert json.loads(read_settings(c.flash)["mcp.sdk.allow"]) == [url, "get_weather"]
        c.clear()
        c.line("ai London?")
        screen = c.text()
        assert "[y]es" not in screen
        assert re.search(r"-> sdk__get_weather \{\"city\": ?\"London\"\}", screen), screen
        assert "<- London: 15 C, overcast" in screen
        # ai.tools.approve = never: refused without asking
        c.line("set ai.tools.approve never")
        srv.queue(Calls([("sdk__echo", {"text": "hi"})]))
        c.clear()
        c.line("ai echo hi")
        assert "tool sdk__echo" in c.text() and "refused (ai.tools.approve = never)" in c.text()
        # clear: chats offer no MCP tools any more (the board's own only)
        c.line("ai tools clear")
        assert not os.path.exists(os.path.join(c.flash, "tools.jsonl"))
        c.line("ai plain now")
        assert all(t["function"]["name"].startswith("board_")
                   for t in srv.requests[-1].json["tools"])


# ---------------------------------------------------------------- ai config

def provider_number(screen, pid):
    m = re.search(r"^ +(\d+)  %s " % pid, screen, re.M)
    assert m, screen
    return m.group(1)


def config_to_key(c, pid, default_url, url, key, use=""):
    """ai config [USE]: pick the provider, type its base URL and key."""
    c.type(("ai config %s" % use).rstrip() + "\r")
    c.expect_exact("q to quit: ")
    c.type(provider_number(c.text(), pid) + "\r")
    c.expect_exact("Base URL [%s]: " % default_url)
    c.type(url + "\r")
    c.expect_exact("API key: ")
    c.type(key + "\r")


def test_ai_config_wizard_end_to_end(console):
    key = "gsk-secret-0123456789"
    with FakeOpenAI(flavor="groq", key=key) as srv, FakeTextOnly(key="sk-text-987654321") as txt:
        c = console({})
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        assert "ai config general: Enter keeps [the value shown], Ctrl-C cancels" in c.text()
        c.type(provider_number(c.text(), "groq") + "\r")
        c.expect_exact("Base URL [https://api.groq.com/openai/v1]: ")
        c.type(srv.base_url + "\r")
        c.expect_exact("API key: ")
        mark = len(c.raw)
        c.type(key + "\r")
        # the model list, live from the provider, as a menu
        c.expect_exact("or type a name, q to quit: ")
        assert key not in c.raw[mark:] and "*" * len(key) in c.raw[mark:]
        screen = c.text()
        assert "Models (3); Enter at the end or q keeps llama-3.3-70b-versatile:" in screen
        assert re.search(r"^ +1  llama-3.3-70b-versatile  \(default\)$", screen, re.M), screen
        assert re.search(r"^ +2  openai/gpt-oss-20b$", screen, re.M)
        srv.queue(Text("Ready"), Calls([("ping", {})]))
        c.type("2\r")
        c.expect_prompt()
        screen = c.text()
        m = re.search(r"test: openai/gpt-oss-20b replied 'Ready' in (\d+) ms", screen)
        assert m, screen
        assert "tools: native tool calling works" in screen
        assert "saved ai.general: provider groq, model openai/gpt-oss-20b, key gsk...89, tools native" in screen
        s = read_settings(c.flash)
        assert s == {"ai.general.provider": "groq", "ai.general.base_url": srv.base_url,
                     "ai.general.key": key, "ai.general.model": "openai/gpt-oss-20b",
                     "ai.general.tools": "native"}
        # the round trip and the probe went to the fake with the key and model
        chat = [r for r in srv.requests if r.path.endswith("/chat/completions")]
        assert [r.json["model"] for r in chat] == ["openai/gpt-oss-20b"] * 2
        assert chat[1].json["tools"][0]["function"]["name"] == "ping"
        assert all(r.headers["authorization"] == "Bearer " + key for r in chat)
        assert key not in c.raw[mark:]
        # the configured provider answers ai questions now
        c.line("ai hi there")
        assert "echo: hi there" in c.text()

        # a second use-type on a server without native tools: typed model id,
        # the probe records the text fallback
        c.clear()
        config_to_key(c, "kimi", "https://api.moonshot.ai/v1", txt.base_url,
                      "sk-text-987654321", "code")
        c.expect_exact("q to quit: ")
        c.type("text-model-2\r")
        c.expect_prompt()
        screen = c.text()
        assert "test: text-model-2 replied 'echo: Reply with one word: ready'" in screen, screen
        assert "tools: no native tool calling" in screen and "using the text fallback" in screen
        s = read_settings(c.flash)
        assert s["ai.code.provider"] == "kimi" and s["ai.code.model"] == "text-model-2"
        assert s["ai.code.tools"] == "text-fallback"
        assert s["ai.general.provider"] == "groq"       # untouched

        # Ctrl-C in the middle: nothing changes
        before = read_settings(c.flash)
        c.clear()
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        c.type(provider_number(c.text(), "ollama") + "\r")
        c.expect_exact("Base URL [")
        c.child.send("\x03")
        c.expect_prompt()
        assert "cancelled; the settings are unchanged" in c.text()
        assert read_settings(c.flash) == before

        # a key the provider refuses: asked again (a typo is fixed here);
        # Enter keeps it, the test fails, the person says n
        c.clear()
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        c.type(provider_number(c.text(), "groq") + "\r")
        c.expect_exact("]: ")
        c.type(srv.base_url + "\r")
        c.expect_exact("API key [gsk...89]: ")
        c.type("gsk-wrong-key-000\r")
        c.expect_exact("API key (again; Enter keeps it): ")
        assert "the key was refused: groq: 401 Invalid API Key (check ai.general.key)" in c.flat()
        assert "Model [" not in c.text()        # no model asked for a key that lists none
        c.type("gsk-wrong-key-001\r")
        c.expect_exact("API key (again; Enter keeps it): ")
        c.type("\r")
        c.expect_exact("Model [openai/gpt-oss-20b]: ")
        assert "no model list (groq: 401 Invalid API Key (check ai.general.key)); type a model " \
            "id" in c.flat()
        c.type("\r")
        c.expect_exact("save anyway? [y/n]: ")
        c.type("n\r")
        c.expect_prompt()
        assert "nothing changed" in c.text()
        assert read_settings(c.flash) == before

        # the key again, right this time: the model list follows
        c.clear()
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        c.type(provider_number(c.text(), "groq") + "\r")
        c.expect_exact("]: ")
        c.type("\r")
        c.expect_exact("API key [gsk...89]: ")
        c.type("gsk-typo\r")
        c.expect_exact("API key (again; Enter keeps it): ")
        c.type(key + "\r")
        c.expect_exact("or type a name, q to quit: ")
        assert "Models (3)" in c.text()
        c.child.send("\x03")
        c.expect_prompt()
        assert read_settings(c.flash) == before


def test_ai_models(console):
    with FakeOpenAI(flavor="ollama", models=["m%02d" % i for i in range(30)]) as srv:
        c = console(ollama_settings(srv, **{"ai.general.model": "m07"}))
        c.line("ai models")
        screen = c.text()
        assert ("ollama: 30 models (* in use); pictures go to any model, the server says "
                "whether it sees them") in c.flat()
        assert "m07*" in screen and "m29" in screen
        rows = [ln for ln in screen.splitlines() if ln.startswith("m00")]
        assert rows and len(rows[0].split()) > 5          # in columns
        c.line("ai models nosuch")
        assert "unknown provider nosuch (known: groq, ollama" in c.text()
        c.line("ai models groq")
        assert ("groq: no API key (the ai.general settings are for ollama; set up groq with: "
                "ai config)") in c.flat(), c.text()
    with FakeOpenAI(flavor="groq", key="gsk-test", models=[
            "llama-3.3-70b-versatile", "meta-llama/llama-4-scout-17b-16e-instruct"]) as groq:
        c.line("set ai.general.provider groq")
        c.line("set ai.general.key gsk-test")
        c.line("set ai.general.base_url " + groq.base_url)
        c.line("set ai.general.model llama-3.3-70b-versatile")
        c.clear()
        c.line("ai models")
        # the catalogue's vision models marked
        assert re.search(r"^meta-llama/llama-4-scout\S*\+$", c.text(), re.M), c.text()
        assert "llama-3.3-70b-versatile*" in c.text() and "versatile*+" not in c.text()
        assert "groq: 2 models (* in use); + sees pictures" in c.text()


def test_ctrl_c_during_a_streamed_reply(console):
    story = " ".join("word%d" % i for i in range(400))
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        c.line("ai first")                       # one saved turn
        hist = os.path.join(c.flash, "history", "chat.jsonl")
        saved = open(hist).read()
        srv.options(gap=0.05)
        srv.queue(Text(story))
        c.clear()
        c.type("ai tell me a long story\r")
        c.expect("word1[0-9]")                   # the reply is streaming
        t0 = time.time()
        c.child.send("\x03")
        c.expect_prompt(timeout=10)
        took = time.time() - t0
        screen = c.text()
        assert "^C cancelled (the conversation is unchanged)" in screen, screen
        assert "word399" not in screen            # it really stopped early
        assert took < 5, took
        # no half turn on flash, and the console works on
        assert open(hist).read() == saved
        srv.options()
        c.line("ai still there?")
        assert "echo: still there?" in c.text()
        assert [m["content"] for m in read_lines(hist)] == [
            "first", "echo: first", "still there?", "echo: still there?"]
        # Ctrl-C at the approval prompt cancels the request too
        with open(os.path.join(c.flash, "tools.jsonl"), "w") as f:
            f.write(json.dumps({"server": "clock", "name": "clock__now", "remote": "now",
                                "description": "the time", "parameters": {
                                    "type": "object", "properties": {}}}) + "\n")
        srv.queue(Calls([("clock__now", {})]))
        c.clear()
        c.type("ai what time is it\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        assert "tool call: now on clock (not configured)" in c.text(), c.text()
        c.child.send("\x03")
        c.expect_prompt()
        # the prompt shows its ^C once, the chat says what it means
        assert "^C\ncancelled (the conversation is unchanged)" in c.text(), c.text()
        assert c.text().count("^C") == 1
        assert len(read_lines(hist)) == 4
        print("Ctrl-C to prompt: %.2f s" % took)


def test_spinner_turns_and_ctrl_c_works_while_the_provider_is_silent(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        srv.options(delay=0.8)
        srv.queue(Text("Late but here."))
        out = c.line("ai slow one")
        # the spinner turned while httpc waited for the first byte
        frames = [f for f in "|/-\\" if "\x1b[2m%s thinking" % f in out]
        assert len(frames) >= 3, repr(out[-400:])
        assert "Late but here." in c.text() and "thinking" not in c.text()
        # Ctrl-C while nothing arrives yet: back at the prompt at once
        srv.options(delay=8)
        srv.queue(Text("too late"))
        c.clear()
        c.type("ai are you there\r")
        c.expect_exact("thinking")
        # silent means it has the request (else "too late" would answer
        # the next one): the spinner turns from before the request is sent
        assert wait_for(lambda: srv.pending() == 0, 30)
        t0 = time.time()
        c.child.send("\x03")
        c.expect_prompt(timeout=10)
        took = time.time() - t0
        assert "^C cancelled (the conversation is unchanged)" in c.text(), c.text()
        assert took < 2, took
        srv.options()
        c.line("ai still there?")
        assert "echo: still there?" in c.text()


# ---------------------------------------------------------------- memory

def _mem_round(mpy, tmp_path, url, bare, live=False, heap=None):
    flash = tmp_path / ("%s%s%s" % ("bare" if bare else "console", "-live" if live else "",
                                    "-" + heap if heap else ""))
    flash.mkdir()
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
        (flash / "settings.json").write_text(json.dumps(ollama_settings(
            srv, **{"mcp.sdk.url": url, "ai.tools.approve": "always"})))
        r = mpy.run("aicmd_mem", heap=heap or MEM_HEAP, args=[flash] + (["bare"] if bare else []),
                    timeout=60, live=live)
    assert r.rc == 0, r
    assert "CACHE 6 None" in r.out, r.out      # the SDK's 5 tools and read_resource
    assert "tool said: Rochdale: 12 C, drizzle" in r.out, r.out
    return r, flash


# free once the emulated flash is in place (see mpyrun), with every module
# imported (mcpcmd with login and serve, the registry with OAuth state);
# make measure bisects what the console's round needs
MEM_HEAP = "59K"


@pytest.fixture(scope="module")
def mem_rounds(mpy, measure, tmp_path_factory, sdk_server):
    """One ai round with an MCP tool call through the console, and the same
    round through ai.run alone, each run with the firmware's GC and then
    measured (live=True): (console working set, bare working set, console
    result, console flash)."""
    url = sdk_server()
    tmp = tmp_path_factory.mktemp("mem")
    console_r, flash = _mem_round(mpy, tmp, url, False)
    _mem_round(mpy, tmp, url, True)
    console_w = _mem_round(mpy, tmp, url, False, live=True)[0].working
    bare_w = _mem_round(mpy, tmp, url, True, live=True)[0].working

    def passes(heap):
        try:
            _mem_round(mpy, tmp, url, False, heap=heap)
        except AssertionError:
            return False
        return True
    measure.smallest("heap", "the console's tool round (an MCP tool), every module imported",
                     passes, MEM_HEAP)
    print("\nai round with an MCP tool call (unix port, all modules imported, no pooled "
          "connection): console %d B, ai.run alone %d B, console share %d B; budget %d B"
          % (console_w, bare_w, console_w - bare_w, BUDGET))
    return console_w, bare_w, console_r, flash


def test_heap_console_share_of_an_ai_round(mem_rounds):
    """What the console layer adds to a round (history file, screen, approval,
    markdown) is small next to the library's working set."""
    working, bare, r, flash = mem_rounds
    assert '-> sdk__get_weather {"city":' in r.out, r.out
    assert "<- Rochdale: 12 C, drizzle" in r.out
    hist = read_lines(flash / "history" / "chat.jsonl")
    assert [m["role"] for m in hist] == ["user", "assistant", "tool", "assistant"]
    assert working - bare < 3 * 1024, (working, bare)


def test_heap_of_one_ai_round_with_an_mcp_tool_call(mem_rounds):
    """All modules imported, then `ai QUESTION` where the model calls an MCP
    tool and answers: the working heap above the post-import baseline stays
    within 24 KB, with a 10 % margin."""
    working = mem_rounds[0]
    assert working < BUDGET * 0.9, working


# ---------------------------------------------------------------- md: width, tables (issue 15)

def plain(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_md_wraps_at_word_boundaries_to_the_width():
    src = ("The quick brown fox jumps over the lazy dog and keeps on **running "
           "through the long** field until sunset.\n"
           "- a list item long enough to need wrapping at forty columns wide\n"
           "```\n" + "code " * 20 + "\n```\n" + "x" * 100 + " y")
    got = render(src, width=40)
    rows = plain(got).split("\n")
    assert all(len(r) <= 39 for r in rows if not r.startswith(("  code", "xxxx"))), rows
    assert rows[:3] == ["The quick brown fox jumps over the lazy",
                        "dog and keeps on running through the",
                        "long field until sunset."], rows
    assert rows[3:5] == ["\u2022 a list item long enough to need", "  wrapping at forty columns wide"]
    assert rows[5] == "  " + "code " * 20                # code is never wrapped
    assert rows[6:8] == ["x" * 100, "y"]                  # a word longer than a line
    # bold goes on across the break; the same output for any split
    assert md.BOLD + "running" in got and md.BOLD_OFF in got
    rnd = random.Random(7)
    for _ in range(20):
        assert render(src, lambda: rnd.randint(1, 7), width=40) == got
    assert render(src, width=0) == render(src)             # no width: no wrapping


def test_md_close_writes_what_is_held_whatever_the_width():
    """The end of a reply writes what was held (a link's "[", a backslash,
    an emphasis run) and the last word after it, then ends the line: with
    a width as without one (an ESC became "^[", which opens a would-be
    link: the rest of the reply must not be dropped)."""
    for src, shown in [("one \x1b two three", "one ^[ two three"),
                       ("a [ link text", "a [ link text"), ("x \\", "x \\"),
                       ("an *open em", "an open em"), ("a **b", "a b"),
                       ("[t](http://u", "[t](http://u")]:
        for width in (0, 120, 40):
            got = render(src, width=width)
            assert plain(got) == shown + "\n", (src, width, got)
            assert render(src, lambda: 1, width=width) == got


def test_md_tables_are_aligned_into_columns():
    """A table's rows are held until it ends, then written with the cells
    padded into columns (a cell's width: its characters, not its UTF-8
    bytes); inline markdown in a cell is rendered, and the text is
    sanitized; the same for any split of the stream."""
    src = ("| name | value |\n|---|:---:|\n| a | **b** |\n| \u00e9t\u00e9 \u4e2d | `x|y` |\n"
           "| ctl\x07 | [l](http://u) |\ntext | not a table")
    got = render(src, width=60)
    assert plain(got) == ("\u2502 name  \u2502 value        \u2502\n" + "\u2500" * 24 + "\n"
                          "\u2502 a     \u2502 b            \u2502\n"
                          "\u2502 \u00e9t\u00e9 \u4e2d \u2502 x|y          \u2502\n"
                          "\u2502 ctl^G \u2502 l <http://u> \u2502\n"
                          "text | not a table\n"), plain(got)
    assert md.DIM + "\u2502" + md.RESET in got and "\x07" not in got
    assert md.BOLD + "b" + md.BOLD_OFF + "            " + md.DIM in got
    assert md.CODE + "x|y" + md.CODE_OFF in got and md.UNDER + "l" + md.UNDER_OFF in got
    rnd = random.Random(11)
    for _ in range(40):
        assert render(src, lambda: rnd.randint(1, 9), width=60) == got
    assert render(src) == got                   # no width: aligned as well
    # a row with fewer cells gets empty ones; one without its last "|" is closed;
    # the table ends with the reply as well as with a line that is not a row
    assert plain(render("| a | b\n|-|-|\n| ccc |\n| x | y | z |")) == (
        "\u2502 a   \u2502 b \u2502   \u2502\n" + "\u2500" * 15 + "\n"
        "\u2502 ccc \u2502   \u2502   \u2502\n\u2502 x   \u2502 y \u2502 z \u2502\n")
    # a table wider than the terminal goes out as it comes: not aligned,
    # the rule as wide as the row above it, a row wrapped as a line is
    wide = "| a much longer header | \u00e9t\u00e9 |\n|---|---|\n| x | y |"
    for width in (0, 60):
        rows = plain(render(wide, width=width)).split("\n")
        assert rows[1] == "\u2500" * len(rows[0]) == "\u2500" * 30, (width, rows)
        assert rows[2] == "\u2502 x                    \u2502 y   \u2502", rows
    narrow = plain(render(wide, width=20)).split("\n")
    assert narrow[:4] == ["\u2502 a much longer", "header \u2502 \u00e9t\u00e9 \u2502",
                          "\u2500" * 14, "\u2502 x \u2502 y \u2502"], narrow
    # fits as it comes (27 columns) but not once aligned (35): as it comes
    assert plain(render("| a | bbbbbbbbbbbbbbbbbbbb |\n| cccccccc | d |", width=31)) == (
        "\u2502 a \u2502 bbbbbbbbbbbbbbbbbbbb \u2502\n\u2502 cccccccc \u2502 d \u2502\n")


def test_md_a_table_is_held_up_to_a_bound():
    """The rows are held up to 2 KB (each row's object counted too): a
    longer table goes out row by row as it arrives (not aligned), and
    nothing held grows past the bound, however long the table."""
    head = "| n | v |\n|---|---|\n"
    rows = "".join("| %d | %s |\n" % (i, "v" * (i % 9)) for i in range(600))
    writes = []
    r = md.Render(writes.append, True, width=80)
    fed = held = 0
    for i in range(0, len(head + rows), 50):
        piece = (head + rows)[i:i + 50]
        r.feed(piece)
        fed += len(piece.encode())
        held = max(held, r.held)
        assert len(r.out) <= 300 and len(r.rows or ()) <= 2048 // 32, (len(r.out), r.rows)
        # what was fed and not written is within the bound
        assert fed - sum(len(w.encode()) for w in writes) <= 2048 + 300
    r.close()
    assert 1024 < held <= 2048, held
    got = plain("".join(writes)).split("\n")
    assert got[2:5] == ["\u2502 0 \u2502  \u2502", "\u2502 1 \u2502 v \u2502",
                        "\u2502 2 \u2502 vv \u2502"], got[:5]
    assert len(got) == 603 and got[-1] == "", got[-3:]
    # a short table in a long reply: held only while it lasts
    writes = []
    r = md.Render(writes.append, True, width=80)
    r.feed("before\n| a | b |\n|--|--|\n| c | d |\n")
    assert plain("".join(writes)) == "before\n"
    r.feed("after the table\n")
    assert plain("".join(writes)).endswith("\u2502 c \u2502 d \u2502\nafter the table\n")
    r.close()

def test_md_pieces_stay_about_a_line_with_a_width():
    """A long paragraph with a width: the pieces stay about a line,
    whatever its size."""
    writes = []
    r = md.Render(writes.append, True, width=80)
    r.feed("word \u00e9\u4e2d\U0001F600 " * 6000)
    r.close()
    assert max(len(w.encode()) for w in writes) <= 600
    assert max(len(x) for x in "".join(writes).split("\n")) <= 79


# ---------------------------------------------------------------- files

def test_ai_with_files_at_the_console(console):
    """ai -f FILE (more than once), completion of its path, /file in the
    chat mode; the picture reaches the model decoded strictly, the history
    keeps its reference and ai history shows it; what is refused is said
    before anything is sent, and the board's private files never go."""
    import hashlib
    pic = b"\xff\xd8\xff" + os.urandom(2045)
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(500)
    with FakeOpenAI(flavor="ollama", models=["llava"]) as srv:
        c = console(ollama_settings(srv, **{"ai.general.model": "llava"}))
        for name, data in (("photo.jpg", pic), ("pics/dot.png", png)):
            p = os.path.join(c.flash, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        # Tab completes the path after -f
        c.type("ai -f /ph\t")
        c.expect_exact("/photo.jpg ")
        c.type("-f pics/dot.png what are these?\r")
        c.expect_prompt()
        assert [hashlib.sha256(f["data"]).digest() for f in srv.files] == [
            hashlib.sha256(pic).digest(), hashlib.sha256(png).digest()]
        assert "echo: " in c.text()
        hist = read_lines(os.path.join(c.flash, "history", "chat.jsonl"))
        assert [r["path"] for r in hist[0]["files"]] == ["/photo.jpg", "/pics/dot.png"]
        assert hist[0]["files"][0]["sha"] == hashlib.sha256(pic).hexdigest()[:16]
        c.clear()
        c.line("ai history")
        assert "[file /photo.jpg, 2 KB, image/jpeg]" in c.text()
        assert "[file /pics/dot.png, 508 bytes, image/png]" in c.text()
        # refused before any request: private, missing, a folder, no type
        n = len(srv.requests)
        with open(os.path.join(c.flash, "blob.bin"), "wb") as f:
            f.write(bytes(range(256)) * 4)
        for args, said in (("/settings.json", "/settings.json is private to the board: it is never sent"),
                           ("/nope.jpg", "/nope.jpg: no such file"),
                           ("/pics", "/pics is a folder; attach a file"),
                           ("/blob.bin", "/blob.bin is not a picture (JPEG, PNG, GIF, WebP), a PDF "
                                         "or UTF-8 text")):
            c.clear()
            c.line("ai -f %s hi" % args)
            assert said in c.flat(), c.text()
        assert len(srv.requests) == n
        # the chat mode: /file attaches to the next line only
        c.type("ai chat\r")
        c.expect_exact("you> ")
        c.type("/fi\t")
        c.expect_exact("/file ")
        c.type("/pics/d\t")
        c.expect_exact("dot.png ")
        c.type("\r")
        c.expect_exact("you> ")
        assert "/pics/dot.png (508 bytes) goes with your next line" in c.text()
        srv.files.clear()
        c.type("and this one?\r")
        c.expect_exact("you> ")
        # the earlier turn's two pictures again, and this line's
        assert [hashlib.sha256(f["data"]).digest() for f in srv.files] == [
            hashlib.sha256(pic).digest(), hashlib.sha256(png).digest(), hashlib.sha256(png).digest()]
        c.type("/exit\r")
        c.expect_prompt()
    with FakeOpenAI(flavor="groq", key="gsk-test", models=["llama-3.3-70b-versatile"]) as groq:
        c.line("set ai.general.provider groq")
        c.line("set ai.general.base_url " + groq.base_url)
        c.line("set ai.general.key gsk-test")
        c.line("set ai.general.model llama-3.3-70b-versatile")
        c.clear()
        c.line("ai -new -f /photo.jpg what is it?")
        assert ("groq: /photo.jpg (image/jpeg, 2 KB): llama-3.3-70b-versatile takes no "
                "pictures; nothing was sent") in c.flat(), c.text()
        assert not groq.requests
        c.clear()
        c.line("help ai")
        assert "ai [-u TYPE] [-new] [-f FILE]... QUESTION" in c.flat()
        assert "chat with the AI (files too: -f FILE)" in c.flat()
