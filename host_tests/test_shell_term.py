"""The console's terminal, as a new user meets it in `make sim` (issue 15):
Ctrl-C stops any command, script output starts every line at column 0,
lines wider than the terminal scroll instead of garbling, secrets typed
inline stay out of the Up-arrow history, ^C shows once, piped input gives
a transcript. Driven through a pseudo-terminal (tools/sim.py on the unix
port), the screen read through pyte as a person sees it (the harness of
test_shell_ai.py)."""
import re
import os
import subprocess
import sys


from test_shell_ai import ROOT, SIM, console  # noqa: F401  (fixture)

# a /bin command that prints its argument back: what the console received
SAY = '''SPEC = {"desc": "print the text back", "usage": "say TEXT",
        "args": (("text", "text", "1"),), "tags": ("test",)}


def main(args):
    import shell
    shell.out("got %d: %s" % (len(args[0]), args[0]))
'''

# print() and time.sleep, no console helper: only Ctrl-C can stop it
TICK = '''SPEC = {"desc": "print forever", "usage": "tick", "args": (), "tags": ("test",)}


def main(args):
    import time
    i = 0
    while True:
        print("tick", i)
        i += 1
        time.sleep(0.05)
'''

LINES = '''import sys
print("first line")
print("second line")
print("argv", sys.argv)
raise ValueError("kaboom")
'''


def prompt_row(c):
    return c.screen.display[c.screen.cursor.y].rstrip()


def answer_width(c, cols):
    """The terminal's answer to the console's width query (pyte answers
    none); the console redraws its prompt when it takes it."""
    assert "\x1b[6n" in c.raw
    c.child.send("\x1b[12;%dR" % cols)
    c.expect_exact("/> \x1b[0m\x1b[K")       # the prompt drawn again


# ---- 1. Ctrl-C --------------------------------------------------------------

def test_ctrl_c_stops_a_sleeping_script_and_a_long_cat(console):
    c = console(files={"bin/tick.py": TICK, "big.txt": ("x" * 99 + "\n") * 30000})   # 3 MB
    for _ in range(2):                        # and again: the console is whole
        c.type("tick\r")
        c.expect_exact("tick 3")
        c.child.send("\x03")
        c.expect_prompt()
        assert "^C" in c.text()
    c.type("cat big.txt\r")
    c.expect_exact("x" * 99)
    c.child.send("\x03")
    c.expect_prompt()
    out = c.line("ps")
    assert "tick" not in out and "cat big" not in out and "console" in out
    # the line editor still reads Ctrl-C as a byte: it cancels the line
    c.type("rm big.txt")
    c.child.send("\x03")
    c.expect_prompt()
    assert os.path.exists(os.path.join(c.flash, "big.txt"))


def test_ctrl_c_at_a_prompt_of_a_command_shows_once(console):
    c = console()
    c.clear()
    c.type("set some.thing\r")
    c.expect_exact("some.thing = ")
    c.child.send("\x03")
    c.expect_prompt()
    assert c.text().count("^C") == 1, c.text()


# ---- 2. every line at column 0 --------------------------------------------------

def test_script_output_and_errors_start_at_column_0(console):
    c = console(files={"lines.py": LINES}, settings="{not json")
    c.line("run lines.py alpha beta")
    c.line("get")
    rows = [r.rstrip() for r in c.screen.display]
    for want in ("first line", "second line", "argv ['/lines.py', 'alpha', 'beta']",
                 "/lines.py line 5: ValueError: kaboom", "(no settings)"):
        assert want in rows, "\n".join(rows)
    # the settings file, unreadable, was kept aside: said on a line of its own
    assert "\nsettings: %s/settings.json unreadable" % c.flash in "\n" + c.text()


# ---- 3. lines wider than the terminal -----------------------------------------------

def test_a_line_wider_than_the_terminal_scrolls_and_edits_whole(console):
    c = console(files={"bin/say.py": SAY}, cols=60)
    answer_width(c, 60)
    text = "".join("w%03d " % i for i in range(21)) + "w021"      # 109 characters
    c.clear()
    c.type("say " + text)
    c.expect_exact("w021")
    # one row, never wrapped: the prompt, then the end of the line
    assert c.screen.cursor.y == 0 and c.screen.display[1].strip() == ""
    row = prompt_row(c)
    assert row.startswith("/> ") and len(row) <= 59 and text.endswith(row[-20:]), c.text()
    for _ in range(5):
        c.child.send("\x1b[D")
    c.type("Z")
    c.expect_exact("Z w021\x1b[K")
    assert c.screen.cursor.y == 0 and prompt_row(c).endswith("Z" + text[-5:].rstrip())
    c.child.send("\x01")                      # Home: the start again
    c.expect(r"say w000 w001[^\r]*\x1b\[\d+D")      # the row, then back to its start
    assert c.screen.cursor.x == 3 and c.screen.display[1].strip() == ""
    c.child.send("\x05")                      # End
    c.child.send("\x7f")                      # Backspace at the end
    c.child.send("\r")
    c.expect_exact("got ")
    c.expect_prompt()
    want = text[:-5] + "Z" + text[-5:-1]
    assert "got %d: %s" % (len(want), want) in c.text().replace("\n", "")
    # Up recalls it whole; Ctrl-U clears the one row
    c.clear()
    c.child.send("\x1b[A")
    c.expect_exact(want[-8:] + "\x1b[K")
    assert c.screen.display[1].strip() == "" and len(prompt_row(c)) <= 59
    c.child.send("\x15")
    c.expect_exact("/> \x1b[0m\x1b[K")       # the prompt, nothing after it
    assert prompt_row(c) == "/>" and all(not r.strip() for r in c.screen.display[1:])
    c.child.send("\r\x1b[A\r")            # an empty line, then the last line again
    c.expect_exact("got ")
    c.expect_prompt()
    assert c.text().replace("\n", "").count("got %d: %s" % (len(want), want)) == 1


def test_without_an_answer_the_width_is_80_and_long_input_is_taken_or_said(console):
    c = console(files={"bin/say.py": SAY}, cols=100)
    c.clear()
    c.type("say " + "y" * 149 + "Q")
    c.expect_exact("Q")
    assert c.screen.cursor.y == 0 and len(prompt_row(c)) <= 79
    c.child.send("\r")
    c.expect_exact("got ")
    c.expect_prompt()
    assert "got 150: " + "y" * 149 + "Q" in c.text().replace("\n", "")
    # a paste longer than a line holds: said on screen, the rest dropped
    c.clear()
    c.child.send("say " + "w" * 5000)
    c.expect_exact("the rest was not taken")
    c.child.send("\r")
    c.expect_exact("got ")
    c.expect_prompt()
    assert "got 4092: www" in c.raw        # (4096 bytes with "say ")


# ---- 12. secrets out of the history; piped input ----------------------------------

def test_secrets_typed_inline_stay_out_of_the_history(console):
    c = console(settings={})
    c.line("pwd")
    c.line("set ai.chat.key sk-typed-secret-42")
    c.line("mcp add notes http://127.0.0.1:9/mcp tok-secret-99")
    c.line("set ai.chat.max_tokens 100")
    assert "ai.chat.max_tokens = 100" in c.text()
    c.clear()
    for want in ("set ai.chat.max_tokens 100", "pwd"):     # Up skips the secrets
        c.child.send("\x1b[A")
        c.expect_exact(want)
    assert "sk-typed" not in c.text() and "tok-secret" not in c.text()
    c.child.send("\x15")
    c.expect_exact("\x1b[K")


def test_piped_input_is_a_transcript_with_secrets_hidden(mpy, tmp_path):
    flash = tmp_path / "flash"
    r = subprocess.run([sys.executable, SIM, "--flash", str(flash), "--lib",
                        os.path.join(mpy.build, "lib")],
                       input="pwd\nset wifi.password hunter2-secret\nls bin\n", text=True,
                       capture_output=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "/> pwd" in lines and "/" in lines            # the output on its own line
    assert "/> ls bin" in lines and lines[lines.index("/> ls bin") + 1].endswith("  hello.py")
    assert "hunter2" not in r.stdout and "/> ***" in lines
    assert "\x1b" not in r.stdout


# ---- 10. /bin scripts ----------------------------------------------------------------

def test_bin_scripts_that_are_no_commands_say_why(console):
    c = console(files={"bin/nospec.py": "print('hi')\n",
                    "bin/broken.py": 'SPEC = {"desc": "broken", "args": (("a" "str"),)}\n',
                    "bin/ls.py": SAY.replace("print the text back", "my ls")})
    assert c.text().count("/bin/ls.py is not a command: the built-in ls has that name") == 1
    c.line("nospec")
    assert "/bin/nospec.py is not a command: it has no SPEC = {...} line" in c.text()
    c.line("broken x")
    assert "/bin/broken.py is not a command: its SPEC's args are not (name, type, count)" in c.text()
    c.line("? what does broken do")
    assert "broken: /bin/broken.py is not a command: its SPEC's args" in c.text()
    c.line("ls bin")
    assert "unknown command" not in c.text() and "my ls" not in c.text()
    assert c.text().count("/bin/ls.py is not a command") == 1      # said once


def test_a_spec_is_read_as_a_literal_never_run(console, tmp_path):
    """SPEC is read without running the script: a call in it makes the script
    no command (eval would have run it); comments, implicit concatenation,
    escapes and trailing commas read as Python reads them."""
    c = console(files={
        "bin/sneaky.py": 'SPEC = {"desc": open("/pwned", "w").write("x") and "d"}\n',
        "bin/fancy.py": ('SPEC = {"desc": "two " \'parts\\tend\',  # a comment\n'
                         '        "usage": "fancy [N]", "readonly": True,\n'
                         '        "args": (("n", "int", "?", "how many"),),}\n'
                         'def main(args):\n    print("fancy", args)\n')})
    c.line("sneaky")
    assert "/bin/sneaky.py is not a command: its SPEC is not a {...} dict literal" in c.text()
    assert not list(tmp_path.rglob("pwned")) and not os.path.exists("/pwned")
    c.line("help fancy")
    assert "two parts     end" in c.text() and "optional: how many" in c.text(), c.text()
    c.line("fancy 3")
    assert "fancy ['3']" in c.text(), c.text()


# ---- 12. replies wrapped to the terminal's width -----------------------------------

def test_a_reply_wraps_at_word_boundaries_to_the_width_and_tables_render(console):
    from fakes import FakeOpenAI, Text
    words = " ".join("word%02d" % i for i in range(40))
    with FakeOpenAI(flavor="ollama") as srv:
        c = console(settings={"ai.general.provider": "ollama", "ai.general.base_url": srv.base_url},
                 cols=60)
        answer_width(c, 60)
        srv.queue(Text(words + "\n\n| city | temp |\n|---|---|\n| Rochdale | 12 C |"))
        c.clear()
        c.line("ai weather words")
        rows = [r.rstrip() for r in c.screen.display if r.strip()]
        body = [r for r in rows if r.startswith("word")]
        assert " ".join(body) == words, rows            # every word whole, in order
        assert all(len(r) <= 59 for r in body) and len(body) >= 5
        assert "\u2502 Rochdale \u2502 12 C \u2502" in rows and "|---|---|" not in c.text()


def test_console_reference_example_sizes_are_the_seeded_files():
    """The console reference's session shows the seeded /boot.py by its size:
    the file's."""
    with open(os.path.join(ROOT, "lib", "shell", "README.md")) as f:
        text = f.read()
    size = os.path.getsize(os.path.join(ROOT, "firmware", "boot.py"))
    assert "  /boot.py  (%d bytes)" % size in text and "boot.py restored (%d bytes)" % size in text
    assert not re.search(r"boot\.py\D{1,12}\((?!%d)\d+ bytes\)" % size, text)
