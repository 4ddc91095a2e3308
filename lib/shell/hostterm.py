"""The host terminal's modes while the console runs on a PC (make sim, the
unix port behind tools/simboard.py's pseudo-terminal); never on the board.

    hostterm.mode(run)    # run=True: a command runs; False: the line editor

The console keeps the terminal raw (tools/sim.py, shell.run), as a UART
is. Two things a board gets from MicroPython and a raw host terminal does
not, set here on stdin's terminal:
  - Ctrl-C while a command runs: ISIG on with VINTR = Ctrl-C while a
    command runs (the terminal sends SIGINT, which the unix port raises as
    KeyboardInterrupt: a script in time.sleep, a long cat), off in the line
    editor, which reads Ctrl-C as a byte (mpremote's raw-REPL request is
    Enter, Ctrl-C). VQUIT and VSUSP are disabled: Ctrl-\\ and Ctrl-Z stay
    bytes, never a core dump or a stopped console. (Behind simboard the
    terminal is not the process's controlling one, so ISIG does nothing
    there: simboard sends SIGINT itself while the handler that
    micropython.kbd_intr(3) installs is there.)
  - "\\n" starts a line: OPOST and ONLCR on, so print() from a script
    writes "\\r\\n" as the board's stdout does; the console's own output
    then leaves "\\n" to the terminal (shell.cooked).
Termios constants are Linux's unless the termios module has them (the
unix port's has none): macOS differs and is listed.
"""
import sys

import shell

_MAC = sys.platform == "darwin"


def _const(termios, name, linux, mac):
    return getattr(termios, name, mac if _MAC else linux)


def mode(run):
    try:
        import termios
        a = termios.tcgetattr(0)
    except Exception:       # not a terminal after all (or no termios)
        return
    isig = _const(termios, "ISIG", 1, 0x80)
    a[3] = a[3] | isig if run else a[3] & ~isig
    a[1] |= _const(termios, "OPOST", 1, 1) | _const(termios, "ONLCR", 4, 2)
    cc = a[6]
    cc[_const(termios, "VINTR", 0, 8)] = b"\x03"
    cc[_const(termios, "VQUIT", 1, 9)] = b"\x00"
    cc[_const(termios, "VSUSP", 10, 10)] = b"\x00"
    try:
        termios.tcsetattr(0, termios.TCSANOW, a)
        shell.cooked[0] = True
    except Exception:
        pass
