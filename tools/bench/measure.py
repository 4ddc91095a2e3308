"""Measure, and write tools/bench/MEASUREMENTS.md (`make measure`).

    .venv/bin/python tools/bench/measure.py [--jobs N] [--no-bench] [pytest args...]

1. The MicroPython tests (pytest -m micropython) run with --measure: where
   a test asserts a heap cap it also bisects the smallest heap at which
   its scenario passes and records it with the figures it measured
   (host_tests/conftest.py: Measure), one JSON line each.
2. `make bench` (tools/bench/run.py) runs and its report is kept as it
   printed it.
3. lib/ is compiled as `make mpy` compiles it, for the frozen size.
4. MEASUREMENTS.md is written from these: nothing in it is typed by hand
   (the prose around the tables is this file's). The figures of a run on
   a shared 2-core machine move by 1-2K from run to run.
"""
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "MEASUREMENTS.md")
RECORDS = os.path.join(ROOT, "build", "measure", "records.jsonl")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "host_tests"))
import boardprofile  # noqa: E402
import mpybuild  # noqa: E402
from mpyrun import GOAL, PROGRAM, STRETCH, parse_size  # noqa: E402

BOARD_HEAP = boardprofile.load()["figures"]["gc_heap"]

INTRO = """# Measurements

Written by `make measure` (tools/bench/measure.py) on {date}, from the tree
at git {rev}, on the MicroPython unix port: do not edit by hand, run it
again. The MicroPython is v1.28.0 built for 32 bits ({machine} host) and
configured like the ESP32 port (tools/mpunix.py), so objects, pointers and
GC blocks are the board's size: these are the ESP32's figures, a little
above them where the unix port still keeps in the heap what the board
keeps in flash (each function's loader record, constant tuples and bytes).
How the tests measure: [the test suite](../../host_tests/README.md).

Every heap below is the heap left free once the emulated flash is in
place, with the GC as the firmware sets it (`compat.gc_policy`: a
collection each time a quarter of the free heap has been allocated) and
the ANTOS_ESP32 board's network budget (one TLS connection moving data,
four sockets at once). *needs* is the smallest heap at which the scenario
passes (bisected in 1K steps; it moves by 1-2K from run to run on a busy
machine), *cap* the heap its test asserts (needs plus 3-4K), *left* what
the scenario leaves of the ANTOS_ESP32's {board} GC heap for a program of
the user's own (the board's heap less what it needs), *goal* the budget
the project promises; *imports* is the heap
a scenario's imports keep and *working* its working set, live data
measured in a run of its own whose sampler collects every 1 KB, or, where
a scenario knows where its peak is (a piece in hand: the MCP picture
row), after a collect at each such point (a heap is never judged that
way).
"""

PRODUCT = """## The board's budget

The ANTOS_ESP32 has {board} of GC heap; the board keeps {program} of it for
the user's own program, so each of the product's scenarios must run
within {goal} (the stretch goal: {stretch}). Each scenario's test runs it
at its cap and `make measure` bisects what it needs:
"""

TITLES = {
    "heap": "Smallest heap per scenario",
    "working": "Working sets against content size",
    "imports": "Import costs",
}


def run_tests(jobs, extra):
    os.makedirs(os.path.dirname(RECORDS), exist_ok=True)
    if os.path.exists(RECORDS):
        os.remove(RECORDS)
    cmd = [sys.executable, "-m", "pytest", os.path.join(ROOT, "host_tests"), "-m", "micropython",
           "-q", "-p", "no:cacheprovider", "--measure", RECORDS]
    if jobs > 1:
        cmd += ["-n", str(jobs)]
    print("measure: " + " ".join(cmd[2:]), flush=True)
    return subprocess.run(cmd + list(extra), cwd=ROOT).returncode


def run_bench():
    print("measure: make bench", flush=True)
    # stdout is kept for the document; stderr (a benchmark that crashed)
    # goes to the terminal as it comes
    r = subprocess.run([sys.executable, os.path.join(HERE, "run.py")], cwd=ROOT,
                       stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    return r.returncode, r.stdout


def frozen_size():
    """[(module, bytes)] of lib/ compiled as `make mpy` does (xtensawin), or
    None when a module does not compile."""
    out = os.path.join(ROOT, "build", "measure", "xtensawin")
    errors = mpybuild.compile_tree(mpybuild.LIB, out, "xtensawin")
    mpybuild.remove_stale(mpybuild.LIB, out)
    for f, e in errors:
        print("measure: %s: %s" % (f, e), file=sys.stderr)
    return None if errors else mpybuild.sizes(out)


def cell(v):
    if isinstance(v, int) and v >= 1024:
        return "%.1f KB" % (v / 1024)
    return str(v)


def kb(n):
    return "%dK" % (n // 1024)


def tables(records):
    """{table: [(row, {figure: value})]} in the order first seen, rows
    sorted by name (the tests run in parallel)."""
    out = {}
    for r in records:
        out.setdefault(r["table"], {})[r["row"]] = r["figures"]
    return {t: sorted(rows.items()) for t, rows in out.items()}


def heap_figures(figs):
    """A heap row's figures in the table's order: needs, cap, left for a
    program, goal, then the rest as recorded (a reason last)."""
    out = {}
    if "smallest" in figs:
        out["needs"] = figs["smallest"]
        out["cap"] = figs.get("cap", "")
        out["left"] = kb(BOARD_HEAP - parse_size(figs["smallest"]))
        out["goal"] = figs.get("goal", "")
    for k, v in figs.items():
        if k not in ("smallest", "cap", "goal", "why"):
            out[k] = v
    if figs.get("why"):
        out["why"] = figs["why"]
    return out


def product(rows):
    """The table of the product's scenarios (heap rows with a goal): what
    each needs against the goal and the stretch goal."""
    lines = [PRODUCT.format(board=kb(BOARD_HEAP), program=kb(PROGRAM), goal=GOAL,
                            stretch=STRETCH)]
    lines.append("| scenario | needs | left for a program | within %s | within %s | cap | why |"
                 % (GOAL, STRETCH))
    lines.append("|---|---|---|---|---|---|---|")
    for row, figs in rows:
        if not figs.get("goal") or "smallest" not in figs:
            continue
        need = parse_size(figs["smallest"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            row, figs["smallest"], kb(BOARD_HEAP - need),
            "yes" if need <= parse_size(figs["goal"]) else "**no**",
            "yes" if need <= parse_size(STRETCH) else "no", figs.get("cap", ""),
            figs.get("why", "")))
    lines.append("")
    return lines


def render(records, bench, date, rev, frozen=None):
    lines = [INTRO.format(date=date, rev=rev, machine=platform.machine(), board=kb(BOARD_HEAP))]
    if frozen:
        total = sum(n for _, n in frozen)
        big = sorted(frozen, key=lambda r: -r[1])[:5]
        lines.append("## Frozen size\n")
        lines.append("`make mpy` (xtensawin, -O%d, CPython's branches folded away): %s bytes "
                     "of .mpy in %d modules; the budget is %s (%.1f KB left). The largest: %s.\n"
                     % (mpybuild.OPT, "{:,}".format(total), len(frozen), "{:,}".format(mpybuild.BUDGET),
                        (mpybuild.BUDGET - total) / 1024.0,
                        ", ".join("%s %s" % (m, "{:,}".format(n)) for m, n in big)))
    found = tables(records)
    if any(figs.get("goal") for _, figs in found.get("heap", ())):
        lines += product(found["heap"])
    for name, rows in found.items():
        if name == "heap":
            rows = [(row, heap_figures(figs)) for row, figs in rows]
        cols = []
        for _, figs in rows:
            for k in figs:
                if k not in cols:
                    cols.append(k)
        if "why" in cols:       # (the reasons last)
            cols.remove("why")
            cols.append("why")
        lines.append("## %s\n" % TITLES.get(name, name))
        lines.append("| scenario | " + " | ".join(cols) + " |")
        lines.append("|---|" + "---|" * len(cols))
        for row, figs in rows:
            lines.append("| %s | %s |" % (row, " | ".join(cell(figs.get(c, "")) for c in cols)))
        lines.append("")
    if bench:
        lines.append("## make bench\n")
        lines.append("As `make bench` printed it in the same run:\n")
        lines.append("```")
        lines.append(bench.rstrip())
        lines.append("```")
        lines.append("")
    return "\n".join(lines)


def main(argv):
    jobs, bench, extra = 3, True, []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--jobs" and args:
            jobs = int(args.pop(0))
        elif a == "--no-bench":
            bench = False
        else:
            extra.append(a)
    rc = run_tests(jobs, extra)
    records = []
    if os.path.exists(RECORDS):
        with open(RECORDS) as f:
            records = [json.loads(line) for line in f if line.strip()]
    out = ""
    if bench:
        brc, out = run_bench()
        rc = rc or brc
    frozen = frozen_size()
    rc = rc or frozen is None
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "?"
    text = render(records, out, datetime.date.today().isoformat(), rev, frozen)
    with open(OUT, "w") as f:
        f.write(text)
    print("measure: %d figures written to %s%s" % (
        len(records), os.path.relpath(OUT, ROOT), "" if rc == 0 else " (some runs failed: see above)"))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
