"""Compile lib/ to .mpy with mpy-cross, as the firmware freezes it.

    python tools/mpybuild.py [--march xtensawin] [--out build/xtensawin] [--quiet]

Options match firmware/manifest.py: -O3 (no line-number tables). Without
--march the native code (jsonstream's @micropython.viper functions) is built
for the machine mpy-cross runs on (-march=host), which is what the
MicroPython unix port runs; bytecode is the same for every -march. Prints
one line per module with its size, then the total against
the frozen-size budget. Exit status 1 names every file that fails.

Runs at once into the same --out (make deploy to two boards) do not break
each other: each .mpy appears whole (written aside, then renamed), and
only files whose source is gone are removed."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
OPT = 3                      # firmware/manifest.py freezes with opt=3
BUDGET = 256 * 1024          # flash the frozen lib/ may take: the 4 MB partition
                             # table leaves ~300 KB above a stock build


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


def compile_tree(src, dst, march="host", opt=OPT):
    """Compile every .py under src to .mpy under dst, each file replaced
    whole (a reader never sees it half written); return [(file, error)]."""
    tool = mpy_cross()
    errors = []
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            out_dir = os.path.join(dst, rel)
            os.makedirs(out_dir, exist_ok=True)
            cmd = [tool, "-O%d" % opt, "-march=" + march]
            # -s: short, machine-independent source names in tracebacks
            out = os.path.join(out_dir, f[:-3] + ".mpy")
            aside = "%s.%d.tmp" % (out, os.getpid())
            cmd += ["-s", f if rel == "." else os.path.join(rel, f),
                    "-o", aside, os.path.join(dirpath, f)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                errors.append((os.path.relpath(os.path.join(dirpath, f), ROOT),
                               (r.stderr or r.stdout).strip()))
                if os.path.exists(aside):
                    os.remove(aside)
            else:
                os.replace(aside, out)
    return errors


def remove_stale(src, dst):
    """Remove the .mpy files under dst whose .py under src is gone."""
    for dirpath, _, files in os.walk(dst):
        rel = os.path.relpath(dirpath, dst)
        for f in files:
            if f.endswith(".mpy") and not os.path.exists(
                    os.path.join(src, rel, f[:-4] + ".py")):
                os.remove(os.path.join(dirpath, f))


def sizes(out):
    """[(module path relative to out, bytes)], sorted by path."""
    rows = []
    for d, _, fs in os.walk(out):
        for f in fs:
            if f.endswith(".mpy"):
                p = os.path.join(d, f)
                rows.append((os.path.relpath(p, out).replace(os.sep, "/"),
                             os.path.getsize(p)))
    return sorted(rows)


def main(argv):
    march, out, quiet = "host", os.path.join(ROOT, "build", "mpy"), False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--march" and args:
            march = args.pop(0)
        elif a == "--out" and args:
            out = args.pop(0)
        elif a == "--quiet":
            quiet = True
        else:
            print("usage: mpybuild.py [--march ARCH] [--out DIR] [--quiet]", file=sys.stderr)
            return 2
    errors = compile_tree(LIB, out, march)
    remove_stale(LIB, out)
    for f, e in errors:
        print("%s: %s" % (f, e), file=sys.stderr)
    if errors:
        return 1
    rows = sizes(out)
    total = sum(n for _, n in rows)
    if not quiet:
        width = max(len(p) for p, _ in rows)
        for p, n in rows:
            print("%s %7d" % (p.ljust(width), n))
        print("%s %7d  (%d modules; budget %d, %.1f KB left)" % (
            "total".ljust(width), total, len(rows), BUDGET, (BUDGET - total) / 1024.0))
    print("compiled lib/ -> %s (%s, -O%d, %d bytes of .mpy)" % (
        out, march, OPT, total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
