"""Benchmark: the board's MCP server (mcp serve) on the unix port: the heap
the console keeps while it listens, the peak working heap of each kind of
request, the time of a ping and of a call, and the smallest heap for a
session that reads 64 KB twice.

Runs host_tests/scenarios/mcp_serve.py with frozen code emulated, as the
tests do (host_tests/mpyrun.py: heap = free heap once the emulated flash is
in place; 64-bit objects, long strings on the heap: upper bounds of the
ESP32's), and talks plain HTTP to it (host_tests/boardserve.py)."""
import os
import shutil
import statistics
import tempfile
import time
import pathlib

from common import kb, table

import mpyrun
from boardserve import Board, init, make_flash, rpc

HEAP = "128K"       # room to measure; the tests run at 64K
PINGS = 50
CALLS = 20
PROBE = '''SPEC = {"desc": "log lines", "readonly": True}


def main(args):
    import shell
    for i in range(20):
        shell.out("line %d of the output" % i)
'''


def _flash(tmp):
    f = make_flash(pathlib.Path(tmp))
    small = ("0123456789abcdef" * 64)[:1024]
    (f / "small.txt").write_text(small)
    (f / "big.txt").write_text((small * 64)[:65536])
    (f / "bin" / "lines.py").write_text(PROBE)
    return f


# (label, method, params) in the order sent; the peaks come back in order
REQUESTS = [
    ("ping", "ping", None),
    ("tools/list (9 commands, 1 script)", "tools/list", None),
    ("tools/call pwd", "tools/call", {"name": "pwd"}),
    ("tools/call cat 1 KB", "tools/call", {"name": "cat", "arguments": {"file": "small.txt"}}),
    ("tools/call cat 64 KB (4 KB kept)", "tools/call",
     {"name": "cat", "arguments": {"file": "big.txt"}}),
    ("resources/read 1 KB", "resources/read", {"uri": "file:///small.txt"}),
    ("resources/read 64 KB", "resources/read", {"uri": "file:///big.txt"}),
    ("resources/list", "resources/list", None),
]


def _session(mpy, heap, tmp, timed=False):
    """One board: the requests above (timed: then pings and calls), then 20
    log lines over SSE (the last connection); -> (measurements, times) or
    None when it failed at this heap."""
    b = None
    try:
        b = Board(mpy, _flash(tmp), heap)
        sid = init(b)
        for _, method, params in REQUESTS:
            st, r = rpc(b, sid, method, params)
            # (below the heap it needs the board may answer 500 or no JSON)
            if st != 200 or not isinstance(r, dict) or "error" in r \
                    or (r.get("result") or {}).get("isError"):
                return None
        times = {}
        for label, method, params, n in (("ping", "ping", None, PINGS),
                                         ("tools/call pwd", "tools/call", {"name": "pwd"},
                                          CALLS)):
            ts = []
            for _ in range(n if timed else 0):
                t0 = time.monotonic()
                rpc(b, sid, method, params)
                ts.append((time.monotonic() - t0) * 1000)
            if ts:
                times[label] = statistics.median(ts)
        rpc(b, sid, "logging/setLevel", {"level": "info"})
        st, _, body = _sse(b, sid)
        if st != 200 or body.count(b"notifications/message") != 20:
            return None
        return b.close(), times
    except (AssertionError, OSError, ValueError):
        return None
    finally:
        if b is not None:
            b.kill()


def _sse(b, sid):
    from boardserve import raw
    return raw(b, {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                   "params": {"name": "lines"}}, sid=sid)


def run(ctx):
    mpy = mpyrun.Runner()
    tmp = tempfile.mkdtemp()
    try:
        got = _session(mpy, HEAP, os.path.join(tmp, "a"), True)
        if got is None:
            print("the session failed at %s" % HEAP)
            return False
        m, times = got
        p = m["peaks"]      # initialize, the requests, setLevel, the SSE call, ...
        rows = [["mcp serve, kept at the idle prompt", kb(m["idle"]), "-"],
                ["initialize", kb(p[0]), "-"]]
        for i, (label, _, _) in enumerate(REQUESTS):
            rows.append([label, kb(p[1 + i]), "%.1f ms" % times[label] if label in times else "-"])
        rows.append(["tools/call, 20 log lines (SSE)", kb(p[-1]), "-"])
        table(["request", "peak working heap", "median time"], rows)
        n = [0]

        def ok(heap):
            n[0] += 1
            return _session(mpy, heap, os.path.join(tmp, "s%d" % n[0])) is not None
        small = mpy.smallest(ok, "64K", "24K")
        print("smallest heap for the session: %dK (free heap after the emulated flash; "
              "the console alone takes about 20 KB of it)" % (small // 1024))
        print("ping and pwd times include a new loopback connection each (median of %d "
              "and %d)" % (PINGS, CALLS))
        return True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
