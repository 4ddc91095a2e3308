"""Working heap independent of content size, under the MicroPython unix
port at one emulated heap for every size (heap= is free heap once the
emulated flash is in place, see mpyrun). Every run that judges a heap runs
with the firmware's GC setting; the working sets compared across sizes
(working = peak above the post-import baseline) are measured in runs of
their own with live=True (the sampler collects every 1 KB, so the peak is
live data). `make measure` bisects the smallest heaps
(tools/bench/MEASUREMENTS.md).

- ai.ask / ai.run, every style (openai, anthropic, gemini, the text
  fallback), streamed and not, 2 KB and 16 KB replies at FLASH_CAP: the
  reply is recorded into a conversation on flash as it arrives
  (keep=False, ai.history turn), which is what the console does. A str
  returned to an API caller is one block of RAM: 1 KB and 16 KB at STR_CAP.
- A 300 KB streamed reply at FLASH_CAP: the clean "longer than" error.
- The console (`ai QUESTION`, every module of that path imported, markdown
  on): 1/16/64 KB replies at CONSOLE_CAP, the reply in the history file
  byte for byte, `ai history` to its end and a follow-up round at the same
  heap, the 64 KB round's peak within 2 KB of the 1 KB round's; with 101
  cached tools offered, a 64 KB reply and a tool round (the product's
  scenarios, issue 40).
- A chat offering a tools cache of 10/50/200 tools (schemas ~800 bytes)
  at TOOLS_CACHE_CAP, peaks within 2 KB.
- MCP: a 1 MB tool result of the Python SDK server (with and without the
  duplicate structuredContent) cut to the board's mcp.max_result while
  read, or written whole into a file; ai.run on it; a 49-tool server
  listed over five pages.
- No MemoryError leaves a public function: each is called with almost no
  heap left.
"""
import json
import os
import re
import shutil

import pytest

from fakes import Calls, FakeAnthropic, FakeGemini, FakeOpenAI, FakeTextOnly, Text
from mcpfake import McpFake, reply, sse
import mcp
from mpyrun import GOAL, parse_size

PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"
STYLES = {
    "openai": (FakeOpenAI, "openai", "gpt-4o-mini", "sk-test"),
    "anthropic": (FakeAnthropic, "anthropic", "claude-sonnet-4-5", "sk-ant-test"),
    "gemini": (FakeGemini, "gemini", "gemini-2.5-flash", "AIza-test"),
    "fallback": (FakeTextOnly, "openai", "text-model-1", "sk-test"),
}
# Each scenario runs at its cap: the heap free once the emulated flash is
# in place, the smallest at which it passes (make measure bisects it) plus
# 3-4K. The product's scenarios (issue 40) have the project's goal, GOAL:
# the board keeps 64K of its 112K GC heap for a program of the user's own.
# ai.ask / ai.run of 2 and 16 KB replies into a conversation on flash, and
# a 300 KB one refused
FLASH_CAP = "37K"
# a 16 KB reply as one str
STR_CAP = "50K"
# the console's rounds (every module of `ai QUESTION` imported, markdown on,
# the board's read-only commands offered as tools: ai.tools.local's default)
CONSOLE_CAP = "48K"
# (bisected at 48K by make measure, with 1K of margin: a fresh-clone run
# ran out at 49K; the margin every cap has)
TABLE_CAP = "53K"
IN_A_ROW_CAP = "52K"
# a chat offering a tools cache of 10, 50 or 200 tools
TOOLS_CACHE_CAP = "34K"
# an MCP result of 1 MB read into a str, cut to mcp.max_result
RESULT_CAP = "46K"
BARE_CAP = "46K"
# mcp.call(..., into=) of a 1 MB result
INTO_CAP = "33K"
# ai.run on a 1 MB tool result (the result goes from the socket to flash,
# never whole in RAM)
BIG_RUN_CAP = "48K"
# ai.run(mcps=) offering a 49-tool server listed over five pages
PAGES_CAP = "41K"
# mcp.call of a 2 KB or 300 KB picture, decoded to flash
PICTURE_CAP = "36K"
# bytes of a tool result kept: the default of mcp.max_result (a program's
# str) and ai.max_tool_result (a chat's), the note after a cut one
LIMIT = mcp.MAX_RESULT
CUT_1MB = LIMIT + len("\n... (truncated, 1048576 bytes)")


def judged_and_working(run):
    """run() with the firmware's GC (the result, which judges the heap),
    then the working set: the middle peak of three live=True runs. The
    peak is sampled by a thread (heapmon); on a busy machine one run is
    off by up to 2 KB either way (a sample misses the peak, or the
    sampler's stack, scanned at every collection, keeps garbage alive)."""
    r = run()
    return r, sorted(run(live=True).working for _ in range(3))[1]


def text_of(size):
    return (PAT * (size // len(PAT) + 1))[:size]


def _long(mpy, tmp_path, style, how, size, keep, heap=FLASH_CAP, tag="", live=False):
    fake, provider, model, key = STYLES[style]
    with fake(key=key, models=[model]) as srv:
        srv.options(chunked=True)
        srv.delta_size = 40
        srv.queue(Text(text_of(size)))
        root = tmp_path / ("%s-%s-%d-%s-%s%s" % (style, how, size, keep, heap, tag))
        root.mkdir()
        args = [provider, srv.base_url, model, key, root, how, size, keep]
        if style == "fallback":
            args.append("fallback")
        r = mpy.run("ai_long", heap=heap, args=args, timeout=300, live=live)
    line = [x for x in r.out.splitlines() if x.startswith("LONG ")]
    return r, (line[0] if line else r.out + r.err)


@pytest.mark.parametrize("how", ["ask", "ask-stream", "run", "run-stream"])
@pytest.mark.parametrize("style", list(STYLES))
def test_long_replies_on_flash(mpy, measure, tmp_path, style, how):
    """2 KB and 16 KB through ai.ask / ai.run into a conversation on flash:
    both pass at FLASH_CAP, the text read back from the file is the reply, and
    the 16 KB working set is within 2 KB of the 2 KB one. Both are past
    the part of a store.Spool kept in RAM (SPOOL_RAM), so both pay for
    the spool's open file: the comparison is of growth with size, not of
    that one file."""
    peaks = []
    for size in (2048, 16384):
        r, line = _long(mpy, tmp_path, style, how, size, "flash")
        assert r.rc == 0, r
        pieces = 0 if not how.endswith("stream") else size // 40
        assert line.startswith("LONG %d None True " % size), line
        if how.endswith("stream"):      # it streamed to the caller too
            assert line.endswith(" %d" % size) and int(line.split()[4]) >= pieces, line
        peaks.append(max(_long(mpy, tmp_path, style, how, size, "flash", tag=t, live=True)[0]
                         .working for t in ("live1", "live2")))
    print("%s %s: working %d B (2 KB) %d B (16 KB) at %s" % (style, how, peaks[0], peaks[1], FLASH_CAP))
    assert peaks[1] - peaks[0] < 2048, peaks

    def passes(heap):
        x, ln = _long(mpy, tmp_path, style, how, 16384, "flash", heap)
        return x.rc == 0 and ln.startswith("LONG 16384 None True ")
    measure.smallest("heap", "a 16 KB reply into a conversation on flash (%s, %s)" % (style, how),
                     passes, FLASH_CAP, shared=True)


@pytest.mark.parametrize("style", list(STYLES))
def test_api_str_reply_sizes(mpy, measure, tmp_path, style):
    """The str API callers get is one block of RAM: 1 KB and 16 KB pass at
    STR_CAP. The 16 KB needs one free block that large once the response is
    closed: it is read back from flash (store.Spool) after a collect, and
    the style's code, loaded on first use, was put low in the heap (a
    collect first) instead of into that free top."""
    r, line = _long(mpy, tmp_path, style, "ask-stream", 1024, "str", STR_CAP)
    assert r.rc == 0 and line.startswith("LONG 1024 None True"), line
    r, line = _long(mpy, tmp_path, style, "ask", 16384, "str", STR_CAP)
    assert r.rc == 0 and line.startswith("LONG 16384 None True"), line

    def passes(heap):
        x, ln = _long(mpy, tmp_path, style, "ask", 16384, "str", heap)
        return x.rc == 0 and ln.startswith("LONG 16384 None True")
    measure.smallest("heap", "a 16 KB reply as a str (ai.ask, %s)" % style, passes, STR_CAP,
                     shared=True)


def test_300k_streamed_reply_is_a_clean_error(mpy, tmp_path):
    for keep in ("str", "flash"):
        r, line = _long(mpy, tmp_path, "openai", "ask-stream", 300 * 1024, keep)
        assert r.rc == 0, r
        assert "openai: reply longer than 16384 characters" in line, line
        assert "MemoryError" not in r.out + r.err


# ---------------------------------------------------------------- console

CSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _console_run(mpy, flash, cmd, heap=CONSOLE_CAP, live=False):
    return mpy.run("aicmd_long", heap=heap, args=[flash] + list(cmd), timeout=300, input="",
                   live=live)


def _console_ok(r):
    return r.rc == 0 and "Traceback" not in r.err and "out of memory" not in r.out


def _console(mpy, flash, *cmd):
    r = _console_run(mpy, flash, cmd)
    assert _console_ok(r), (r.out[-2000:], r.err)
    return r, CSI.sub("", r.out).replace("\r", "")


def _history(flash):
    with open(os.path.join(flash, "history", "chat.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_console_long_replies(mpy, measure, tmp_path):
    peaks = {}
    for size in (1024, 16384, 65536):
        flash = tmp_path / ("flash%d" % size)
        flash.mkdir()
        text = text_of(size)
        with FakeOpenAI(flavor="ollama") as srv:
            srv.options(chunked=True)
            srv.delta_size = 32
            srv.queue(Text(text), Text(text), Text("Short answer."))
            settings = json.dumps({
                "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
                "ai.general.model": "llama3.2"})
            (flash / "settings.json").write_text(settings)
            # the working set of the round, on a flash of its own
            live = tmp_path / ("live%d" % size)
            live.mkdir()
            (live / "settings.json").write_text(settings)
            lr = _console_run(mpy, live, ["ai", "write", "a", "long", "text"], live=True)
            assert _console_ok(lr), (lr.out[-2000:], lr.err)
            peaks[size] = lr.working
            r, out = _console(mpy, flash, "ai", "write", "a", "long", "text")
            assert text.rstrip("\n") in out             # streamed to the screen
            msgs = _history(flash)
            assert [m["role"] for m in msgs] == ["user", "assistant"]
            assert msgs[1]["content"] == text           # byte for byte on flash
            # ai history shows it to its end, at the same heap
            r2, out = _console(mpy, flash, "ai", "history")
            assert "you> write a long text" in out and text.rstrip("\n") in out
            assert "chat: 1 turn" in out
            # a follow-up round sends it from the file, at the same heap
            r3, out = _console(mpy, flash, "ai", "and", "now?")
            sent = srv.requests[-1].json["messages"]
            assert [m["content"] for m in sent] == ["write a long text", text, "and now?"]
            assert "Short answer." in out
            if size == 65536:
                # the smallest heap of the 64 KB round (a fresh flash each time)
                def passes(heap):
                    f = tmp_path / ("flash-%s" % heap)
                    f.mkdir()
                    (f / "settings.json").write_text(settings)
                    srv.queue(Text(text))
                    return _console_ok(_console_run(mpy, f, ["ai", "write", "a", "long", "text"],
                                                    heap))
                measure.smallest("heap", "the console's `ai QUESTION` with a 64 KB reply",
                                 passes, CONSOLE_CAP)
        print("console %d B reply: working set %d B" % (size, peaks[size]))
    measure.record("working", "the console's `ai QUESTION`, 1/16/64 KB replies",
                   **{"%d B" % k: v for k, v in peaks.items()})
    assert peaks[65536] - peaks[1024] < 2048, peaks


def table_of(size):
    """A markdown table of about size bytes: a header, its rule, rows."""
    rows = ["| n | city | weather |", "|---|---|---|"]
    n = len(rows[0]) + len(rows[1]) + 2
    while n < size:
        rows.append("| %d | Rochdale %d | %s|" % (len(rows), len(rows) % 7,
                                                 "drizzle " * (len(rows) % 4)))
        n += len(rows[-1]) + 1
    return "\n".join(rows) + "\n"


def _table_rows(r):
    return [ln for ln in CSI.sub("", r.out).split("\n") if ln.startswith("\u2502")]


def test_console_table_replies(mpy, measure, tmp_path):
    """A reply that is one table, through the console with markdown on, at
    the console's goal: 512 bytes are held until the table ends and written
    with the cells in columns; 16 KB and 64 KB go out row by row once 2 KB
    are held, with the same working set (measured with room to spare: the
    live run's GC needs more heap than the firmware's)."""
    peaks = {}
    for size in (512, 16384, 65536):
        text = table_of(size)
        with FakeOpenAI(flavor="ollama") as srv:
            srv.options(chunked=True)
            srv.delta_size = 32
            srv.queue(Text(text), Text(text))
            settings = json.dumps({
                "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
                "ai.general.model": "llama3.2"})

            def run(heap, live=False):
                flash = tmp_path / ("%d-%s-%s" % (size, heap, live))
                flash.mkdir()
                (flash / "settings.json").write_text(settings)
                return _console_run(mpy, flash, ["ai", "a", "table"], heap, live=live)
            live = run("96K", live=True)
            assert _console_ok(live), (live.out[-2000:], live.err)
            peaks[size] = live.working
            r = run(TABLE_CAP)
            assert _console_ok(r), (r.out[-2000:], r.err)
            if size == 512:
                def passes(heap):
                    srv.queue(Text(text))
                    got = run(heap)
                    return _console_ok(got) and len(set(map(len, _table_rows(got)))) == 1
                measure.smallest("heap", "the console's `ai QUESTION` with a 512 B table, aligned",
                                 passes, TABLE_CAP)
        rows = _table_rows(r)
        assert len(rows) == text.count("\n") - 1, (len(rows), r.out[-500:])
        assert rows[0] == ("\u2502 n  \u2502 city       \u2502 weather                 \u2502"
                           if size == 512 else "\u2502 n \u2502 city \u2502 weather \u2502"), rows[:3]
        # aligned: every row as wide; as it comes: each as wide as its text
        assert (len(set(map(len, rows))) == 1) == (size == 512), rows[:5]
        print("console %d B table: working set %d B" % (size, peaks[size]))
    measure.record("working", "the console's `ai QUESTION`, 0.5/16/64 KB tables",
                   **{"%d B" % k: v for k, v in peaks.items()})
    assert abs(peaks[65536] - peaks[16384]) < 2048, peaks


def _in_a_row(mpy, tmp_path, heap, texts):
    """One console, `ai one ; ai two ; ai three ; ai history` on a fresh
    flash -> (result, the questions the model got, the flash)."""
    flash = tmp_path / ("row-%s" % heap)
    flash.mkdir()
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        srv.delta_size = 32
        srv.queue(*[Text(t) for t in texts])
        (flash / "settings.json").write_text(json.dumps({
            "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
            "ai.general.model": "llama3.2"}))
        cmd = "ai one ; ai two ; ai three ; ai history".split()
        r = mpy.run("aicmd_long", heap=heap, args=[flash] + cmd, timeout=300, input="")
        # (a request cut short by the board's MemoryError has no JSON)
        return r, [q.json["messages"][-1]["content"] for q in srv.requests if q.json], flash


def test_console_long_replies_in_a_row(mpy, measure, tmp_path):
    """One console, three questions whose replies are 1, 16 and 64 KB, then
    `ai history`, at IN_A_ROW_CAP: what one reply leaves behind does not
    keep the next from fitting."""
    texts = [text_of(n) for n in (1024, 16384, 65536)]
    r, asked, flash = _in_a_row(mpy, tmp_path, IN_A_ROW_CAP, texts)
    assert _console_ok(r), (r.out[-2000:], r.err)
    assert asked == ["one", "two", "three"]
    # the conversation on flash (trimmed to ai.history.bytes) ends with the
    # 64 KB reply byte for byte
    msgs = _history(flash)
    assert msgs[-1] == {"role": "assistant", "content": texts[2]}
    out = CSI.sub("", r.out).replace("\r", "")
    for t in texts:
        assert t.rstrip("\n") in out                      # each streamed to the screen
    assert out.count(texts[2].rstrip("\n")) == 2         # and the last in ai history too

    def passes(heap):
        x, _, _ = _in_a_row(mpy, tmp_path, heap, texts)
        return _console_ok(x) and CSI.sub("", x.out).count(texts[2].rstrip("\n")) == 2
    measure.smallest("heap", "the console: 1, 16 and 64 KB replies in a row, then ai history",
                     passes, IN_A_ROW_CAP)


# ---------------------------------------------------------------- the console with cached tools

# The product's console scenarios at the goal (issue 40): `ai QUESTION`
# offering a tools cache of CACHED tools (as `ai -tools` writes it: the
# Python SDK server's six and fillers of ~800-byte schemas) beside the
# board's read-only commands, with a 64 KB reply; and the same question
# answered after a tool round (the model calls one of the cached tools on
# the SDK server, approved by the setting).
CACHED = 101
# needs the whole goal, 48K (bisected twice): at 47K a small allocation
# fails in the console's sanitizer some hundred characters into the reply;
# the cap keeps the margin every cap has
CACHED_REPLY_CAP = "51K"
CACHED_REPLY_WHY = ("needs 48K, the goal itself: at 47K the console's sanitizer runs out "
                    "a few hundred characters into the reply (no one large block)")
# over the goal: the tool round (the MCP call and the follow-up) on top of
# the console. Measured (gc.mem_alloc after a collect, 32-bit): before the
# MCP call 15K is live above the boot's heap (38 modules loaded: the
# console, the chat, the style, the tools cache, history; the turn), the
# MCP session adds 5.8K live, the peak is 27K above the boot's; at 50-54K
# the call's connection or its reply is what runs out
CACHED_ROUND_CAP = "62K"
CACHED_ROUND_WHY = ("the MCP call runs on top of the chat's 15K live state (38 modules, the "
                    "turn) and its session adds 5.8K; peak 27K above boot, the rest is the "
                    "GC's room; 55K without the cache (test_shell_ai)")


def _cached_flash(tmp_path, name, settings, sdk):
    """A flash with settings and a tools cache of CACHED tools: the SDK
    server's, listed as `ai -tools` lists them (here, on CPython), then
    fillers of a server that is not configured."""
    import ai
    import store
    flash = tmp_path / name
    flash.mkdir()
    (flash / "settings.json").write_text(json.dumps(dict(settings, **{"mcp.sdk.url": sdk})))
    store.set_root(str(flash))
    try:
        n, err = ai.tools_cache_build()
    finally:
        store.set_root(None)
    assert err is None and n == 6, (n, err)
    with open(flash / "tools.jsonl", "a") as f:
        for i in range(CACHED - n):
            f.write(json.dumps({"server": "fill", "name": "fill__t%d" % i, "remote": "t%d" % i,
                                "description": "Tool %d of the filler server." % i,
                                "parameters": _schema(i)}) + "\n")
    return flash


def _cached_round(mpy, tmp_path, sdk, heap, queue, question):
    """One console `ai QUESTION` on a fresh flash with the tools cache ->
    (result, screen text, the first request's tool names)."""
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        srv.delta_size = 32
        srv.queue(*queue)
        flash = _cached_flash(tmp_path, "cached-%s-%d" % (heap, len(os.listdir(str(tmp_path)))), {
            "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
            "ai.general.model": "llama3.2", "ai.tools.approve": "always"}, sdk)
        r = _console_run(mpy, flash, question.split(), heap)
        offered = [t["function"]["name"] for t in srv.requests[0].json["tools"]] \
            if srv.requests and srv.requests[0].json else []   # (a request cut short: none)
    return r, CSI.sub("", r.out).replace("\r", ""), offered


def test_console_question_with_cached_tools_and_a_64kb_reply(mpy, measure, tmp_path, sdk_server):
    """`ai QUESTION` at the console offering 101 cached tools and the
    board's read-only commands, answered with 64 KB: streamed to the screen
    and into the history, at CACHED_REPLY_CAP."""
    sdk = sdk_server()
    text = text_of(65536)
    r, out, offered = _cached_round(mpy, tmp_path, sdk, CACHED_REPLY_CAP, [Text(text)],
                                    "ai write a long text")
    assert _console_ok(r), (r.out[-2000:], r.err)
    assert text.rstrip("\n") in out
    cached = [n for n in offered if n.startswith(("sdk__", "fill__"))]
    assert len(cached) == CACHED and "fill__t94" in cached and "sdk__get_weather" in cached
    assert len(offered) > CACHED            # the board's commands too

    def passes(heap):
        x, o, _ = _cached_round(mpy, tmp_path, sdk, heap, [Text(text)], "ai write a long text")
        return _console_ok(x) and text.rstrip("\n") in o
    measure.smallest("heap", "the console's `ai QUESTION`, 101 cached tools, a 64 KB reply",
                     passes, CACHED_REPLY_CAP, goal=GOAL, why=CACHED_REPLY_WHY)


def test_console_tool_round_with_101_cached_tools(mpy, measure, tmp_path, sdk_server):
    """`ai QUESTION` at the console offering 101 cached tools; the model
    calls the SDK server's get_weather among them (approved by the
    setting), the result goes back, the model answers: at
    CACHED_ROUND_CAP."""
    sdk = sdk_server()
    call = Calls([("sdk__get_weather", {"city": "Rochdale"})])
    r, out, offered = _cached_round(mpy, tmp_path, sdk, CACHED_ROUND_CAP, [call],
                                    "ai what is the weather in Rochdale?")
    assert _console_ok(r), (r.out[-2000:], r.err)
    assert len([n for n in offered if n.startswith(("sdk__", "fill__"))]) == CACHED
    assert "tool said: Rochdale: 12 C, drizzle" in out, out[-2000:]

    def passes(heap):
        x, o, _ = _cached_round(mpy, tmp_path, sdk, heap, [call],
                                "ai what is the weather in Rochdale?")
        return _console_ok(x) and "tool said: Rochdale: 12 C, drizzle" in o
    measure.smallest("heap", "the console's tool round with 101 cached tools (MCP SDK server)",
                     passes, CACHED_ROUND_CAP, goal=GOAL, why=CACHED_ROUND_WHY)


# ---------------------------------------------------------------- tools cache

def _schema(i):
    props = {}
    for k in range(8):
        props["field_%d_%d" % (i, k)] = {
            "type": "string", "description": "The value of field %d of tool %d, free text." % (k, i)}
    return {"type": "object", "properties": props, "required": ["field_%d_0" % i]}


@pytest.mark.parametrize("style", ["openai", "anthropic", "gemini"])
def test_chat_with_a_tools_cache_of_any_size(mpy, measure, tmp_path, style):
    fake, provider, model, key = STYLES[style]
    peaks = {}
    for n in (10, 50, 200):
        root = tmp_path / ("%s%d" % (style, n))
        root.mkdir()
        with open(root / "tools.jsonl", "w") as f:
            for i in range(n):
                f.write(json.dumps({"server": "fill", "name": "fill__t%d" % i, "remote": "t%d" % i,
                                    "description": "Tool %d of the filler server." % i,
                                    "parameters": _schema(i)}) + "\n")
        with fake(key=key, models=[model]) as srv:
            srv.options(chunked=True)

            def run(live=False, heap=TOOLS_CACHE_CAP, at=root):
                return mpy.run("ai_toolcache", heap=heap, timeout=120, live=live,
                               args=[provider, srv.base_url, model, key, at])
            r, peak = judged_and_working(run)
            assert r.rc == 0, r
            assert "RUN '' None" in r.out and "ROLES ['user', 'assistant']" in r.out, r.out
            body = srv.requests[0].json
            if n == 200:
                def passes(heap):
                    at = tmp_path / ("%s%d-%s" % (style, n, heap))
                    at.mkdir()
                    shutil.copy(str(root / "tools.jsonl"), str(at / "tools.jsonl"))
                    x = run(heap=heap, at=at)
                    return x.rc == 0 and "RUN '' None" in x.out
                measure.smallest("heap", "a chat offering a tools cache of 200 tools (%s)" % style,
                                 passes, TOOLS_CACHE_CAP)
        if style == "gemini":
            offered = body["tools"][0]["functionDeclarations"]
            assert offered[n - 1]["parameters"]["required"] == ["field_%d_0" % (n - 1)]
        elif style == "anthropic":
            offered = body["tools"]
            assert offered[n - 1]["input_schema"] == _schema(n - 1)
        else:
            offered = body["tools"]
            assert offered[n - 1]["function"]["parameters"] == _schema(n - 1)
        assert len(offered) == n
        peaks[n] = peak
    print("%s chat offering 10/50/200 cached tools: working %s at %s" % (style, peaks, TOOLS_CACHE_CAP))
    assert max(peaks.values()) - min(peaks.values()) < 2048, peaks


# ---------------------------------------------------------------- MCP

BIG = 1 << 20


@pytest.fixture(scope="module")
def big_server(sdk_server):
    return sdk_server(big=True)


def test_mcp_call_cuts_a_1mb_result_while_reading(mpy, measure, tmp_path, big_server):
    """mcp.call on the SDK server's 1 MB result, with the duplicate
    structuredContent (big) and without (big_text): cut to the board's
    mcp.max_result while it is read, spooled to flash, and read back as one
    str once nothing of the exchange is left. That str needs one free block
    that large: mcp.add and mcp.connect collect garbage first, so the
    registry and the session they keep sit low in the heap instead of
    splitting its free top."""
    def run(heap):
        return mpy.run("mcp_big", heap=heap, args=[tmp_path, big_server, BIG, "call"],
                       timeout=300)
    r = run(RESULT_CAP)
    assert r.rc == 0, r
    for tool in ("big", "big_text"):
        assert "CALL %s %d None True '\\n... (truncated, %d bytes)'" % (tool, CUT_1MB, BIG) in r.out, \
            r.out

    def passes(heap):
        x = run(heap)
        return x.rc == 0 and x.out.count("None True '\\n... (truncated, %d bytes)'" % BIG) == 2
    measure.smallest("heap", "mcp.call of a 1 MB result (cut to the board's mcp.max_result, a str)", passes,
                     RESULT_CAP)


def test_mcp_call_into_a_file_takes_a_1mb_result_at_the_goal_heap(mpy, measure, tmp_path,
                                                                   big_server):
    """mcp.call(..., into=PATH) of the SDK server's 1 MB result (with the
    duplicate structuredContent, skipped, and without): the whole text in
    the file, written from the parser's buffer as it is read; no str is
    made, so the heap a call needs does not grow with the result."""
    assert parse_size(INTO_CAP) <= parse_size(GOAL)

    def run(heap):
        return mpy.run("mcp_big", heap=heap, args=[tmp_path, big_server, BIG, "into"],
                       timeout=300, cwd=str(tmp_path))
    r = run(INTO_CAP)
    assert r.rc == 0, r
    for tool in ("big", "big_text"):
        assert "CALL %s %d None True %d" % (tool, BIG, BIG) in r.out, r.out

    def passes(heap):
        x = run(heap)
        return x.rc == 0 and x.out.count("None True %d" % BIG) == 2
    measure.smallest("heap", "mcp.call of a 1 MB result into a file", passes, INTO_CAP)


def test_an_mcp_picture_goes_to_flash_while_it_is_read(mpy, measure, tmp_path, big_server):
    """The SDK server's picture(size) tool, a PNG of 2 KB and of 300 KB as
    an image item: mcp.call decodes its base64 to flash as it reads it, the
    file has the server's bytes, the result's line says where it went, and
    the working heap for 300 KB is within 1 KB of 2 KB's."""
    import hashlib

    def picture_bytes(size):        # (host_tests/peers/sdk_server.py's, which runs apart)
        return (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * (size // 256 + 1))[:size]
    working = {}
    for size in (2048, 300 * 1024):
        root = tmp_path / ("pic%d" % size)
        root.mkdir()
        r = mpy.run("mcp_picture", heap=PICTURE_CAP, args=[root, big_server, size], timeout=120)
        assert r.rc == 0, r
        data = picture_bytes(size)
        name = "/mcp-files/%s.png" % hashlib.sha256(data).hexdigest()[:16]
        assert "PICTURE None '[image image/png, %d bytes: %s]' ('%s',)" % (size, name, name) in r.out, \
            r.out
        assert "SAVED %s %d %s" % (name, size, hashlib.sha256(data).hexdigest()) in r.out, r.out
        # (live heap at each write to flash, where the call holds its most:
        # the scenario says why not a sampler thread)
        working[size] = sorted(mpy.working("mcp_picture", heap=PICTURE_CAP, args=[root, big_server, size],
                                           timeout=120).working for _ in range(3))[1]
    print("mcp.call of a 2 KB / 300 KB picture: working heap %r" % working)
    assert abs(working[300 * 1024] - working[2048]) < 1024, working
    measure.record("working", "mcp.call of a 2 KB / 300 KB picture (decoded to flash)",
                   **{"%d B" % k: v for k, v in working.items()})

    def passes(heap):
        return "PICTURE None" in mpy.run("mcp_picture", heap=heap, timeout=120,
                                         args=[tmp_path / "pic307200", big_server, 300 * 1024]).out
    measure.smallest("heap", "mcp.call of a 300 KB picture (decoded to flash)", passes, PICTURE_CAP)


def test_mcp_call_of_a_python_caller_without_the_store_module(mpy, measure, tmp_path,
                                                               big_server):
    """The same from `mcp.connect(url)` in a program that never imported
    the store module: the text is spooled the same way (pieces joined in
    RAM would need a free block that large in the heap the reading scattered
    them over). The spool's file (under the flash root, the working folder
    here) is gone afterwards."""
    def run(heap):
        return mpy.run("mcp_big", heap=heap, args=[tmp_path, big_server, BIG, "bare"],
                       timeout=300, cwd=str(tmp_path))
    r = run(BARE_CAP)
    assert r.rc == 0, r
    for tool in ("big", "big_text"):
        assert "CALL %s %d None True '\\n... (truncated, %d bytes)'" % (tool, CUT_1MB, BIG) in r.out, \
            r.out
    assert os.listdir(str(tmp_path / "tmp")) == []

    def passes(heap):
        x = run(heap)
        return x.rc == 0 and x.out.count("None True '\\n... (truncated, %d bytes)'" % BIG) == 2
    measure.smallest("heap", "mcp.call of a 1 MB result, a program without store", passes,
                     BARE_CAP)


def test_ai_run_with_a_1mb_tool_result(mpy, measure, tmp_path, big_server):
    """An ai round on a conversation on flash: the model calls the SDK's big
    tool (its text also as structuredContent; big_text: without), the
    result is cut while read and goes from the socket to a file, into the
    history and the next request. The heap it needs does not depend on the
    result's size: the round on a 1 MB result and on 1 KB both pass at the
    goal (make measure bisects both: what it needs is the code and the
    exchange, not the text)."""
    def run(heap, size=BIG, tool="big"):
        with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
            srv.options(chunked=True)
            srv.delta_size = 64
            srv.queue(Calls([("sdk__" + tool, {"size": size})]))
            root = tmp_path / ("run%s_%d_%s" % (heap, size, tool))
            root.mkdir(exist_ok=True)
            r = mpy.run("mcp_big", heap=heap, args=[root, big_server, size, "run", "openai",
                                                     srv.base_url, "gpt-4o-mini", "sk-test"],
                        timeout=300)
            last = srv.requests[-1].json if len(srv.requests) > 1 else None
            sent = [m for m in last["messages"] if m["role"] == "tool"] if last else []
        return r, sent
    note = "\n... (truncated, %d bytes)" % BIG
    for tool in ("big", "big_text"):
        r, sent = run(BIG_RUN_CAP, BIG, tool)
        assert r.rc == 0, (tool, r)
        assert "RUN '' None" in r.out, (tool, r.out)
        assert "TOOL %d True %r" % (LIMIT, note) in r.out, (tool, r.out)
        assert sent and sent[0]["content"] == text_of(LIMIT) + note, tool
    r, sent = run(BIG_RUN_CAP, 1024)
    assert "RUN '' None" in r.out and "TOOL 1024 True ''" in r.out, r
    assert sent and sent[0]["content"] == text_of(1024)

    def passes(size):
        def at(heap):
            x, _ = run(heap, size)
            return x.rc == 0 and "TOOL %d True" % min(size, LIMIT) in x.out
        return at
    measure.smallest("heap", "ai.run round on a 1 MB tool result (on flash)", passes(BIG),
                     BIG_RUN_CAP, goal=GOAL)
    measure.smallest("heap", "ai.run round on a 1 KB tool result (on flash)", passes(1024),
                     BIG_RUN_CAP)


def test_ai_run_below_the_heap_it_needs_says_what_to_make_smaller(mpy, tmp_path, big_server):
    """The 1 MB round at every heap from 12K below its cap to the cap: it passes,
    or the call and the round end in a line that says the memory ran out
    (a MemoryError half way through once left a closed socket behind that
    the next look reported as "network error (stream operation not
    supported)"). Outcomes vary with timing at one heap: this samples."""
    seen = set()
    top = parse_size(BIG_RUN_CAP) // 1024
    for k in range(top - 12, top - 1):
        with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
            srv.options(chunked=True)
            srv.queue(Calls([("sdk__big", {"size": BIG})]))
            root = tmp_path / ("run%d" % k)
            root.mkdir()
            r = mpy.run("mcp_big", heap="%dK" % k, args=[root, big_server, BIG, "run", "openai",
                                                         srv.base_url, "gpt-4o-mini", "sk-test"],
                        timeout=300)
        assert r.rc == 0, (k, r)
        run = [x for x in r.out.splitlines() if x.startswith("RUN ")]
        failed = [x for x in r.out.splitlines() if x.startswith("FAILED ")]
        assert len(run) == 1, (k, r.out)
        assert run[0] == "RUN '' None" or "out of memory" in run[0], (k, run)
        for x in failed:
            assert "out of memory" in x, (k, x)
        seen.add("passed" if run[0] == "RUN '' None" and not failed else "out of memory")
    print("ai.run with a 1 MB result from %dK to %s: %s" % (top - 12, BIG_RUN_CAP, sorted(seen)))


PAGE, TOOLS = 10, 49


def _paged_tools(f, msg, req, w):
    if msg["method"] == "tools/list":
        cur = int((msg.get("params") or {}).get("cursor") or 0)
        f.asked.append(cur)
        res = {"tools": [{"name": "tool_%02d" % i, "description": "Tool %d." % i,
                          "inputSchema": {"type": "object", "properties": {
                              "x": {"type": "string", "description": "the x"}}}}
                         for i in range(cur, min(cur + PAGE, TOOLS))]}
        if cur + PAGE < TOOLS:
            res["nextCursor"] = str(cur + PAGE)
        if cur // PAGE % 2:
            sse(w, reply(msg["id"], res))
        else:
            w.respond(200, json.dumps(reply(msg["id"], res)).encode(),
                      headers={"Content-Type": "application/json"})


def test_a_49_tool_server_over_five_pages(mpy, measure, tmp_path):
    with McpFake(_paged_tools) as f:
        f.asked = []
        r = mpy.run("mcp_pages", heap=PAGES_CAP, args=[tmp_path, f.url, "list"], timeout=120)
        assert r.rc == 0, r
        assert "LIST 49 None ['tool_00', 'tool_48']" in r.out, r.out
        assert f.asked == [0, 10, 20, 30, 40]
        with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
            def run_at(heap):
                return mpy.run("mcp_pages", heap=heap, args=[
                    tmp_path, f.url, "run", "openai", srv.base_url, "gpt-4o-mini", "sk-test"],
                    timeout=120)
            run = run_at(PAGES_CAP)
            assert run.rc == 0 and "RUN '' None" in run.out, run
            offered = [t["function"]["name"] for t in srv.requests[0].json["tools"]]
            measure.smallest("heap", "ai.run(mcps=) offering a 49-tool server (5 pages)",
                             lambda h: "RUN '' None" in run_at(h).out, PAGES_CAP)
        assert offered == ["pages__tool_%02d" % i for i in range(TOOLS)]


# ---------------------------------------------------------------- no MemoryError

def test_no_memory_error_leaves_a_public_function(mpy, tmp_path, sdk_server):
    url = sdk_server()
    with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
        srv.options(chunked=True)
        r = mpy.run("ai_oom", heap="96K", args=[tmp_path, srv.base_url, url], timeout=300)
    assert r.rc == 0, r
    lines = [x for x in r.out.splitlines() if x.startswith("OOM ")]
    names = [x.split()[1] for x in lines]
    assert names == ["ai.ask", "ai.ask_simple", "ai.run", "ai.fetch_models",
                     "ai.tools_cache_build", "mcp.connect", "mcp.tools", "mcp.call",
                     "mcp.test", "mcp.add", "mcp.remove"], r.out
    for x in lines:
        assert "ESCAPED" not in x, x            # raised out of the function
        assert ":oom" in x and "| " in x and "out of memory" in x.split("| ")[1], x
    print("\n".join(lines))
    # every connection a MemoryError cut short was closed, and httpc's count
    # of what is open (the board's TLS and socket budget) is what is open
    n = re.search(r"SOCKETS httpc=(\d+) open=(\d+)", r.out)
    assert n and n.group(1) == n.group(2), r.out[-500:]


def test_the_gc_collects_early_while_the_library_works(mpy, tmp_path, sdk_server):
    """ai.* and mcp.* lower gc.threshold while they work (garbage cleared
    early keeps the heap in fewer pieces: the 1 MB ai.run round above needs
    4K less), let it collect only when the heap is full once the text of
    a reply not kept in RAM flows (call frames count: a quarter collected
    every few events) and give the
    program its own setting back, error or not; a program that collects
    more often keeps its setting."""
    url = sdk_server()
    with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
        srv.options(chunked=True)
        srv.queue(*[Text("a streamed reply, long enough to arrive in pieces " * 4)] * 4)
        r = mpy.run("gc_threshold", heap=GOAL, timeout=120,
                    args=[tmp_path, srv.base_url, "gpt-4o-mini", "sk-test", url])
    assert r.rc == 0, r
    seen = {}
    for x in r.out.splitlines():
        if x.startswith("GC "):
            _, name, before, during, after, outcome, streaming = x.split()
            seen[(name, int(before))] = (during, int(after.split("=")[1]), outcome,
                                         streaming.split("=")[1])
    for (name, before), (_during, after, outcome, _streaming) in seen.items():
        assert after == before, (name, before, after)
        # the refused connection ends in an error, the others succeed
        assert outcome == ("err" if before == 4096 else "ok"), (name, r.out)
    # lowered as the reply started (a quarter of the free heap at most),
    # then, once the text of a reply not kept in RAM flowed, none (the GC
    # runs when the heap is full); a kept reply's stays lowered
    for name, before in (("ai.ask", -1), ("ai.ask", 10 ** 8), ("ai.ask-kept", -1), ("ai.run", -1)):
        during, _after, _outcome, streaming = seen[(name, before)]
        during = int(during.split("=")[1])
        assert 1024 <= during <= parse_size(GOAL) // 4, (name, before, seen)
        assert streaming == ("-1" if name == "ai.ask" else str(during)), (name, before, seen)
    assert seen[("ai.ask", 512)][0] == "during=512" and seen[("ai.ask", 512)][3] == "512"
    assert set(seen) == {("ai.ask", -1), ("ai.ask", 512), ("ai.ask", 10 ** 8), ("ai.ask-kept", -1),
                         ("ai.run", -1),
                         ("ai.fetch_models", -1), ("mcp.connect", -1), ("mcp.tools", -1),
                         ("mcp.connect", 4096)}, r.out
