"""What tripped a new user in the first hour (issue 30), through the
console in a pseudo-terminal as a person types it: numbers out of range
refused, the wizard's refused key and a use-type that falls back to
general, Tab completion of files for ai edit and of MCP server names,
help/usage/error lines broken between words, mcp tools and mcp resources
agreeing, short secrets masked whole, ai -u saying what is missing, the
banner's version and label; and the chat mode (ai chat) and ai status."""
import re
import time

from fakes import FakeOpenAI, Text
from test_shell_ai import console, ollama_settings, read_lines, read_settings  # noqa: F401

import compat


def _row(c, needle):
    return c.screen.display[c.row_of(needle)].rstrip()


# ---------------------------------------------------------------- numbers

def test_numbers_out_of_range_are_refused_and_mcp_serve_checks_its_port(console):
    c = console({})
    c.line("set mcp.serve.port 99999")
    assert "set: mcp.serve.port must be a whole number from 1 to 65535 (not 99999)" in c.flat()
    c.line("set ai.chat.temperature 7")
    assert "must be a number from 0 to 2 (not 7)" in c.flat()
    assert read_settings(c.flash) == {}
    c.line("set ai.chat.temperature 0.5")
    assert read_settings(c.flash) == {"ai.chat.temperature": 0.5}
    # a port typed to mcp serve, or one stored before the check: refused,
    # never "serving at :99999" while listening on another port
    c.clear()
    c.line("mcp serve 99999")
    assert "mcp: PORT must be from 1 to 65535, not 99999" in c.text()
    assert "usage: mcp serve [PORT|stop|status|token [new]]" in c.text()
    c.close()
    c = console({"mcp.serve.port": 99999})
    c.line("mcp serve")
    assert "mcp serve: mcp.serve.port is 99999; set it to a port from 1 to 65535" in c.flat()
    assert "serving" not in c.text()
    c.line("mcp serve status")
    assert "not serving" in c.text()


# ---------------------------------------------------------------- the wizard

def test_ai_config_code_enter_keeps_the_fallback_to_general(console):
    with FakeOpenAI(flavor="ollama") as srv:
        settings = ollama_settings(srv)
        c = console(settings)
        c.type("ai config code\r")
        c.expect_exact("q to quit: ")
        screen = c.flat()
        assert "code has no provider of its own: it uses ai.general's (ollama); Enter at the " \
               "menu keeps that" in screen, screen
        assert re.search(r"ollama +Ollama \(local\)  \(ai.general's\)", screen), screen
        c.type("\r")
        c.expect_prompt()
        assert "code falls back to ai.general (ollama); nothing changed" in c.text()
        assert "cancelled" not in c.text()
        assert read_settings(c.flash) == settings
        # q still quits, as at every menu
        c.clear()
        c.type("ai config code\r")
        c.expect_exact("q to quit: ")
        c.type("q\r")
        c.expect_prompt()
        assert "cancelled; the settings are unchanged" in c.text()


def test_the_wizard_marks_a_labelled_setup_and_a_new_one_drops_the_label(console):
    from fakes import Calls
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{"ai.general.label": "DEMO: canned"}))
        c.type("ai config\r")
        c.expect_exact("q to quit: ")
        assert re.search(r"ollama +Ollama \(local\)  \(current: DEMO: canned\)", c.text())
        c.type("\r")
        c.expect_exact("Base URL [%s]: " % srv.base_url)
        c.type("\r")
        c.expect_exact("or type a name, q to quit: ")
        srv.queue(Text("Ready"), Calls([("ping", {})]))
        c.type("\r")
        c.expect_prompt()
        assert "saved ai.general: provider ollama" in c.text()
        assert "ai.general.label" not in read_settings(c.flash)


# ---------------------------------------------------------------- Tab

def _complete(c, typed, want):
    """Type typed and a Tab; wait until the line reads want."""
    c.type(typed + "\t")
    c.expect_exact(want)
    time.sleep(0.2)
    row = _row(c, "/> " + typed.split()[0])
    c.child.send("\x15")            # Ctrl-U: the line goes
    time.sleep(0.1)
    return row


def test_tab_completes_files_for_ai_edit_and_server_names_for_mcp(console):
    c = console({"mcp.weather.url": "http://127.0.0.1:9/mcp",
                 "mcp.work.url": "http://127.0.0.1:9/mcp", "mcp.serve.port": 8765},
                files={"boot.py": "# boot\n", "lib/notes.py": "x = 1\n"})
    assert _complete(c, "ai edit bo", "boot.py ") == "/> ai edit boot.py"
    assert _complete(c, "ai edit li", "lib/") == "/> ai edit lib/"
    assert _complete(c, "mcp test we", "weather ") == "/> mcp test weather"
    assert _complete(c, "mcp tools wo", "work ") == "/> mcp tools work"
    assert _complete(c, "mcp call wea", "weather ") == "/> mcp call weather"
    # two servers start with w: both are listed (mcp.serve.* is no server)
    c.type("mcp del w\t")
    c.expect_exact("weather  work")
    assert "serve" not in c.text().split("mcp del w")[-1]
    c.child.send("\x15")
    c.line("")
    # a new name is no completion
    c.type("mcp add we\t")
    time.sleep(0.3)
    assert "mcp add weather" not in c.text()
    c.child.send("\x15")
    c.line("")


# ---------------------------------------------------------------- line breaks

def _answer_width(c, cols):
    """The terminal's answer to the console's question at start (its cursor
    at the far right: row;col R), as a terminal sends it."""
    c.child.send("\x1b[1;%dR" % cols)
    c.expect_prompt()           # the prompt drawn again


def _no_word_broken(c, cols):
    """No screen line fills the width (the terminal would have wrapped it,
    maybe inside a word)."""
    full = [ln for ln in c.screen.display if len(ln.rstrip()) >= cols]
    assert not full, full


def test_help_usage_and_errors_break_between_words(console):
    c = console({}, cols=64)
    _answer_width(c, 64)
    c.clear()
    c.line("help")
    _no_word_broken(c, 64)
    flat = c.flat()
    assert "MCP servers: list, add, delete, log in, test, list tools, call a tool, read " \
           "resources; serve this board" in flat, c.text()
    assert re.search(r"^  mcp     MCP servers", c.text(), re.M)
    assert re.search(r"^          \S", c.text(), re.M), c.text()      # under the text
    c.clear()
    c.line("? what does mcp do")
    _no_word_broken(c, 64)
    text = c.text()
    # the sub-commands' descriptions in one column, resources too
    cols = {m.group(1): m.start(2) - m.start(0)
            for m in re.finditer(r"^  mcp (\w+) +(\S)", text, re.M)}
    assert len(cols) == 10 and len(set(cols.values())) == 1, cols
    c.clear()
    c.line("ai -u code")
    _no_word_broken(c, 64)
    assert "ai: -u code needs a question after it, e.g. ai -u code how do I blink an LED? (or " \
           "ai -u code chat)" in c.flat(), c.text()
    assert "usage: ai [-u TYPE] [-new] [-f FILE]... QUESTION | ai [-u TYPE] chat\n" in c.flat() + "\n"
    c.clear()
    c.line("help set")
    _no_word_broken(c, 64)
    assert "mcp.serve.port int:1-65535 port of mcp serve (8765)" in " ".join(c.text().split())


def test_lines_fold_at_80_when_the_terminal_does_not_say_its_width(console):
    c = console({}, cols=80)
    c.clear()
    c.line("help mcp")
    _no_word_broken(c, 80)
    assert "mcp serve [PORT|stop|status|token [new]]" in c.flat()


# ---------------------------------------------------------------- mcp listings

def test_mcp_tools_and_mcp_resources_agree(console, sdk_server):
    url = sdk_server()
    c = console({"mcp.sdk.url": url})
    c.line("mcp tools sdk")
    # the SDK's server declares resources and lists none: no "too" then
    assert "5 tools" in c.text() and "resources too" not in c.text(), c.text()
    c.clear()
    c.line("mcp resources sdk")
    assert "sdk lists no resources" in c.text()


# ---------------------------------------------------------------- secrets, -u, banner

def test_short_secrets_are_masked_whole(console):
    c = console({})
    c.line("set ai.chat.key sek-12345")
    c.line("set ai.code.key sk-proj-0123456789abcdef")
    c.clear()
    c.line("get")
    text = c.text()
    assert "ai.chat.key = *********" in text, text
    assert "ai.code.key = sk-...ef" in text
    assert "sek" not in text and "12345" not in text


def test_ai_u_and_m_without_their_words_say_what_is_missing(console):
    c = console({})
    c.line("ai -u")
    assert "ai: -u needs a use-type and a question, e.g. ai -u code how do I blink an LED?" \
        in c.flat()
    c.clear()
    c.line("ai -u code")
    assert "needs a question after it" in c.flat()
    c.clear()
    c.line("ai -m")
    assert "ai: -m needs a model and a question" in c.flat()
    assert "usage: ai -m MODEL QUESTION" in c.text()


def test_banner_shows_the_version_and_what_ai_talks_to(console):
    c = console({"ai.general.label": "DEMO: canned replies"})
    assert "AntOS console %s. Type help" % compat.VERSION in c.text()
    assert "ai: DEMO: canned replies" in c.text()
    assert c.attrs("ai: DEMO").bold


# ---------------------------------------------------------------- ai status

def test_ai_status_names_what_each_use_type_resolves_to_and_the_tokens(console):
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv, **{
            "ai.code.provider": "groq", "ai.code.key": "gsk-secret-0123456789"}))
        c.line("ai status")
        text = c.flat()
        assert re.search(r"^general +ollama llama3.2, tools native, no key needed", text, re.M)
        for use in ("chat", "helper", "edit"):      # (no settings of their own)
            assert re.search(r"^%s +the same as general$" % use, text, re.M), text
        assert re.search(r"^code +groq llama-3.3-70b-versatile, tools native, key gsk\.\.\.89 "
                         r"from ai.code.key", text, re.M), text
        assert "%s (provider from ai.general.provider)" % srv.base_url in text
        # the files each model takes (the catalogue's): Ollama's server decides
        assert re.search(r"^ +files: text, jpeg, png, webp pictures if the model sees them$",
                         c.text(), re.M), c.text()
        assert re.search(r"^ +files: text; no pictures$", c.text(), re.M), c.text()   # groq's llama
        assert "0123456789" not in c.raw
        assert "last request: none since the console started" in text
        srv.queue(Text("Hello there."))
        c.line("ai hello")
        c.clear()
        c.line("ai status")
        got = srv.last.json
        assert got["stream"] is True and got["stream_options"] == {"include_usage": True}
        m = re.search(r"last request: chat, ollama llama3.2: (\d+) tokens in, (\d+) out", c.text())
        assert m, c.text()
        assert int(m.group(1)) > int(m.group(2)) > 0        # the fake's counts
        # ? asks the settings, not the model
        n = len(srv.requests)
        c.clear()
        c.line("? what model am I using")
        assert "(from: ai status)" in c.text() and "chat     the same as general" in c.text()
        assert len(srv.requests) == n


def test_ai_status_after_a_failed_request_says_it_failed_and_why(console):
    from peers import free_port
    port = free_port()              # nothing listens there: as make sim with no Ollama
    with FakeOpenAI(flavor="ollama") as srv:
        c = console({"ai.general.provider": "ollama", "ai.general.model": "llama3.2",
                     "ai.general.base_url": "http://127.0.0.1:%d/v1" % port})
        c.line("ai hello")
        assert "ollama: cannot connect to 127.0.0.1:%d" % port in c.flat(), c.flat()
        for line in ("ai status", "? what model am I using"):
            c.clear()
            c.line(line)
            text = c.flat()
            assert re.search(r"last request: chat, ollama llama3.2: failed: ollama: cannot "
                             r"connect to 127\.0\.0\.1:%d" % port, text), text
            assert "token" not in text.split("last request:")[1], text
        # a request that gets a reply says its usage again
        c.line("set ai.general.base_url " + srv.base_url)
        srv.queue(Text("Hello there."))
        c.line("ai hello")
        c.clear()
        c.line("ai status")
        assert re.search(r"last request: chat, ollama llama3.2: \d+ tokens in, \d+ out", c.flat())


# ---------------------------------------------------------------- ai chat

def test_ai_chat_is_a_mode_with_its_own_commands(console):
    story = " ".join("word%d" % i for i in range(400))
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(ollama_settings(srv))
        c.type("ai chat\r")
        c.expect_exact("you> ")
        assert "chat with ollama llama3.2 (chat): every line goes to the model" in c.flat()
        c.type("hello\r")
        c.expect_exact("you> ")
        assert "echo: hello" in c.text()
        assert c.attrs("you> hello").bold
        c.type("how are you?\r")
        c.expect_exact("you> ")
        sent = srv.last.json["messages"]
        assert [m["content"] for m in sent] == ["hello", "echo: hello", "how are you?"]
        # Ctrl-C stops a reply and stays in the mode
        srv.options(gap=0.05)
        srv.queue(Text(story))
        c.type("tell me a story\r")
        c.expect("word1[0-9]")
        c.child.send("\x03")
        c.expect_exact("you> ")
        srv.options()
        assert "^C cancelled (the conversation is unchanged)" in c.text()
        assert "word399" not in c.text()
        # /model switches for the rest of the chat; a bad one is refused
        c.type("/model nope-preset,thinking=x\r")
        c.expect_exact("you> ")
        assert "/model nope-preset,thinking=x: unknown preset 'nope-preset'" in c.flat()
        c.type("/model qwen3:8b\r")
        c.expect_exact("you> ")
        assert "model: ollama qwen3:8b for this chat" in c.text()
        c.type("and now?\r")
        c.expect_exact("you> ")
        assert srv.last.json["model"] == "qwen3:8b"
        assert "echo: and now?" in c.text()
        c.type("//slash first\r")
        c.expect_exact("you> ")
        assert srv.last.json["messages"][-1]["content"] == "/slash first"
        hist = c.flash + "/history/chat.jsonl"
        assert len(read_lines(hist)) == 8
        # /new starts over, still in the mode
        c.type("/new\r")
        c.expect_exact("you> ")
        assert "new conversation (chat)" in c.text()
        c.type("fresh\r")
        c.expect_exact("you> ")
        assert [m["content"] for m in srv.last.json["messages"]] == ["fresh"]
        c.type("/frob\r")
        c.expect_exact("you> ")
        assert "unknown /frob: /new starts over, /model TOKEN switches" in c.flat()
        # Ctrl-C on the line being typed: a new line, still chatting
        c.type("half a li")
        c.child.send("\x03")
        c.expect_exact("you> ")
        # Ctrl-D leaves; the conversation is kept as ai keeps it
        c.child.send("\x04")
        c.expect_prompt()
        assert "left the chat" in c.text()
        assert [m["content"] for m in read_lines(hist)] == ["fresh", "echo: fresh"]
        c.line("ai and after?")
        assert [m["content"] for m in srv.last.json["messages"]] == [
            "fresh", "echo: fresh", "and after?"]
        # /exit leaves too; ai -u TYPE chat keeps that use-type's conversation
        c.type("ai -u code chat\r")
        c.expect_exact("you> ")
        c.type("in code\r")
        c.expect_exact("you> ")
        c.type("/exit\r")
        c.expect_prompt()
        assert [m["content"] for m in read_lines(c.flash + "/history/code.jsonl")] == [
            "in code", "echo: in code"]
        c.line("ps")
        assert "ai" not in c.text().split("/> ps")[-1]


# ---------------------------------------------------------------- the documents say what runs

def test_the_documents_give_the_defaults_the_code_has():
    """The two max_reply defaults (the console's, ai.ask's) in the settings
    table, the simulator's heap (the board's) in README.md, and no console line shown
    with a prefix the console does not print."""
    import os
    from ai import config
    from shell import aicmd, keys
    from test_shell_ai import ROOT
    what = dict((k, w) for k, _, w in keys.rows())["ai.USE.max_reply"]
    assert "%d at the console" % aicmd._MAX_REPLY in what
    assert "%d for ai.ask" % config._DEFAULT_MAX_REPLY in what
    readme = open(os.path.join(ROOT, "README.md")).read()
    import boardprofile     # make sim's heap: the default board's GC heap
    gc_heap = boardprofile.load()["figures"]["gc_heap"] // 1024
    assert "%d KB of GC heap" % gc_heap in " ".join(readme.split())
    for doc in ("README.md", "lib/shell/README.md"):
        for block in re.findall(r"^```\n(.*?)^```", open(os.path.join(ROOT, doc)).read(), re.M | re.S):
            for line in block.split("\n"):
                assert not line.startswith(("ai: thinking", "ai: no ", "mcp: no ")), (doc, line)
