"""Benchmark: writing a ~50 KB chat request with jsonstream.dump (pieces to
a sink) and encoded_len versus MicroPython's json.dumps (whole string)."""
from common import kb, table

MESSAGES = 50
REPS = 5


def run(ctx):
    rows = []
    ok = True
    sizes = set()
    base = None
    for method, label in (("dump", "jsonstream.dump"), ("len", "jsonstream.encoded_len"),
                          ("json", "json.dumps")):
        rc, out, err, f = ctx.run("bench_write", "4M", [method, MESSAGES, REPS, "time"])
        rc2, _, err2, h = ctx.run("bench_write", "4M", [method, MESSAGES, 1, "heap"])
        if rc or rc2:
            rows.append([label, "FAILED", "-", "-", (err or err2).strip()[-60:]])
            ok = False
            continue
        if method != "json":  # json.dumps writes ", " and ": ": not comparable
            sizes.add(int(f["bytes"]))
        ms = float(f["best_ms"])
        if method == "json":
            base = ms
        rows.append([label, f["bytes"], "%.1f" % ms, kb(int(h["peak"]) - int(h["baseline"])), ms])
    if len(sizes) != 1:
        print("dump and encoded_len disagree: %r" % sorted(sizes))
        ok = False
    if base:
        for r in rows:
            if r[2] not in ("FAILED", "-"):
                r[4] = "%.2f" % (r[4] / base)
    table(["method", "bytes", "best ms of %d" % REPS, "peak working", "time / json.dumps"], rows)
    print("(json.dumps output uses ', ' and ': ' separators, hence more bytes)")
    return ok
