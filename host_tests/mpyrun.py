"""Run scenario scripts under the real MicroPython unix port.

lib/ and the scenarios are compiled to .mpy first (host bytecode): compiling
.py sources under a small heap cap fails on the compiler's own memory, and on
the device lib/ is frozen bytecode anyway.

A scenario is host_tests/scenarios/<name>.py. It may `import heapmon` and call
`heapmon.start()` after its imports: from then on a sampler thread records
gc.mem_alloc() with a low gc.threshold, and `heapmon.report()` prints
"HEAPMON baseline=<bytes> peak=<bytes>" which the runner parses. The peak is
live data plus at most one threshold of garbage: an upper bound of the
working set, reported next to the hard cap given by -X heapsize.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB = os.path.join(ROOT, "lib")
SCEN = os.path.join(HERE, "scenarios")
BUILD = os.path.join(ROOT, "build", "mpy-host")
BIN = os.path.dirname(sys.executable)


def tool(name):
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else shutil.which(name)


def compile_tree(src, dst, march=None):
    """Compile every .py under src to .mpy under dst; return [(file, error)]."""
    mpy_cross = tool("mpy-cross")
    errors = []
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            out_dir = os.path.join(dst, rel)
            os.makedirs(out_dir, exist_ok=True)
            cmd = [mpy_cross]
            if march:
                cmd.append("-march=" + march)
            # -s keeps tracebacks short and paths stable across machines
            cmd += ["-s", os.path.join(rel, f) if rel != "." else f,
                    "-o", os.path.join(out_dir, f[:-3] + ".mpy"),
                    os.path.join(dirpath, f)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                errors.append((os.path.relpath(os.path.join(dirpath, f), ROOT),
                               (r.stderr or r.stdout).strip()))
    return errors


class Result:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err
        self.baseline = self.peak = None
        for line in out.splitlines():
            if line.startswith("HEAPMON "):
                kv = dict(p.split("=") for p in line.split()[1:])
                self.baseline = int(kv["baseline"])
                self.peak = int(kv["peak"])

    @property
    def working(self):
        """Peak heap above the post-import baseline, in bytes."""
        return self.peak - self.baseline

    def __repr__(self):
        return "<mpy rc=%d peak=%s>\n%s\n%s" % (self.rc, self.peak, self.out, self.err)


class Runner:
    def __init__(self):
        self.micropython = tool("micropython")
        shutil.rmtree(BUILD, ignore_errors=True)
        errors = compile_tree(LIB, os.path.join(BUILD, "lib"))
        errors += compile_tree(SCEN, os.path.join(BUILD, "scen"))
        if errors:
            raise RuntimeError("mpy-cross failed: %r" % errors)

    def path(self):
        return os.path.join(BUILD, "lib") + ":" + os.path.join(BUILD, "scen")

    def cmd(self, scenario, heap="64K", args=()):
        return [self.micropython, "-X", "heapsize=" + str(heap), "-m", scenario] + [
            str(a) for a in args]

    def env(self, extra=None):
        env = dict(os.environ)
        env["MICROPYPATH"] = self.path()
        if extra:
            env.update(extra)
        return env

    def run(self, scenario, heap="64K", args=(), timeout=120, env=None, cwd=None,
            input=None):
        """Run host_tests/scenarios/<scenario>.py under -X heapsize=<heap>."""
        r = subprocess.run(self.cmd(scenario, heap, args), capture_output=True,
                           text=True, timeout=timeout, env=self.env(env), cwd=cwd,
                           input=input)
        return Result(r.returncode, r.stdout, r.stderr)
