"""The `mcp` command and an MCP server's questions at the console, through
a pseudo-terminal on the unix port (the Console harness of
test_shell_ai.py), against host_tests/peers/ts_server.mjs (the TypeScript
SDK's server): the elicitation dialogue (form and URL mode, each answer a
line typed after its question, Ctrl-C cancels), progress in the spinner
line and Ctrl-C cancelling a call at the server, titles / hints /
task-only tools in `mcp tools`, `mcp resources` and `mcp read`, and `mcp
add` / `mcp del` keeping the tools cache honest."""
import json
import re
import time

from test_shell_ai import console, read_lines  # noqa: F401 (the fixture)


def answer_of(text):
    """The JSON the ask tools return (the last {...} line on screen)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('{"action"')]
    assert lines, text
    return json.loads(lines[-1])


def test_elicitation_dialogue_form_and_url(console, ts_server):  # noqa: F811
    peer = ts_server("full")
    c = console({"mcp.ts.url": peer.url})
    c.type("mcp call ts ask\r")
    c.expect_exact("the MCP server asks: Weather for where?")
    # required first: its type, "required", the rule broken is said
    c.expect_exact("days: ")
    assert "Days (integer, required)" in c.text()
    c.type("9\r")
    c.expect_exact("a number from 1 to 7")
    c.expect_exact("days: ")
    c.type("3\r")
    c.expect_exact("city [Rochdale]: ")
    assert "City (string): where you are" in c.text()
    c.type("\r")                                # the default
    c.expect_exact("units [metric]: ")
    assert "1 metric  2 imperial" in c.text()
    c.type("2\r")
    c.expect_exact("send it? [a]ccept [d]ecline: ")
    screen = c.text()
    assert "    days: 3" in screen and "    city: Rochdale" in screen and "    units: imperial" in screen
    c.type("a\r")
    c.expect_prompt()
    assert answer_of(c.text()) == {"action": "accept", "content": {
        "days": 3, "city": "Rochdale", "units": "imperial"}}
    # declined at the summary
    c.clear()
    c.type("mcp call ts ask\r")
    c.expect_exact("days: ")
    c.type("1\r")
    c.expect_exact("city [Rochdale]: ")
    c.type("Lisbon\r")
    c.expect_exact("units [metric]: ")
    c.type("imperial\r")
    c.expect_exact("send it? [a]ccept [d]ecline: ")
    c.type("d\r")
    c.expect_prompt()
    assert answer_of(c.text()) == {"action": "decline"}
    # Ctrl-C in the dialogue cancels the question, not the call
    c.clear()
    c.type("mcp call ts ask\r")
    c.expect_exact("days: ")
    c.type("\x03")
    c.expect_prompt()
    assert answer_of(c.text()) == {"action": "cancel"}
    # URL mode: the address shown, the server's text sanitized, a typed y
    c.clear()
    c.type("mcp call ts ask_url\r")
    c.expect_exact("did you open it and finish there? [y]es [n]o: ")
    screen = c.text()
    assert "the MCP server asks: Sign the ^[[31mform^[[0m" in screen, screen
    assert "  https://example.com/sign?x=1" in screen
    c.type("y\r")
    c.expect_prompt()
    assert answer_of(c.text()) == {"action": "accept"}


def test_progress_in_the_spinner_and_ctrl_c_cancels_at_the_server(console, ts_server):  # noqa: F811
    peer = ts_server("full")
    c = console({"mcp.ts.url": peer.url})
    c.type("mcp call ts slow\r")
    c.expect(r"ts__slow \d+%")              # the spinner's line
    c.type("\x03")
    c.expect_prompt()
    want = re.compile(r"cancelled \d+ interrupted")
    t = time.monotonic() + 20
    while not want.search(peer.log()) and time.monotonic() < t:
        time.sleep(0.05)        # the server logs the notification when it comes
    assert want.search(peer.log()), peer.log()


def test_mcp_tools_resources_read_and_the_tools_cache(console, ts_server):  # noqa: F811
    peer = ts_server("full")
    c = console({"mcp.ts.url": peer.url})
    c.line("mcp tools ts")
    screen = c.text()
    assert "annotated()\n    Annotated Tool [destructive]\n    has hints" in screen, screen
    assert "6 tools\n1 task-only tool hidden: it would run only as tasks" in screen, screen
    assert "ts has 2 resources too: mcp resources ts" in screen
    assert "task_only" not in screen
    c.clear()
    c.line("mcp resources ts")
    screen = c.text()
    assert "file:///notes.txt  Notes (text/plain)\n    a short text" in screen, screen
    assert "file:///logo.png  logo (image/png)" in screen
    assert "2 resources" in screen
    c.clear()
    c.line("mcp read ts file:///notes.txt")
    assert "line one\nline two" in c.text()
    c.line("mcp read ts file:///logo.png")
    assert "[blob file:///logo.png image/png, 300 bytes]" in c.text()
    # the tools cache: read_resource is offered; a replaced or removed
    # server's tools leave it
    c.clear()
    c.line("ai -tools", timeout=30)
    assert "ts: 7 tools" in c.text(), c.text()     # its 6 and read_resource
    names = sorted(d["name"] for d in read_lines(c.flash + "/tools.jsonl"))
    assert names == ["ts__annotated", "ts__ask", "ts__ask_big", "ts__ask_url",
                     "ts__read_resource", "ts__roots", "ts__slow"], names
    c.clear()
    c.line("mcp add ts " + peer.url)
    screen = c.text()
    assert "replaced ts -> %s (try: mcp test ts)" % peer.url in screen, screen
    assert "%d tools of ts left the tools cache; run ai -tools to list them again" % len(names) in screen
    assert read_lines(c.flash + "/tools.jsonl") == []
    c.line("ai -tools", timeout=30)
    c.clear()
    c.line("mcp del ts")
    assert "removed ts\n%d tools of ts left the tools cache; chats no longer offer them" % len(names) \
        in c.text(), c.text()
    assert read_lines(c.flash + "/tools.jsonl") == []


def test_elicitation_in_an_ai_chat(console, ts_server):  # noqa: F811
    """The chat path: the model calls a tool of the tools cache, the person
    approves it, the server asks on its GET stream, the person answers, the
    result goes back to the model; the approval shows the tool's title and
    the server's hints."""
    from fakes import Calls, FakeOpenAI
    from test_shell_ai import ollama_settings
    peer = ts_server("full")
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{"mcp.ts.url": peer.url}))
        c.line("ai -tools", timeout=30)
        srv.queue(Calls([("ts__annotated", {})]))
        c.clear()
        c.type("ai run the annotated tool\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        assert "the server says: title 'Annotated Tool', not read-only, destructive" in c.text()
        c.type("n\r")
        c.expect_prompt()
        srv.queue(Calls([("ts__ask", {})]))
        c.clear()
        c.type("ai what is the weather?\r")
        c.expect_exact("[y]es [n]o [a]lways: ")
        c.type("y\r")
        c.expect_exact("days: ")
        c.type("2\r")
        c.expect_exact("city [Rochdale]: ")
        c.type("Lisbon\r")
        c.expect_exact("units [metric]: ")
        c.type("\r")
        c.expect_exact("send it? [a]ccept [d]ecline: ")
        c.type("a\r")
        c.expect_prompt(timeout=30)
        sent = srv.requests[-1].json["messages"][-1]
        assert sent["role"] == "tool"
        assert json.loads(sent["content"]) == {"action": "accept", "content": {
            "days": 2, "city": "Lisbon", "units": "metric"}}


def test_mcp_call_says_where_a_picture_went(console, sdk_server):  # noqa: F811
    """A tool that answers with a picture (the Python SDK server's
    picture): saved to flash as it is read, its line says where, and the
    file there is the server's PNG."""
    import hashlib
    url = sdk_server(big=True)
    c = console({"mcp.sdk.url": url})
    c.line('mcp call sdk picture {"size": 3000}')
    m = re.search(r"\[image image/png, 3000 bytes: (/mcp-files/[0-9a-f]{16}\.png)\]", c.text())
    assert m, c.text()
    with open(c.flash + m.group(1), "rb") as f:
        data = f.read()
    want = (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 12)[:3000]
    assert data == want and m.group(1)[11:27] == hashlib.sha256(want).hexdigest()[:16]


def test_mcp_call_and_read_show_the_start_and_count_the_rest(console, sdk_server):  # noqa: F811
    """`mcp call` and `mcp read` print a result's first 4000 characters and
    count the rest, taking it in pieces as it is read (the console never
    holds it as one str of mcp.max_result): the count includes the cut's
    note."""
    url = sdk_server(big=True)
    c = console({"mcp.sdk.url": url})
    note = "\n... (truncated, 20000 bytes)"
    out = c.line('mcp call sdk big_text {"size": 20000}', timeout=60)
    assert "... (%d more characters)" % (16384 + len(note) - 4000) in out, out
    assert "0123456789abcdefghijklmnopqrstuvwxyz" in out, out
    out = c.line("mcp read sdk big://5000", timeout=60)
    assert "... (1000 more characters)" in out, out
    out = c.line("mcp read sdk big://300", timeout=60)
    assert "more characters" not in out and out.count("0123456789") == 5, out
