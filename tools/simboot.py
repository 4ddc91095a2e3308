# Start-up of the simulated board (tools/simboard.py), run by the unix port
# as `micropython -i -c "import simboot"` in place of the firmware's own:
#   - the board folder ($SIMBOARD_FLASH) becomes "/" and the working
#     directory, so mpremote's file commands and the console see only it;
#   - sys.path is the ESP32's ['', '.frozen', '/lib']; with $SIMBOARD_FROZEN
#     (our firmware: lib/ compiled) that folder is mounted at /.frozen-lib
#     and searched right after '.frozen', where the firmware freezes lib/;
#   - machine.reset() ends the process with status $SIMBOARD_RESET, which
#     simboard takes for a hard reset (the unix port has no machine.reset);
#   - os.rename() of absolute paths works (the unix port's VfsPosix with a
#     root builds both paths in one buffer and loses the first: ENOENT);
#   - boot.py runs, then main.py unless $SIMBOARD_RAW is set (a soft reset
#     in the raw REPL: an ESP32 stays there and skips main.py). An error in
#     either prints its traceback and the REPL follows (-i), as on a board.
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
    """The unix port's os module with rename() done relative to "/"."""

    def __getattr__(self, name):
        return getattr(os, name)

    def rename(self, old, new):
        here = os.getcwd()
        os.chdir("/")
        try:
            os.rename(_from_root(old, here), _from_root(new, here))
        finally:
            os.chdir(here)


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
    scope = {"__name__": "__main__"}
    for name in ("boot.py",) if os.getenv("SIMBOARD_RAW") else ("boot.py", "main.py"):
        try:
            os.stat(name)
        except OSError:
            continue
        try:
            execfile(name, scope)
        except SystemExit:
            raise
        except BaseException as e:      # KeyboardInterrupt too: the REPL follows
            sys.print_exception(e)


_start()
del _start
