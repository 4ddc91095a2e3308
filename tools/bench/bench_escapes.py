"""Benchmark: jsonstream.loads of a string of "\\n" escapes held in RAM
against the same text streamed through 256-byte reads (loads searched for
the closing quote again after every escape, to the end of the input:
quadratic), now and with the baseline jsonstream."""
from common import ratio, table

SIZES = ((8000, 3, True), (160000, 1, False))  # escapes, runs, with the baseline
ROUNDS = 2
HEAP = "2M"
GOAL = 2.0  # loads in RAM / streamed, 16 KB


def run(ctx):
    rows = []
    ok = True
    for count, reps, base in SIZES:
        runs = [("now", "loads", False), ("now", "stream", False)]
        if base:
            runs += [("baseline", "loads", True), ("baseline", "stream", True)]
        best = ctx.best([(who + " " + m, "bench_escapes", HEAP, [m, count, reps], b)
                         for who, m, b in runs], ROUNDS)
        for who in ("now", "baseline"):
            if who + " loads" not in best:
                continue
            a, s = best[who + " loads"], best[who + " stream"]
            if isinstance(a, str) or isinstance(s, str):
                rows.append([count, who, a if isinstance(a, str) else s, "-", "-"])
                ok = ok and (a == "no baseline" or s == "no baseline")
                continue
            if int(a[1]["chars"]) != count or int(s[1]["chars"]) != count:
                raise SystemExit("wrong result: %r %r" % (a[1], s[1]))
            rows.append(["%d (%d KB)" % (count, 2 * count // 1024), who, "%.1f" % a[0],
                         "%.1f" % s[0], ratio(a[0], s[0])])
    table(["escapes", "jsonstream", "loads in RAM ms", "streamed ms", "RAM / streamed"], rows)
    print("goal: in RAM under %.0fx the streamed time at 16 KB" % GOAL)
    return ok
