"""MCP results one after another, of sizes that change from call to call,
against real servers (the Python SDK server, PyPI fastmcp's, the reference
filesystem server behind a fastmcp proxy), under the MicroPython unix port
at the 64K goal with the firmware's GC, as the ANTOS_ESP32 board: a program
keeps one session and gets each result as a str (cut at mcp.max_result
while read: the board profile's 8 KB). One result fits; the question is
whether the heap stays whole enough for the next one after many of every
size (scenarios/mcp_sequence.py)."""
import json
import os

import pytest

import peers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The goal. The heap free when the calls start is printed (LIMIT ... FREE);
# 16 KB results (the library's default) in a row left no block that large
# after a few calls, hence the board's smaller default
# (boards/ANTOS_ESP32/profile.json, mcp_max_result, with its reason)
CAP = "64K"
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


def _board_limit():
    with open(os.path.join(ROOT, "boards", "ANTOS_ESP32", "profile.json")) as f:
        return json.load(f)["figures"]["mcp_max_result"]


def _check(r, lines, count=COUNT):
    assert r.rc == 0, r
    assert "connect None" in r.out, r.out
    head = r.out.split("LIMIT ", 1)[1].splitlines()[0]
    print("LIMIT", head)
    limit = int(head.split()[0])
    assert limit == _board_limit(), r.out       # the board's default, not the library's
    assert len(lines) == count, r.out
    for _, i, n, got, ok, err in lines:
        n = int(n)
        want = min(n, limit) + (len("\n... (truncated, %d bytes)" % n) if n > limit else 0)
        assert err == "None" and ok == "True" and got == str(want), (i, n, got, ok, err)


@pytest.fixture(scope="module")
def big_server(sdk_server):
    return sdk_server(big=True)


@pytest.mark.parametrize("kind", ["call:big", "call:big_text", "read:big://"])
def test_python_sdk_results_in_a_row(mpy, tmp_path, big_server, kind):
    _check(*_sequence(mpy, tmp_path, big_server, kind))


@pytest.fixture(scope="module")
def fastmcp_server():
    p = peers.start_fastmcp()
    yield p.url
    p.close()


@pytest.mark.parametrize("kind", ["call:text", "call:text_only", "read:text://"])
def test_fastmcp_results_in_a_row(mpy, tmp_path, fastmcp_server, kind):
    _check(*_sequence(mpy, tmp_path, fastmcp_server, kind))


def test_filesystem_server_reads_in_a_row(mpy, tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    pattern = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"
    for n in SIZES:
        with open(os.path.join(folder, "%d.txt" % n), "w") as f:
            f.write((pattern * (n // len(pattern) + 1))[:n])
    p = peers.start_filesystem(str(folder))
    try:
        _check(*_sequence(mpy, tmp_path_factory.mktemp("flash"), p.url, "fs:%s" % folder))
    finally:
        p.close()
