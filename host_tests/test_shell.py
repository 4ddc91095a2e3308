"""The console driven through a pseudo-terminal, as a person types.

Each test starts tools/sim.py under pexpect: sim.py puts the pty into raw
mode and runs the console on the MicroPython unix port from lib/ compiled
to .mpy (the `mpy` fixture's build), with a fresh temporary folder as the
board's flash. Assertions are on what the screen shows (the output is
replayed through a small terminal emulator below) and on the files left on
the simulated flash.
"""
import json
import os
import re
import subprocess
import sys

import pexpect
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIM = os.path.join(ROOT, "tools", "sim.py")
PROMPT_END = "> \x1b[0m"
PROMPT_START = "\n\x1b[1;32m"    # a fresh prompt (a redraw starts with "\r")

SPIN = '''SPEC = {"desc": "loop until Ctrl-C", "usage": "spin", "args": (),
        "tags": ("test",)}


def main(args):
    import shell
    from shell import term
    from compat import sleep_ms
    shell.out("spinning")
    while True:
        term.check_interrupt()
        sleep_ms(20)
'''

GREET = '''# greet: a user command
SPEC = {
    "name": "greet",
    "desc": "greet a person by name",   # a comment inside the literal
    "usage": "greet NAME [TIMES]",
    "args": (("name", "str", "1"), ("times", "int", "?")),
    "tags": ("example", "fun"),
}
print("this line runs only when the command runs")


def main(args):
    import shell
    for _ in range(int(args[1]) if len(args) > 1 else 1):
        shell.out("hi " + args[0] + "}")
'''

BOOM = '''SPEC = {"desc": "always fails", "usage": "boom", "args": (), "tags": ()}


def main(args):
    raise ValueError("it broke")
'''

OOM = BOOM.replace("always fails", "runs out of memory").replace(
    '"boom"', '"oom"').replace('ValueError("it broke")', "MemoryError")


def screen(raw, width=200):
    """Replay terminal output (the escape codes the console writes) into the
    lines a person would see."""
    lines = [[]]
    row = col = 0
    i = 0
    csi = re.compile(r"\x1b\[([0-9;]*)([A-Za-z~])")
    while i < len(raw):
        c = raw[i]
        if c == "\x1b":
            m = csi.match(raw, i)
            if m:
                arg, cmd = m.group(1), m.group(2)
                n = int(arg) if arg.isdigit() else 1
                line = lines[row]
                if cmd == "K":
                    del line[col:]
                elif cmd == "D":
                    col = max(0, col - n)
                elif cmd == "C":
                    col = min(width, col + n)
                elif cmd == "J":
                    lines, row, col = [[]], 0, 0
                elif cmd == "H":
                    row = col = 0
                i = m.end()
                continue
            i += 1
            continue
        if c == "\r":
            col = 0
        elif c == "\n":
            row += 1
            col = 0
            while len(lines) <= row:
                lines.append([])
        elif c == "\x08":
            col = max(0, col - 1)
        elif c >= " ":
            line = lines[row]
            while len(line) < col:
                line.append(" ")
            if col < len(line):
                line[col] = c
            else:
                line.append(c)
            col += 1
        i += 1
    return ["".join(x).rstrip() for x in lines]


class Console:
    def __init__(self, mpy, flash, settings=None, files=None, heap="256K"):
        self.flash = str(flash)
        os.makedirs(self.flash, exist_ok=True)
        if settings is not None:
            with open(os.path.join(self.flash, "settings.json"), "w") as f:
                json.dump(settings, f)
        for rel, text in (files or {}).items():
            p = os.path.join(self.flash, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        env = dict(os.environ)
        env.pop("ANTOS_TTY", None)
        self.raw = ""
        self.p = pexpect.spawn(sys.executable, [SIM, "--flash", self.flash, "--lib",
                                                os.path.join(mpy.build, "lib"),
                                                "--heap", heap],
                               encoding="utf-8", timeout=15, dimensions=(50, 200),
                               env=env, cwd=ROOT)
        self.expect_prompt()

    def _take(self):
        self.raw += (self.p.before or "") + (self.p.after if isinstance(self.p.after, str) else "")

    def expect(self, text):
        self.p.expect_exact(text)
        self._take()

    def expect_prompt(self, path="/"):
        self.expect(PROMPT_START + path + PROMPT_END)

    def send(self, keys):
        self.p.send(keys)

    def cmd(self, line, path="/"):
        """Type a line and Enter; -> what the screen shows after it, up to the
        next prompt (exclusive)."""
        start = len(screen(self.raw))
        self.p.send(line + "\r")
        self.expect_prompt(path)
        return "\n".join(screen(self.raw)[start - 1:-1])

    def lines(self):
        return screen(self.raw)

    def file(self, rel):
        with open(os.path.join(self.flash, rel)) as f:
            return f.read()

    def exists(self, rel):
        return os.path.exists(os.path.join(self.flash, rel))

    def settings(self):
        return json.loads(self.file("settings.json"))

    def close(self):
        if self.p.isalive():
            self.p.send("exit\r")
            self.p.expect(pexpect.EOF)
        self.p.close()


@pytest.fixture
def con(mpy, tmp_path):
    made = []

    def make(**kw):
        c = Console(mpy, tmp_path / "flash", **kw)
        made.append(c)
        return c
    yield make
    for c in made:
        c.close()


def no_traceback(c):
    assert "Traceback" not in c.raw


# ---- commands --------------------------------------------------------------

def test_help_lists_registry_and_bin_scripts(con):
    c = con(files={"bin/greet.py": GREET})
    out = c.cmd("help")
    for name in ("help", "ls", "cd", "cat", "mkdir", "rm", "mv", "free", "df", "ps",
                 "date", "set", "get", "wifi", "reboot", "exit", "py", "run", "ai",
                 "mcp", "?"):
        assert re.search(r"^  %s +\S" % re.escape(name), out, re.M), name
    assert "greet a person by name (script)" in out
    assert "this line runs only" not in c.raw        # SPEC read without running it
    out = c.cmd("help mv")
    assert "usage: mv SRC DST" in out and "src" in out and "built-in" in out
    out = c.cmd("help greet")
    assert "usage: greet NAME [TIMES]" in out and "script: /bin/greet.py" in out
    assert "tags: example, fun" in out
    out = c.cmd("help nosuch")
    assert "no command nosuch" in out
    no_traceback(c)


def test_files_ls_cd_cat_mkdir_mv_rm(con):
    c = con(files={"notes/a.txt": "line one\nline two\n", "notes/deep/x.bin": "\x00\x01",
                   "notes/deep/ctl.bin": "".join(chr(i) for i in range(1, 32)) * 4})
    out = c.cmd("ls")
    assert re.search(r"^ +[0-9.]+ K?B  boot\.py$", out, re.M)
    assert re.search(r"^ +notes/$", out, re.M) and re.search(r"^ +bin/$", out, re.M)
    c.cmd("cd notes", path="/notes")
    assert c.cmd("pwd", path="/notes").strip().endswith("/notes")
    out = c.cmd("cat a.txt", path="/notes")
    assert "line one\nline two" in out
    out = c.cmd("cat deep/x.bin", path="/notes")
    assert "(binary file, 2 B: 00 01)" in out
    out = c.cmd("cat deep/ctl.bin", path="/notes")       # no NUL: control bytes
    assert "(binary file, 124 B: 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 ...)" in out
    c.cmd("mkdir sub", path="/notes")
    c.cmd("mv a.txt sub", path="/notes")
    assert c.exists("notes/sub/a.txt") and not c.exists("notes/a.txt")
    c.cmd("mv sub/a.txt b.txt", path="/notes")
    assert c.file("notes/b.txt") == "line one\nline two\n"
    out = c.cmd("rm sub deep", path="/notes")
    assert "deep: folder not empty" in out
    assert not c.exists("notes/sub")
    c.cmd("cd ../..", path="/")                      # never above the root
    out = c.cmd("ls ../../..")
    assert "boot.py" in out
    out = c.cmd("cd boot.py")
    assert "cd: /boot.py: not a folder" in out
    out = c.cmd("cat nothere")
    assert "cat: /nothere: no such file" in out
    out = c.cmd("rm /")
    assert "refusing" in out
    no_traceback(c)


def test_unknown_command_and_wrong_arguments(con):
    c = con()
    out = c.cmd("frobnicate now")
    assert "unknown command: frobnicate (type help)" in out
    out = c.cmd("mv onlyone")
    assert "mv: missing dst" in out and "usage: mv SRC DST" in out
    out = c.cmd("pwd extra")
    assert "pwd: too many arguments" in out and "usage: pwd" in out
    out = c.cmd("ai tools nonsense")
    assert "action must be one of: list, clear" in out
    out = c.cmd('cat "unclosed')
    assert "unclosed quote" in out
    no_traceback(c)


def test_bin_script_command_typed_args_and_failures(con):
    c = con(files={"bin/greet.py": GREET, "bin/boom.py": BOOM, "bin/oom.py": OOM})
    out = c.cmd('greet "Ann Lee" 2')
    assert out.count("hi Ann Lee}") == 2
    assert "this line runs only when the command runs" in out
    out = c.cmd("greet Ann many")
    assert "times must be a number, not many" in out and "usage: greet NAME [TIMES]" in out
    out = c.cmd("greet")
    assert "greet: missing name" in out
    out = c.cmd("boom")
    assert "/bin/boom.py line 5: ValueError: it broke" in out     # the file and line
    assert len([ln for ln in out.splitlines() if ln.strip()]) == 2   # error + echo line
    out = c.cmd("oom")      # what to do about it, as the ai.* errors say (one
    #                         line, folded between words to the terminal's width)
    assert "/bin/oom.py line 5: out of memory (restart, or free memory: ai -new, " \
        "ai tools clear)" in " ".join(out.split()), out
    out = c.cmd("run bin/greet.py")
    assert "this line runs only" in out      # run FILE executes it as __main__
    no_traceback(c)


def test_settings_set_get_masked(con):
    c = con(settings={})
    out = c.cmd("set ai.history.turns 40")
    assert "ai.history.turns = 40" in out
    assert c.settings()["ai.history.turns"] == 40
    out = c.cmd('set ai.chat.system "be brief"')
    assert c.settings()["ai.chat.system"] == "be brief"
    c.send("set ai.general.key\r")
    c.expect("(hidden): ")
    c.send("sk-supersecret-123\r")
    c.expect_prompt()
    assert "sk-supersecret-123" not in c.raw
    assert "*" * len("sk-supersecret-123") in "\n".join(c.lines())
    assert c.settings()["ai.general.key"] == "sk-supersecret-123"
    out = c.cmd("get")
    assert "ai.general.key = sk-...23" in out and "ai.history.turns = 40" in out
    out = c.cmd("get ai.chat")
    assert "ai.chat.system = be brief" in out and "ai.general" not in out
    out = c.cmd("set -d ai.chat.system")
    assert "deleted ai.chat.system" in out and "ai.chat.system" not in c.settings()
    out = c.cmd("get nope.nothing")
    assert "no setting nope.nothing" in out
    assert "sk-supersecret-123" not in c.raw
    no_traceback(c)


def test_system_commands(con):
    c = con()
    out = c.cmd("free")
    m = re.search(r"heap: (\S+) KB used, (\S+) KB free, (\S+) KB total", out)
    assert m and 200 < float(m.group(3)) <= 256
    assert re.search(r"flash: .+ used, .+ free, .+ total", c.cmd("df"))
    out = c.cmd("ps")
    assert re.search(r"^ +1 +\d+s +console$", out, re.M) and re.search(r"\d+s +ps$", out, re.M)
    assert re.search(r"^20\d\d-\d\d-\d\d \d\d:\d\d:\d\d$", c.cmd("date"), re.M)
    assert "wifi: only on the board" in c.cmd("wifi")
    assert "wifi: only on the board" in c.cmd("wifi connect home secretpw")
    no_traceback(c)


# ---- the ? helper ------------------------------------------------------------

def test_helper_answers_from_the_live_system(con):
    c = con(files={"bin/greet.py": GREET, "apps/weather/boot.py": "# nested\n"})
    out = c.cmd("? where is boot.py")
    assert "Found 2 entries named like 'boot.py':" in out
    assert re.search(r"^  /boot\.py  \(\d+ bytes\)$", out, re.M)
    assert "/apps/weather/boot.py" in out
    out = c.cmd("? where is the greet script")
    assert "/bin/greet.py" in out and "'greet' is also a command" in out
    out = c.cmd("? where is nothing-like-this")
    assert "No file or command named like 'nothing-like-this'" in out
    out = c.cmd("? what does mcp do")
    assert "mcp: MCP servers" in out and "usage: mcp | mcp add NAME URL [TOKEN]" in out
    assert "where: built-in command (shell.mcpcmd)" in out
    out = c.cmd("? what does greet do")
    assert "greet: greet a person by name" in out and "where: /bin/greet.py" in out
    out = c.cmd("? what can I use for networking")
    assert "Commands tagged network:" in out
    assert re.search(r"^  wifi ", out, re.M) and re.search(r"^  mcp ", out, re.M)
    assert not re.search(r"^  ls ", out, re.M)
    out = c.cmd("? what is running")
    assert "(from: ps)" in out and "console" in out and "? what is running" in out
    rows = [ln for ln in out.splitlines() if re.match(r"^ *\d+  ", ln)]
    assert len(rows) >= 2 and len({ln.index("s  ") for ln in rows}) == 1   # aligned
    out = c.cmd("? how much memory is free")
    assert re.search(r"heap: .* KB free", out) and "(from: free)" in out
    out = c.cmd("? what is my free memory")
    assert re.search(r"heap: .* KB free", out) and "usage:" not in out
    out = c.cmd("? how much flash space is left")
    assert "flash:" in out and "(from: df)" in out
    for q in ("? what is the date", "? what time is it"):
        out = c.cmd(q)
        assert "(from: date)" in out and re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", out, re.M), out
    out = c.cmd("? what does date do")
    assert "date: show the date and time" in out and "usage: date" in out
    assert not re.search(r"^\d{4}-\d\d-\d\d", out, re.M)
    out = c.cmd("? which folder am I in")
    assert "(from: pwd)" in out and re.search(r"^/$", out, re.M)
    no_traceback(c)


def test_helper_sends_how_to_questions_to_the_model(con):
    from fakes import FakeOpenAI, Text
    with FakeOpenAI(flavor="ollama") as srv:
        srv.queue(Text("Put a SPEC dict and main(args) in /bin/NAME.py."))
        c = con(settings={"ai.general.provider": "ollama",
                          "ai.general.base_url": srv.base_url})
        out = c.cmd("? how do I write a script for the bin folder")
        assert "Put a SPEC dict" in out and "Commands tagged" not in out
        assert len([r for r in srv.requests if r.json]) == 1
    no_traceback(c)


def test_helper_falls_back_to_model_streamed(con):
    from fakes import FakeOpenAI, Text
    with FakeOpenAI(flavor="ollama") as srv:
        srv.queue(Text("Try **ls** to see `files`."))
        c = con(settings={"ai.general.provider": "ollama",
                          "ai.general.base_url": srv.base_url},
                files={"bin/greet.py": GREET})
        out = c.cmd("? tell me a joke about robots")
        assert "Try ls to see files." in out.replace("\u2022", "")
        assert "\x1b[1m" in c.raw        # bold rendered on the terminal
        req = [r for r in srv.requests if r.json and "messages" in r.json][-1]
        msgs = req.json["messages"]
        assert req.json.get("stream") is True
        system = msgs[0]["content"]
        assert msgs[0]["role"] == "system" and "greet: greet a person by name" in system
        assert "ls: list a folder" in system
        assert msgs[-1] == {"role": "user", "content": "tell me a joke about robots"}
    no_traceback(c)


def test_helper_without_provider_says_what_to_run(con):
    c = con(settings={})
    out = c.cmd("? tell me a joke about robots")
    assert "ai config" in out
    # the echo and one error line (folded between words: its rest indented)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines[1].startswith("no AI provider") and all(ln.startswith("  ") for ln in lines[2:])
    no_traceback(c)


def test_default_settings_point_at_local_ollama(con):
    c = con()     # the seeded flash: ai.general.provider = ollama (localhost)
    assert c.settings() == {"ai.general.provider": "ollama"}
    out = c.cmd("? tell me a joke about robots")
    assert "ollama" in out.lower()
    no_traceback(c)


# ---- line editing ---------------------------------------------------------------

def test_line_editing_keys(con):
    c = con(files={"alpha.txt": "A\n", "alpine.txt": "B\n"})
    c.send("lx\x7fs\r")                           # backspace
    c.expect_prompt()
    assert "/> ls" in c.lines() and "boot.py" in c.raw
    c.send("s\x1b[Dl\r")                          # left arrow, insert before
    c.expect_prompt()
    assert c.lines().count("/> ls") == 2
    c.send("cat alpha.tx\x1b[D\x1b[D\x1b[C\x1b[Ct\r")   # left/right, then end
    c.expect_prompt()
    assert "A" in c.lines()
    c.send("pwd\r")
    c.expect_prompt()
    c.send("\x1b[A\x1b[A\x1b[B\r")                # up, up, down -> pwd again
    c.expect_prompt()
    assert c.lines().count("/> pwd") == 2
    c.send("\x1b[A\x01x\x05\x1b[3~\r")            # Home/End keys, Delete at end: no-op
    c.expect_prompt()
    assert "unknown command: xpwd (type help)" in "\n".join(c.lines())
    c.send("junk words\x15pwd\r")                 # Ctrl-U clears the line
    c.expect_prompt()
    assert c.lines().count("/> pwd") == 3


def test_tab_completion(con):
    c = con(files={"alpha.txt": "A\n", "alpine.txt": "B\n", "bin/greet.py": GREET})
    c.send("pw\t")
    c.expect("d ")
    c.send("\x15gr\t")                            # a /bin command
    c.expect("eet ")
    c.send("\x15cat bo\t")
    c.expect("ot.py ")
    c.send("\x15cat al\t")                        # common prefix first
    c.expect("p")
    c.send("\t")                                  # then the candidates
    c.expect("alpine.txt")
    c.send("h")
    c.send("a.txt\r")
    c.expect_prompt()
    assert "/> cat alpha.txt" in c.lines() and "A" in c.lines()
    c.send("cd b\t")                              # folders end with /
    c.expect("in/")
    c.send("\r")
    c.expect_prompt("/bin")
    c.send("help l\t")                            # type "cmd": command names
    c.expect("s ")
    c.send("\x15mcp d\t")                         # sub-commands
    c.expect("el ")
    c.send("\x15ai tools c\t")                    # choices
    c.expect("lear ")
    c.send("\x15\r")
    c.expect_prompt("/bin")


def test_ctrl_c_cancels_line_and_running_command(con):
    c = con(files={"bin/spin.py": SPIN})
    c.send("rm boot.py\x03")
    c.expect("^C")
    c.expect_prompt()
    assert c.exists("boot.py")
    c.send("spin\r")
    c.expect("spinning")
    c.send("\x03")
    c.expect("^C")
    c.expect_prompt()
    out = c.cmd("ps")
    assert "spin" not in out.split("ps\n", 1)[-1]
    assert "console" in out
    no_traceback(c)


def test_ctrl_d_leaves_to_repl_and_back(con):
    c = con()
    c.cmd("cd bin", path="/bin")
    c.send("x\x04\x7f")          # Ctrl-D on a non-empty line does not leave
    c.send("\x04")
    c.expect("(Python REPL; shell.run() comes back)")
    c.expect(">>> ")
    c.send("1+2\r")
    c.expect("3")
    c.send("shell.run()\r")
    c.expect_prompt("/")    # the sim restarts the console (on the board: same process)
    c.send("py\r")
    c.expect(">>> ")
    c.send("\x04")                                # leaves the REPL: the sim ends
    c.p.expect(pexpect.EOF)


def test_mpremote_takes_over_from_the_prompt(con):
    c = con()
    c.send("abc\x01X\r")                  # Ctrl-A is Home on a line
    c.expect("Xabc")
    c.expect_prompt()
    c.send("\r")                          # a person's Enter, then Ctrl-C: no hand-over
    c.expect_prompt()
    c.send("\x03")
    c.expect("^C")
    c.expect_prompt()
    c.send("\x01")                        # Ctrl-A on an empty line: nothing
    assert c.cmd("pwd").strip().endswith("/")
    c.send("\r\x03\r\x01")                # mpremote's enter_raw_repl bursts
    c.expect("(Python REPL for mpremote; shell.run() comes back)")
    c.expect("raw REPL; CTRL-B to exit")  # the REPL got mpremote's Enter, Ctrl-A
    c.send("\x02")                        # Ctrl-B: the friendly REPL
    c.expect(">>> ")
    c.send("1+2\r")
    c.expect("3")
    no_traceback(c)
    c.send("\x04")                                # leaves the REPL: the sim ends
    c.p.expect(pexpect.EOF)


def test_exit_ends_the_simulator(con):
    c = con()
    c.send("exit\r")
    c.p.expect(pexpect.EOF)
    c.p.close()
    assert c.p.exitstatus == 0


def test_pipe_reads_plain_lines(mpy, tmp_path):
    flash = tmp_path / "flash"
    r = subprocess.run([sys.executable, SIM, "--flash", str(flash), "--lib",
                        os.path.join(mpy.build, "lib")],
                       input="ls\nmkdir made\n? where is boot.py\nbogus\n", text=True,
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\r" not in r.stdout
    assert "/boot.py" in r.stdout and "unknown command: bogus" in r.stdout
    assert (flash / "made").is_dir()
    assert json.loads((flash / "settings.json").read_text()) == {"ai.general.provider": "ollama"}
    assert (flash / "bin" / "hello.py").exists()


# ---- registry unit checks (CPython) ------------------------------------------------

def test_registry_parse_and_history_bound():
    import shell
    from shell import term
    mcp = shell.find("mcp")
    assert shell.parse(mcp, 'call w get {"city": "Ro chdale"}') == [
        "call", "w", "get", '{"city": "Ro chdale"}']
    assert shell.parse(shell.find("ai"), '-u code what is "x"') == ['-u code what is "x"']
    # one pair of quotes around a whole text argument goes (single-quoted JSON)
    assert shell.parse(mcp, """call w get '{"city": "Rochdale"}'""") == [
        "call", "w", "get", '{"city": "Rochdale"}']
    assert shell.parse(mcp, """call w get '{"a": "it's"}'""")[-1] == """'{"a": "it's"}'"""
    assert shell.parse(shell.find("ai"), "") == []
    with pytest.raises(shell.UsageError):
        shell.parse(mcp, "add onlyname")
    names = [s["name"] for s in shell.commands()]
    assert len(names) == len(set(names))
    for s in shell.commands():
        assert s["desc"] and s["usage"].split()[0] == s["name"] and s["tags"]
    h = term.History(lines=5, size=40)
    for i in range(12):
        h.add("command %d" % i)
    assert h.items[-1] == "command 11" and len(h.items) <= 5
    assert sum(len(x) for x in h.items) <= 40


# ---- memory ---------------------------------------------------------------------------

SESSION_HEAP = "28K"


def test_console_session_heap_under_unix_port(mpy, measure, tmp_path):
    """A session of built-ins and ? questions at SESSION_HEAP of free heap
    (see mpyrun for what heap= means): no command runs out of memory, the
    working heap stays bounded, and command modules are dropped after each
    command."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("sim", SIM)
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    flash = str(tmp_path / "flash")
    sim.seed(flash)
    def run(heap, live=False):
        return mpy.run("shell_heap", heap=heap, env={"ANTOS_FLASH": flash, "ANTOS_TTY": "0"},
                       live=live)

    def ok(r):
        return (r.rc == 0 and "out of memory" not in r.out
                and "Traceback" not in r.out + r.err
                and "Found 1 entry named like 'boot.py'" in r.out and "hello, Ann!" in r.out)
    r = run(SESSION_HEAP)
    assert ok(r), r
    residual = int(r.out.split("RESIDUAL ")[1].split()[0])
    live = run(SESSION_HEAP, live=True)
    assert ok(live), live
    measure.smallest("heap", "the console: a session of built-ins and ? questions",
                     lambda heap: ok(run(heap)), SESSION_HEAP, "24K", working=live.working)
    assert "MODULES shell.term\n" in r.out        # builtins/helper were dropped
    assert live.working < 24 * 1024
    assert residual < 8 * 1024


def test_local_tool_catalogue_reads_the_registry(tmp_path):
    import shell
    import store
    os.makedirs(tmp_path / "bin")
    (tmp_path / "bin" / "greet.py").write_text(GREET.replace('"fun"),', '"fun"), "readonly": True,'))
    (tmp_path / "bin" / "boom.py").write_text(BOOM)
    (tmp_path / "boot.py").write_text("# boot\n")
    store.set_root(str(tmp_path))
    try:
        tools = {t["name"]: t for t in shell.local_tools()}
        assert set(tools) == {"board_help", "board_ls", "board_cat", "board_pwd", "board_free",
                              "board_df", "board_ps", "board_date", "board_get", "board_greet",
                              "board_wifi", "board_pin", "board_adc", "board_i2c", "board_temp"}
        assert "usage: ls [PATH]" in tools["board_ls"]["description"]
        # the same typed schema the MCP server offers (shell/tools.py)
        assert tools["board_greet"]["parameters"] == {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {"name": {"type": "string"}, "times": {"type": "integer"}}}
        # read-only: pin without the argument that sets it
        assert tools["board_pin"]["parameters"]["properties"] == {"pin": {"type": "integer"}}
        assert "boot.py" in tools["board_ls"]["run"]({})
        assert tools["board_greet"]["run"]({"name": "Ann"}) == "hi Ann}"
        assert tools["board_greet"]["run"]({"name": "Ann Lee", "times": 2}) == "hi Ann Lee}\nhi Ann Lee}"
        with pytest.raises(ValueError, match="^missing argument name"):
            tools["board_greet"]["run"]({"times": 2})
        assert "mv: missing dst" in shell.capture("mv a")
        store.set("ai.general.key", "sk-verysecretvalue")
        assert "sk-verysecretvalue" not in tools["board_get"]["run"]({})
        # all: the commands that change something too, never py, exit, reboot, ai, mcp
        every = {t["name"] for t in shell.local_tools("all")}
        assert {"board_rm", "board_mv", "board_mkdir", "board_set", "board_boom"} <= every
        assert not every & {"board_py", "board_exit", "board_reboot", "board_ai", "board_mcp"}
    finally:
        store.set_root(None)


def test_a_ctrl_c_between_two_commands_brings_the_prompt_back(flash, monkeypatch):
    """A board's Ctrl-C is raised by the VM wherever the loop is: right
    after a command, where the console loop builds its next prompt and
    jumps back (outside the try around the line), it must not end the
    console (found by the 100 Ctrl-Cs of test_ctrl_c: the board fell to
    the plain REPL)."""
    import shell
    from shell import term

    class Pressed(str):
        """The working folder, whose next prompt meets a Ctrl-C once."""
        hit = [False]

        def __add__(self, other):
            if not self.hit[0]:
                self.hit[0] = True
                raise KeyboardInterrupt
            return str(self) + other
    lines = iter(["pwd", None])
    seen = []
    monkeypatch.setattr(term, "readline", lambda p, *a, **k: seen.append(p) or next(lines))
    monkeypatch.setattr(term, "ask_width", lambda: None)
    monkeypatch.setattr(shell, "_cwd", Pressed("/"))
    monkeypatch.setattr(shell, "dispatch", lambda line: None)
    shell.run(banner=False)
    assert Pressed.hit[0] and seen == ["/> ", "/> "], seen
