"""Shared helpers for the host benchmarks: the MicroPython unix port with
lib/ as the board has it (host_tests/mpyrun.py: a ROM image plays the flash,
`heap` is what is free after it), the benchmark scenarios of tools/bench/mp,
and the same run against the baseline jsonstream (main's before issue 17,
from git) so that old and new are measured side by side in one run."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build", "bench")
sys.path.insert(0, os.path.join(ROOT, "host_tests"))

import mpyrun  # noqa: E402

BASELINE = "7114c8a"  # jsonstream.py of main before issue 17 (the native walker)


def tree_runner(lib, extra=()):
    """A scenario runner for the lib/ folder `lib` (an older tree's too)."""
    keep = mpyrun.LIB
    mpyrun.LIB = lib
    try:
        return mpyrun.Runner(extra=extra)
    finally:
        mpyrun.LIB = keep


def before_lib(build, commit):
    """lib/ of an earlier commit, extracted from git into build once; None
    without git or that commit."""
    out = os.path.join(build, "before-" + commit)
    if not os.path.isdir(os.path.join(out, "lib")):
        os.makedirs(out, exist_ok=True)
        try:
            arc = subprocess.run(["git", "-C", ROOT, "archive", commit, "lib"],
                                 capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", out], input=arc, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
    return os.path.join(out, "lib")


class Ctx:
    """Runners for lib/ as it is and with the baseline jsonstream; created
    once by run.py for all benchmarks. Scenarios run with build/bench as
    their folder (the data files; no stray .mpy shadows the ROM)."""

    def __init__(self):
        os.makedirs(BUILD, exist_ok=True)
        self.build = BUILD
        extra = (os.path.join(HERE, "mp"),)
        self.runner = mpyrun.Runner(extra=extra)
        self.base = None
        src = os.path.join(BUILD, "jsonstream_base.py")
        r = subprocess.run(["git", "-C", ROOT, "show", BASELINE + ":lib/jsonstream.py"],
                           capture_output=True)
        if r.returncode == 0:
            with open(src, "wb") as f:
                f.write(r.stdout)
            self.base = mpyrun.Runner(extra=extra, replace={"jsonstream.py": src})
        else:
            print("baseline jsonstream (git %s) not available: %s" % (BASELINE, r.stderr.decode().strip()))

    def run(self, scenario, heap, args=(), base=False, timeout=600, frozen=True):
        """Run a scenario with `heap` bytes free; return (rc, out, err, fields)
        where fields holds key=value pairs of RESULT/HEAPMON lines.
        frozen=False: lib's names are not interned up front (the plain
        port; see mpyrun)."""
        runner = self.base if base else self.runner
        r = runner.run(scenario, heap=heap, args=args, timeout=timeout, cwd=BUILD, frozen=frozen)
        fields = {}
        for line in r.out.splitlines():
            if line.startswith("RESULT ") or line.startswith("HEAPMON "):
                for kv in line.split()[1:]:
                    k, _, v = kv.partition("=")
                    fields[k] = v
        return r.rc, r.out, r.err, fields

    def min_heap(self, scenario, args, base=False, hint=None, lo=4096, hi=256 << 20):
        """Smallest free heap (bytes, 1 KB or ~2% precision) with which the
        scenario succeeds; None if it fails even at hi. hint: a size near
        the answer (e.g. the measured peak) to start from."""
        def ok(h):
            return self.run(scenario, h, args, base)[0] == 0
        if hint:
            h = hint + hint // 2 + 16384
            if h < hi and ok(h):
                hi = h
                if hint // 2 > lo and not ok(hint // 2):
                    lo = hint // 2
        if not ok(hi):
            return None
        while hi - lo > max(1024, lo // 50):
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi

    def best(self, runs, rounds):
        """Time several methods side by side: `rounds` rounds, each running
        every (name, scenario, heap, args, base[, frozen]) of runs once (in
        turn, so a busy machine slows them alike); the best ms of each, or
        the error of one that failed."""
        best = {}
        for _ in range(rounds):
            for run in runs:
                name, scenario, heap, args, base = run[:5]
                if base and self.base is None:
                    best[name] = "no baseline"
                    continue
                rc, out, err, f = self.run(scenario, heap, args, base, frozen=run[5] if len(run) > 5 else True)
                if rc != 0:
                    best[name] = "FAILED " + (err or out).strip()[-60:]
                    continue
                ms = float(f["best_ms"])
                old = best.get(name)
                if not isinstance(old, str) and (old is None or ms < old[0]):
                    best[name] = (ms, f)
        return best


def kb(n):
    return "-" if n is None else "%.0fK" % (n / 1024.0)


def ratio(a, b):
    return "-" if a is None or b is None or not b else "%.2f" % (a / float(b))


def table(headers, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, headers))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w, str(c)) for w, c in zip(widths, r)))
