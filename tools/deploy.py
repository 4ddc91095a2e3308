"""Copy what the board needs onto its filesystem with mpremote.

    python tools/deploy.py [--port auto] [--frozen] [--no-reset] [--dry-run]

For a board running STOCK MicroPython (1.23 or newer, mpy 6.3): lib/ is
compiled with mpy-cross for xtensawin as the firmware would freeze it
(tools/mpybuild.py), then one mpremote call (steps joined with "+") copies:
    firmware/boot.py   -> :/boot.py     WiFi + clock at every boot
    firmware/main.py   -> :/main.py     starts the console
    build/deploy-lib/  -> :/lib/        every lib/ module as .mpy (with the
                                        CA roots in cacerts.mpy)
then hard-resets the board so boot.py and main.py run. Directories are made
first by a one-line `exec` (idempotent; mpremote's mkdir fails on an
existing one). mpremote's cp skips a file whose SHA-256 already matches.
--frozen: the board runs OUR firmware (lib/ frozen in, make flash): copy
only boot.py and main.py (a freshly flashed board has neither).

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
LIB_BUILD = os.path.join(ROOT, "build", "deploy-lib")

HELP_FROZEN = (
    "the board runs the AntOS firmware (lib/ frozen in): copy only boot.py and "
    "main.py. Without it lib/ goes to /lib as .mpy, for STOCK MicroPython: its "
    "bytecode then lives in RAM (~120 KB), fine with PSRAM (ESP32-S3), too much "
    "for an ESP32 without PSRAM -- flash our firmware there instead. On our "
    "firmware /lib would change nothing: esp32's sys.path is ['', '.frozen', "
    "'/lib'], so files in /lib never override frozen modules.")

NOT_RAW = (
    "deploy: mpremote could not talk to the board. If the AntOS console is "
    "busy with a command, leave it first: `%s connect %s repl`, type py (or "
    "Ctrl-D on an empty line), quit with Ctrl-], then deploy again. Otherwise "
    "check the cable and --port (`%s connect list`).")


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


def lib_files(build=LIB_BUILD):
    """[(device path, local .mpy path under build)] for every lib/ module,
    and the sorted device directories they need (parents first)."""
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
            files.append((dev, os.path.join(build, rel, mpy)))
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


def commands(port="auto", lib=True, reset=True, tool=None, march="xtensawin",
             build=LIB_BUILD):
    """The argv lists deploy runs, in order: compile (unless not lib), then
    one mpremote chain."""
    tool = tool or mpremote()
    cmds, dirs = [], []
    copies = [(os.path.join(ROOT, "firmware", "boot.py"), "/boot.py"),
              (os.path.join(ROOT, "firmware", "main.py"), "/main.py")]
    if lib:
        cmds.append([sys.executable, os.path.join(ROOT, "tools", "mpybuild.py"),
                     "--quiet"] + (["--march", march] if march else []) + ["--out", build])
        files, dirs = lib_files(build)
        copies += [(local, dev) for dev, local in files]
    argv = [tool, "connect", port]
    if dirs:
        argv += ["exec", mkdirs_code(dirs), "+"]
    for local, dev in copies:
        argv += ["cp", local, ":" + dev, "+"]
    if reset:
        argv += ["reset"]
    cmds.append(argv if argv[-1] != "+" else argv[:-1])
    return cmds


def run_mpremote(argv, **kw):
    """subprocess.run(argv, **kw) of an mpremote command, once more if it
    fails: the AntOS console at its prompt steps aside at once when mpremote
    asks for the raw REPL, but one busy with a command spends that first
    request (its Ctrl-C stops the command)."""
    r = subprocess.run(argv, **kw)
    if r.returncode:
        print("mpremote: trying again (a console busy with a command spends the first "
              "request)", file=sys.stderr, flush=True)
        r = subprocess.run(argv, **kw)
    return r


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
        description="Copy lib/ (compiled with mpy-cross), boot.py and main.py to an "
                    "ESP32 running MicroPython, with mpremote.")
    p.add_argument("--port", default="auto",
                   help="serial port (/dev/ttyUSB0, COM3...) or auto (first USB "
                        "serial device; default)")
    p.add_argument("--frozen", action="store_true", help=HELP_FROZEN)
    p.add_argument("--no-reset", action="store_true",
                   help="do not hard-reset the board at the end")
    p.add_argument("--dry-run", action="store_true",
                   help="print the commands, run nothing")
    p.add_argument("--march", default="xtensawin",
                   help="the board's CPU for lib/'s native code (jsonstream): "
                        "xtensawin (ESP32, ESP32-S3; default), or host for the "
                        "simulated board of tools/simboard.py")
    a = p.parse_args(argv)
    tool = mpremote()
    cmds = commands(a.port, not a.frozen, not a.no_reset, tool, a.march)
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
        r = run_mpremote(c, cwd=ROOT) if c[0] == tool else subprocess.run(c, cwd=ROOT)
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
