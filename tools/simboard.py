"""A simulated board on a serial line (make simboard).

    python tools/simboard.py [--dir build/simboard] [--flash DIR] [--heap 512K]
                             [--frozen]

The MicroPython unix port plays the board and a pseudo-terminal plays its
USB serial port: <dir>/tty is a symlink to that /dev/pts/N, which
`mpremote connect <dir>/tty` (make deploy PORT=..., make repl PORT=...) and
pyserial open like /dev/ttyUSB0. The board process sits behind a second
pseudo-terminal (its UART); this program pumps bytes between the two and
turns the board process's exits into resets, so the port stays open across
them as a USB serial adapter does.

The board, as the tests rely on it (start-up in tools/simboot.py):
  - its flash is a folder, <dir>/flash unless --flash: "/" on the board,
    kept between runs; --frozen plays our firmware: lib/ compiled for the
    host into <dir>/frozen-lib and importable without /lib (removed at
    stop), otherwise stock MicroPython (lib/ must be deployed to /lib);
  - at start and after a reset boot.py runs, then main.py only if boot.py
    ended without an error (as the ESP32 port's main.c: an exception or a
    Ctrl-C in boot.py leaves the REPL), then the REPL (friendly and raw
    REPL, raw-paste: the unix port's own pyexec);
  - Ctrl-C as the board's UART takes it: KeyboardInterrupt in the code
    running (a line at the REPL, boot.py, main.py, a console command),
    else a byte for whoever reads next (the REPLs, the console's line
    editor), at any moment of a reset too. simboard sends the SIGINT
    itself, only while the board process has its handler installed (the
    unix port's sign that Ctrl-C is to interrupt) and never before
    simboot is done: the process is never ended by one;
  - "\\n" written by the board leaves as "\\r\\n" (a board's cooked output;
    the unix port leaves that to a terminal);
  - Ctrl-D at the REPL, sys.exit() or machine.soft_reset() end the process:
    "MPY: soft reboot" is sent and it starts again, with what was typed
    and not yet read (a UART's buffer outlives a soft reset); a board in
    the raw REPL stays there (boot.py only, then the REPL is sent Ctrl-A,
    so the friendly banner shows before "raw REPL; CTRL-B to exit");
  - machine.reset() (what `mpremote reset` and the console's reboot run)
    exits with status 75: a hard reset, boot.py and main.py again, input
    not yet read is lost; a process killed by a signal is restarted the
    same way (three quick crashes in a row stop simboard);
  - os.ilistdir() gives each file's size, as a board's filesystems do
    (mpremote fs ls shows it);
  - output while no program has the port open is dropped, input to a board
    that is not reading waits (up to 64 KB), output to a slow reader waits.
Not simulated: WiFi (no network module: boot.py says no WiFi is
configured), the ESP32's heap size (-X heapsize, 512K; its objects are
the board's 32-bit ones: tools/mpunix.py), deep sleep, pins.

stdout: "simboard: serial <dir>/tty (flash <folder>)" once the port is
ready, one line per reset ("simboard: soft reboot", "simboard: hard
reset", "simboard: board process ended ..."), "simboard: stopped" at the
end. SIGTERM, SIGINT, SIGHUP or the parent process going away stop it: the
board process is killed, the symlink removed; nothing is written outside
<dir> and the flash folder.
"""
import argparse
import errno
import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import termios
import time
import tty

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
from deploy import show  # noqa: E402
from mpybuild import compile_tree  # noqa: E402
from sim import tool  # noqa: E402

HARD_RESET = 75                 # machine.reset()'s exit status (tools/simboot.py)
RAW_BANNER = b"raw REPL; CTRL-B to exit"
FRIENDLY_BANNER = b'Type "help()" for more information.'
SOFT_REBOOT = b"MPY: soft reboot\r\n"
INPUT_MAX = 64 * 1024           # bytes waiting for a board that is not reading
OUTPUT_HOLD = 16 * 1024         # stop reading the board while this much waits
QUICK = 2.0                     # seconds: a crash sooner than this is "quick"
ONE_CTRL_C = 0.1                # seconds: Ctrl-Cs this close after a SIGINT are the same


def _nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def _board_tty(fd):
    """The board's end of its UART: raw (it reads every byte and writes its
    own line ends). It is not the board process's controlling terminal, so
    no byte raises a signal even when the console turns ISIG on
    (shell/hostterm.py): simboard itself turns Ctrl-C into SIGINT when the
    board listens for it (SimBoard.take)."""
    tty.setraw(fd)


def _catches_sigint(pid):
    """The process has a SIGINT handler: the unix port installs one exactly
    while Ctrl-C is to raise KeyboardInterrupt (code running, kbd_intr(3))."""
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("SigCgt:"):
                return bool(int(ln.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


def cook(data, last):
    """Every "\\n" not already after "\\r" becomes "\\r\\n"; last is the byte
    sent before data (a "\\r\\n" may be split between two reads)."""
    out = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if last == 13 and data[:1] == b"\n":
        out = out[1:]
    return out


class SimBoard:
    def __init__(self, folder, flash, heap, frozen_lib=None, log=print):
        self.folder = folder
        self.flash = flash
        self.link = os.path.join(folder, "tty")
        self.log = log
        self.cmd = [tool("micropython"), "-X", "heapsize=" + heap, "-c", "import simboot"]
        env = dict(os.environ)
        for k in ("ANTOS_FLASH", "ANTOS_ROM", "ANTOS_QSTRS", "MICROPYINSPECT"):
            env.pop(k, None)
        env.update(MICROPYPATH=TOOLS, SIMBOARD_FLASH=flash, SIMBOARD_FROZEN=frozen_lib or "",
                   SIMBOARD_RESET=str(HARD_RESET), ANTOS_TTY="1")
        self.env = env
        self.proc = None
        self.bfd = None                 # our end of the board's UART
        self.sfd = None                 # and the board's end, kept open
        self.pidfd = None               # readable once the board process ends
        self.to_board = bytearray()
        self.to_host = bytearray()
        self.raw = False                # the board was last seen in the raw REPL
        self.tail = b""                 # the end of the board's output, for the banners
        self.last = 0                   # the last byte sent to the host
        self.started = 0.0
        self.crashes = 0
        self.stopping = False
        self.port = None                # our end of the USB serial line
        self.ready_fd = None            # the board process says on this pipe when
        self.ready = False              # simboot is done and Ctrl-C may interrupt
        self.interrupted = 0.0          # when the last SIGINT went

    # ---- the serial port
    def open_port(self):
        m, s = os.openpty()
        tty.setraw(s)           # kept after we close it: no echo until pyserial sets its own
        path = os.ttyname(s)
        os.close(s)
        _nonblocking(m)
        self.port = m
        os.makedirs(self.folder, exist_ok=True)
        if os.path.lexists(self.link):
            os.unlink(self.link)
        os.symlink(path, self.link)

    def host_connected(self):
        """A program has the port open (else its side is hung up)."""
        p = select.poll()
        p.register(self.port, select.POLLIN)
        return not any(ev & select.POLLHUP for _, ev in p.poll(0))

    # ---- the board process
    def spawn(self, raw, typed=b""):
        """Start the board process; raw: back into the raw REPL (Ctrl-A goes
        first); typed: input the last one did not take (a soft reset keeps
        the UART's buffer)."""
        m, s = os.openpty()
        _board_tty(s)
        ready, ready_w = os.pipe()
        env = dict(self.env, SIMBOARD_RAW="1" if raw else "", SIMBOARD_READY=str(ready_w))
        try:
            self.proc = subprocess.Popen(self.cmd, stdin=s, stdout=s, stderr=s,
                                         cwd=self.flash, env=env, start_new_session=True,
                                         pass_fds=(ready_w,))
        except BaseException:
            os.close(m)
            os.close(s)
            raise
        finally:
            os.close(ready_w)
        _nonblocking(m)
        _nonblocking(ready)
        # we keep the UART's other end open too: what the process leaves
        # unread is still there when it ends (ended() takes it); its end is
        # then seen on pidfd (the UART no longer hangs up)
        self.bfd, self.sfd, self.pidfd = m, s, os.pidfd_open(self.proc.pid)
        self.ready_fd, self.ready, self.interrupted = ready, False, 0.0
        self.started = time.monotonic()
        self.to_board = bytearray(b"\x01" if raw else b"") + typed
        self.raw = raw

    def close_board(self):
        for fd in (self.bfd, self.sfd, self.pidfd, self.ready_fd):
            if fd is not None:
                os.close(fd)
        self.proc = self.bfd = self.sfd = self.pidfd = self.ready_fd = None

    def ended(self):
        """The board process is gone: pass on what it wrote last, report it
        and start the next one with the input it did not read."""
        rc = self.proc.wait()
        while True:
            data = _read(self.bfd)
            if not data:
                break
            self.send(data)
        tty.setraw(self.sfd, termios.TCSANOW)   # every byte, whatever mode it was left in
        _nonblocking(self.sfd)          # (no process shares it now)
        unread = b""
        while True:
            data = _read(self.sfd)
            if not data:
                break
            unread += data
        self.close_board()
        typed = b""
        quick = time.monotonic() - self.started < QUICK
        if rc == HARD_RESET:
            self.log("simboard: hard reset")
            self.crashes, raw = 0, False
        elif rc < 0 or (rc != 0 and quick):
            self.crashes = self.crashes + 1 if quick else 1
            why = "signal %d" % -rc if rc < 0 else "status %d" % rc
            if self.crashes >= 3:
                self.log("simboard: board process ended (%s) three times in a row; "
                         "giving up" % why)
                self.stopping = True
                return
            self.log("simboard: board process ended (%s); starting it again" % why)
            raw = False
        else:
            self.log("simboard: soft reboot%s" % (" (raw REPL)" if self.raw else ""))
            self.crashes = 0
            self.send(SOFT_REBOOT)
            raw, typed = self.raw, unread + self.to_board
        self.spawn(raw, typed)

    def kill(self):
        if self.proc is None:
            return
        self.proc.kill()        # the unix port runs in this one process
        self.proc.wait()
        self.close_board()

    # ---- Ctrl-C
    def take(self, data):
        """Bytes typed on the serial line, as the board's UART takes them: a
        Ctrl-C while the board listens for it raises KeyboardInterrupt in
        the code it runs and is not read; any other byte waits to be read."""
        while True:
            i = data.find(b"\x03")
            if i < 0:
                break
            self.to_board += data[:i]
            if not self.interrupt():
                self.to_board += b"\x03"
            data = data[i + 1:]
        self.to_board += data

    def interrupt(self):
        """Raise KeyboardInterrupt in the board process if it listens for
        Ctrl-C (the unix port has its SIGINT handler installed exactly then:
        code running, kbd_intr(3)); True if it did. The process is stopped
        while we look, so it cannot drop the handler between the look and
        the signal: SIGINT without a handler would end it. Not before
        simboot is done (a KeyboardInterrupt there would leave a board
        without its flash), and not twice in ONE_CTRL_C: a second SIGINT
        before the first is raised ends the unix port."""
        if not self.ready or self.proc.returncode is not None:
            return False
        if time.monotonic() - self.interrupted < ONE_CTRL_C:
            return True
        pid = self.proc.pid
        os.kill(pid, signal.SIGSTOP)
        _, status = os.waitpid(pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):           # it ended meanwhile
            self.proc.returncode = os.waitstatus_to_exitcode(status)
            return False
        try:
            if not _catches_sigint(pid):
                return False
            os.kill(pid, signal.SIGINT)
            self.interrupted = time.monotonic()
            return True
        finally:
            os.kill(pid, signal.SIGCONT)

    # ---- the pump
    def send(self, data):
        """Board output towards the host: cooked, and dropped while nobody
        has the port open."""
        t = self.tail + data
        r, f = t.rfind(RAW_BANNER), t.rfind(FRIENDLY_BANNER)
        if r >= 0 or f >= 0:
            self.raw = r > f
        self.tail = t[-len(FRIENDLY_BANNER):]
        if self.host_connected():
            self.to_host += cook(data, self.last)
            self.last = data[-1]

    def step(self, timeout_ms):
        host = self.host_connected()
        if not host:
            del self.to_host[:]
        p = select.poll()
        bev = (select.POLLIN if len(self.to_host) < OUTPUT_HOLD else 0) | \
            (select.POLLOUT if self.to_board else 0)
        p.register(self.bfd, bev)
        p.register(self.pidfd, select.POLLIN)
        if self.ready_fd is not None:
            p.register(self.ready_fd, select.POLLIN)
        if host:
            p.register(self.port, select.POLLIN | (select.POLLOUT if self.to_host else 0))
        for fd, ev in p.poll(timeout_ms):
            if fd == self.bfd:
                if ev & select.POLLOUT:
                    n = _write(self.bfd, self.to_board)
                    del self.to_board[:n]
                if ev & select.POLLIN:
                    data = _read(self.bfd)
                    if data:
                        self.send(data)
            elif fd == self.pidfd:
                self.ended()
                return
            elif fd == self.ready_fd:
                data = _read(fd)
                if data is None:                # simboot closed its end
                    os.close(fd)
                    self.ready_fd = None
                elif data:
                    self.ready = True
            else:
                if ev & select.POLLIN:
                    data = _read(self.port)
                    if data and len(self.to_board) + len(data) <= INPUT_MAX:
                        self.take(data)
                if ev & select.POLLOUT and self.to_host:
                    n = _write(self.port, self.to_host)
                    del self.to_host[:n]

    def run(self):
        parent = os.getppid()
        self.open_port()
        self.spawn(False)
        self.log("simboard: serial %s (flash %s)" % (show(self.link), show(self.flash)))
        try:
            while not self.stopping and os.getppid() == parent:
                # short waits without a host: its arrival is not an event we can poll
                self.step(200 if self.host_connected() else 50)
        finally:
            self.stop()

    def stop(self):
        self.kill()
        if self.port is not None:
            os.close(self.port)
            self.port = None
        if os.path.islink(self.link):
            os.unlink(self.link)


def _read(fd):
    """Bytes, b"" when nothing is there now, None when the other side has
    closed (EIO on a pseudo-terminal)."""
    try:
        return os.read(fd, 4096) or None
    except BlockingIOError:
        return b""
    except OSError as e:
        if e.errno == errno.EIO:
            return None
        raise


def _write(fd, buf):
    try:
        return os.write(fd, bytes(buf[:4096]))
    except BlockingIOError:
        return 0
    except OSError as e:
        if e.errno == errno.EIO:       # the host closed the port meanwhile
            return len(buf)
        raise


def main(argv=None):
    ap = argparse.ArgumentParser(prog="simboard.py", description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(ROOT, "build", "simboard"),
                    help="where the tty symlink (and by default the flash) go")
    ap.add_argument("--flash", help="the board's flash folder (default DIR/flash)")
    ap.add_argument("--heap", default="512K", help="-X heapsize of the board process")
    ap.add_argument("--frozen", action="store_true",
                    help="play our firmware: lib/ importable without /lib")
    a = ap.parse_args(argv)
    folder = os.path.abspath(a.dir)
    flash = os.path.abspath(a.flash or os.path.join(folder, "flash"))
    os.makedirs(flash, exist_ok=True)
    if not tool("micropython"):
        print("simboard: micropython not found (run make once to create .venv)")
        return 1
    frozen = None
    if a.frozen:
        frozen = os.path.join(folder, "frozen-lib")
        shutil.rmtree(frozen, ignore_errors=True)
        errors = compile_tree(os.path.join(ROOT, "lib"), frozen)
        if errors:
            for f, e in errors:
                print("simboard: %s: %s" % (f, e))
            return 1
    board = SimBoard(folder, flash, a.heap, frozen,
                     log=lambda s: print(s, flush=True))

    def stop(*_):
        board.stopping = True
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    try:
        board.run()
    finally:
        if frozen:
            shutil.rmtree(frozen, ignore_errors=True)
        print("simboard: stopped", flush=True)
    return 1 if board.crashes >= 3 else 0


if __name__ == "__main__":
    sys.exit(main())
