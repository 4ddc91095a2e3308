"""The board paths with the real mpremote, against a simulated board
(tools/simboard.py: the MicroPython unix port behind a pseudo-terminal):
make deploy twice (stock MicroPython) and with FROZEN=1, the deployed
console over the serial line (help, an ai round against a loopback fake),
the console handing over to mpremote's raw REPL at once, make repl, and
make hil's heap table. Each board runs in a folder under build/ that the
fixtures remove; nothing stays running (checked in
test_simboard_stops_and_leaves_nothing_running)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pexpect
import pytest
import serial

from fakes import FakeOpenAI, Text
from toolrun import PY, ROOT, load, make, make_env

SIMBOARD = os.path.join(ROOT, "tools", "simboard.py")
BUILD = os.path.join(ROOT, "build")
MPREMOTE = os.path.join(os.path.dirname(PY), "mpremote")
deploy = load("deploy")
hil = load("hil")
WAIT = 60       # seconds for any one thing the board does: generous on a busy machine


def board_pids(flash):
    """Processes running a board on this flash folder (from their environment)."""
    mark = b"SIMBOARD_FLASH=" + flash.encode() + b"\0"
    pids = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if mark in f.read() + b"\0":
                    pids.append(int(pid))
        except (OSError, ValueError):
            pass
    return pids


class Board:
    """tools/simboard.py in its own folder under build/, with its log."""

    def __init__(self, frozen=False, files=None, launcher=()):
        """files: {path on the flash: text} there before it starts."""
        os.makedirs(BUILD, exist_ok=True)
        self.folder = tempfile.mkdtemp(prefix="simboard-", dir=BUILD)
        self.tty = os.path.join(self.folder, "tty")
        self.flash = os.path.join(self.folder, "flash")
        os.makedirs(self.flash)
        for path, text in (files or {}).items():
            self.write(path, text)
        self.logpath = os.path.join(self.folder, "simboard.log")
        with open(self.logpath, "w") as log:
            self.proc = subprocess.Popen(
                list(launcher) + [PY, SIMBOARD, "--dir", self.folder]
                + (["--frozen"] if frozen else []),
                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        self.wait_log("simboard: serial ")

    def log(self):
        with open(self.logpath) as f:
            return f.read()

    def write(self, path, text):
        """A file on the board's flash."""
        path = os.path.join(self.flash, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def wait_log(self, text, count=1):
        """Until text is in the log count times (the board did it)."""
        self.wait_until(lambda: self.log().count(text) >= count, "%r in the log" % text,
                        stopping="simboard: stopped" in text)

    def wait_until(self, done, what, stopping=False):
        """Until done() (something the board does), checked every 50 ms."""
        deadline = time.monotonic() + WAIT
        while not done():
            assert time.monotonic() < deadline, "no %s:\n%s" % (what, self.log())
            assert self.proc.poll() is None or stopping, self.log()
            time.sleep(0.05)

    def files(self):
        """Every file on the board's flash, as board paths."""
        out = set()
        for d, _, names in os.walk(self.flash):
            for n in names:
                out.add("/" + os.path.relpath(os.path.join(d, n), self.flash))
        return out

    def console(self):
        """The serial line with the console at its prompt; a board left in
        the REPL is soft-reset (Ctrl-D) first, which starts main.py."""
        line = Line(self.tty)
        line.send("\r")
        if line.expect("/> ", ">>> ") == ">>> ":
            line.send("\x04")
            line.expect("/> ")
        return line

    def mpremote(self, *args):
        return subprocess.run([MPREMOTE, "connect", self.tty] + list(args), cwd=ROOT,
                              capture_output=True, text=True, timeout=WAIT * 2)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(WAIT)
        shutil.rmtree(self.folder, ignore_errors=True)


class Line:
    """The board's serial port opened with pyserial, as a terminal program does."""

    def __init__(self, path):
        self.port = serial.Serial(path, 115200, timeout=0.1)
        self.seen = b""

    def send(self, text):
        self.port.write(text.encode())

    def expect(self, *texts):
        """Read until one of texts arrives; -> that text. What came before
        it is in self.before (decoded)."""
        deadline = time.monotonic() + WAIT
        while True:
            got = self.seen.decode("utf-8", "replace")
            hits = [(got.find(t), t) for t in texts if t in got]
            if hits:
                at, t = min(hits)
                self.before = got[:at]
                self.seen = self.seen[len(got[:at + len(t)].encode()):]
                return t
            assert time.monotonic() < deadline, "none of %r in %r" % (texts, got[-600:])
            self.seen += self.port.read(4096)

    def close(self):
        self.port.close()


@pytest.fixture(scope="module")
def provider():
    with FakeOpenAI(flavor="ollama") as srv:
        yield srv


@pytest.fixture(scope="module")
def stock(provider):
    """A board with stock MicroPython: an empty flash but its settings (the
    ai.general provider is the fake)."""
    b = Board(files={"settings.json": '{"ai.general.provider": "ollama", "ai.general.base_url": '
                     '"%s", "ai.general.model": "llama3.2"}' % provider.base_url})
    yield b
    b.stop()


@pytest.fixture(scope="module")
def deployed(stock):
    """The stock board after make deploy (output kept for the deploy test)."""
    r = make("deploy", "PORT=" + stock.tty, "ARCH=host", dry=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    stock.wait_log("simboard: hard reset")
    stock.first_deploy = r
    return stock


@pytest.fixture(scope="module")
def frozen():
    """A board that plays our firmware: lib/ frozen in, an empty flash."""
    b = Board(frozen=True)
    yield b
    b.stop()


def up_to_date(out):
    return set(re.findall(r"^Up to date: (\S+)$", out, re.M))


def test_deploy_copies_then_skips_unchanged_files_and_resets(deployed):
    files, _ = deploy.lib_files()
    r = deployed.first_deploy
    assert deployed.files() == {dev for dev, _ in files} | {"/boot.py", "/main.py",
                                                          "/settings.json"}, r.stdout
    copies = [(os.path.join(ROOT, "firmware", n), "/" + n) for n in ("boot.py", "main.py")]
    for local, dev in copies + [(local, dev) for dev, local in files]:
        with open(local, "rb") as a, open(deployed.flash + dev, "rb") as b:
            assert a.read() == b.read(), dev
    assert not up_to_date(r.stdout)
    # the reset started main.py: the console answers on the serial line
    deployed.console().close()
    before = {p: os.stat(deployed.flash + p).st_mtime_ns for p in deployed.files()}
    again = make("deploy", "PORT=" + deployed.tty, "ARCH=host", dry=False, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    # every file was checked by its hash and left alone
    assert up_to_date(again.stdout) == {dev for _, dev in copies} | {d for d, _ in files}
    assert {p: os.stat(deployed.flash + p).st_mtime_ns for p in deployed.files()} == before
    # the console at its prompt handed the line over at mpremote's first request
    assert "trying again" not in again.stderr, again.stderr
    deployed.wait_log("simboard: hard reset", 2)


def test_deployed_console_answers_help_and_ai_over_the_serial_line(deployed, provider):
    line = deployed.console()
    try:
        line.send("help\r")
        line.expect("/> ")
        for name in ("ls", "free", "ai", "mcp", "reboot"):
            assert re.search(r"^\s+%s\s" % name, line.before, re.M), line.before
        provider.queue(Text("Hello over the serial line."))
        line.send("ai hello there\r")
        line.expect("/> ")
        assert "Hello over the serial line." in line.before, line.before
        assert provider.last.json["messages"][-1]["content"] == "hello there"
    finally:
        line.close()


def test_ctrl_c_on_the_serial_line_stops_a_script_in_time_sleep(deployed):
    """The console sets Ctrl-C to interrupt while a command runs (the
    board's UART with kbd_intr(3); simboard's pseudo-terminal raises
    SIGINT then): a script that only prints and sleeps stops at once."""
    os.makedirs(deployed.flash + "/bin", exist_ok=True)
    with open(deployed.flash + "/bin/tick.py", "w") as f:
        f.write('SPEC = {"desc": "print forever", "usage": "tick", "args": (), "tags": ()}\n'
                "def main(args):\n    import time\n    i = 0\n    while True:\n"
                "        print('tick', i)\n        i += 1\n        time.sleep(0.05)\n")
    line = deployed.console()
    try:
        line.send("tick\r")
        line.expect("tick 3")
        line.send("\x03")
        line.expect("^C")
        line.expect("/> ")
        line.send("ps\r")
        line.expect("/> ")
        assert "console" in line.before and "tick" not in line.before.split("ps", 1)[-1]
    finally:
        line.close()
        os.remove(deployed.flash + "/bin/tick.py")


def test_console_steps_aside_at_mpremotes_first_request(deployed):
    deployed.console().close()            # waiting at its prompt
    raw = deployed.log().count("soft reboot (raw REPL)")
    r = deployed.mpremote("exec", "print('in the ' + 'raw REPL')")
    assert r.returncode == 0 and "in the raw REPL" in r.stdout, r.stdout + r.stderr
    # mpremote's soft reset in the raw REPL: the console did not take it
    deployed.wait_log("simboard: soft reboot (raw REPL)", raw + 1)


def test_make_repl_reaches_the_console(deployed):
    deployed.console().close()
    child = pexpect.spawn("make", ["repl", "PORT=" + deployed.tty], cwd=ROOT,
                          env=make_env(), encoding="utf-8", timeout=WAIT)
    try:
        child.expect_exact("Connected to MicroPython")
        child.send("\r")
        child.expect_exact("/> ")
        child.send("pwd\r")
        child.expect(r"pwd\r\n/\r\n")
        child.send("\x1d")                  # Ctrl-]: leave mpremote's terminal
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_deploy_frozen_copies_only_boot_and_main(frozen):
    r = make("deploy", "PORT=" + frozen.tty, "FROZEN=1", dry=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mpybuild" not in r.stdout
    assert frozen.files() == {"/boot.py", "/main.py"}
    frozen.wait_log("simboard: hard reset")
    line = frozen.console()             # main.py starts the frozen console
    try:
        line.send("ls /\r")
        line.expect("/> ")
        assert "main.py" in line.before and "lib" not in line.before.split(), line.before
    finally:
        line.close()


# main.py leaves a file when it runs: whether it ran is on the flash
MAIN_MARKS = 'open("main-ran", "w").close()\nprint("main.py ran")\n'


@pytest.fixture
def plain():
    """A stock board with an empty flash but a main.py that marks its run."""
    b = Board(files={"main.py": MAIN_MARKS})
    yield b
    b.stop()


def soft_reset(board, line, boot):
    """A new boot.py, then Ctrl-D at the REPL; -> the marker of main.py's
    run removed first."""
    board.write("boot.py", boot)
    marker = os.path.join(board.flash, "main-ran")
    if os.path.exists(marker):
        os.remove(marker)
    line.send("\x04")
    line.expect("soft reboot")
    return marker


def test_boot_py_that_fails_skips_main_py_as_the_esp32_does(plain):
    line = Line(plain.tty)
    try:
        line.send("\r")
        line.expect(">>> ")
        # boot.py ends without an error: main.py runs
        marker = soft_reset(plain, line, 'print("boot.py ok")\n')
        line.expect(">>> ")
        assert "main.py ran" in line.before and os.path.exists(marker), line.before
        # Ctrl-C while boot.py runs: KeyboardInterrupt, and main.py does not run
        marker = soft_reset(plain, line, 'print("boot.py waits")\nimport time\n'
                                         'time.sleep(60)\n')
        line.expect("boot.py waits")
        line.send("\x03")
        line.expect(">>> ")
        assert "KeyboardInterrupt" in line.before and "main.py ran" not in line.before
        assert not os.path.exists(marker)
        # boot.py raises: its traceback, then the REPL; main.py does not run
        marker = soft_reset(plain, line, 'print("boot.py runs")\nraise ValueError("boot broke")\n')
        line.expect(">>> ")
        assert "ValueError: boot broke" in line.before, line.before
        assert "main.py ran" not in line.before and not os.path.exists(marker)
    finally:
        line.close()
    # mpremote reset, then mpremote exec: the REPL, not main.py, takes its
    # requests after each reset
    for _ in range(3):
        resets = plain.log().count("simboard: hard reset")
        assert plain.mpremote("reset").returncode == 0
        plain.wait_log("simboard: hard reset", resets + 1)
        r = plain.mpremote("exec", "print('in the ' + 'raw REPL')")
        assert r.returncode == 0 and "in the raw REPL" in r.stdout, r.stdout + r.stderr
        assert not os.path.exists(marker)
    assert "board process ended" not in plain.log(), plain.log()


def test_ctrl_c_at_any_moment_of_a_soft_reset_never_ends_the_board_process(plain):
    """Ctrl-C together with Ctrl-D (the old process ending), at "soft
    reboot" (the new one starting), as boot.py and main.py start and at
    the banner: a KeyboardInterrupt in the code running then or a byte for
    the REPL, never the end of the process; the board answers after each."""
    plain.write("boot.py", 'print("boot.py runs")\nimport time\ntime.sleep_ms(20)\n')
    moments = [None, "soft reboot", "boot.py runs", "main.py ran", "Type \"help()\""]
    line = Line(plain.tty)
    try:
        line.send("\r")
        line.expect(">>> ")
        for i in range(15):
            # most often as the new process starts: a SIGINT before its
            # handler is there would end it
            moment = moments[i % len(moments)] if i < 10 else "soft reboot"
            if moment is None:
                line.send("\x04\x03")
            else:
                line.send("\x04")
                line.expect(moment)
                line.send("\x03")
            line.send("print('alive', 6 * 7)\r")
            line.expect("alive 42")
            line.expect(">>> ")
    finally:
        line.close()
    log = plain.log()
    assert "board process ended" not in log and log.count("simboard: soft reboot") == 15, log


def test_reboot_at_the_console_resets_the_board(deployed):
    resets = deployed.log().count("simboard: hard reset")
    line = deployed.console()
    try:
        line.send("reboot\r")
        deployed.wait_log("simboard: hard reset", resets + 1)
        line.expect("AntOS console in 1 s")     # boot.py and main.py again
        line.expect("/> ")
        assert ">>>" not in line.before, line.before
    finally:
        line.close()


def test_mpremote_ls_shows_the_size_of_each_file(stock):
    stock.write("sizes/a.txt", "x" * 1234)
    stock.write("sizes/empty.txt", "")
    stock.write("sizes/sub/b.txt", "y" * 77)
    try:
        r = stock.mpremote("fs", "ls", ":sizes")
        assert r.returncode == 0, r.stdout + r.stderr
        listed = {name: int(size) for size, name in re.findall(r"^\s*(\d+) (\S+)$",
                                                               r.stdout, re.M)}
        assert listed == {"a.txt": 1234, "empty.txt": 0, "sub/": 0}, r.stdout
    finally:
        shutil.rmtree(os.path.join(stock.flash, "sizes"))


def hil_rows(out):
    """{scenario: [result, baseline, peak, least free, heap, working]} of the table."""
    rows = {}
    for ln in out.splitlines():
        m = re.match(r"^(\S+)\s+(ok|FAIL|skipped: .*?)(?:\s{2,}(.*))?$", ln)
        if m and not ln.startswith("hil:"):
            rows[m.group(1)] = [m.group(2)] + re.findall(r"([\d.]+) KB", m.group(3) or "")
    return rows


def check_hil_table(rows, text):
    """Every scenario, each ok, with figures that agree (tools/README.md,
    "Testing on a board"): baseline + peak + least free = heap, as printed;
    working comes from a run of its own (not part of the sum)."""
    assert list(rows) == [c[0] for c in hil.cases()], text
    for name, figures in rows.items():
        assert figures[0] == "ok" and len(figures) == 6, (name, figures, text)
        base, peak, free, heap, working = (round(float(x) * 10) for x in figures[1:])
        assert base + peak + free == heap, (name, figures, text)
        assert 0 < base < heap and 0 < peak and 0 < working < 640, (name, figures, text)
    # the console round works more than a bare jsonstream run
    assert float(rows["console"][5]) > float(rows["js_core"][5]), text


def test_make_hil_runs_every_scenario_on_the_board_and_prints_the_heap_table(frozen):
    resets = frozen.log().count("simboard: hard reset")
    r = make("hil", "PORT=" + frozen.tty, "HOST=127.0.0.1", dry=False, timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    check_hil_table(hil_rows(r.stdout), r.stdout)
    frozen.wait_log("simboard: hard reset", resets + 1)     # left in its console


def test_readme_hil_table_is_a_whole_run_whose_figures_agree():
    with open(os.path.join(ROOT, "tools", "README.md")) as f:
        text = f.read()
    part = text.split("## Testing on a board", 1)[1].split("\n## ", 1)[0]
    table = part.split("```\n", 2)[1]
    check_hil_table(hil_rows(table), table)


def test_make_hil_without_host_skips_the_scenarios_with_servers(frozen):
    r = make("hil", "PORT=" + frozen.tty, "ONLY=js_write,rounds-gemini", dry=False,
             timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no HOST given: the scenarios with servers are skipped" in r.stdout
    rows = hil_rows(r.stdout)
    assert rows["js_write"][0] == "ok" and rows["rounds-gemini"] == ["skipped: no HOST"]


def test_hil_refuses_an_address_it_cannot_listen_on_and_unknown_names():
    hil = [PY, os.path.join(ROOT, "tools", "hil.py"), "--port", "/nonexistent"]
    r = subprocess.run(hil + ["--host", "192.0.2.1"], capture_output=True, text=True,
                       timeout=WAIT)
    assert r.returncode == 2 and "cannot listen on 192.0.2.1" in r.stdout, r.stdout
    r = subprocess.run(hil + ["--only", "js_core,nope"], capture_output=True, text=True,
                       timeout=WAIT)
    assert r.returncode == 2 and "unknown scenario nope" in r.stdout, r.stdout


def test_simboard_stops_and_leaves_nothing_running():
    # stopped by SIGTERM
    b = Board()
    assert os.path.islink(b.tty) and board_pids(b.flash)
    b.proc.terminate()
    assert b.proc.wait(WAIT) == 0
    assert b.log().endswith("simboard: stopped\n") and not os.path.lexists(b.tty)
    assert board_pids(b.flash) == []
    b.stop()
    # the program that started it dies (a test run killed): it stops by itself
    b = Board(launcher=[sys.executable, "-c", "import subprocess, sys, time; "
                        "subprocess.Popen(sys.argv[1:]); time.sleep(600)"])
    pids = board_pids(b.flash)
    assert pids
    b.proc.kill()
    b.wait_log("simboard: stopped")
    assert not os.path.lexists(b.tty)
    deadline = time.monotonic() + WAIT
    while board_pids(b.flash):
        assert time.monotonic() < deadline, board_pids(b.flash)
        time.sleep(0.05)
    b.stop()
