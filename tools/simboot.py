# Start-up of the simulated board (tools/simboard.py), run by the unix port
# as `micropython -c "import simboot"` in place of the firmware's own:
#   - the board folder ($SIMBOARD_FLASH) becomes "/" and the working
#     directory, so mpremote's file commands and the console see only it;
#   - sys.path is the ESP32's ['', '.frozen', '/lib']; with $SIMBOARD_FROZEN
#     (our firmware: lib/ compiled) that folder is mounted at /.frozen-lib
#     and searched right after '.frozen', where the firmware freezes lib/;
#   - machine.reset() ends the process with status $SIMBOARD_RESET, which
#     simboard takes for a hard reset (the unix port has no machine.reset);
#   - os.rename() of absolute paths works (the unix port's VfsPosix with a
#     root builds both paths in one buffer and loses the first: ENOENT);
#   - os.ilistdir() gives (name, type, inode, size) as the board's
#     filesystems do (the unix port's leaves out the size: mpremote ls
#     would show 0 for every file);
#   - once that is in place one byte on the pipe $SIMBOARD_READY tells
#     simboard that Ctrl-C may now raise KeyboardInterrupt (before it, a
#     Ctrl-C is a byte for whoever reads the console next, as on a board
#     between a reset and boot.py);
#   - boot.py runs, then main.py only when boot.py ended without an error
#     and $SIMBOARD_RAW is not set (a soft reset in the raw REPL), as the
#     ESP32 port's main.c does. An error prints its traceback; then the
#     REPL follows (MICROPYINSPECT, which the unix port reads once -c is
#     done). SystemExit in either file ends the process instead: status
#     $SIMBOARD_RESET from machine.reset(), else 0 (a soft reset: sys.exit()
#     on a board soft-resets whatever its argument).
import os
import sys
import vfs
import machine as _machine


class _Machine:
    """The unix port's machine module plus reset()."""

    def __getattr__(self, name):
        return getattr(_machine, name)

    def reset(self):
        sys.exit(int(os.getenv("SIMBOARD_RESET")))


class _Os:
    """The unix port's os module with rename() done relative to "/" and
    ilistdir() with sizes."""

    def __getattr__(self, name):
        return getattr(os, name)

    def rename(self, old, new):
        here = os.getcwd()
        os.chdir("/")
        try:
            os.rename(_from_root(old, here), _from_root(new, here))
        finally:
            os.chdir(here)

    def ilistdir(self, path="."):
        folder = "" if path in ("", ".") else path.rstrip("/") + "/"
        for e in os.ilistdir(path):
            size = 0
            if e[1] == 0x8000:
                try:
                    size = os.stat(folder + e[0])[6]
                except OSError:
                    pass
            yield (e[0], e[1], e[2], size)


def _from_root(p, here):
    if not p.startswith("/"):
        p = here.rstrip("/") + "/" + p
    return p[1:]


def _start():
    vfs.umount("/")
    vfs.mount(vfs.VfsPosix(os.getenv("SIMBOARD_FLASH")), "/")
    os.chdir("/")
    sys.path[:] = ["", ".frozen", "/lib"]
    frozen = os.getenv("SIMBOARD_FROZEN")
    if frozen:
        vfs.mount(vfs.VfsPosix(frozen), "/.frozen-lib")
        sys.path.insert(2, "/.frozen-lib")
    sys.modules["machine"] = _Machine()
    sys.modules["os"] = _Os()


def _run(names):
    os.putenv("MICROPYINSPECT", "1")
    scope = {"__name__": "__main__"}
    try:
        ready = os.getenv("SIMBOARD_READY")
        if ready:       # from here on a Ctrl-C may raise, and is caught below
            with open(int(ready), "wb") as f:
                f.write(b"r")
        for name in names:
            try:
                os.stat(name)
            except OSError:
                continue        # no file runs as an empty one: without error
            try:
                execfile(name, scope)
            except SystemExit as e:
                os.unsetenv("MICROPYINSPECT")
                reset = int(os.getenv("SIMBOARD_RESET"))
                sys.exit(reset if e.args and e.args[0] == reset else 0)
            except BaseException as e:  # KeyboardInterrupt too
                sys.print_exception(e)
                return
            # a Ctrl-C that came as the file ended is raised here, as the
            # board's pyexec does at the end of each file, not in the
            # REPL's first line (sleep_ms(0) runs what is pending)
            import time
            time.sleep_ms(0)
    except KeyboardInterrupt as e:     # a Ctrl-C around the files: as in boot.py
        sys.print_exception(e)


_start()
_run(("boot.py",) if os.getenv("SIMBOARD_RAW") else ("boot.py", "main.py"))
del _start, _run
