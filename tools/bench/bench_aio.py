"""Benchmark: an asyncio program's loop while a 64 KB reply streams (issue
37), on the MicroPython unix port at the chat's heap: a 10 ms ticker task
beside aio.stream, over plain HTTP and over TLS whose records arrive cut
across TCP segments, and beside the blocking ai.ask of the same reply
(which holds the loop for the whole call). The worst gap between ticks is
given on the wall clock and on the process's own CPU clock (a busy machine
preempts the process; the CPU clock leaves that out); the stall before the
first piece (connection, DNS, TLS handshake) is apart."""
import os
import sys
import tempfile

from common import table

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "host_tests"))

HEAP = "48K"
LONG = 64 * 1024
WORDS = "The loop stays live while this reply streams in small pieces. "
TEXT = (WORDS * (LONG // len(WORDS) + 1))[:LONG]
CASES = (("aio.stream, http", "ticker", False),
         ("aio.stream, tls cut across segments", "ticker", True),
         ("ai.ask (blocking) in the loop, http", "ticker-blocking", False))


def run(ctx):
    from fakes import FakeOpenAI, Text
    from tlsfront import Front
    rows = []
    ok = True
    for name, mode, tls in CASES:
        tmp = tempfile.mkdtemp(dir=ctx.build)
        with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
            srv.options(chunked=True)
            srv.queue(Text(TEXT))
            with Front(srv.base_url, tmp, tls) as f:
                r = ctx.runner.run("aio_chat", heap=HEAP, args=[mode, "openai", f.url, "gpt-4o-mini",
                                                              "sk-test", tmp],
                                   timeout=120, ca=f.ca, first=True)
        line = [ln for ln in r.out.splitlines() if ln.startswith("TICKER ")]
        if r.rc or not line:
            rows.append([name, "fails", "", "", ""])
            ok = False
            continue
        wall, first, _, size, err, _, before, cpu = line[0].split()[1:9]
        rows.append([name, wall + " ms", cpu + " ms", before + " ms" if mode == "ticker" else "-",
                     first + " ms" if mode == "ticker" else "-"])
    table(["", "worst gap, wall", "worst gap, CPU clock", "stall before it", "first piece"], rows)
    print("a 10 ms ticker; %s free heap; the stall before the first piece: connecting (and "
          "the TLS handshake) holds the loop" % HEAP)
    return ok
