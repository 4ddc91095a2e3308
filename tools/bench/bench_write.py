"""Benchmark: writing a ~50 KB chat request with jsonstream.dump (pieces to
a sink) and encoded_len (and the baseline jsonstream's dump) versus
MicroPython's json.dumps (whole string), side by side."""
from common import kb, ratio, table

MESSAGES = 50
REPS = 5
ROUNDS = 3
HEAP = "4M"
METHODS = (("jsonstream.dump", "dump", False), ("jsonstream.encoded_len", "len", False),
           ("baseline jsonstream.dump", "dump", True), ("json.dumps", "json", False))


def run(ctx):
    best = ctx.best([(name, "bench_write", HEAP, [m, MESSAGES, REPS, "time"], base)
                     for name, m, base in METHODS], ROUNDS)
    ok = True
    rows = []
    sizes = set()
    for name, m, base in METHODS:
        b = best[name]
        if isinstance(b, str):
            rows.append([name, b, "-", "-", "-"])
            ok = ok and b == "no baseline"
            continue
        if m != "json":  # json.dumps writes ", " and ": ": not comparable
            sizes.add(int(b[1]["bytes"]))
        _, _, _, h = ctx.run("bench_write", HEAP, [m, MESSAGES, 1, "heap"], base)
        peak = int(h["peak"]) - int(h["baseline"]) if "peak" in h else None
        rows.append([name, b[1]["bytes"], "%.1f" % b[0], kb(peak), b[0]])
    if len(sizes) != 1:
        print("dump and encoded_len disagree: %r" % sorted(sizes))
        ok = False
    base = best.get("json.dumps")
    for r in rows:
        if not isinstance(r[4], str):
            r[4] = ratio(r[4], None if isinstance(base, str) else base[0])
    table(["method", "bytes", "best ms", "peak working", "time / json.dumps"], rows)
    print("(json.dumps output uses ', ' and ': ' separators, hence more bytes)")
    return ok
