"""Ctrl-C as on the board (issue 40): the tests' MicroPython is a native
unix port built with the ESP32's GIL, where SIGINT is scheduled for the
next bytecode as the board's UART schedules Ctrl-C (tools/mpunix.py), not
raised inside whatever C code runs. On the simulated board (tools/
simboard.py: Ctrl-C on the serial line becomes SIGINT exactly while the
console lets it interrupt) a person presses Ctrl-C 100 times at random
moments: in replies as they stream, in MCP tool calls, in flash writes,
while the board serves MCP to a client. After each the console is back at
its prompt; at the end the heap in use is where it was, and every file is
whole: settings, history, and a file rewritten atomically again and again.
"""
import json
import os
import random
import threading
import time

from fakes import Calls, FakeOpenAI, Text
from test_long_session import free_port
from test_mcp_server import sdk, text_of
from test_simboard import Board
from toolrun import ROOT

PRESSES = 100
SLACK = 2048        # bytes the heap in use may end above where it began
HEAPNOW = '''"""heapnow: the heap in use after a collect (a test's probe)."""
SPEC = {"desc": "heap in use after a collect", "usage": "heapnow", "args": ()}


def main(args):
    import gc
    import shell
    gc.collect()
    shell.out("HEAPNOW %d" % gc.mem_alloc())
'''
# a flash write that takes a while: a 24 KB file rewritten atomically, five
# times, each time filled with one digit
REWRITE = '''"""rewrite: a file rewritten whole, atomically, five times (a test's)."""
SPEC = {"desc": "rewrite a file five times", "usage": "rewrite", "args": ()}


def main(args):
    import store
    for k in range(5):
        d = str(k)
        store.write_atomic("/data.txt", lambda w: [w(d * 512) for _ in range(48)])
'''
# where the console is: a command that prints its argument
MARK = '''"""mark: print MARK and the argument (a test's)."""
SPEC = {"desc": "print a mark", "usage": "mark N", "args": (("n", "str", "1"),)}


def main(args):
    import shell
    shell.out("MARK %s" % args[0])
'''


def firmware(name):
    with open(os.path.join(ROOT, "firmware", name)) as f:
        return f.read()


def whole_json_lines(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                json.loads(line)


def test_100_ctrl_cs_at_random_moments_leave_the_heap_and_the_files_sound(sdk_server):
    mcp_url = sdk_server()
    rnd = random.Random(40)
    with FakeOpenAI(flavor="ollama") as srv:
        board = Board(frozen=True, files={
            "settings.json": json.dumps({
                "ai.general.provider": "ollama", "ai.general.base_url": srv.base_url,
                "ai.general.model": "llama3.2", "ai.tools.approve": "always"}),
            "bin/heapnow.py": HEAPNOW, "bin/rewrite.py": REWRITE, "bin/mark.py": MARK,
            "data.txt": "0" * 24576,
            "boot.py": firmware("boot.py"), "main.py": firmware("main.py")})
        line = board.console()
        stop = threading.Event()
        try:
            def cmd(text):
                line.send(text + "\r")
                line.expect("/> ")
                return line.before

            def heap():
                # (the server's log line of a request may come first, and
                # the prompt drawn again after it: wait for the figure)
                line.send("heapnow\r")
                line.expect("HEAPNOW ")
                line.expect("\n")
                n = int(line.before.strip())
                line.expect("/> ")
                return n

            cmd("mcp add sdk " + mcp_url)
            assert "sdk: ok" in cmd("mcp test sdk")
            port = free_port()
            line.send("mcp serve %d\r" % port)
            line.expect("serving MCP at ")
            line.expect("/> ")
            token = json.load(open(os.path.join(board.flash, "settings.json")))["mcp.serve.token"]
            served = []

            def client():       # an AI on a PC, calling the board all along
                while not stop.is_set():
                    try:
                        _, (r,) = sdk("http://localhost:%d/mcp" % port,
                                      [{"op": "call", "name": "pwd", "args": {}}], token)
                        served.append(text_of(r).strip())
                    except AssertionError as e:
                        served.append(str(e)[:300])
            threading.Thread(target=client, daemon=True).start()
            kinds = ("reply", "tool", "rewrite", "mcp", "set")
            # each kind once to its end first: what a first use loads and
            # keeps (a style module's rules, a session's state) is in `before`
            for i in range(-len(kinds), PRESSES):
                kind = kinds[i % len(kinds)]
                if i == 0:
                    before = heap()
                srv.forget()
                if kind == "reply":
                    srv.options(chunked=True, gap=0.02)
                    srv.queue(Text("streaming piece by piece " * 30))
                    line.send("ai tell me a long story\r")
                elif kind == "tool":
                    srv.options(chunked=True)
                    srv.queue(Calls([("sdk__slow_count", {"n": 4})]), Text("counted"))
                    line.send("ai count slowly\r")
                elif kind == "rewrite":
                    line.send("rewrite\r")
                elif kind == "mcp":
                    line.send('mcp call sdk slow_count {"n": 4}\r')
                else:
                    line.send("set ai.chat.temperature 0.%d\r" % (i % 10))
                if i >= 0:
                    time.sleep(rnd.uniform(0.0, 0.4))
                    line.send("\x03")
                # back at the prompt (a Ctrl-C after the command ended is a
                # byte for the line editor, which shows the prompt again)
                line.send("mark %d\r" % (i + 100))
                line.expect("MARK %d" % (i + 100))
                seen = line.before
                line.expect("/> ")
                srv.options()
                assert "Traceback" not in seen, seen
            after = heap()
            stop.set()
            # the console still answers; (a served call's log line may draw
            # the prompt again before the output: wait for the output itself)
            line.send("help\r")
            line.expect("reboot")
            line.expect("/> ")
            srv.forget()
            srv.queue(Text("still answering"))
            line.send("ai are you still there?\r")
            line.expect("still answering")
            line.expect("/> ")
        finally:
            stop.set()
            line.close()
        log = board.log()
        flash = board.flash
        try:
            assert "board process ended" not in log, log
            print("heap in use: %d before the presses, %d after; %d calls served"
                  % (before, after, len(served)))
            assert after - before < SLACK, (before, after)
            settings = json.load(open(os.path.join(flash, "settings.json")))
            assert settings["ai.general.model"] == "llama3.2"
            for d, _, names in os.walk(os.path.join(flash, "history")):
                for n in names:
                    if n.endswith(".jsonl"):
                        whole_json_lines(os.path.join(d, n))
            data = open(os.path.join(flash, "data.txt")).read()
            assert len(data) == 24576 and data == data[0] * 24576, data[:80]
            assert served and all(s == "/" for s in served), served[:3]
        finally:
            board.stop()
