"""Benchmark: peak working heap against content size (issue 10), this tree
beside the tree before bounded memory (git BEFORE), on the MicroPython
unix port with the tests' frozen-code emulation (host_tests/mpyrun).

- reply 1/16/64 KB: the console's `ai QUESTION` (every module of that path
  imported, markdown on; host_tests/scenarios/aicmd_long.py), and 15000
  characters (the longest the tree before took: 16000);
- tools 10/50/200 (schemas ~800 bytes): a chat offering the tools cache
  (scenarios/ai_toolcache.py);
- tool result 1 KB/64 KB/1 MB: mcp.call on the Python SDK server's big
  tool, which also sends the text as structuredContent (scenarios/mcp_big).
Each runs at HEAP (generous: the peak is measured, not bisected) with the
same scenario for both trees, its working set measured (live=True: the
sampler collects every 1 KB), and this tree's most TLS connections and
sockets open at once beside the ANTOS_ESP32 board's budget. The old
tree's failures are shown as such.
"""
import json
import os
import sys
import tempfile

from common import ROOT, before_lib, tree_runner, kb, table

sys.path.insert(0, os.path.join(ROOT, "host_tests"))
import mpyrun  # noqa: E402

BEFORE = os.getenv("BENCH_MEM_BEFORE", "5176b37")    # main before issue 10
HEAP = "512K"
PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


def _peak(r, ok):
    """The peak (and the network's: TLS connections/sockets), or why it
    failed (the scenario's error line, shortened)."""
    if ok and r.peak is not None:
        net = "" if r.sockets_peak is None else "  net %d/%d" % (r.tls_peak, r.sockets_peak)
        return kb(r.working) + net
    for why in ("bad JSON", "longer than", "out of memory", "MemoryError"):
        if why in r.out + r.err:
            return "fails: " + why
    return "fails"


def reply(mpy, size):
    from fakes import FakeOpenAI, Text
    flash = tempfile.mkdtemp()
    text = (PAT * (size // len(PAT) + 1))[:size]
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        srv.delta_size = 32
        srv.queue(Text(text))
        with open(os.path.join(flash, "settings.json"), "w") as f:
            json.dump({"ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
                       "ai.general.model": "llama3.2"}, f)
        r = mpy.run("aicmd_long", heap=HEAP, args=[flash, "ai", "go"], timeout=600, input="",
                    live=True)
    path = os.path.join(flash, "history", "chat.jsonl")
    ok = r.rc == 0 and os.path.exists(path) and \
        json.loads(open(path).read().splitlines()[1])["content"] == text
    return _peak(r, ok)


def tools(mpy, n):
    from fakes import FakeOpenAI
    root = tempfile.mkdtemp()
    with open(os.path.join(root, "tools.jsonl"), "w") as f:
        for i in range(n):
            props = dict(("field_%d_%d" % (i, k), {"type": "string", "description":
                          "The value of field %d of tool %d, free text." % (k, i)})
                         for k in range(8))
            f.write(json.dumps({"server": "fill", "name": "fill__t%d" % i, "remote": "t%d" % i,
                                "description": "Tool %d of the filler server." % i,
                                "parameters": {"type": "object", "properties": props}}) + "\n")
    with FakeOpenAI(key="sk-test", models=["gpt-4o-mini"]) as srv:
        srv.options(chunked=True)
        r = mpy.run("ai_toolcache", heap=HEAP, timeout=600, live=True,
                    args=["openai", srv.base_url, "gpt-4o-mini", "sk-test", root])
        ok = r.rc == 0 and "RUN " in r.out and len(srv.requests[0].json.get("tools", ())) == n
    return _peak(r, ok)


def result(mpy, url, size):
    r = mpy.run("mcp_big", heap=HEAP, args=[tempfile.mkdtemp(), url, size, "call"], timeout=600,
                live=True)
    line = [x for x in r.out.splitlines() if x.startswith("CALL big ")]
    ok = r.rc == 0 and line and " None True " in line[0]
    return _peak(r, ok)


def run(ctx):
    import peers
    mpys = [("now", tree_runner(mpyrun.LIB))]
    old = before_lib(ctx.build, BEFORE)
    if old:
        mpys.append(("before (%s)" % BEFORE, tree_runner(old)))
    peer = peers.sdk_peer(big=True).start(60)
    rows = []
    try:
        cases = [("reply", "1 KB", reply, 1024), ("reply", "15000 ch", reply, 15000),
                 ("reply", "16 KB", reply, 16384),
                 ("reply", "64 KB", reply, 65536), ("tools", "10", tools, 10),
                 ("tools", "50", tools, 50), ("tools", "200", tools, 200),
                 ("tool result", "1 KB", result, 1024), ("tool result", "64 KB", result, 65536),
                 ("tool result", "1 MB", result, 1 << 20)]
        for what, label, fn, size in cases:
            row = [what, label]
            for _, mpy in mpys:
                row.append(fn(mpy, peer.url, size) if fn is result else fn(mpy, size))
            rows.append(row)
    finally:
        peer.close()
    import boardprofile
    fig = boardprofile.load()["figures"]
    print("peak working heap (above the post-import baseline), -X heap %s, frozen-code "
          "emulation; net: the most TLS connections/sockets open at once (%s allows %d/%d):"
          % (HEAP, boardprofile.DEFAULT, fig["tls_max"], fig["sockets_max"]))
    table(["content", "size"] + [name for name, _ in mpys], rows)
    return all(not r[2].startswith("fails") for r in rows)
