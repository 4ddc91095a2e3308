"""Compile lib/ to .mpy with mpy-cross, as the firmware freezes it.

    python tools/mpybuild.py [--march xtensawin] [--out build/xtensawin] [--quiet]

Options match firmware/manifest.py: -O3 (no line-number tables), and the
CPython-only branches folded away (fold() below). Without
--march (or with --march host) the native code (jsonstream's
@micropython.viper functions) is built for the MicroPython the tools run
(tools/mpunix.py: the unix port built for 32-bit x86); bytecode is the
same for every -march. Prints
one line per module with its size, then the total against
the frozen-size budget. Exit status 1 names every file that fails.

Runs at once into the same --out (make deploy to two boards) do not break
each other: each .mpy appears whole (written aside, then renamed), and
only files whose source is gone are removed."""
import ast
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
OPT = 3                      # firmware/manifest.py freezes with opt=3
BUDGET = 288 * 1024          # flash the frozen lib/ may take: the 4 MB table's
                             # app partition (1,984 KiB) leaves ~300 KB above a
                             # stock build (256 KB until schemas and files came)


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


def fold(text):
    """text with each `if MICROPYTHON:` made `if True:` and each
    `if not MICROPYTHON:` made `if False:`, or None when it has neither.
    Code under lib/ is compiled only for MicroPython, and its compiler drops
    the branch a constant test never takes, so the CPython half of a module
    costs no flash (nor heap, loaded from a .mpy). Only the test's text
    changes: line numbers and everything else stay as written."""
    words = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.If):
            continue
        t = node.test
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            t, word = t.operand, "False"
        else:
            word = "True"
        if isinstance(t, ast.Name) and t.id == "MICROPYTHON":
            words.append((node.test, word))
    if not words:
        return None
    lines = text.splitlines(True)
    for t, word in sorted(words, key=lambda w: (w[0].lineno, w[0].col_offset), reverse=True):
        line = lines[t.lineno - 1].encode()     # the offsets count UTF-8 bytes
        lines[t.lineno - 1] = (line[:t.col_offset] + word.encode()
                               + line[t.end_col_offset:]).decode()
    return "".join(lines)


def _write_whole(path, data):
    """Replace path with data; a reader sees the old file or the new one."""
    aside = "%s.%d.tmp" % (path, os.getpid())
    with open(aside, "w", encoding="utf-8") as f:
        f.write(data)
    os.replace(aside, path)


def compile_tree(src, dst, march="host", opt=OPT):
    """Compile every .py under src, folded (fold()), to .mpy under dst,
    each file replaced whole (a reader never sees it half written); return
    [(file, error)]. march "host": for the tools' MicroPython."""
    tool = mpy_cross()
    if march == "host":
        from mpunix import MARCH as march
    errors = []
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            out_dir = os.path.join(dst, rel)
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(dirpath, f)
            out = os.path.join(out_dir, f[:-3] + ".mpy")
            aside = "%s.%d.tmp" % (out, os.getpid())
            try:
                with open(path, encoding="utf-8") as fh:
                    folded = fold(fh.read())
            except (SyntaxError, ValueError):
                folded = None           # mpy-cross names the error below
            if folded is not None:     # (outside dst: deploy copies dst)
                fd, path = tempfile.mkstemp(suffix=".py")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(folded)
            # -s: short, machine-independent source names in tracebacks
            cmd = [tool, "-O%d" % opt, "-march=" + march,
                   "-s", f if rel == "." else os.path.join(rel, f), "-o", aside, path]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if folded is not None:
                os.remove(path)
            if r.returncode:
                errors.append((os.path.relpath(os.path.join(dirpath, f), ROOT),
                               (r.stderr or r.stdout).strip()))
                if os.path.exists(aside):
                    os.remove(aside)
            else:
                os.replace(aside, out)
    return errors


def folded_tree(src, dst):
    """A copy of the .py files under src in dst, folded (fold()), for
    firmware/manifest.py to freeze; files whose source is gone are removed.
    Returns dst."""
    for dirpath, _, files in os.walk(src):
        out_dir = os.path.join(dst, os.path.relpath(dirpath, src))
        os.makedirs(out_dir, exist_ok=True)
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    text = fh.read()
                _write_whole(os.path.join(out_dir, f), fold(text) or text)
    for dirpath, _, files in os.walk(dst):
        for f in files:
            if not os.path.exists(os.path.join(src, os.path.relpath(dirpath, dst), f)):
                os.remove(os.path.join(dirpath, f))
    return dst


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
