"""Text on flash (CPython): store.Spool, ai/lines.py (JSON lines read a line
at a time, long values as jsonstream.RawFile), ai/history.py (the turn
file, recording a streamed reply, atomic commit and trim), the tool files
of ai/toolcache.py, and ai.ask / ai.run recording into a turn."""
import json
import os

import pytest

import ai
import jsonstream
import store
from ai import history, lines, toolcache
from ai.history import History
from fakes import Calls, FakeOpenAI, FakeTextOnly, Text


@pytest.fixture
def spill(monkeypatch):
    """Spool to flash after 64 characters (CPython keeps text in RAM)."""
    monkeypatch.setattr(store, "SPOOL_RAM", 64)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f]


# ---------------------------------------------------------------- Spool

@pytest.mark.parametrize("spilled", [False, True])
def test_spool_text_and_pieces(flash, monkeypatch, spilled):
    if spilled:
        monkeypatch.setattr(store, "SPOOL_RAM", 64)
    text = "caf\u00e9 \u2615 \U0001F600 " * 300       # multi-byte, cut anywhere
    sp = store.Spool("t")
    for i in range(0, len(text), 7):
        sp.add(text[i:i + 7])
    assert sp.size == len(text)
    assert os.path.exists(flash / "tmp" / "t") == spilled
    got = []
    sp.pieces(got.append)
    assert "".join(got) == text and max(len(p) for p in got) <= 300
    assert not os.path.exists(flash / "tmp" / "t") and sp.size == 0
    for i in range(0, len(text), 5):
        sp.add(text[i:i + 5])
    assert sp.text() == text and not os.path.exists(flash / "tmp" / "t")


# ---------------------------------------------------------------- lines

def test_lines_long_values_stay_on_flash(flash):
    p = str(flash / "x.jsonl")
    long = "line \"one\"\n" + "\u00e9" * 3000
    with open(p, "w", encoding="utf-8") as f:
        f.write(json.dumps({"role": "user", "content": "short"}) + "\n")
        f.write(json.dumps({"content": long, "role": "assistant", "n": [1, 2]}) + "\n")
        f.write("not json\n")
        f.write(json.dumps({"role": "tool", "content": "torn by a kill"}))   # no "\n"
    got = list(lines.read(p))
    assert [m["role"] for m in got] == ["user", "assistant"]
    assert got[0]["content"] == "short"
    v = got[1]["content"]
    assert isinstance(v, jsonstream.RawFile) and got[1]["n"] == [1, 2]
    assert history.string(v) == long and history.head(v, 8) == "line \"on"
    pieces = []
    history.pieces(v, pieces.append)
    assert "".join(pieces) == long
    # a request copies it as it is on flash
    assert jsonstream.dumps({"c": v}) == '{"c":%s}' % json.dumps(long)
    assert jsonstream.encoded_len(v) == v.length


# ---------------------------------------------------------------- history

def test_turn_records_a_reply_and_commits_atomically(flash):
    h = History("chat")
    t = h.turn({"role": "user", "content": "hi"})
    for piece in ("Hel", "lo \"you\"", "\n\u00e9\u0001"):
        t.record(piece)
    t.append({"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": "f", "args": "{}"}]})
    t.append({"role": "tool", "tool_call_id": "1", "name": "f", "content": "result"})
    assert not os.path.exists(h.path)           # nothing saved before commit
    msgs = list(t)
    assert msgs[1]["content"] == "Hello \"you\"\n\u00e9\u0001"
    t.commit()
    saved = read_lines(h.path)
    assert [m["role"] for m in saved] == ["user", "assistant", "tool"]
    assert saved[1]["content"] == "Hello \"you\"\n\u00e9\u0001"
    assert saved[1]["tool_calls"][0]["name"] == "f"
    assert not os.path.exists(t.path)


def test_turn_dropped_or_cut_leaves_no_half_turn(flash):
    h = History("chat")
    t = h.turn({"role": "user", "content": "one"})
    t.append({"role": "assistant", "content": "answer one"})
    t.commit()
    before = open(h.path, "rb").read()
    t = h.turn({"role": "user", "content": "two"})
    t.record("half a repl")
    t.drop()                                    # Ctrl-C, an error
    assert open(h.path, "rb").read() == before and not os.path.exists(t.path)
    # the text fallback decides another text: the recorded one is cut
    t = h.turn({"role": "user", "content": "three"})
    t.record("raw ```tool_call block```")
    t.append({"role": "assistant", "content": "stripped"})
    assert [m["content"] for m in t][-1] == "stripped"
    # a reply recorded but never appended is not saved by commit
    t.record("dangling")
    t.commit()
    assert [m["content"] for m in h] == ["one", "answer one", "three", "stripped"]


def test_commit_trims_old_turns_but_keeps_the_newest(flash):
    h = History("chat")
    os.makedirs(os.path.dirname(h.path))
    with open(h.path, "w") as f:                # an old file: a torn last line
        f.write('{"role":"system","content":"be brief"}\n')
        for i in range(3):
            f.write(json.dumps({"role": "user", "content": "q%d" % i}) + "\n")
            f.write(json.dumps({"content": "a%d" % i, "role": "assistant"}) + "\n")
        f.write('{"role":"user","cont')
    t = h.turn({"role": "user", "content": "q3"})
    t.append({"role": "assistant", "content": "x" * 5000})
    t.commit(max_bytes=1000, max_turns=20)      # the newest turn alone is too big
    assert [history.head(m["content"], 2) for m in h] == ["q3", "xx"]
    t = h.turn({"role": "user", "content": "q4"})
    t.append({"role": "assistant", "content": "a4"})
    t.commit(max_bytes=1 << 20, max_turns=2)
    assert [history.head(m["content"], 2) for m in h] == ["q3", "xx", "q4", "a4"]
    t = h.turn({"role": "user", "content": "q5"})
    t.append({"role": "assistant", "content": "a5"})
    t.commit(max_bytes=1 << 20, max_turns=2)
    assert [m["content"] for m in h] == ["q4", "a4", "q5", "a5"]


# ---------------------------------------------------------------- ask / run

def _cfg(srv):
    store.update({"ai.chat.provider": "openai", "ai.chat.style": "openai", "ai.chat.key": "sk-test",
                  "ai.chat.base_url": srv.base_url})


def test_ask_records_into_a_turn_without_keeping_the_text(flash, spill):
    long = "word " * 3600       # 18000 characters
    with FakeOpenAI(key="sk-test") as srv:
        _cfg(srv)
        srv.queue(Text(long), Text(long))
        h = History("chat")
        t = h.turn({"role": "user", "content": "long please"})
        got = []
        reply, err, _ = ai.ask(t, {"keep": False, "stream": got.append, "max_reply": 20000})
        assert err is None and reply == "" and "".join(got) == long
        t.commit()
        assert read_lines(h.path)[1]["content"] == long
        assert not os.path.exists(flash / "tmp" / "reply")
        # not streamed: recorded all the same; the next request sends it
        t = h.turn({"role": "user", "content": "again"})
        reply, err, _ = ai.ask(t, {"keep": False, "max_reply": 20000})
        assert err is None and reply == ""
        t.commit()
        sent = srv.requests[-1].json["messages"]
        assert [m["content"] for m in sent] == ["long please", long, "again"]
        assert history.string([m["content"] for m in h][3]) == long
        # an API caller gets the str, spooled through flash while it grew
        reply, err, _ = ai.ask([{"role": "user", "content": "x"}])
        assert err is None and reply == "echo: x"
        srv.queue(Text(long))
        reply, err, _ = ai.ask([{"role": "user", "content": "x"}], {"max_reply": 20000})
        assert reply == long and not os.path.exists(flash / "tmp" / "reply")
        srv.queue(Text(long))
        reply, err, _ = ai.ask([{"role": "user", "content": "x"}])
        assert err == "openai: reply longer than 16384 characters"


def test_text_fallback_calls_found_in_a_recorded_reply(flash, sdk_server):
    import mcp
    assert mcp.add("sdk", sdk_server()) is None
    with FakeTextOnly(key="sk-test") as srv:
        store.update({"ai.chat.provider": "openai", "ai.chat.style": "openai", "ai.chat.key": "sk-test",
                      "ai.chat.base_url": srv.base_url, "ai.chat.tools": "text-fallback",
                      "ai.chat.model": "text-model-1"})
        srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})], text="Let me look."))
        h = History("chat")
        t = h.turn({"role": "user", "content": "weather?"})
        got = []
        reply, err = ai.run(t, {"keep": False, "stream": got.append}, mcps=["sdk"])
        assert err is None and "```tool_call" in "".join(got)
        t.commit()
        saved = [m for m in h]
        assert [m["role"] for m in saved] == ["user", "assistant", "tool", "assistant"]
        assert saved[1]["content"] == "Let me look." and saved[1]["tool_calls"][0]["name"] \
            == "sdk__get_weather"
        assert saved[2]["content"] == "Rochdale: 12 C, drizzle"
        assert saved[3]["content"].startswith("tool said:")


def test_run_puts_a_cut_mcp_result_on_flash(flash, sdk_server, monkeypatch):
    """A chat's tool result goes through flash, cut at its own setting
    (ai.max_tool_result), not at a program's str's (mcp.max_result)."""
    import mcp
    assert mcp.add("sdk", sdk_server(big=True)) is None
    store.set("ai.max_tool_result", 1000)
    store.set("mcp.max_result", 2000)
    with FakeOpenAI(key="sk-test") as srv:
        _cfg(srv)
        srv.queue(Calls([("sdk__big", {"size": 50000})]), Text("done"))
        h = History("chat")
        t = h.turn({"role": "user", "content": "big"})
        shown = []
        reply, err = ai.run(t, {"keep": False}, mcps=["sdk"],
                            show=lambda c, text, bad: shown.append((text, bad)))
        assert err is None
        note = "\n... (truncated, 50000 bytes)"
        assert shown[0][1] is False and len(shown[0][0]) == 256      # the head of it
        sent = [m for m in srv.requests[-1].json["messages"] if m["role"] == "tool"][0]
        assert sent["content"].endswith(note) and len(sent["content"]) == 1000 + len(note)
        t.commit()
        assert history.string([m for m in h][2]["content"]) == sent["content"]
        # a list history gets a str, cut the same way
        srv.queue(Calls([("sdk__big_text", {"size": 50000})]), Text("done"))
        listed = [{"role": "user", "content": "big"}]
        assert ai.run(listed, {}, mcps=["sdk"]) == ("done", None)
        assert listed[2]["content"] == sent["content"]
    # mcp.call gives a program its str cut at mcp.max_result
    conn, err = mcp.connect_named("sdk")
    text, err = mcp.call(conn, "big_text", {"size": 50000})
    assert err is None and text.endswith(note) and len(text) == 2000 + len(note)
    mcp.close(conn)


# ---------------------------------------------------------------- tool files

def test_tool_files_dedupe_and_undo(flash, sdk_server):
    import mcp
    assert mcp.add("sdk", sdk_server()) is None
    assert mcp.add("gone", "http://127.0.0.1:9/mcp") is None
    t = toolcache.Tools(str(flash / "t.jsonl"), True)
    t.add({"name": "local_one", "description": "a local tool", "parameters": {}})
    n, err = t.list("sdk")
    assert (n, err) == (6, None)        # its 5 and read_resource
    n, err = t.list("gone")
    assert n == 0 and "gone" in err
    n, err = t.list("sdk")                      # the same names again: refused, undone
    assert n == 0 and "offered twice" in err
    t.close()
    got = list(t)
    assert got[0]["name"] == "local_one" and got[0]["server"] is None
    assert sorted(d["name"] for d in got[1:]) == ["sdk__add", "sdk__echo", "sdk__fail",
                                                  "sdk__get_weather", "sdk__read_resource",
                                                  "sdk__slow_count"]
    assert t.find("sdk__read_resource")["remote"] is None
    add = t.find("sdk__add")
    assert add["server"] == "sdk" and add["remote"] == "add"
    assert isinstance(add["parameters"], jsonstream.RawFile)
    assert sorted(lines.load(add["parameters"])["properties"]) == ["a", "b"]
    assert t.find("sdk__echo")["remote"] == "echo" and t.find("nope") is None
