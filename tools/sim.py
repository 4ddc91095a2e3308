"""Run the serial console on the MicroPython unix port (make sim).

    python tools/sim.py [--board ANTOS_ESP32] [--flash DIR] [--heap SIZE]
    python tools/sim.py --lib COMPILED_LIB_DIR [--heap 256K] [--flash DIR]

As the board (the default; make sim BOARD=ANTOS_ESP32S3 for the other):
lib/ runs as the firmware's frozen code does, from an image in place with
its names interned up front (the test harness's emulation, host_tests/
mpyrun.py and scenarios/romboot.py), with the board profile's GC heap free
(boards/<BOARD>/profile.json, gc_heap; on this 64-bit port objects take
about twice the board's bytes, so it is tighter than the board), the
firmware's GC setting and the profile's network budget (one TLS connection
too many ends the session, as it would fail on the board). `free` shows
the heap without the image, as the board's. --lib runs .mpy files from a
folder instead (bytecode in the heap, 256K by default: the console tests).

The git-ignored folder flash/ plays the board's flash (settings, history, /bin)
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

LAUNCH = ("import sys\n"
          "try:\n"       # --lib from the test harness: its hardware stand-in
          "    import boardhw\n"
          "    boardhw.install(True)\n"
          "    del boardhw\n"
          "except ImportError:\n"
          "    pass\n"
          "import shell\n"
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
    """A tool in .venv; "micropython" is the 32-bit build of tools/mpunix.py
    (built on first use)."""
    if name == "micropython":
        import mpunix
        return mpunix.build()
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


USAGE = ("usage: sim.py [--board ANTOS_ESP32] [--flash DIR] [--heap SIZE]\n"
         "       sim.py --lib COMPILED_LIB_DIR [--heap 256K] [--flash DIR]")


def main(argv):
    flash = os.path.join(ROOT, "flash")
    heap = None
    lib = None
    board = os.environ.get("BOARD") or "ANTOS_ESP32"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--flash" and args:
            flash = os.path.abspath(args.pop(0))
        elif a == "--heap" and args:
            heap = args.pop(0)
        elif a == "--lib" and args:
            lib = os.path.abspath(args.pop(0))
        elif a == "--board" and args:
            board = args.pop(0)
        else:
            print(USAGE)
            return 2
    mp = tool("micropython")
    if not mp:
        print("sim: micropython not found (run make sim, which installs it in .venv)")
        return 1
    seed(flash)
    is_tty = sys.stdin.isatty()
    env = {"ANTOS_FLASH": flash, "ANTOS_TTY": "1" if is_tty else "0"}
    if lib is None:
        made = as_board(board, heap, flash, env)
        if isinstance(made, str):
            print("sim: " + made)
            return 1
        cmd, repl_cmd, env = made
        repl_env = dict(env, MICROPYINSPECT="1")
    else:
        env = dict(os.environ, **env)
        env["MICROPYPATH"] = lib + ":" + os.path.join(flash, "lib")
        # the test harness's build (host_tests/mpyrun.py) beside it: the
        # hardware stand-in with the board profile's pins (its network
        # budget is make sim's business, not the console tests')
        scen = os.path.join(os.path.dirname(lib), "scen")
        if os.path.isdir(scen):
            env["MICROPYPATH"] += ":" + scen
            env["ANTOS_HW"] = os.path.join(ROOT, "boards", board, "profile.json")
        cmd = [mp, "-X", "heapsize=" + (heap or "256K"), "-c", LAUNCH]
        repl_cmd = cmd[:3] + ["-i", "-c", REPL]
        repl_env = env
    saved = None
    if is_tty:
        import termios
        import tty
        saved = termios.tcgetattr(0)
        tty.setraw(0)
    try:
        rc = run(cmd, env, flash)
    finally:
        if saved is not None:
            termios.tcsetattr(0, termios.TCSADRAIN, saved)
    if rc == 10:
        # leave to the Python REPL; the unix port manages the terminal there
        rc = run(repl_cmd, repl_env, flash)
    return rc


def as_board(board, heap, flash, env):
    """(console command, REPL command, environment) that run the console
    as `board` runs it (see the module docstring), or an error line."""
    sys.path.insert(0, os.path.join(ROOT, "host_tests"))
    import boardprofile
    from mpyrun import Runner
    if board not in boardprofile.names():
        return "no board %s (boards/: %s)" % (board, ", ".join(boardprofile.names()))
    gc_heap = boardprofile.load(board)["figures"]["gc_heap"]
    heap = heap or "%dK" % (gc_heap // 1024)
    print("sim: building %s's frozen-code image (a few seconds)..." % board)
    rom = Runner()
    env = rom.env(dict(env, ANTOS_NETPEAK="0"), board=board)
    env["MICROPYPATH"] += ":" + os.path.join(flash, "lib")
    print("sim: %s, %s of GC heap free" % (board, heap))
    return rom.cmd("simconsole", heap), rom.cmd("simrepl", heap), env


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
