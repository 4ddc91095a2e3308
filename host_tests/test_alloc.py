"""Allocation per unit of content under the MicroPython unix port: every
byte allocated is later collected, and on a 64K heap collection is most of
the time (CONTRIBUTING.md, memory rules). Counted with the collector off
(scenarios/alloccount.py); the figures of make bench (bench_stream) are the
same count over longer runs."""
import pytest

import mcp

from fakes import FakeOpenAI, Text

# A streamed chat reply: a few words per event, as providers send them.
# What one event costs: its text piece (one str, shared by the callback,
# the flash record and the renderer) and a few views of buffers; 1,726
# bytes before issue 29.
EVENT_BYTES = 200
EVENTS = 3000


@pytest.mark.smoke
def test_a_streamed_reply_allocates_little_per_event(mpy, tmp_path):
    words = ("the", "board", "reads", "every", "reply", "caf\u00e9", "off", "the", "socket")
    text = "".join(" " + words[i % len(words)] for i in range(EVENTS))
    with FakeOpenAI(flavor="groq", key="gsk-test") as srv:
        srv.options(chunked=True)
        srv.delta_size = 7
        srv.queue(Text(text), Text(text))
        # (a heap that holds everything the counted round allocates: the
        # collector is off while it runs)
        r = mpy.run("ai_alloc", heap="4M", args=[srv.base_url, tmp_path], timeout=120)
    line = [x.split() for x in r.out.splitlines() if x.startswith("ALLOC ")]
    assert r.rc == 0 and line, r
    alloc, pieces, chars, err = line[0][1], line[0][2], line[0][3], " ".join(line[0][4:])
    assert err == "None" and int(chars) == len(text), r.out
    per = int(alloc) / int(pieces)
    print("bytes allocated per event: %.0f (%d events)" % (per, int(pieces)))
    assert int(pieces) >= len(text) // 7
    assert per < EVENT_BYTES, "%.0f bytes allocated per streamed event" % per


# A big MCP tool result: what is kept (mcp.max_result, the board's) goes to the
# result spool in str pieces; the rest is checked and counted where it lies
# in the parser's buffer, nothing decoded or copied. Per byte past the cut
# (what a result twice as long costs more), and per byte of a 512 KB
# result all told (5.4 bytes per byte before issue 29).
PAST_CUT_BYTES = 0.1
RESULT_BYTES = 0.5
PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


def _result_alloc(mpy, size, into=None):
    """(bytes allocated by mcp.call of a `size` text, its bytes on the wire);
    into: the call writes the whole text to that file."""
    import json
    from mcpfake import McpFake, sse
    text = (PAT * (size // len(PAT) + 1))[:size]

    def on(fake, msg, req, w):
        sse(w, {"jsonrpc": "2.0", "id": msg["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": False}})
    with McpFake(on) as f:
        r = mpy.run("mcp_alloc", heap="4M", args=[f.url] + ([into] if into else []), timeout=120)
    line = [x.split(None, 3) for x in r.out.splitlines() if x.startswith("ALLOC ")]
    assert r.rc == 0 and line, r
    alloc, got, err = int(line[0][1]), int(line[0][2]), line[0][3]
    if into:
        with open(into) as f:
            assert f.read() == text
        assert err == "None" and got == size, r.out
    else:
        kept = mcp.MAX_RESULT
        assert err == "None" and got == kept + len("\n... (truncated, %d bytes)" % size), r.out
    return alloc, len(json.dumps(text))


def test_a_big_tool_result_allocates_little_per_byte(mpy):
    a1, w1 = _result_alloc(mpy, 128 * 1024)
    a2, w2 = _result_alloc(mpy, 512 * 1024)
    past = (a2 - a1) / float(w2 - w1)
    print("bytes allocated per byte past the cut: %.3f; per byte of 512 KB: %.2f"
          % (past, a2 / float(w2)))
    assert past < PAST_CUT_BYTES, "%.3f bytes allocated per byte past the cut" % past
    assert a2 / float(w2) < RESULT_BYTES


# mcp.call(..., into=PATH) of a 1 MB result: the whole text to the file, its
# bytes decoded from the parser's buffer into one of 512 bytes and written
# from there (jsonstream's stream_bytes): no str per piece. Handed on in str
# pieces instead (to an out.add() with no cut) the same result allocated
# 2.49 bytes per byte on this build.
INTO_BYTES = 0.1


def test_a_1mb_result_into_a_file_allocates_little_per_byte(mpy, tmp_path):
    alloc, wire = _result_alloc(mpy, 1 << 20, str(tmp_path / "result.txt"))
    print("bytes allocated per byte of a 1 MB result into a file: %.3f" % (alloc / float(1 << 20)))
    assert alloc / float(1 << 20) <= INTO_BYTES
