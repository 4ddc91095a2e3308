"""Host benchmarks on the MicroPython unix port (`make bench`).

Each benchmark is a module tools/bench/bench_<name>.py with run(ctx) ->
bool; add new ones to BENCHMARKS. ctx (common.Ctx) runs the scenarios of
tools/bench/mp/ on the MicroPython unix port with lib/ as the board has it
(host_tests/mpyrun.py), and again with the baseline jsonstream.
Usage: .venv/bin/python tools/bench/run.py [name ...]
"""
import importlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Ctx  # noqa: E402

BENCHMARKS = ["json", "chat", "socket", "escapes", "write", "mem", "server", "stream", "aio", "files"]


def main(argv):
    names = argv or BENCHMARKS
    ctx = Ctx()
    ok = True
    for name in names:
        mod = importlib.import_module("bench_" + name)
        print("== %s: %s" % (name, (mod.__doc__ or "").strip().splitlines()[0]))
        t0 = time.time()
        ok = mod.run(ctx) and ok
        print("(%.1f s)\n" % (time.time() - t0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
