"""ai.edit / ai.undo (lib/ai/editor.py) against the fake providers: what
the model is sent (file context, region, instruction last), the splice,
fences, the undo slot, every failure leaving the file as it was, and the
heap under the MicroPython unix port for a 1 KB, 20 KB and 64 KB file (the
same cap: the file streams from flash)."""
import os

import pytest

import ai
import store
from ai import editor
from fakes import Fail, FakeAnthropic, FakeGemini, FakeOpenAI, Text

SOURCE = ('def greet(name):\n'
          '    print("hi", name)\n'
          '    return "\\u00e9 \u00e9\U0001F600"\n'
          '\n'
          'greet("x")\n')


@pytest.fixture
def srv(flash):
    with FakeOpenAI(flavor="ollama", models=["llama3.2"]) as s:
        store.update({"ai.general.provider": "ollama", "ai.general.base_url": s.base_url,
                      "ai.general.model": "llama3.2"})
        yield s


@pytest.fixture
def src(flash):
    p = flash / "main.py"
    p.write_text(SOURCE)
    return p


def sent(srv):
    """(system, user text) of the last request."""
    m = srv.last.json["messages"]
    return m[0]["content"], m[1]["content"]


def test_replace_a_region_sends_region_then_instruction(srv, src):
    srv.queue(Text('```python\n    print("hello,", name)\n    print("bye")\n```\n'))
    summary, err = ai.edit(str(src), 2, 2, instruction="say hello instead")
    assert (summary, err) == ("+2 -1 lines at 2-2", None)
    assert src.read_text() == SOURCE.replace('    print("hi", name)\n',
                                             '    print("hello,", name)\n    print("bye")\n')
    system, user = sent(srv)
    assert "the complete new text of the region" in system and "one fenced code block" in system
    assert user == 'Lines 2-2 of main.py:\n```\n    print("hi", name)\n```\n\nsay hello instead'
    assert srv.last.json["stream"] is True
    assert os.listdir(src.parent / ".edit") == ["undo", "undo.json"]    # no leftovers


def test_file_context_comes_first_and_names_the_file(srv, src):
    srv.queue(Text("```\n    return 1\n```"))
    summary, err = ai.edit(str(src), 3, 3, instruction="use #file to return a number")
    assert err is None
    _, user = sent(srv)
    assert user == ("The whole file main.py, for context:\n```\n" + SOURCE + "```\n\n"
                    'Lines 3-3 of main.py:\n```\n    return "\\u00e9 \u00e9\U0001F600"\n```\n\n'
                    "use main.py to return a number")


def test_fences_and_commentary_are_dropped(srv, src):
    srv.queue(Text("\n````python\n# new first line\n```\nnested\n```\n````\nThis adds a comment."))
    summary, err = ai.edit(str(src), 1, instruction="add a comment", where="before")
    assert (summary, err) == ("+4 -0 lines at 1-1", None)
    assert src.read_text() == "# new first line\n```\nnested\n```\n" + SOURCE
    system, _ = sent(srv)
    assert "insert above the region" in system


PROSE = "Here you go:\n```python\nB = 20\n```\nHope it helps"


def test_the_fenced_block_is_taken_from_prose_around_it(srv, src):
    srv.queue(Text(PROSE))
    assert ai.edit(str(src), 1, 2, instruction="set B") == ("+1 -2 lines at 1-2", None)
    assert src.read_text() == "B = 20\n" + SOURCE.split("\n", 2)[2]


@pytest.mark.parametrize("answer,added", [
    ("tail line 1\ntail line 2", "tail line 1\ntail line 2\n"),
    ("\n\ntail line 1\n\n    tail line 2\n\n\n", "tail line 1\n\n    tail line 2\n"),
], ids=["code-only", "blank-edges"])
def test_an_answer_without_a_fence_is_the_new_text(srv, src, answer, added):
    # "code fences around the response are stripped": a fence is optional
    srv.queue(Text(answer))
    summary, err = ai.edit(str(src), 5, 5, "after", "add two lines after the last one")
    assert (summary, err) == ("+%d -0 lines at 5-5" % added.count("\n"), None)
    assert src.read_text() == SOURCE + added
    assert ai.undo() == ("main.py restored (%d bytes)" % len(SOURCE.encode()), None)
    assert src.read_text() == SOURCE


@pytest.mark.parametrize("answer,why", [
    ("Either\n```\nB = 20\n```\nor\n```\nB = 30\n```\n",
     "the model's answer has 2 code blocks, so which one is the new text is unclear; "
     "main.py is unchanged"),
    ("Sure:\n```python\nB = 20\n",
     "the model's code block was never closed (the answer was cut short?); "
     "main.py is unchanged"),
    ("\n  \n\n", "the model's answer was empty; main.py is unchanged"),
], ids=["two-blocks", "unclosed", "blank"])
def test_an_ambiguous_answer_leaves_the_file_and_says_why(srv, src, answer, why):
    before = src.read_bytes()
    srv.queue(Text(answer))
    assert ai.edit(str(src), 1, 2, instruction="set B") == (None, why)
    assert src.read_bytes() == before and ai.undo() == (None, "nothing to undo")


def test_the_callers_system_prompt_follows_the_edits(srv, src):
    srv.queue(Text("```\nx\n```"), Text("```\ny\n```"), Text("```\nz\n```"))
    ai.edit(str(src), 1, instruction="a", overrides={"system": "Indent with tabs."})
    system, _ = sent(srv)
    assert system.startswith(editor.SYSTEM % editor.WHAT["replace"])
    assert system.endswith("\n\nIndent with tabs.")
    store.set("ai.general.system", "Be terse.")
    ai.edit(str(src), 1, instruction="b")
    assert sent(srv)[0] == editor.SYSTEM % editor.WHAT["replace"] + "\n\nBe terse."
    store.set("ai.edit.system", "Keep comments.")
    ai.edit(str(src), 1, where="before", instruction="c")
    assert sent(srv)[0] == editor.SYSTEM % editor.WHAT["before"] + "\n\nKeep comments."


def test_after_and_whole_file_and_a_missing_newline(srv, src):
    srv.queue(Text("~~~\n# the end\n~~~"))        # no newline after the answer
    assert ai.edit(str(src), 4, 5, "after", "add a footer") == ("+1 -0 lines at 4-5", None)
    assert src.read_text() == SOURCE + "# the end\n"
    srv.queue(Text("```\nx = 1\n```"))
    assert ai.edit(str(src), instruction="rewrite it") == ("+1 -6 lines at 1-6", None)
    assert src.read_text() == "x = 1\n"
    _, user = sent(srv)
    assert user == "The file main.py:\n```\n" + SOURCE + "# the end\n```\n\nrewrite it"


def test_undo_restores_one_level(srv, src):
    srv.queue(Text("```\none\n```"), Text("```\ntwo\n```"))
    ai.edit(str(src), 1, 1, instruction="a")
    after_first = src.read_text()
    ai.edit(str(src), 1, 1, instruction="b")
    assert src.read_text().startswith("two\n")
    assert ai.undo() == ("main.py restored (%d bytes)" % len(after_first.encode()), None)
    assert src.read_text() == after_first
    assert ai.undo() == (None, "nothing to undo")


@pytest.mark.parametrize("case", ["error", "empty", "ctrl-c"])
def test_the_file_is_unchanged_on_any_failure(srv, src, case, monkeypatch):
    if case == "error":
        srv.queue(Fail(400, "bad request"))
    elif case == "empty":
        srv.queue(Text("```\n```\n"))
    else:
        srv.queue(Text("```\nline one\nline two\nline three\n```\n"))
        real = editor._Answer.feed

        def feed(self, piece):
            real(self, piece)
            if self.lines:
                raise KeyboardInterrupt
        monkeypatch.setattr(editor._Answer, "feed", feed)
    before = src.read_bytes()
    if case == "ctrl-c":
        with pytest.raises(KeyboardInterrupt):
            ai.edit(str(src), 1, 2, instruction="x")
    else:
        summary, err = ai.edit(str(src), 1, 2, instruction="x")
        assert summary is None
        assert err == ("ollama: 400 bad request" if case == "error" else
                       "the model's answer was empty; main.py is unchanged")
    assert src.read_bytes() == before
    assert os.listdir(src.parent / ".edit") == []
    assert ai.undo() == (None, "nothing to undo")


def test_bad_requests_are_refused_before_the_model(srv, src, flash):
    big = flash / "big.txt"
    big.write_text("x" * 100 + "\n" + "y" * 9000 + "\n")
    assert ai.edit(str(big), 2, 2, instruction="x") == (None, (
        "big.txt: lines 2-2 are 9001 bytes; ai edit rewrites at most 8192 at a time "
        "(give a smaller line range)"))
    srv.queue(Text("```\nz\n```"))       # a big file is fine as context: only the region is bound
    assert ai.edit(str(big), 1, 1, instruction="x #file") == ("+1 -1 lines at 1-1", None)
    assert len(sent(srv)[1]) > 9100
    assert ai.edit(str(src), 9, 9, instruction="x") == (None, "main.py has 5 lines; line 9 is not in it")
    assert ai.edit(str(src), 3, 2, instruction="x") == (None, "main.py: bad line range 3-2")
    assert ai.edit(str(flash / "nope.py"), instruction="x") == (None, "nope.py: no such file")
    assert ai.edit(str(src), where="middle", instruction="x")[1].startswith("where must be")
    assert ai.edit(str(src), instruction="  ") == (None, "say what to change (an instruction)")
    bad = flash / "bin.dat"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    assert ai.edit(str(bad), 1, 2, instruction="x") == (None, "bin.dat is not UTF-8 text")
    assert ai.edit(str(bad), 1, 1, instruction="x #file") == (None, "bin.dat is not UTF-8 text")
    n = len(srv.requests)
    assert len(srv.requests) == n == 1         # only the #file edit above asked
    # a range past the end is cut to the last line
    srv.queue(Text("```\nz\n```"))
    assert ai.edit(str(src), 5, 40, instruction="x") == ("+1 -1 lines at 5-5", None)


def test_utf8_split_across_read_pieces(srv, flash):
    p = flash / "u.txt"
    text = ("\u00e9" * 300 + "\n") + ("\U0001F600" * 200 + "\n")   # 2- and 4-byte chars
    p.write_text(text)
    srv.queue(Text("```\nok\n```"))
    assert ai.edit(str(p), instruction="x")[1] is None
    _, user = sent(srv)
    assert user == "The file u.txt:\n```\n" + text + "```\n\nx"


@pytest.mark.parametrize("fake,provider,model,key", [
    (FakeAnthropic, "anthropic", "claude-sonnet-4-5", "sk-ant-test"),
    (FakeGemini, "gemini", "gemini-2.5-flash", "AIza-test")])
def test_every_style_sends_the_message_from_flash(flash, src, fake, provider, model, key):
    with fake(key=key, models=[model]) as s:
        store.update({"ai.edit.provider": provider, "ai.edit.key": key,
                      "ai.edit.base_url": s.base_url, "ai.edit.model": model})
        s.queue(Text("```\nx\n```"))
        assert ai.edit(str(src), 5, instruction="change it") == ("+1 -1 lines at 5-5", None)
        body = s.last.json
        if provider == "anthropic":
            text = body["messages"][0]["content"][0]["text"]
            assert "one fenced code block" in body["system"]
        else:
            text = body["contents"][0]["parts"][0]["text"]
        assert text == 'Lines 5-5 of main.py:\n```\ngreet("x")\n```\n\nchange it'


# ------------------------------------------------------------ MicroPython

# the heap left free once the emulated flash is in place (see mpyrun): the
# edit of a 1, 20 or 64 KB file; make measure bisects the 20 and 64 KB ones'
EDIT_HEAP = "36K"


def _edit_run(mpy, tmp_path, size, heap, live=False,
              answer="```python\nvalue_00010 = 42\nvalue_00011 = 43\n```\n"):
    root = tmp_path / ("flash%d" % size)
    root.mkdir(exist_ok=True)
    line = "value_%05d = compute(%05d)  # a line of about 40 bytes\n"
    with open(root / "big.py", "w") as f:
        i = 0
        while f.tell() < size:
            f.write(line % (i, i))
            i += 1
    with FakeOpenAI(flavor="ollama", models=["llama3.2"]) as s:
        s.options(chunked=True)
        s.queue(Text(answer))
        r = mpy.run("ai_edit", heap=heap, timeout=60, args=[s.base_url, root], live=live)
        sent = s.last.json["messages"][1]["content"] if s.requests else ""
    return r, sent, root


def _edit_ok(r):
    return r.rc == 0 and "EDIT '+2 -2 lines at 11-12' None" in r.out


@pytest.mark.parametrize("size", [1024, 20 * 1024, 64 * 1024], ids=["1K", "20K", "64K"])
def test_micropython_edit_streams_the_file(mpy, measure, tmp_path, size):
    r, sent, root = _edit_run(mpy, tmp_path, size, EDIT_HEAP)
    assert r.rc == 0, r
    assert "EDIT '+2 -2 lines at 11-12' None" in r.out, r.out
    assert "value_00010 = 42\\nvalue_00011 = 43\\nvalue_00012 = compute" in r.out, r.out
    assert len(sent) > size                         # the whole file went as context
    assert "UNDO 'big.py restored" in r.out
    assert (root / "big.py").stat().st_size >= size and "= 42" not in (root / "big.py").read_text()
    live = _edit_run(mpy, tmp_path, size, EDIT_HEAP, live=True)[0]
    assert live.rc == 0, live
    assert live.working < 16 * 1024
    if size > 1024:
        measure.smallest("heap", "ai edit of a %d KB file" % (size // 1024),
                         lambda heap: _edit_ok(_edit_run(mpy, tmp_path, size, heap)[0]), EDIT_HEAP,
                         imports=r.imports, working=live.working)


@pytest.mark.parametrize("answer,edited", [
    ("Here you go:\n```python\nvalue_00010 = 42\nvalue_00011 = 43\n```\nHope it helps", True),
    ("Either\n```\nvalue_00010 = 42\n```\nor\n```\nvalue_00010 = 43\n```\n", False),
    ("value_00010 = 42\nvalue_00011 = 43\n", True),
    ("Sure:\n```\nvalue_00010 = 42\n", False)], ids=["prose-around", "two-blocks", "no-fence", "unclosed"])
def test_micropython_takes_the_block_or_refuses(mpy, tmp_path, answer, edited):
    r, _, root = _edit_run(mpy, tmp_path, 1024, EDIT_HEAP, answer=answer)
    assert r.rc == 0, r
    if edited:
        assert "EDIT '+2 -2 lines at 11-12' None" in r.out, r.out
        assert "value_00010 = 42\\nvalue_00011 = 43\\nvalue_00012 = compute" in r.out, r.out
    else:
        assert "EDIT None " in r.out and "big.py is unchanged" in r.out, r.out
        assert "UNDO None" in r.out
