"""Benchmark: every data[*].id of an OpenAI-style models list (~50 KB and
~1 MB): jsonstream.select (and the baseline jsonstream) against
MicroPython's json.load(file) and json.loads(f.read()), side by side on
the MicroPython unix port: best time and smallest heap."""
import os

from common import kb, ratio, table
from models_doc import write_models

# (size, label, runs per process, rounds, goal for jsonstream / json.loads)
SIZES = ((50 * 1024, "50 KB", 5, 5, 1.2), (1024 * 1024, "1 MB", 2, 5, 1.0))
# (name, argv method, heap, baseline jsonstream, names interned as frozen)
METHODS = (("jsonstream.select", "js", "32K", False, True),
           ("baseline jsonstream", "js", "32K", True, True),
           ("json.load(file)", "json", "16M", False, True),
           ("json.loads(f.read())", "loads", "16M", False, True),
           ("json.loads, plain port", "loads", "16M", False, False))
JS_CAP = 32 * 1024  # the smallest heap jsonstream must stay under


def run(ctx):
    ok = True
    rows = []
    notes = []
    for size, label, reps, rounds, goal in SIZES:
        path = os.path.join(ctx.build, "models_%d.json" % size)
        count, idlen, last = write_models(path, size)
        print("document %s: %d bytes, %d models" % (label, os.path.getsize(path), count))
        best = ctx.best([(name, "bench_models", heap, [m, path, reps, "time"], base, frozen)
                         for name, m, heap, base, frozen in METHODS], rounds)
        ms = {}
        heap = {}
        for name, m, cap, base, frozen in METHODS:
            b = best[name]
            if isinstance(b, str):
                rows.append([label, name, b, "-", "-", "-", "-"])
                ok = ok and b == "no baseline"
                continue
            f = b[1]
            if (int(f["count"]), int(f["idlen"]), f["last"]) != (count, idlen, last):
                raise SystemExit("wrong result from %s: %r" % (name, f))
            ms[name] = b[0]
            if not frozen:
                heap[name] = heap.get("json.loads(f.read())")  # (names do not count)
                continue
            _, _, _, h = ctx.run("bench_models", cap, [m, path, 1, "heap"], base)
            hint = int(h["peak"]) - int(h["baseline"]) if "peak" in h else None
            heap[name] = ctx.min_heap("bench_models", [m, path, 1, "time"], base, hint)
        js = ms.get("jsonstream.select")
        # the faster json.loads figure: lib's names interned as on the board
        # slow down making its many strings, the plain port does not
        loads = min(ms.get("json.loads(f.read())", 1e9), ms.get("json.loads, plain port", 1e9))
        for name, *_ in METHODS:
            if name in ms:
                rows.append([label, name, "%.1f" % ms[name], ratio(ms[name], js),
                             kb(heap[name]), ratio(heap[name], heap.get("jsonstream.select")),
                             ratio(ms[name], loads)])
        t = ratio(js, loads)
        h = heap.get("jsonstream.select")
        notes.append("%s: jsonstream.select / the faster json.loads time %s (goal <= %.1f), "
                     "smallest heap %s (goal < %s)%s" % (
                         label, t, goal, kb(h), kb(JS_CAP),
                         "" if "baseline jsonstream" not in ms else
                         "; baseline / now time %s" % ratio(ms["baseline jsonstream"], js)))
        if t == "-" or float(t) > goal or h is None or h >= JS_CAP:
            notes[-1] += "  <-- NOT MET"
    print()
    table(["doc", "method", "best ms", "time / js", "smallest heap", "heap / js",
           "time / json.loads"], rows)
    print("\n".join(notes))
    print("best ms: the best of %s rounds of runs, methods taking turns; smallest heap:\n"
          "the least heap free after lib/ is in the emulated flash with which it\n"
          "completes; plain port: lib's names not interned up front (strings are\n"
          "made faster)" % " and ".join("%d x %d" % (s[3], s[2]) for s in SIZES))
    return ok
