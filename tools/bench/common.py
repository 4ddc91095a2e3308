"""Shared helpers for the host benchmarks: compile lib/ and the benchmark
scenarios to .mpy and run them on the MicroPython unix port."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build", "bench")
sys.path.insert(0, os.path.join(ROOT, "host_tests"))

import mpyrun  # noqa: E402


class Ctx:
    """Compiled tree + runner; created once by run.py for all benchmarks."""

    def __init__(self):
        self.micropython = mpyrun.tool("micropython")
        self.mpy = os.path.join(BUILD, "mpy")
        errors = mpyrun.compile_tree(mpyrun.LIB, os.path.join(self.mpy, "lib"))
        errors += mpyrun.compile_tree(os.path.join(HERE, "mp"), os.path.join(self.mpy, "scen"))
        errors += mpyrun.compile_tree(mpyrun.SCEN, os.path.join(self.mpy, "host"))
        if errors:
            raise SystemExit("mpy-cross failed: %r" % errors)
        self.build = BUILD

    def run(self, scenario, heap, args=(), timeout=600):
        """Run a scenario under -X heapsize=heap; return (rc, out, err, fields)
        where fields holds key=value pairs of RESULT/HEAPMON lines."""
        env = dict(os.environ)
        env["MICROPYPATH"] = ":".join(os.path.join(self.mpy, d) for d in ("lib", "scen", "host"))
        cmd = [self.micropython, "-X", "heapsize=%s" % heap, "-m", scenario] + [str(a) for a in args]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
        fields = {}
        for line in r.stdout.splitlines():
            if line.startswith("RESULT ") or line.startswith("HEAPMON "):
                for kv in line.split()[1:]:
                    k, _, v = kv.partition("=")
                    fields[k] = v
        return r.returncode, r.stdout, r.stderr, fields

    def min_heap(self, scenario, args, lo=4096, hi=256 << 20, hint=None):
        """Smallest -X heapsize (bytes, ~2% precision) at which the scenario
        succeeds; None if it fails even at hi. hint: a size near the answer
        (e.g. the measured peak) to start the search from."""
        if hint:
            h = hint + hint // 2 + 65536
            if h < hi and self.run(scenario, h, args)[0] == 0:
                hi = h
                if hint // 2 > lo and self.run(scenario, hint // 2, args)[0] != 0:
                    lo = hint // 2
        if self.run(scenario, hi, args)[0] != 0:
            return None
        while hi - lo > max(1024, lo // 50):
            mid = (lo + hi) // 2
            if self.run(scenario, mid, args)[0] == 0:
                hi = mid
            else:
                lo = mid
        return hi


def kb(n):
    return "-" if n is None else "%.1f KB" % (n / 1024)


def table(headers, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, headers))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join("%-*s" % (w, str(c)) for w, c in zip(widths, r)))
