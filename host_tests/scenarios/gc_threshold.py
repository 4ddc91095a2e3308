# gc.threshold around the library's exchanges (compat.tighten / stream_gc / loosen):
# lowered while ai.* and mcp.* work (none once a reply's text flows: the GC
# runs when the heap is full), the program's own setting back after
# each, and a program that collects more often already is left as it is.
# argv: store_root base_url model key mcp_url
# Prints GC <function> <threshold set> during=<seen at the first streamed piece>
# after=<threshold after> ok|err streaming=<seen at the last streamed piece>.
import gc
import sys
import ai
import mcp
import store

root, base_url, model, key, url = sys.argv[1:6]
store.set_root(root)
OV = {"provider": "openai", "style": "openai", "base_url": base_url, "model": model,
      "key": key, "timeout": 10}
seen = []


def watch(piece):
    seen.append(gc.threshold())


def show(name, before, err):
    print("GC %s %d during=%s after=%d %s streaming=%s" % (
        name, before, seen[0] if seen else None, gc.threshold(),
        "ok" if err is None else "err", seen[-1] if seen else None))


for before in (-1, 512, 10 ** 8):
    gc.threshold(before)
    del seen[:]
    ov = dict(OV)
    ov["stream"] = watch
    ov["keep"] = False
    reply, err, _ = ai.ask([{"role": "user", "content": "hi"}], ov)
    show("ai.ask", before, err)

gc.threshold(-1)        # a reply kept in RAM: no stream_gc
del seen[:]
ov = dict(OV)
ov["stream"] = watch
reply, err, _ = ai.ask([{"role": "user", "content": "hi"}], ov)
show("ai.ask-kept", -1, err)

gc.threshold(-1)
del seen[:]
ov = dict(OV)
ov["stream"] = watch
reply, err = ai.run([{"role": "user", "content": "hi"}], ov)
show("ai.run", -1, err)

del seen[:]
models, err = ai.fetch_models("openai", key=key, base_url=base_url)
show("ai.fetch_models", -1, err)

conn, err = mcp.connect(url, name="peer")
show("mcp.connect", -1, err)
tools, err = mcp.tools(conn)
show("mcp.tools", -1, err)
mcp.close(conn)
gc.threshold(4096)
conn, err = mcp.connect("http://127.0.0.1:9/mcp", name="nobody", timeout=2)
show("mcp.connect", 4096, err)
