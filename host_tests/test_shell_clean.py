"""shell.clean: text from outside the console is shown, never interpreted
(DESIGN.md section 8). Unit tests on CPython; the same function runs under
the MicroPython unix port in scenarios/shell_clean.py."""
import pytest

import shell
from mpyrun import GOAL

CASES = [
    ("plain text\twith tab\nand newline", "plain text\twith tab\nand newline"),
    ("clear\x1b[2J\x1b[Hscreen", "clear^[[2J^[[Hscreen"),
    ("title\x1b]0;pwned\x07", "title^[]0;pwned^G"),
    ("osc52\x1b]52;c;cm0gLXJmIH4=\x1b\\", "osc52^[]52;c;cm0gLXJmIH4=^[\\"),
    ("nul\x00bell\x07bs\x08", "nul^@bell^Gbs^H"),
    ("del\x7f", "del^?"),
    ("crlf\r\nline", "crlf\nline"),
    ("fake\r/> prompt", "fake\n/> prompt"),
    ("c1 csi\x9b2J next\x85", "c1 csi<U+009B>2J next<U+0085>"),
    ("ls\u2028ps\u2029end", "ls\nps\nend"),
    ("rlo\u202eevil\u202c lri\u2066x\u2069", "rlo<U+202E>evil<U+202C> lri<U+2066>x<U+2069>"),
    ("caf\u00e9 \u2014 \U0001F600 \u2019", "caf\u00e9 \u2014 \U0001F600 \u2019"),
    ("", ""),
]


@pytest.mark.parametrize("text,shown", CASES)
def test_clean_shows_controls_as_text(text, shown):
    assert shell.clean(text) == shown


def test_clean_output_has_no_control_character_but_newline_and_tab():
    every = ("".join(chr(c) for c in range(0x00, 0xA0))
             + "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    shown = shell.clean(every)
    for ch in shown:
        assert ch in "\n\t" or 0x20 <= ord(ch) < 0x7F or ord(ch) >= 0xA0, repr(ch)
    for ch in "\u2028\u2029\u202a\u202e\u2066\u2069":
        assert ch not in shown


def test_out_and_err_sanitize_but_styles_are_the_consoles(capsys):
    shell.set_tty(True)
    try:
        shell.out("a\x1b[31mred?", shell.DIM)
        shell.err("boom\x1b]0;t\x07")
        shell.write("x\x1b[2Jy")
    finally:
        shell.set_tty(None)
    got = capsys.readouterr().out
    assert got == ("\x1b[2ma^[[31mred?\x1b[0m\r\n"
                   "\x1b[31mboom^[]0;t^G\x1b[0m\r\n"
                   "x^[[2Jy")


def test_clean_matches_under_micropython(mpy):
    import binascii
    import json
    texts = [t for t, _ in CASES if t]
    r = mpy.run("shell_clean", heap=GOAL,
                input="".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts))
    assert r.rc == 0, r
    want = [binascii.hexlify(shell.clean(t).encode()).decode() for t in texts]
    assert r.out.split() == want, r
