"""Streaming markdown renderer for the console.

    r = Render(write, tty=True)     # write(str) gets rendered pieces
    r.feed(piece) ...               # reply text as it arrives, any split
    r.close()                       # end of reply: flush, reset, end the line

On a terminal (tty=True) the reply is shown with ANSI attributes as it
streams: headings (bold; H1 also underlined), **bold**, *italic* / _italic_,
`inline code` (cyan), fenced code blocks (``` or ~~~, cyan, indented, the
language as a dim label), bullet lists ("-", "*", "+" -> a bullet), numbered
lists, block quotes (a dim bar), rules, and links [text](url) (underlined
text, the url dim after it). Text goes out as soon as it can be classified:
only a line's first few characters (until the block kind is known), an
emphasis run ("*", "**"), a backslash escape or a link's text are held back.
Attributes never outlive a line, so a cut stream cannot leave the terminal
bold. With tty=False the markdown passes through unchanged (plain text for
pipes and files). `nl` is the line end written ("\r\n" on a raw terminal).

    s = Screen(); s.wait(); s.sink(piece) ...; s.end()   # spinner, then Render

Memory: state is a few short strings; nothing grows with the reply except
one pending link (bounded by _MAX_LINK, then written literally).
"""
import shell
from shell import term
from compat import const

RESET = "\x1b[0m"
BOLD, BOLD_OFF = "\x1b[1m", "\x1b[22m"
ITAL, ITAL_OFF = "\x1b[3m", "\x1b[23m"
CODE, CODE_OFF = "\x1b[36m", "\x1b[39m"
UNDER, UNDER_OFF = "\x1b[4m", "\x1b[24m"
DIM = "\x1b[2m"
H1 = "\x1b[1;4m"
RULE = "\u2500" * 40
_MAX_HEAD = const(80)   # line start held to classify a block (then: text)
_MAX_LINK = const(300)  # link text + url held back (then: literal)


class Render:
    def __init__(self, write, tty=True, nl="\n"):
        self.w = write
        self.tty = tty
        self.nl = nl
        self.out = []
        self.start = True     # at the start of a line (head being classified)
        self.head = ""        # held line start
        self.fence = None     # the fence marker while inside a code block
        self.pend = ""        # held emphasis run or "\\"
        self.link = None      # None, or [text, url or None, state]
        self.bold = self.ital = self.code = False
        self.heading = ""     # the heading attribute while the line is one
        self.styled = False   # some attribute is on in this line
        self.prev = " "       # last visible character written
        self.col = 0          # characters written on this line

    # -- output ---------------------------------------------------------
    def _emit(self, s):
        if s:
            self.out.append(s)
            self.col += len(s)
            self.prev = s[-1]

    def _attr(self, code):
        self.out.append(code)
        self.styled = True

    def _off(self, code):
        self.out.append(code)
        if self.heading:      # "bold off" also ends the heading's bold
            self.out.append(self.heading)
        self.styled = bool(self.bold or self.ital or self.code or self.heading)

    def _reset(self):
        """All attributes off, then the open inline ones on again."""
        self.out.append(RESET)
        self.styled = False
        if self.heading:
            self._attr(self.heading)
        if self.bold:
            self._attr(BOLD)
        if self.ital:
            self._attr(ITAL)

    def _flush(self):
        if self.out:
            s = "".join(self.out)
            self.out = []
            self.w(s)

    def feed(self, text):
        if not text:
            return
        if not self.tty:
            self.col = 0 if text[-1] == "\n" else 1
            self.w(text.replace("\n", self.nl) if self.nl != "\n" else text)
            return
        for c in text:
            if c != "\r":
                self._char(c)
        self._flush()

    def close(self):
        """End of the reply: write what is held, reset, end the line."""
        if self.tty:
            if self.start and self.head:
                self._classify(True)
            if not self.start and not self.fence:
                self._inline_end()
            if self.fence and not self.start:
                self.out.append(CODE_OFF)
                self.styled = False
            if self.styled:
                self.out.append(RESET)
                self.styled = False
            self.head = ""
            self.fence = None
            self._flush()
        if self.col:
            self.w(self.nl)
            self.col = 0
        self.start = True

    # -- per character ----------------------------------------------------
    def _char(self, c):
        if self.start:
            self.head += c
            self._classify(c == "\n")
        elif self.fence:
            if c == "\n":
                self.out.append(CODE_OFF)
                self.styled = False
                self._newline()
            else:
                self._emit(c)
        else:
            self._inline(c)

    def _newline(self):
        if self.styled:
            self.out.append(RESET)
            self.styled = False
        self.heading = ""
        self.out.append(self.nl)
        self.col = 0
        self.prev = " "
        self.start = True
        self.head = ""

    def _classify(self, final):
        """Decide the kind of the held line start, or keep holding it."""
        head = self.head
        if self.fence:
            return self._classify_code(final)
        s = head.lstrip(" ")
        indent = head[:len(head) - len(s)]
        if final:
            s = s[:-1] if s.endswith("\n") else s
            line = s.rstrip()
            if not line:
                self._newline()
                return
            ch = line[0]
            if len(line) >= 3 and ch in "-*_" and line.replace(" ", "") == ch * len(line.replace(" ", "")):
                self._attr(DIM)
                self._emit(RULE)
                self._newline()
                return
            if len(line) >= 3 and ch in "`~" and line[:3] == ch * 3:
                self.fence = ch * 3
                lang = line[3:].strip(ch + " ")
                if lang:
                    self._attr(DIM)
                    self._emit("  " + lang)
                    self._newline()
                else:
                    self.head = ""
                return
            return self._text(indent, s, True)
        if len(head) > _MAX_HEAD:
            return self._text(indent, s, False)
        if not s:
            return                                  # only indentation so far
        ch = s[0]
        if ch == "#":
            n = len(s) - len(s.lstrip("#"))
            if n == len(s) and n <= 6:
                return
            if n <= 6 and s[n] == " ":
                self.start = False
                self.heading = H1 if n == 1 else BOLD
                self._attr(self.heading)
                self.head = ""
                return self._feed_inline(s[n + 1:])
            return self._text(indent, s, False)
        if ch in "-*+_":
            if len(s) == 1:
                return
            if ch != "_" and s[1] == " ":
                if len(s) == 2 or s[2] != ch or ch == "+":
                    self.start = False
                    self.head = ""
                    self._emit(indent + "\u2022 ")          # the bullet
                    return self._feed_inline(s[2:])
            if s.replace(" ", "") == ch * len(s.replace(" ", "")):
                return                              # a rule, or bold: wait
            return self._text(indent, s, False)
        if ch.isdigit():
            i = 0
            while i < len(s) and s[i].isdigit():
                i += 1
            if i == len(s) and i < 10:
                return
            if i < 10 and s[i] in ".)":
                if i + 1 == len(s):
                    return
                if s[i + 1] == " ":
                    self.start = False
                    self.head = ""
                    self._emit(indent + s[:i + 2])
                    return self._feed_inline(s[i + 2:])
            return self._text(indent, s, False)
        if ch in "`~":
            n = len(s) - len(s.lstrip(ch))
            if n >= 3 or n == len(s):
                return                              # a fence line: wait for its end
            return self._text(indent, s, False)
        if ch == ">":
            if len(s) == 1:
                return
            self.start = False
            self.head = ""
            self._attr(DIM)
            self._emit(indent + "\u2502 ")          # the quote bar
            self._reset()
            return self._feed_inline(s[2:] if s[1] == " " else s[1:])
        return self._text(indent, s, False)

    def _classify_code(self, final):
        head = self.head
        s = head.strip()
        marker = self.fence
        if final:
            if len(s) >= 3 and s == marker[0] * len(s):
                self.fence = None
                self.head = ""
                return                              # closing fence: no output
            self.start = False
            self._attr(CODE)
            self._emit("  " + head[:-1])
            self.out.append(CODE_OFF)
            self.styled = False
            return self._newline()
        if len(head) <= _MAX_HEAD and head.lstrip(" ").startswith(marker[0]) and (
                s == marker[0] * len(s)):
            return                                  # could be the closing fence
        self.start = False
        self.head = ""
        self._attr(CODE)
        self._emit("  " + head)

    def _text(self, indent, rest, final):
        """The held line start is ordinary text: write it through the inline
        renderer."""
        self.start = False
        self.head = ""
        self._emit(indent)
        self._feed_inline(rest)
        if final:
            self._inline("\n")

    def _feed_inline(self, s):
        for c in s:
            if self.start:          # a "\n" inside s ended the line
                self.head += c
                self._classify(c == "\n")
            else:
                self._inline(c)

    # -- inline spans -------------------------------------------------------
    def _inline(self, c):
        if self.code:
            if c == "`":
                self.code = False
                self._off(CODE_OFF)
            elif c == "\n":
                self._line_end()
            else:
                self._emit(c)
            return
        if self.link is not None:
            return self._in_link(c)
        p = self.pend
        if p == "\\":
            self.pend = ""
            if c in "\\`*_{}[]()#+-.!>~|":     # escapable
                self._emit(c)
                return
            self._emit("\\")
        elif p:
            if c == p[0] and len(p) < 3:
                self.pend = p + c
                return
            self._emphasis(c)
        if c == "*" or c == "_":
            self.pend = c
        elif c == "\\":
            self.pend = c
        elif c == "`":
            self.code = True
            self._attr(CODE)
        elif c == "[":
            self.link = ["", None]
        elif c == "\n":
            self._line_end()
        else:
            self._emit(c)

    def _emphasis(self, nxt):
        """Resolve the held run of * or _ now that the next character is
        known: it opens, closes, or is literal."""
        run, self.pend = self.pend, ""
        ch, n = run[0], len(run)
        prev = self.prev
        left = nxt not in " \n\t"             # can open ("" is in: a space)
        right = prev not in " \n\t"          # can close
        if ch == "_":
            left = left and not (prev.isalpha() or prev.isdigit())
            right = right and not (nxt.isalpha() or nxt.isdigit())
        if n == 3:
            if self.bold and self.ital and right:
                self.bold = self.ital = False
                self._off(BOLD_OFF + ITAL_OFF)
                return
            if not self.bold and not self.ital and left:
                self.bold = self.ital = True
                self._attr(BOLD + ITAL)
                return
        elif n == 2:
            if self.bold and right:
                self.bold = False
                self._off(BOLD_OFF)
                return
            if not self.bold and left:
                self.bold = True
                self._attr(BOLD)
                return
        else:
            if self.ital and right:
                self.ital = False
                self._off(ITAL_OFF)
                return
            if not self.ital and left:
                self.ital = True
                self._attr(ITAL)
                return
        self._emit(run)

    def _in_link(self, c):
        link = self.link
        if c == "\n" or len(link[0]) + len(link[1] or "") > _MAX_LINK:
            self._link_literal()
            return self._inline(c)
        if link[1] is None:
            if c == "]":
                link[1] = ""            # text done; "(" must follow
                link.append(False)
            else:
                link[0] += c
            return
        if not link[2]:
            if c == "(":
                link[2] = True
                return
            self._link_literal()
            return self._inline(c)
        if c == ")":
            self.link = None
            self._attr(UNDER)
            self._emit(link[0])
            self._off(UNDER_OFF)
            if link[1] and link[1] != link[0]:
                self._attr(DIM)
                self._emit(" <" + link[1] + ">")
                self._reset()
            return
        link[1] += c

    def _link_literal(self):
        link, self.link = self.link, None
        s = "[" + link[0]
        if link[1] is not None:
            s += "]"
            if len(link) > 2 and link[2]:
                s += "(" + link[1]
        self._emit(s)

    def _inline_end(self):
        """Write what is held at the end of a line or of the reply."""
        if self.link is not None:
            self._link_literal()
        if self.pend == "\\":
            self.pend = ""
            self._emit("\\")
        elif self.pend:
            self._emphasis("\n")
        self.bold = self.ital = self.code = False

    def _line_end(self):
        self._inline_end()
        self._newline()


class Screen:
    """A reply on the console: a spinner until the first piece, then the
    renderer. The sink polls the keyboard between pieces: Ctrl-C raises
    KeyboardInterrupt. end() stops the spinner and closes the renderer."""

    def __init__(self):
        self.r = None
        self.spin = None
        self.pieces = 0

    def wait(self, label="thinking"):
        self.end()
        self.spin = term.Spinner(label)

    def sink(self, piece):
        term.check_interrupt()
        if self.spin is not None:
            self.spin.stop()
            self.spin = None
        if self.r is None:
            self.r = Render(shell.write, shell.tty())
        self.pieces += 1
        self.r.feed(piece)

    def end(self):
        if self.spin is not None:
            self.spin.stop()
            self.spin = None
        if self.r is not None:
            self.r.close()
            self.r = None
