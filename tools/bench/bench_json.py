"""Benchmark: every data[*].id of an OpenAI-style models list (~50 KB and
~1 MB) with jsonstream.select versus MicroPython's json.load, side by side
on the MicroPython unix port."""
import os

from common import kb, table
from models_doc import write_models

SIZES = ((50 * 1024, "50 KB", 7), (1024 * 1024, "1 MB", 3))
JS_HEAP = "32K"
JSON_HEAP = "16M"  # generous cap for json.load; its real need is bisected


def run(ctx):
    rows = []
    ok = True
    for size, label, reps in SIZES:
        path = os.path.join(ctx.build, "models_%d.json" % size)
        count, idlen, last = write_models(path, size)
        actual = os.path.getsize(path)
        times = {}
        for method, heap in (("js", JS_HEAP), ("json", JSON_HEAP)):
            rc, out, err, f = ctx.run("bench_models", heap, [method, path, reps, "time"])
            if rc != 0:
                rows.append([label, method, heap, reps, "FAILED", "-", "-", err.strip()[-60:]])
                ok = False
                continue
            if (int(f["count"]), int(f["idlen"]), f["last"]) != (count, idlen, last):
                raise SystemExit("wrong result from %s: %r" % (method, f))
            times[method] = float(f["best_ms"])
            rc2, _, err2, h = ctx.run("bench_models", heap, [method, path, 1, "heap"])
            peak = int(h["peak"]) - int(h["baseline"]) if rc2 == 0 else None
            need = ctx.min_heap("bench_models", [method, path, 1, "time"],
                                hint=int(h["peak"]) if rc2 == 0 else None)
            rows.append([label if method == "js" else "", "jsonstream.select" if method == "js" else "json.load",
                         heap, reps, "%.1f" % times[method], kb(peak), kb(need), ""])
        if "js" in times and "json" in times:
            rows[-1][-1] = "json.load time / jsonstream time = %.2f (>= 1.0: not slower)" % (
                times["json"] / times["js"])
        print("document %s: %d bytes, %d models" % (label, actual, count))
    print()
    table(["doc", "method", "heap cap", "runs", "best ms", "peak working", "min heap", "ratio"], rows)
    print("peak working: heapmon peak above the post-import baseline; min heap: smallest\n"
          "-X heapsize that completes (includes imported bytecode and the interpreter's own use)")
    return ok
