"""Compile lib/ to .mpy with mpy-cross.

    python tools/mpybuild.py [--march xtensawin] [--out build/xtensawin]

Without --march the output is host bytecode (what the tests run under the
MicroPython unix port). Exit status 1 names every file that fails."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


def compile_tree(src, dst, march=None):
    """Compile every .py under src to .mpy under dst; return [(file, error)]."""
    tool = mpy_cross()
    errors = []
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            out_dir = os.path.join(dst, rel)
            os.makedirs(out_dir, exist_ok=True)
            cmd = [tool] + (["-march=" + march] if march else [])
            # -s: short, machine-independent source names in tracebacks
            cmd += ["-s", f if rel == "." else os.path.join(rel, f),
                    "-o", os.path.join(out_dir, f[:-3] + ".mpy"),
                    os.path.join(dirpath, f)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                errors.append((os.path.relpath(os.path.join(dirpath, f), ROOT),
                               (r.stderr or r.stdout).strip()))
    return errors


def main(argv):
    march, out = None, os.path.join(ROOT, "build", "mpy")
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--march":
            march = args.pop(0)
        elif a == "--out":
            out = args.pop(0)
        else:
            print("usage: mpybuild.py [--march ARCH] [--out DIR]")
            return 2
    shutil.rmtree(out, ignore_errors=True)
    errors = compile_tree(LIB, out, march)
    for f, e in errors:
        print("%s: %s" % (f, e))
    if errors:
        return 1
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print("compiled lib/ -> %s (%s, %d bytes of .mpy)" % (out, march or "host", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
