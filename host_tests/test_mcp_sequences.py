"""MCP results one after another, of sizes that change from call to call,
against real servers (the Python SDK server, PyPI fastmcp's, the reference
filesystem server behind a fastmcp proxy), under the MicroPython unix port
within the project's goal heap with the firmware's GC, as the ANTOS_ESP32 board: a program
keeps one session and gets each result as a str (cut at mcp.max_result
while read: 16 KB by default). One result fits; the question is whether
the heap stays whole enough for the next one after many of every size
(scenarios/mcp_sequence.py), and, in a long run at the project's goal
heap, whether a big result makes a later call fail (scenarios/mcp_soak.py)."""
import os

import pytest

import mcp
import peers
from mpyrun import GOAL, parse_size

# 20 results in a row, cut at 16 KB (the heap free when the calls start is
# printed: LIMIT ... FREE), and the soak, within the project's goal for the
# library (the board keeps 64K of its 112K for the program's own); make
# measure bisects what each needs. Each result is one str the program
# holds, so each needs one free block of up to 16 KB: what the heap keeps
# between calls decides whether there is one. Three objects each call made
# and the session kept (the spare connection buffer, made while the GET
# stream had the other; the list of files; the result spool's list) sat
# wherever the heap's frontier was and split that block; they are made
# once now (test_a_session_keeps_nothing_a_call_made), and on a loaded
# machine 48K passed 28 runs of 28 (46K failed 4 runs of 7 before, 1 of
# 14 after). But while
# make measure bisects beside them, runs at 50K and 52K still ran out at
# the first 16 KB result: what the program allocates between calls (its
# arguments, its own objects) lands where the GC last left garbage, and
# that moves with the timing of the bytes. So the cap stays 56K
CAP = "56K"
WHY = ("bisected 43-47K, but beside make measure's bisections runs ran out at 50K "
       "and 52K (each result a str of up to 16 KB: one free block)")
SOAK_CAP = "47K"
SOAK_ROUNDS = 200
SOAK_BIG = 15000
KB = 1024
SIZES = [1 * KB, 6 * KB, 12 * KB, 20 * KB, 37 * KB, 1 << 20]
COUNT = 20


def _sequence(mpy, tmp_path, url, kind, heap=CAP, count=COUNT):
    root = tmp_path / ("flash-%s-%s" % (kind.replace(":", "-").replace("/", "_")[-40:], heap))
    root.mkdir(exist_ok=True)
    r = mpy.run("mcp_sequence", heap=heap, timeout=600,
                args=[root, url, count, kind, ",".join(str(n) for n in SIZES)])
    lines = [x.split(None, 5) for x in r.out.splitlines() if x.startswith("SEQ ")]
    return r, lines


def _passes(mpy, tmp_path, url, kind):
    """passes(heap) for make measure: the sequence at that heap."""
    def passes(heap):
        try:
            _check(*_sequence(mpy, tmp_path, url, kind, heap))
        except AssertionError:
            return False
        return True
    return passes


def _in_a_row(mpy, measure, tmp_path, url, kind, server):
    _check(*_sequence(mpy, tmp_path, url, kind))
    measure.smallest("heap", "%d MCP results in a row up to %d KB (%s, %s)" % (
        COUNT, mcp.MAX_RESULT // 1024, server, "call:read_text_file" if kind.startswith("fs:") else kind),
        _passes(mpy, tmp_path, url, kind), CAP, goal=GOAL, why=WHY)


def _check(r, lines, count=COUNT):
    assert r.rc == 0, r
    assert "connect None" in r.out, r.out
    head = r.out.split("LIMIT ", 1)[1].splitlines()[0]
    print("LIMIT", head)
    limit = int(head.split()[0])
    assert limit == mcp.MAX_RESULT, r.out       # the default, on ANTOS_ESP32 too
    assert len(lines) == count, r.out
    for _, i, n, got, ok, err in lines:
        n = int(n)
        want = min(n, limit) + (len("\n... (truncated, %d bytes)" % n) if n > limit else 0)
        assert err == "None" and ok == "True" and got == str(want), (i, n, got, ok, err)


@pytest.fixture(scope="module")
def big_server(sdk_server):
    return sdk_server(big=True)


@pytest.mark.parametrize("kind", ["call:big", "call:big_text", "read:big://"])
def test_python_sdk_results_in_a_row(mpy, measure, tmp_path, big_server, kind):
    _in_a_row(mpy, measure, tmp_path, big_server, kind, "Python SDK server")


def test_a_big_result_never_makes_a_later_call_fail(mpy, measure, tmp_path, big_server):
    """The soak: 200 mcp.call in one session on ANTOS_ESP32 at the goal
    heap, each result held as a str until the next one replaces it (a
    program's loop), a 15,000-character result every tenth call and a tool
    that fails two calls later; every call gives its result, cut at the
    default mcp.max_result of 16 KB (the board's was 8 KB)."""
    assert parse_size(SOAK_CAP) <= parse_size(GOAL)

    def run(heap):
        root = tmp_path / ("soak-" + heap)
        root.mkdir(exist_ok=True)
        return mpy.run("mcp_soak", heap=heap, timeout=900,
                       args=[root, big_server, SOAK_ROUNDS, SOAK_BIG])
    r = run(SOAK_CAP)
    assert r.rc == 0 and "connect None" in r.out, r
    print("LIMIT", r.out.split("LIMIT ", 1)[1].splitlines()[0])
    assert "LIMIT %d " % mcp.MAX_RESULT in r.out, r.out
    assert "ROUNDS %d BAD 0" % SOAK_ROUNDS in r.out, r.out

    def passes(heap):
        x = run(heap)
        return x.rc == 0 and "ROUNDS %d BAD 0" % SOAK_ROUNDS in x.out
    measure.smallest("heap", "200 mcp.call, a 15,000-character result every tenth", passes,
                     SOAK_CAP, goal=GOAL)


@pytest.fixture(scope="module")
def fastmcp_server():
    p = peers.start_fastmcp()
    yield p.url
    p.close()


@pytest.mark.parametrize("kind", ["call:text", "call:text_only", "read:text://"])
def test_fastmcp_results_in_a_row(mpy, measure, tmp_path, fastmcp_server, kind):
    _in_a_row(mpy, measure, tmp_path, fastmcp_server, kind, "fastmcp server")


def test_filesystem_server_reads_in_a_row(mpy, measure, tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    pattern = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"
    for n in SIZES:
        with open(os.path.join(folder, "%d.txt" % n), "w") as f:
            f.write((pattern * (n // len(pattern) + 1))[:n])
    p = peers.start_filesystem(str(folder))
    try:
        _in_a_row(mpy, measure, tmp_path_factory.mktemp("flash"), p.url, "fs:%s" % folder,
                  "the filesystem server")
    finally:
        p.close()


def test_a_session_keeps_nothing_a_call_made(mpy, tmp_path, big_server):
    """Between calls a session keeps only what it made once: the spare
    connection buffer is the lowest one made, not the one a call's second
    connection (the GET stream) made wherever the heap's frontier was, and
    a result without files leaves the shared empty tuple, not a new list.
    Each such object, kept across calls, split the top of the heap where
    the next 16 KB result's str had to go."""
    r = mpy.run("mcp_kept", heap=CAP, args=[tmp_path, big_server, 8])
    assert r.rc == 0 and "connect None" in r.out, r
    kept = [x.split() for x in r.out.splitlines() if x.startswith("KEPT ")]
    assert len(kept) == 8, r.out
    assert all(k[3] == "True" and k[4] == "None" for k in kept), r.out
    spare = [int(k[2]) for k in kept]
    assert max(spare[1:]) <= spare[0], spare        # never one made later, higher
