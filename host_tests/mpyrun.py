"""Run scenario scripts under the real MicroPython unix port.

lib/ and the scenarios are compiled to .mpy first (host bytecode): compiling
.py sources under a small heap cap fails on the compiler's own memory, and on
the device lib/ is frozen bytecode anyway.

Code in flash, not in the heap: on the board lib/ is frozen and its bytecode
stays in flash. Imported from plain .mpy files, the unix port would copy it
all into the GC heap (about twice the .mpy size on a 64-bit host, ~90 KB for
a chat round), which the board never pays. So lib/ is packed into a ROMFS
image that scenarios mount with vfs.VfsRom (see scenarios/romboot.py):
bytecode runs in place and only the per-import structures (qstrs, function
and module objects) use the heap, still more than the ESP32 spends on them.
The image is loaded into a bytearray first and run() adds its size to
-X heapsize, so `heap="64K"` means 64 KB for everything but the code image.

A scenario is host_tests/scenarios/<name>.py. It may `import heapmon` and call
`heapmon.start()` after its imports: from then on a sampler thread records
gc.mem_alloc() with a low gc.threshold, and `heapmon.report()` prints
"HEAPMON baseline=<bytes> peak=<bytes>" which the runner parses. The peak is
live data plus at most one threshold of garbage: an upper bound of the
working set, reported next to the hard cap given by -X heapsize.
"""
import atexit
import os
import shutil
import tempfile
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from mpybuild import compile_tree  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB = os.path.join(ROOT, "lib")
SCEN = os.path.join(HERE, "scenarios")
BUILD_ROOT = os.path.join(ROOT, "build")
BIN = os.path.dirname(sys.executable)


def tool(name):
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else shutil.which(name)


def parse_size(s):
    """64K -> 65536, 1M -> 1048576, 5000 -> 5000."""
    s = str(s).strip().upper()
    mult = {"K": 1024, "M": 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if mult > 1 else s) * mult


def romfs_image(folder):
    """A ROMFS image (the format vfs.VfsRom mounts) of every file in folder."""
    from mpremote.romfs import VfsRomWriter
    rom = VfsRomWriter()

    def add(d):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isdir(p):
                rom.opendir(name)
                add(p)
                rom.closedir()
            else:
                with open(p, "rb") as f:
                    rom.mkfile(name, f.read())
    add(folder)
    return rom.finalise()


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
        # one folder per test session: parallel sessions must not share it
        os.makedirs(BUILD_ROOT, exist_ok=True)
        self.build = tempfile.mkdtemp(prefix="mpy-host-", dir=BUILD_ROOT)
        atexit.register(shutil.rmtree, self.build, True)
        # lib/ as the firmware freezes it (-O3); scenarios keep their asserts
        errors = compile_tree(LIB, os.path.join(self.build, "lib"))
        errors += compile_tree(SCEN, os.path.join(self.build, "scen"), opt=0)
        if errors:
            raise RuntimeError("mpy-cross failed: %r" % errors)
        self.rom = os.path.join(self.build, "lib.rom")
        image = romfs_image(os.path.join(self.build, "lib"))
        with open(self.rom, "wb") as f:
            f.write(image)
        self.rom_size = len(image)

    def path(self):
        return os.path.join(self.build, "lib") + ":" + os.path.join(self.build, "scen")

    def cmd(self, scenario, heap="64K", args=()):
        """The command line: `heap` is the heap left besides the code image."""
        total = parse_size(heap) + self.rom_size
        return [self.micropython, "-X", "heapsize=%d" % total, "-m", "romboot",
                scenario] + [str(a) for a in args]

    def env(self, extra=None):
        env = dict(os.environ)
        env["MICROPYPATH"] = self.path()
        env["ANTOS_ROM"] = self.rom
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
