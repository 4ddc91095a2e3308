"""Copy what the board needs onto its filesystem with mpremote.

    python tools/deploy.py [--port auto] [--ca build/certs/ca.der] [--lib]
                           [--no-reset] [--dry-run]

What goes where (one mpremote call, steps joined with "+"):
    firmware/boot.py   -> :/boot.py       WiFi + clock at every boot
    firmware/main.py   -> :/main.py       starts the console
    build/certs/ca.der -> :/certs/ca.der  httpc.CA_FILE (make certs builds it)
    --lib: lib/ compiled with `tools/mpybuild.py --march xtensawin` -> :/lib
then a hard reset so boot.py and main.py run. Directories are made by a
one-line `exec` (idempotent; mpremote's mkdir fails on an existing one).
mpremote's cp skips a file whose SHA-256 already matches on the board.

--dry-run prints the commands (run from the repository root) instead of
running them; tests use it, and so can a person without a board.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
DEFAULT_CA = os.path.join(ROOT, "build", "certs", "ca.der")
LIB_BUILD = os.path.join(ROOT, "build", "deploy-lib")
DEVICE_CA = "/certs/ca.der"     # httpc.CA_FILE on the device

HELP_LIB = (
    "also copy lib/ compiled for xtensawin (.mpy, mpy 6.3: MicroPython 1.23 or "
    "newer) into /lib. Only for boards flashed with STOCK MicroPython: on esp32 "
    "sys.path is ['', '.frozen', '/lib'], so files in /lib never override the "
    "modules frozen into our firmware. Bytecode loaded from /lib lives in RAM "
    "(~120 KB for all of lib/): fine with PSRAM (ESP32-S3), too much for an "
    "ESP32 without PSRAM -- flash our firmware there instead.")

NOT_RAW = (
    "deploy: mpremote could not talk to the board. If the AntOS console is "
    "running on it, leave it first: `%s connect %s repl`, type py (or Ctrl-D "
    "on an empty line), quit with Ctrl-], then deploy again. Otherwise check "
    "the cable and --port (`%s connect list`).")


def mpremote():
    here = os.path.join(ROOT, ".venv", "bin", "mpremote")
    if os.path.exists(here):
        return here
    return shutil.which("mpremote") or here


def show(path):
    """A path as printed: relative to the repository root when inside it."""
    path = os.path.abspath(path)
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def lib_files():
    """[(device path, local .mpy path)] for every lib/ module, and the sorted
    device directories they need (parents first)."""
    files, dirs = [], set(["/lib"])
    for d, subdirs, names in os.walk(LIB):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
        rel = os.path.relpath(d, LIB)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            mpy = n[:-3] + ".mpy"
            dev = "/lib/" + (rel + "/" if rel else "") + mpy
            files.append((dev, os.path.join(LIB_BUILD, rel, mpy)))
            if rel:
                parts = rel.split("/")
                for i in range(len(parts)):
                    dirs.add("/lib/" + "/".join(parts[:i + 1]))
    return files, sorted(dirs, key=lambda p: (p.count("/"), p))


def mkdirs_code(dirs):
    """One line of MicroPython that makes dirs (parents listed first) unless
    they exist: checked with os.listdir of the parent, so no try/except and
    no newline is needed in the exec argument."""
    return ('import os;[os.mkdir(d) for d in (%s,) if d.rsplit("/",1)[1] not in '
            'os.listdir(d.rsplit("/",1)[0] or "/")]' % ", ".join('"%s"' % d for d in dirs))


def commands(port="auto", ca=DEFAULT_CA, lib=False, reset=True, tool=None):
    """The argv lists deploy runs, in order."""
    tool = tool or mpremote()
    cmds = []
    if lib:
        cmds.append([sys.executable, os.path.join(ROOT, "tools", "mpybuild.py"),
                     "--march", "xtensawin", "--out", LIB_BUILD])
    dirs = ["/certs"]
    copies = [(os.path.join(ROOT, "firmware", "boot.py"), "/boot.py"),
              (os.path.join(ROOT, "firmware", "main.py"), "/main.py"),
              (ca, DEVICE_CA)]
    if lib:
        files, ldirs = lib_files()
        dirs += ldirs
        copies += [(local, dev) for dev, local in files]
    argv = [tool, "connect", port, "exec", mkdirs_code(dirs)]
    for local, dev in copies:
        argv += ["+", "cp", local, ":" + dev]
    if reset:
        argv += ["+", "reset"]
    cmds.append(argv)
    return cmds


def printable(argv):
    """shlex-quoted, with paths inside the repository made relative to it
    (the printed commands are meant to be run from the repository root);
    an mpremote chain is broken into one line per step."""
    out = []
    for a in argv:
        if os.path.isabs(a) and a.startswith(ROOT + os.sep):
            a = show(a)
        out.append("\\\n  +" if a == "+" else shlex.quote(a))
    return " ".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="deploy.py",
        description="Copy boot.py, main.py and the CA bundle (and with --lib the "
                    "compiled library) to an ESP32 running MicroPython, with mpremote.")
    p.add_argument("--port", default="auto",
                   help="serial port (/dev/ttyUSB0, COM3...) or auto (first USB "
                        "serial device; default)")
    p.add_argument("--ca", default=DEFAULT_CA,
                   help="CA bundle to install as %s (default build/certs/ca.der, "
                        "made by `make certs` / tools/cabundle.py)" % DEVICE_CA)
    p.add_argument("--lib", action="store_true", help=HELP_LIB)
    p.add_argument("--no-reset", action="store_true",
                   help="do not hard-reset the board at the end")
    p.add_argument("--dry-run", action="store_true",
                   help="print the commands, run nothing")
    a = p.parse_args(argv)
    if not os.path.isfile(a.ca):
        print("deploy: CA bundle %s not found: run `make certs` (tools/cabundle.py) "
              "first, or give --ca FILE" % show(a.ca), file=sys.stderr)
        return 1
    tool = mpremote()
    cmds = commands(a.port, os.path.abspath(a.ca), a.lib, not a.no_reset, tool)
    if a.dry_run:
        print("# from %s" % ROOT)
        for c in cmds:
            print(printable(c))
        return 0
    if not os.path.exists(tool):
        print("deploy: mpremote not found (run `make` once to create .venv, or "
              "pip install mpremote)", file=sys.stderr)
        return 1
    for c in cmds:
        print("+ " + printable(c), flush=True)
        r = subprocess.run(c, cwd=ROOT)
        if r.returncode:
            if c[0] == tool:
                print(NOT_RAW % (show(tool), a.port, show(tool)), file=sys.stderr)
            else:
                print("deploy: compiling lib/ failed (see above)", file=sys.stderr)
            return 1
    print("deploy: done. The board restarts into the console; open it with "
          "`%s connect %s repl`." % (show(tool), a.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
