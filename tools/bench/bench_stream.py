"""Benchmark: bytes and tokens through the library (issue 29), this tree
beside the tree before that work (git BEFORE), on the MicroPython unix port
with the frozen-code emulation, side by side in one run:

- a streamed chat reply of 64 KB in small SSE events (Groq's chunks, 4-10
  characters of text each, an HTTP chunk per event): ai.ask as the console calls
  it (keep=False, the text recorded into a history turn on flash and
  handed to a stream callback), at 64K and at 512K of heap;
- a 1 MB MCP tool result (one SSE event, as the Python SDK server sends
  it): mcp.call, cut at mcp.max_result as always;
- each beside reading the same bytes off a raw socket (a 512-byte
  readinto, to the end) and through httpc (request + readinto 512), and
  the time to the first streamed piece beside a raw socket's first bytes
  (a new connection each time: connect, GET, first read).

Allocation: one run after a warm-up one (lazy imports, the pooled
connection), with the collector off at a large heap: gc.mem_alloc() after
minus before is every byte the run allocated, in whole 16-byte GC blocks
(a block given back explicitly, e.g. the old block of a grown buffer, is
not counted). Times are the best of REPS calls in one process, rounds
interleaved (a busy machine slows every method alike), with the firmware's
GC setting.
"""
import json
import os
import tempfile

from chat_doc import event
from common import ROOT, before_lib, tree_runner, ratio, table

import mpyrun

BEFORE = os.getenv("BENCH_STREAM_BEFORE", "ce04f8a")   # main before issue 29
CHARS = 65536
MCP_SIZE = 1 << 20
REPS = 3
ROUNDS = 2
HEAPS = ("64K", "512K")
ALLOC_HEAP = "48M"
PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


def chat_body():
    """The SSE events of a 64 KB reply; (list of bytes, events, characters)."""
    from chat_doc import WORDS
    n, chars = 1, 0
    while chars < CHARS:
        chars += len(" " + WORDS[n % len(WORDS)])
        n += 1
    n += 1                  # the first (role) and last (finish) chunks
    body = ["data: %s\n\n" % event(i, n) for i in range(n)] + ["data: [DONE]\n\n"]
    return [e.encode() for e in body], n, chars


def mcp_body():
    text = (PAT * (MCP_SIZE // len(PAT) + 1))[:MCP_SIZE]
    msg = {"jsonrpc": "2.0", "id": 0, "result": {"content": [{"type": "text", "text": text}],
                                                 "isError": False}}
    return "event: message\ndata: %s\n\n" % json.dumps(msg)


def serve(chat, mcp_event):
    """One loopback server: the chat stream, the MCP endpoint (via
    host_tests/mcpfake) and both bodies plain (GET /raw/chat, /raw/mcp)."""
    from mcpfake import McpFake

    def on(fake, msg, req, w):
        if msg.get("method") != "tools/call":
            w.respond(200, json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}).encode(),
                      headers={"Content-Type": "application/json"})
            return
        body = mcp_event.replace('"id": 0', '"id": %s' % json.dumps(msg["id"]), 1).encode()
        send(w, chunked([body]), "text/event-stream")

    fake = McpFake(on)
    inner = fake.handle
    mcp_raw = chunked([mcp_event.encode()])
    chat_raw = chunked(chat)

    def handle(req, w):
        if req.path.endswith("/chat/completions"):
            send(w, chat_raw, "text/event-stream")
        elif req.path == "/raw/chat":
            send(w, chat_raw, "application/octet-stream")
        elif req.path == "/raw/mcp":
            send(w, mcp_raw, "application/octet-stream")
        else:
            inner(req, w)
    fake.srv.handler = handle
    return fake


def chunked(events):
    """The body in chunked transfer coding, a chunk per event (as a server
    that flushes each event sends it), made once."""
    return b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"


def send(w, body, ctype):
    """(one write: the server keeps up with any reader)"""
    w.start(200, {"Content-Type": ctype})
    w.write(body)


def _fields(r):
    f = {}
    for line in r.out.splitlines():
        if line.startswith("RESULT "):
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                f[k] = v
    return f


def run(ctx):
    chat, events, chars = chat_body()
    mcp_event = mcp_body()
    scenarios = (os.path.join(ROOT, "tools", "bench", "mp"),)
    trees = [("now", tree_runner(mpyrun.LIB, scenarios))]
    old = before_lib(ctx.build, BEFORE)
    if old:
        trees.append(("before", tree_runner(old, scenarios)))
    root = tempfile.mkdtemp()
    ok = True
    with serve(chat, mcp_event) as f:
        base = f.srv.url
        cases = []      # (key, tree name, runner, method, url, heap, mode)
        for tname, mpy in trees:
            for h in HEAPS:
                cases.append((("chat", h, tname), mpy, "chat", base + "/v1", h))
            cases.append((("mcp", "64K", tname), mpy, "mcp", f.url, "64K"))
        now = trees[0][1]
        for what in ("chat", "mcp"):
            cases.append(((what, "raw", "now"), now, "raw", base + "/raw/" + what, "64K"))
            cases.append(((what, "read", "now"), now, "read", base + "/raw/" + what, "64K"))
        best = {}
        for _ in range(ROUNDS):
            for key, mpy, m, url, heap in cases:
                r = mpy.run("bench_stream", heap=heap, args=[m, url, REPS, "time", root],
                            timeout=900, cwd=ctx.build)
                fl = _fields(r)
                if r.rc != 0 or "best_ms" not in fl:
                    best[key] = "FAILED " + (r.err or r.out).strip()[-80:]
                    continue
                old = best.get(key)
                if not isinstance(old, str) and (old is None or float(fl["best_ms"]) < old[0]):
                    best[key] = (float(fl["best_ms"]), fl)
        alloc = {}
        for key, mpy, m, url, _heap in cases:
            if key[1] in ("512K",):
                continue
            r = mpy.run("bench_stream", heap=ALLOC_HEAP, args=[m, url, 1, "alloc", root],
                        timeout=900, cwd=ctx.build)
            fl = _fields(r)
            alloc[key[0], key[2] if key[1] == "64K" else key[1]] = \
                int(fl["alloc"]) if r.rc == 0 and "alloc" in fl else None
    ok = _report(best, alloc, chat, events, chars, len(mcp_event), trees) and ok
    return ok


def _ms(best, key):
    b = best.get(key)
    return None if b is None or isinstance(b, str) else b[0]


def _report(best, alloc, chat, events, chars, mcp_bytes, trees):
    ok = True
    for key, b in sorted(best.items()):
        if isinstance(b, str):
            print("%s: %s" % ("/".join(key), b))
            ok = False
    print("chat reply: %d SSE events, %d characters of text, %d bytes of events" % (
        events, chars, sum(len(e) for e in chat)))
    raw, read = _ms(best, ("chat", "raw", "now")), _ms(best, ("chat", "read", "now"))
    rows = []
    for tname, _ in trees:
        for h in HEAPS:
            ms = _ms(best, ("chat", h, tname))
            a = alloc.get(("chat", tname)) if h == "64K" else None
            first = best.get(("chat", h, tname))
            rows.append(["ai.ask streamed, " + tname, h,
                         "-" if ms is None else "%.0f" % ms,
                         "-" if ms is None else "%.0f" % (events / (ms / 1000.0)),
                         "-" if a is None else "%.0f" % (a / float(events)),
                         ratio(ms, raw), ratio(ms, read),
                         "-" if isinstance(first, str) or first is None else first[1]["first_ms"]])
    for name, key in (("raw socket read", "raw"), ("httpc readinto", "read")):
        ms = _ms(best, ("chat", key, "now"))
        a = alloc.get(("chat", key))
        b = best.get(("chat", key, "now"))
        rows.append([name, "64K", "-" if ms is None else "%.1f" % ms,
                     "-" if ms is None else "%.0f" % (events / (ms / 1000.0)),
                     "-" if a is None else "%.0f" % (a / float(events)),
                     ratio(ms, raw), ratio(ms, read),
                     "-" if isinstance(b, str) or b is None else b[1]["first_ms"]])
    table(["chat reply", "heap", "best ms", "events/s", "bytes alloc/event",
           "/ raw", "/ readinto", "ms to 1st piece"], rows)
    print("\nMCP tool result: one SSE event of %d bytes (text of %d bytes, cut at "
          "mcp.max_result)" % (mcp_bytes, MCP_SIZE))
    raw, read = _ms(best, ("mcp", "raw", "now")), _ms(best, ("mcp", "read", "now"))
    rows = []
    for tname, _ in trees:
        ms = _ms(best, ("mcp", "64K", tname))
        a = alloc.get(("mcp", tname))
        rows.append(["mcp.call, " + tname, "64K", "-" if ms is None else "%.0f" % ms,
                     "-" if ms is None else "%.0f" % (mcp_bytes / 1024.0 / (ms / 1000.0)),
                     "-" if a is None else "%.2f" % (a / float(mcp_bytes)),
                     ratio(ms, raw), ratio(ms, read)])
    for name, key in (("raw socket read", "raw"), ("httpc readinto", "read")):
        ms = _ms(best, ("mcp", key, "now"))
        a = alloc.get(("mcp", key))
        rows.append([name, "64K", "-" if ms is None else "%.1f" % ms,
                     "-" if ms is None else "%.0f" % (mcp_bytes / 1024.0 / (ms / 1000.0)),
                     "-" if a is None else "%.2f" % (a / float(mcp_bytes)),
                     ratio(ms, raw), ratio(ms, read)])
    table(["MCP result", "heap", "best ms", "KB/s", "bytes alloc/byte", "/ raw", "/ readinto"],
          rows)
    print("before: git %s; allocation with the collector off at %s (see the docstring)"
          % (BEFORE, ALLOC_HEAP))
    return ok
