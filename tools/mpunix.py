"""The MicroPython the tests, `make sim` and the simulated board run: the
unix port of MicroPython v1.28.0 (the version the firmware targets), built
for 32 bits, so that its objects, pointers and GC blocks are the ESP32's
size, and configured like the ESP32 port (tools/antos32/: the variant).

    python tools/mpunix.py          build it once (about two minutes), print its path
    python tools/mpunix.py --path   print where it is (built or not)

Built into .venv/micropython-1.28.0-x86/ from, in this order: $MICROPY_SRC
(an unpacked MicroPython v1.28.0 tree, or its .tar.gz), the copy beside
this checkout (../shared/micropython/micropython-1.28.0-src.tar.gz), or a
shallow git clone of tag v1.28.0 with the two submodules it needs. It needs
a C compiler that makes 32-bit x86 programs: on Debian and Ubuntu the
package gcc-multilib, which this script installs with apt-get when it runs
as root (as CI does) and names otherwise.
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

VERSION = "1.28.0"
MARCH = "x86"           # mpy-cross -march for its native code (jsonstream's viper)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANT = os.path.join(ROOT, "tools", "antos32")
HOME = os.path.join(os.environ.get("VENV") or os.path.join(ROOT, ".venv"),
                    "micropython-%s-%s" % (VERSION, MARCH))
TARBALL = os.path.join(os.path.dirname(ROOT), "shared", "micropython",
                       "micropython-%s-src.tar.gz" % VERSION)
GIT = "https://github.com/micropython/micropython"


def path():
    """The interpreter's path (it may not be built yet: build())."""
    return os.path.join(HOME, "micropython")


def _say(msg):
    print("mpunix: " + msg, file=sys.stderr, flush=True)


def _cc32():
    """True when gcc makes and runs a 32-bit x86 program."""
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(src, "w") as f:
            f.write("#include <stdio.h>\nint main(void){return sizeof(void*) != 4;}\n")
        try:
            return subprocess.run(["gcc", "-m32", src, "-o", exe], capture_output=True).returncode == 0 \
                and subprocess.run([exe]).returncode == 0
        except OSError:
            return False


def _need_cc32():
    if _cc32():
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        _say("installing gcc-multilib (a C compiler for 32-bit x86) with apt-get")
        cmd = ["apt-get", "install", "-y", "-q", "gcc-multilib"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if subprocess.run(cmd, env=env).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env)
            subprocess.run(cmd, env=env)
        if _cc32():
            return
    sys.exit("mpunix: cannot build 32-bit programs: install gcc-multilib "
             "(sudo apt-get install gcc-multilib), then run make again")


def _source(work):
    """An unpacked MicroPython v1.28.0 tree under work (ours to change): its
    path."""
    src = os.environ.get("MICROPY_SRC") or (TARBALL if os.path.exists(TARBALL) else None)
    if src and os.path.isdir(src):
        tree = os.path.join(work, "micropython")
        shutil.copytree(src, tree, symlinks=True)
        return tree
    if src:
        _say("unpacking " + src)
        with tarfile.open(src) as t:
            t.extractall(work)
        return os.path.join(work, "micropython")
    _say("cloning MicroPython v%s from %s" % (VERSION, GIT))
    tree = os.path.join(work, "micropython")
    subprocess.run(["git", "clone", "-q", "--depth", "1", "-b", "v" + VERSION, GIT, tree], check=True)
    subprocess.run(["git", "-C", tree, "submodule", "update", "-q", "--init", "--depth", "1",
                    "lib/mbedtls", "lib/micropython-lib"], check=True)
    return tree


def _as_the_board(tree):
    """One change to the unix port's C, where the board behaves otherwise:
    a board's UART keeps what was typed ahead, while the unix port drops it
    each time its REPL switches the terminal's mode (tcsetattr TCSAFLUSH):
    what a person types while a line runs, or the Ctrl-A that brings the
    raw REPL back after a soft reset (tools/simboard.py), would be lost.
    TCSANOW keeps it."""
    path = os.path.join(tree, "ports", "unix", "unix_mphal.c")
    with open(path) as f:
        text = f.read()
    for mode in ("termios", "orig_termios"):
        old = "tcsetattr(0, TCSAFLUSH, &%s);" % mode
        if old not in text:
            sys.exit("mpunix: %s is not v%s's (no %r)" % (path, VERSION, old))
        text = text.replace(old, "tcsetattr(0, TCSANOW, &%s);" % mode)
    with open(path, "w") as f:
        f.write(text)


def build():
    """Build the interpreter unless it is there; its path."""
    exe = path()
    if os.path.exists(exe):
        return exe
    os.makedirs(os.path.dirname(HOME), exist_ok=True)
    import fcntl
    with open(HOME + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)       # parallel callers: one builds
        if os.path.exists(exe):
            return exe
        _need_cc32()
        _say("building the 32-bit MicroPython v%s unix port (once, about two minutes)" % VERSION)
        # (outside this checkout: the build names its version after the
        # git repository it finds itself in)
        work = tempfile.mkdtemp(prefix="mpunix-")
        try:
            tree = _source(work)
            _as_the_board(tree)
            jobs = "-j%d" % (os.cpu_count() or 2)
            quiet = {"stdout": subprocess.DEVNULL}
            subprocess.run(["make", "-C", os.path.join(tree, "mpy-cross"), jobs], check=True, **quiet)
            build_dir = os.path.join(work, "build")
            subprocess.run(["make", "-C", os.path.join(tree, "ports", "unix"), jobs,
                            "VARIANT_DIR=" + VARIANT, "BUILD=" + build_dir], check=True, **quiet)
            os.makedirs(HOME, exist_ok=True)
            shutil.copy(os.path.join(build_dir, "micropython"), exe + ".new")
            os.replace(exe + ".new", exe)
        except subprocess.CalledProcessError as e:
            sys.exit("mpunix: the build failed (%s)" % e)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        _say("built " + exe)
    return exe


if __name__ == "__main__":
    print(path() if sys.argv[1:] == ["--path"] else build())
