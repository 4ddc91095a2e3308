"""Run scenario scripts under the real MicroPython unix port.

The MicroPython is the unix port of v1.28.0 built for 32-bit x86 and
configured like the ESP32 port (tools/mpunix.py): objects, pointers and GC
blocks are the board's size. lib/ and the scenarios are compiled to .mpy
first (bytecode, and native code for it: -march=x86, as jsonstream's
@micropython.viper functions need an architecture; the firmware's are
built for xtensawin): compiling .py
sources under a small heap cap fails on the compiler's own memory, and on
the device lib/ is frozen anyway. Native code loaded from the ROM image runs
from memory the unix port maps outside the GC heap (on the board it runs
from flash), so it costs the heap what bytecode does: its function objects.

Frozen code, emulated. On the board lib/ is frozen: its bytecode, constants
and names (qstrs) are in flash, and an import costs the heap only its
function, class and module objects. Imported from plain .mpy files the unix
port would copy all bytecode into the GC heap (~90 KB for a chat round on
this 64-bit port) and intern every name into heap qstr pools (~11 KB for
the MCP loop), neither of which the board pays. So:
- lib/ and the scenarios are packed into a ROMFS image that scenarios/
  romboot.py loads into a bytearray (it plays the flash) and mounts with
  vfs.VfsRom: bytecode runs in place;
- romboot then interns every name and every str constant (up to 255
  bytes) that lib/'s .mpy files carry (the list is read from the compiled
  files, qstrs.txt), as the firmware holds the names in its static qstr
  table and the strings as objects in flash: a constant the loader finds
  interned costs no heap (about 8 KB of 32-byte string headers on the MCP
  loop's path were charged before);
- heap="64K" means 64 KB FREE once that is done: the runner measures, once
  per session, what the image, the names and romboot take (and the GC's
  tables for them) and adds it to -X heapsize (calibrate()).
- run() hands a scenario its arguments in the environment (ANTOS_ARGV;
  romboot puts them in sys.argv): the unix port interns argv as names,
  and long ones could make the names' pools at boot one pool larger than
  the calibration measured, a boot out of memory for one test only.
What remains charged is what the board pays too (on the ESP32 with 32-bit
objects about half as much): module, function and class objects, and
everything the code allocates; and some of what it does not: the loader's
record of each function (its raw code, in flash on the board), constant
tuples and bytes, and str constants longer than 255 bytes (a header each;
their text stays in the image). `frozen=False` runs with the raw unix-port
accounting (names interned on import, charged to the heap) for comparison.

The board as the firmware sets it up: romboot applies the firmware's GC
setting (compat.gc_policy, as firmware/boot.py does), and a board profile
(`board=`, default ANTOS_ESP32: boards/<BOARD>/profile.json) gives the
scenario its boardprofile module and its network budget: TLS connections
and sockets open at once are counted (scenarios/netcount.py) and a run
that holds more than the profile allows fails (BudgetError).

A scenario is host_tests/scenarios/<name>.py. It may `import heapmon` and call
`heapmon.start()` after its imports: from then on a sampler thread records
gc.mem_alloc(), and `heapmon.report()` prints "HEAPMON baseline=<bytes>
peak=<bytes> ..." which the runner parses. The peak is the heap in use (live
data and garbage not yet collected) under the firmware's GC setting; with
live=True the sampler has the GC collect every 1 KB, and the peak is live
data plus at most 1 KB: the working set, to compare (does it grow with
content?), never to judge a heap cap. r.imports is the baseline minus what
the emulated flash takes (the heap the scenario's imports keep).
"""
import atexit
import os
import re
import shutil
import tempfile
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from mpybuild import compile_tree  # noqa: E402
import boardprofile  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB = os.path.join(ROOT, "lib")
SCEN = os.path.join(HERE, "scenarios")
BUILD_ROOT = os.path.join(ROOT, "build")
BIN = os.path.dirname(sys.executable)


def tool(name):
    """A tool in .venv; "micropython" is the tests' MicroPython: v1.28.0
    built for 32 bits (tools/mpunix.py, built on first use)."""
    if name == "micropython":
        import mpunix
        return mpunix.build()
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else shutil.which(name)


def figure(name, board=boardprofile.DEFAULT):
    """A figure of a board's profile (boards/<BOARD>/profile.json), as the
    scenarios run by default see it (compat.board())."""
    return boardprofile.load(board)["figures"][name]


# The project's budget for what the library needs of the ANTOS_ESP32's GC
# heap (112 KB, boards/ANTOS_ESP32/profile.json): the board keeps PROGRAM
# of it for the user's own program, so every product scenario runs within
# GOAL; STRETCH is the stretch goal (tools/bench/MEASUREMENTS.md).
PROGRAM = 64 * 1024
GOAL = "%dK" % ((boardprofile.load()["figures"]["gc_heap"] - PROGRAM) // 1024)
STRETCH = "40K"


def parse_size(s):
    """64K -> 65536, 1M -> 1048576, 5000 -> 5000."""
    s = str(s).strip().upper()
    mult = {"K": 1024, "M": 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if mult > 1 else s) * mult


# object kinds in an .mpy constant table (py/persistentcode.h)
_OBJ_STR, _OBJ_BYTES, _OBJ_TUPLE = 5, 6, 10
_QSTR_MAX = 255      # longest qstr the unix port makes (one length byte)


def mpy_qstrs(path):
    """What an .mpy file interns or could find interned when loaded: its
    non-static qstrs (names) and its str constants. Format (mpy v6): 'M',
    version, flags, small-int bits; vuint n_qstr, vuint n_obj; per qstr a
    vuint (len << 1 | static) and, unless static, len bytes and a NUL; per
    object a kind byte, then for str, bytes, int, float and complex a
    vuint len and len bytes (str and bytes: and a NUL), for a tuple a
    vuint count and its objects."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:2] != b"M\x06":
        raise ValueError("%s: not an mpy v6 file" % path)

    def vuint(i):
        v = 0
        while True:
            c = b[i]
            i += 1
            v = (v << 7) | (c & 0x7F)
            if not c & 0x80:
                return v, i
    n, i = vuint(4)
    n_obj, i = vuint(i)
    out = []
    for _ in range(n):
        ln, i = vuint(i)
        if not ln & 1:
            ln >>= 1
            out.append(b[i:i + ln].decode())
            i += ln + 1

    def obj(i):
        kind = b[i]
        i += 1
        if kind == _OBJ_TUPLE:
            count, i = vuint(i)
            for _ in range(count):
                i = obj(i)
        elif kind >= _OBJ_STR:
            ln, i = vuint(i)
            if kind == _OBJ_STR and 0 < ln <= _QSTR_MAX:
                out.append(b[i:i + ln].decode())
            i += ln + (kind <= _OBJ_BYTES)
        return i
    for _ in range(n_obj):
        i = obj(i)
    return out


def tree_qstrs(folder):
    """Every name and str constant the .mpy files under folder intern."""
    names = set()
    for d, _, files in os.walk(folder):
        for f in files:
            if f.endswith(".mpy"):
                names.update(mpy_qstrs(os.path.join(d, f)))
    return names


def qstr_line(q):
    """One line of qstrs.txt: the text, or "=" and its UTF-8 in hex when it
    holds a line break or starts with "=" (romboot decodes it)."""
    if "\n" in q or "\r" in q or q.startswith("="):
        return "=" + q.encode().hex() + "\n"
    return q + "\n"


def romfs_image(folders):
    """A ROMFS image (the format vfs.VfsRom mounts) of every file in the
    folders, merged at its root."""
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
    for folder in folders:
        add(folder)
    return rom.finalise()


def _ahead():
    try:
        os.nice(-10)
    except OSError:     # (not root: as it is)
        pass


class BudgetError(AssertionError):
    """A scenario held more TLS connections or sockets at once than its
    board profile allows (scenarios/netcount.py)."""


class Result:
    def __init__(self, rc, out, err, boot=0):
        self.rc, self.out, self.err = rc, out, err
        self.boot = boot
        self.baseline = self.peak = self.gc = None
        self.tls_peak = self.sockets_peak = None
        self.budget = None      # the NETBUDGET line, when the board's was exceeded
        for line in err.splitlines():
            if line.startswith("NETPEAK "):
                kv = dict(p.split("=") for p in line.split()[1:])
                self.tls_peak, self.sockets_peak = int(kv["tls"]), int(kv["sockets"])
            elif line.startswith("NETBUDGET "):
                self.budget = line
        for line in out.splitlines():
            if line.startswith("HEAPMON "):
                kv = dict(p.split("=") for p in line.split()[1:])
                self.baseline = int(kv["baseline"])
                self.peak = int(kv["peak"])
                self.gc = kv.get("gc")

    @property
    def imports(self):
        """Heap kept by the scenario's imports (baseline minus the emulated
        flash)."""
        return self.baseline - self.boot

    @property
    def working(self):
        """Peak heap above the post-import baseline, in bytes."""
        return self.peak - self.baseline

    def __repr__(self):
        return "<mpy rc=%d peak=%s>\n%s\n%s" % (self.rc, self.peak, self.out, self.err)


class Runner:
    def __init__(self, extra=(), replace=None):
        """extra: more folders of scenarios (tools/bench/mp); replace:
        {module file name in lib/: another source for it} (the benchmark's
        baseline jsonstream)."""
        self.micropython = tool("micropython")
        # one folder per test session: parallel sessions must not share it
        os.makedirs(BUILD_ROOT, exist_ok=True)
        self.build = tempfile.mkdtemp(prefix="mpy-host-", dir=BUILD_ROOT)
        atexit.register(shutil.rmtree, self.build, True)
        # lib/ as the firmware freezes it (-O3, native code for this host);
        # scenarios keep their asserts
        errors = compile_tree(LIB, os.path.join(self.build, "lib"))
        for name, src in (replace or {}).items():
            tmp = os.path.join(self.build, "replace")
            os.makedirs(tmp, exist_ok=True)
            shutil.copy(src, os.path.join(tmp, name))
            errors += compile_tree(tmp, os.path.join(self.build, "lib"))
            shutil.rmtree(tmp)
        for folder in (SCEN,) + tuple(extra):
            errors += compile_tree(folder, os.path.join(self.build, "scen"), opt=0)
        # each board's profile module (as the firmware freezes it), at
        # boards/<BOARD>/boardprofile in the image: romboot puts the one
        # ANTOS_BOARD names on the path
        for board in boardprofile.names():
            src = os.path.join(self.build, "profiles", board)
            boardprofile.write_module(board, src)
            errors += compile_tree(src, os.path.join(self.build, "boards", "boards", board))
        if errors:
            raise RuntimeError("mpy-cross failed: %r" % errors)
        self.rom = os.path.join(self.build, "lib.rom")
        image = romfs_image([os.path.join(self.build, "lib"), os.path.join(self.build, "scen"),
                             os.path.join(self.build, "boards")])
        with open(self.rom, "wb") as f:
            f.write(image)
        self.rom_size = len(image)
        self.qstrs = os.path.join(self.build, "qstrs.txt")
        with open(self.qstrs, "w") as f:
            f.write("".join(qstr_line(q) for q in sorted(tree_qstrs(os.path.join(self.build, "lib")))))
        self.flash = {True: self.calibrate(True), False: self.calibrate(False)}

    def calibrate(self, frozen):
        """(slope, offset, boot): heapsize = offset + heap / slope leaves `heap`
        bytes free after romboot (image loaded, names interned when frozen);
        boot = gc.mem_alloc() at that point. Two sizes, as the GC's own
        tables grow with the heap."""
        pts = []
        # the names' pool doubles as lib/ gains names: room for it, doubled
        # until the boot fits (a few names more must not break the runner)
        names = 64 * 1024 if frozen else 0
        for extra in (64 * 1024, 256 * 1024):
            while True:
                total = self.rom_size + extra + names
                r = subprocess.run([self.micropython, "-X", "heapsize=%d" % total, "-m",
                                    "romboot", "--calibrate"], capture_output=True,
                                   text=True, timeout=60, env=self.env(frozen=frozen))
                m = re.search(r"CALIBRATE alloc=(\d+) free=(\d+)", r.stdout)
                if m:
                    break
                if not frozen or names > 1024 * 1024 or "MemoryError" not in r.stderr:
                    raise RuntimeError("romboot calibration failed: %s %s" % (r.stdout, r.stderr))
                names *= 2
            pts.append((total, int(m.group(1)), int(m.group(2))))
        (s1, a1, f1), (s2, _, f2) = pts
        slope = (f2 - f1) / float(s2 - s1)
        return slope, s1 - f1 / slope, a1

    def path(self):
        # .frozen: what the port freezes (asyncio...), as on the board
        return os.path.join(self.build, "lib") + ":" + os.path.join(self.build, "scen") + ":.frozen"

    def cmd(self, scenario, heap="64K", args=(), frozen=True):
        """The command line: `heap` is the heap left free after the emulated
        flash is in place (see the module docstring)."""
        slope, offset, _ = self.flash[frozen]
        total = int(offset + parse_size(heap) / slope) + 1
        return [self.micropython, "-X", "heapsize=%d" % total, "-m", "romboot",
                scenario] + [str(a) for a in args]

    def boot(self, frozen=True):
        """Heap in use once romboot has set up the emulated flash."""
        return self.flash[frozen][2]

    def env(self, extra=None, frozen=True, board=boardprofile.DEFAULT):
        env = dict(os.environ)
        env["MICROPYPATH"] = self.path()
        env["ANTOS_ROM"] = self.rom
        env.pop("ANTOS_BOARD", None)
        if board:
            env["ANTOS_BOARD"] = board
        env.pop("ANTOS_QSTRS", None)
        if frozen:
            env["ANTOS_QSTRS"] = self.qstrs
        if extra:
            env.update(extra)
        return env

    def working(self, scenario, **kw):
        """The working set of a scenario: a run of its own with live=True
        (made only to measure; a run with the firmware's GC judges the
        heap). Its Result; AssertionError if it failed."""
        r = self.run(scenario, live=True, **kw)
        if r.rc != 0 or r.peak is None:
            raise AssertionError("%s failed in its live run: %r" % (scenario, r))
        return r

    def smallest(self, fn, cap, floor=None):
        """Smallest heap (1K steps) at which fn(heap) passes, by bisection:
        fn(cap) is taken to pass; fn(floor) (default cap - 24K) is tried,
        and the floor lowered by 24K while it passes too."""
        hi = parse_size(cap) // 1024
        lo = parse_size(floor) // 1024 if floor else hi - 24
        while lo > 1 and fn("%dK" % lo):
            hi, lo = lo, max(lo - 24, 1)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if fn("%dK" % mid):
                hi = mid
            else:
                lo = mid
        return hi * 1024

    def run(self, scenario, heap="64K", args=(), timeout=120, env=None, cwd=None,
            input=None, frozen=True, board=boardprofile.DEFAULT, budget=True, live=False,
            ca=None, first=False):
        """Run host_tests/scenarios/<scenario>.py with `heap` bytes free, as
        on `board` (its profile module; its network budget enforced:
        BudgetError when the scenario held more TLS connections or sockets
        at once than the profile allows, unless budget is False). The GC
        runs as the firmware sets it; live=True has heapmon collect every
        1 KB while it samples, to measure the working set (live data), never
        to judge whether a heap is enough. ca: httpc.CA_FILE for the
        scenario (a test CA, host_tests/tlsfront.py). first=True: the
        process is run ahead of this machine's other work where it may be
        (nice -10, as root): a scenario that times its own loop (the asyncio
        ticker) measures the program, not a busy machine's other tests; a
        live run always is: its sampler thread, woken late on a busy
        machine, misses the peak (a 2 KB picture's working set read 8,800
        B beside its usual 9,936 under a loaded make test)."""
        first = first or live
        # the arguments go in the environment: the unix port interns argv as
        # names, and a long one could make the names' pools at boot grow by
        # one more than the calibration saw (a boot out of memory)
        env = dict(env or {}, ANTOS_ARGV="".join("\x1f" + str(a) for a in args))
        if live:
            env["ANTOS_HEAPMON"] = "live"
        if ca:
            env["ANTOS_CA"] = str(ca)
        r = subprocess.run(self.cmd(scenario, heap, (), frozen), capture_output=True,
                           text=True, timeout=timeout, env=self.env(env, frozen, board),
                           cwd=cwd, input=input, preexec_fn=_ahead if first else None)
        res = Result(r.returncode, r.stdout, r.stderr, self.boot(frozen))
        if budget and res.budget:
            raise BudgetError("%s: %s" % (scenario, res.budget))
        return res
