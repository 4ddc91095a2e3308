"""Run the serial console on the MicroPython unix port (make sim).

    python tools/sim.py [--flash DIR] [--heap 256K] [--lib DIR]

lib/ is compiled to .mpy (build/sim/lib) and put on MICROPYPATH; the
git-ignored folder flash/ plays the board's flash (settings, history, /bin)
and is the working directory. First run seeds it: settings that point
ai.general at Ollama on localhost, a boot.py, and an example /bin script.
The host terminal goes into raw mode (restored on exit), as a UART is on the
board, and ANTOS_TTY=1 tells the console so (while a command runs it turns
the terminal's Ctrl-C into SIGINT: shell/hostterm.py; this program ignores
it); with stdin a pipe the console reads plain lines and writes no escape
codes.

`py` or Ctrl-D on an empty line leave the console: the simulator then starts
the MicroPython REPL with `shell` imported (shell.run() comes back); `exit`
ends the simulator.
"""
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from mpybuild import compile_tree  # noqa: E402

LAUNCH = ("import sys, shell\n"
          "shell.run()\n"
          "sys.exit(10 if shell.left == 'repl' else 0)\n")
REPL = "import shell, store\nprint('Python REPL: shell.run() goes back to the console')\n"

SETTINGS = '{"ai.general.provider": "ollama"}\n'
HELLO = '''"""hello: an example /bin command. Any /bin script that declares SPEC and
main(args) is a console command."""
SPEC = {"desc": "greet someone (example /bin script)", "usage": "hello [NAME]",
        "args": (("name", "str", "?"),), "tags": ("example",)}


def main(args):
    import shell
    shell.out("hello, %s!" % (args[0] if args else "world"))
'''


def tool(name):
    here = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(here):
        return here
    import shutil
    return shutil.which(name)


def seed(flash):
    """A fresh simulated flash gets default settings and examples."""
    os.makedirs(flash, exist_ok=True)
    files = {"settings.json": SETTINGS, "bin/hello.py": HELLO}
    boot = os.path.join(ROOT, "firmware", "boot.py")
    if os.path.exists(boot):
        with open(boot) as f:
            files["boot.py"] = f.read()
    for rel, text in files.items():
        p = os.path.join(flash, rel)
        if not os.path.exists(p):
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)


def main(argv):
    flash = os.path.join(ROOT, "flash")
    heap = "256K"
    lib = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--flash" and args:
            flash = os.path.abspath(args.pop(0))
        elif a == "--heap" and args:
            heap = args.pop(0)
        elif a == "--lib" and args:
            lib = os.path.abspath(args.pop(0))
        else:
            print("usage: sim.py [--flash DIR] [--heap 256K] [--lib COMPILED_LIB_DIR]")
            return 2
    mp = tool("micropython")
    if not mp:
        print("sim: micropython not found (run make sim, which installs it in .venv)")
        return 1
    if lib is None:
        lib = os.path.join(ROOT, "build", "sim", "lib")
        errors = compile_tree(os.path.join(ROOT, "lib"), lib)
        if errors:
            for f, e in errors:
                print("sim: %s: %s" % (f, e))
            return 1
    seed(flash)
    is_tty = sys.stdin.isatty()
    env = dict(os.environ)
    env["MICROPYPATH"] = lib + ":" + os.path.join(flash, "lib")
    env["ANTOS_FLASH"] = flash
    env["ANTOS_TTY"] = "1" if is_tty else "0"
    cmd = [mp, "-X", "heapsize=" + heap]
    saved = None
    if is_tty:
        import termios
        import tty
        saved = termios.tcgetattr(0)
        tty.setraw(0)
    try:
        rc = run(cmd + ["-c", LAUNCH], env, flash)
    finally:
        if saved is not None:
            termios.tcsetattr(0, termios.TCSADRAIN, saved)
    if rc == 10:
        # leave to the Python REPL; the unix port manages the terminal there
        rc = run(cmd + ["-i", "-c", REPL], env, flash)
    return rc


def run(cmd, env, cwd):
    """Run the unix port to its end. Ctrl-C is its business: the terminal
    sends SIGINT to us too while a command runs (shell/hostterm.py), and
    we wait on."""
    p = subprocess.Popen(cmd, env=env, cwd=cwd)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return p.wait()
    finally:
        signal.signal(signal.SIGINT, old)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
