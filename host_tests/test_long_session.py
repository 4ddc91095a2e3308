"""A long session at the console, as `make sim` runs it: tools/sim.py as the
ANTOS_ESP32 board (frozen code emulated, the firmware's GC setting, the
profile's network budget) with SESSION_CAP of heap free (the project's
goal is GOAL: the board keeps 64K of its 112K GC heap for a program of the
user's own; this session does not fit it yet, MEASUREMENTS.md says why;
`make sim` alone gives the console all 112K), stdin and stdout pipes,
against a loopback fake provider and the official Python SDK MCP server.
300 commands of what a person types in an evening: help, `?`, set/get,
ls/cat/df/free, `ai` questions with 1, 16 and 64 KB replies, tool calls
approved at the console, `ai history`, `ai -tools`, `ai tools list`, `mcp
add/test/tools/read/call`, `ai edit`/`ai undo`, `mcp serve` started and
stopped, Ctrl-C in the middle of a reply. The session ends with no
out-of-memory line and no traceback, and the heap in use after a collect
(a /bin command that prints it) comes back, after every round of commands,
within 2 KB of where it was after the first round (what the first round
imports stays imported, as frozen modules do on the board)."""
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time

from fakes import Calls, FakeOpenAI, Text
from mpyrun import GOAL, parse_size

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIM = os.path.join(ROOT, "tools", "sim.py")
PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"
COMMANDS = 300
SLACK = 2048
# what the session needs, plus 4K: over the goal (a 16 KB `mcp read` at
# the console is one str in a heap the session's 64 KB replies fragment;
# its tool round needs what test_mem's with cached tools does)
SESSION_CAP = "72K"
# (84K until the console's mcp call and mcp read kept a result as one str of
# mcp.max_result: a 16 KB read late in the session needed 80K, and ran out
# at 84K 1 run in 4; shown as they are read now, bisected 68K)
SESSION_WHY = ("its tool round, as the console's with cached tools, beside the ~21 KB the "
               "console keeps")

HEAPNOW = '''"""heapnow: the heap in use after a collect, in bytes (a test's probe)."""
SPEC = {"desc": "heap in use after a collect", "usage": "heapnow", "args": ()}


def main(args):
    import gc
    import compat
    import shell
    gc.collect()
    shell.out("HEAPNOW %d" % (gc.mem_alloc() - compat.HEAP_HELD))
'''


def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def text_of(size):
    return (PAT * (size // len(PAT) + 1))[:size]


class Session:
    """tools/sim.py on pipes: a line in, the output up to the next prompt
    (or a question) out."""

    def __init__(self, flash, heap):
        self.p = subprocess.Popen(
            [sys.executable, SIM, "--board", "ANTOS_ESP32", "--flash", str(flash), "--heap", heap],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=ROOT, start_new_session=True)
        self.raw = b""
        self.count = 0
        self.last = None
        self.wait_for((b"\n/> ",), 120)

    def wait_for(self, marks, timeout=60):
        start = len(self.raw)
        end = time.time() + timeout
        while True:
            tail = self.raw[start:]
            for m in marks:
                if tail.endswith(m):
                    return tail.decode("utf-8", "replace")
            left = end - time.time()
            if left <= 0 or self.p.poll() is not None:
                raise AssertionError("%r (command %d) waited for %r; rc %s; tail:\n%s" % (
                    self.last, self.count, marks, self.p.poll(),
                    self.raw[-1200:].decode("utf-8", "replace")))
            r, _, _ = select.select([self.p.stdout], [], [], min(left, 1))
            if r:
                b = os.read(self.p.stdout.fileno(), 65536)
                if b:
                    self.raw += b
                    start = min(start, len(self.raw))

    def send(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()

    def line(self, line, answers=(), timeout=60):
        """One command; each answer is typed at the next question."""
        self.count += 1
        self.last = line
        self.send(line)
        answers = list(answers)
        while True:
            out = self.wait_for((b"\n/> ", b"[a]lways: ", b"? [y/N] "), timeout)
            if not answers:
                assert out.endswith("\n/> "), "%s: a question nobody answers:\n%s" % (line, out)
                return out
            self.send(answers.pop(0))

    def interrupt(self, line, after):
        """A command, Ctrl-C once `after` has been printed."""
        self.count += 1
        self.last = line
        self.send(line)
        self.wait_for_text(after)
        time.sleep(0.5)     # (it has shown the piece: it waits for the next)
        os.killpg(self.p.pid, signal.SIGINT)   # (sim.py ignores it: the port's)
        return self.wait_for((b"\n/> ",), 60)

    def wait_for_text(self, text, timeout=60):
        end = time.time() + timeout
        mark = len(self.raw)
        while text.encode() not in self.raw[mark:]:
            assert time.time() < end and self.p.poll() is None, self.raw[-2000:]
            r, _, _ = select.select([self.p.stdout], [], [], 0.5)
            if r:
                self.raw += os.read(self.p.stdout.fileno(), 65536)

    def heap(self):
        out = self.line("heapnow")
        return int(re.search(r"HEAPNOW (\d+)", out).group(1))

    def close(self):
        if self.p.poll() is None:
            try:
                self.send("exit")
                self.p.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()


def _session(tmp_path, mcp_url, heap):
    """The 300 commands at heap (free once the emulated flash is in place);
    AssertionError at the first thing that goes wrong."""
    flash = tmp_path / ("flash-%s" % heap)
    (flash / "bin").mkdir(parents=True)
    (flash / "bin" / "heapnow.py").write_text(HEAPNOW)
    (flash / "notes.txt").write_text("first line\nsecond line\n")
    with FakeOpenAI(flavor="ollama") as srv:
        srv.options(chunked=True)
        srv.delta_size = 64
        (flash / "settings.json").write_text(json.dumps({
            "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
            "ai.general.model": "llama3.2"}))
        s = Session(flash, heap)
        try:
            heaps = []
            s.line("mcp add sdk " + mcp_url)
            s.line("ai -tools")
            rnd = 0
            while s.count < COMMANDS:
                rnd += 1
                size = (1024, 16384, 65536)[rnd % 3]
                s.line("help")
                srv.queue(Text("Type free to see the heap."))
                s.line("? how do I see the free heap")
                s.line("set ai.chat.temperature 0.%d" % (rnd % 10))
                assert "ai.chat.temperature = 0.%d" % (rnd % 10) in s.line("get ai.chat.temperature")
                assert "notes.txt" in s.line("ls")
                assert "second line" in s.line("cat notes.txt")
                s.line("df")
                m = re.search(r"heap: .* used, .* free, (\d+) KB total", s.line("free"))
                assert m and abs(int(m.group(1)) - parse_size(heap) // 1024) <= 2, m   # as the board's
                srv.queue(Text(text_of(size)))
                out = s.line("ai write me %d characters" % size, timeout=120)
                assert "0123456789abcdef" in out, out[-500:]
                s.line("ai history")
                srv.queue(Calls([("sdk__get_weather", {"city": "Rochdale"})]))
                srv.queue(Text("It is raining in Rochdale."))
                out = s.line("ai weather in Rochdale?", answers=["y"])
                assert "raining" in out, out[-800:]
                s.line("ai tools list")
                assert "sdk: ok" in s.line("mcp test sdk")
                s.line("mcp tools sdk")
                assert "0123456789" in s.line("mcp read sdk big://%d" % (size // 4))
                s.line('mcp call sdk big {"size": %d}' % (size // 2))
                srv.queue(Text("```\nan added line %d\n```" % rnd))
                s.line("ai edit notes.txt:1 --before add a line")
                s.line("ai undo")
                assert "mcp serve" in s.line("mcp serve %d" % free_port())
                s.line("mcp serve status")
                s.line("mcp serve stop")
                # a slow stream: the Ctrl-C comes while the console waits for
                # the next piece. (The PyPI unix port raises KeyboardInterrupt
                # from its SIGINT handler, in whatever C code runs, which can
                # leave its heap corrupt; the board's UART only schedules it.
                # See host_tests/README.md.)
                srv.options(chunked=True, gap=2.0)
                srv.queue(Text(text_of(65536)))
                out = s.interrupt("ai one more long one", "0123456789abcdef")
                srv.options(chunked=True)
                if rnd % 4 == 0:
                    s.line("ai -tools")
                heaps.append(s.heap())
                out = s.raw.decode("utf-8", "replace")
                assert "out of memory" not in out and "Traceback" not in out, out[-3000:]
            print("heap in use after each round (bytes): %s" % heaps)
            assert s.count >= COMMANDS
            assert max(heaps) - heaps[0] < SLACK, heaps
            # history is on flash and whole: the last exchange is in it
            s.line("ai history")
        finally:
            s.close()
        out = s.raw.decode("utf-8", "replace")
        assert "out of memory" not in out and "Traceback" not in out, out[-3000:]
        assert "NETBUDGET" not in out


def test_a_300_command_session_on_the_esp32_profile(tmp_path, sdk_server, measure):
    mcp_url = sdk_server(big=True)
    _session(tmp_path, mcp_url, SESSION_CAP)

    def passes(heap):
        try:
            _session(tmp_path, mcp_url, heap)
        except AssertionError:
            return False
        return True
    measure.smallest("heap", "the console: a 300-command session (make sim, ANTOS_ESP32)",
                     passes, SESSION_CAP, goal=GOAL, why=SESSION_WHY)
