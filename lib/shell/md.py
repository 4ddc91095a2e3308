"""Streaming markdown renderer for the console.

    r = Render(write, tty=True)     # write(str) gets rendered pieces (raw:
                                    # they hold the renderer's escape codes)
    r.feed(piece) ...               # reply text as it arrives, any split;
                                    # sanitized first (shell.clean)
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
    spin = None     # the Screen's spinner while one is shown
    pieces = 0      # pieces fed through sink()

    def __init__(self, write, tty=True, nl="\n"):
        self.w = write
        self.tty = tty
        self.nl = nl
        self.out = []
        self.start = True     # at the start of a line (head being classified)
        self.head = ""        # held line start
        self.fence = None     # the fence character while inside a code block
        self.pend = ""        # held emphasis run or "\\"
        self.link = None      # None, or [text, url or None, "(" seen]
        self.em = 0           # inline attributes on: 1 italic, 2 bold, 4 code
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

    def _attr(self, s):
        self.out.append(s)
        self.styled = True

    def _off(self, s):
        self.out.append(s)
        if self.heading:      # "bold off" also ends the heading's bold
            self.out.append(self.heading)
        self.styled = bool(self.em or self.heading)

    def _reset(self):
        """All attributes off, then the open inline ones on again."""
        self.out.append(RESET)
        self.styled = False
        if self.heading:
            self._attr(self.heading)
        if self.em & 2:
            self._attr(BOLD)
        if self.em & 1:
            self._attr(ITAL)

    def feed(self, text):
        if not text:
            return
        text = shell.clean(text)    # outside text: no control characters
        if not self.tty:
            self.col = 0 if text[-1] == "\n" else 1
            self.w(text.replace("\n", self.nl))
            return
        self._chars(text)
        if self.out:
            text = "".join(self.out)
            self.out = []
            self.w(text)

    def close(self):
        """End of the reply: write what is held, reset, end the line."""
        if self.tty:
            if self.start and self.head:
                self._classify(True)
            if not self.start:
                if self.fence:
                    self.out.append(CODE_OFF)
                    self.styled = False
                else:
                    self._end()
            if self.styled:
                self.out.append(RESET)
        if self.col:
            self.out.append(self.nl)
        if self.out:
            self.w("".join(self.out))
        self.__init__(self.w, self.tty, self.nl)     # fresh for the next reply

    # -- per character ----------------------------------------------------
    def _chars(self, s):
        for c in s:
            if c == "\r":
                continue
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
        self.col = self.em = 0
        self.prev = " "
        self.start = True
        self.head = ""

    def _classify(self, final):
        """Decide the kind of the held line start, or keep holding it."""
        head = self.head
        f = self.fence
        if f:                           # inside a code block
            s = head.strip()
            if s and s == f * len(s) and (len(s) >= 3 if final else (
                    len(head) <= _MAX_HEAD and head.lstrip(" ")[0] == f)):
                if final:               # the closing fence: no output
                    self.fence = None
                    self.head = ""
                return                  # (or could still be it)
            self.start = False
            self.head = ""
            self._attr(CODE)
            self._emit("  " + head.rstrip("\n"))
            if final:
                self.out.append(CODE_OFF)
                self.styled = False
                self._newline()
            return
        s = head.lstrip(" ")
        indent = head[:len(head) - len(s)]
        pre = indent                    # ordinary text unless a branch says
        if final:
            s = s.rstrip("\n")
            line = s.rstrip()
            if not line:
                return self._newline()
            ch = line[0]
            if len(line) >= 3 and ch in "-*_" and not line.strip(ch + " "):
                self._attr(DIM)
                self._emit(RULE)
                return self._newline()
            if len(line) >= 3 and ch in "`~" and line[:3] == ch * 3:
                self.fence = ch
                lang = line[3:].strip(ch + " ")
                if lang:
                    self._attr(DIM)
                    self._emit("  " + lang)
                    self._newline()
                else:
                    self.head = ""
                return
        elif len(head) <= _MAX_HEAD:
            if not s:
                return                                  # only indentation so far
            ch = s[0]
            if ch == "#":
                n = len(s) - len(s.lstrip("#"))
                if n <= 6:
                    if n == len(s):
                        return
                    if s[n] == " ":
                        pre = self.heading = H1 if n == 1 else BOLD
                        self._attr(pre)
                        pre, s = "", s[n + 1:]
            elif ch in "-*+_":
                if len(s) == 1:
                    return
                if ch != "_" and s[1] == " " and (len(s) == 2 or s[2] != ch or ch == "+"):
                    pre, s = indent + "\u2022 ", s[2:]          # the bullet
                elif not s.strip(ch + " "):
                    return                              # a rule, or bold: wait
            elif ch.isdigit():
                i = 0
                while i < len(s) and s[i].isdigit():
                    i += 1
                if i < 10:
                    if i == len(s) or (s[i] in ".)" and i + 1 == len(s)):
                        return
                    if s[i] in ".)" and s[i + 1] == " ":
                        pre, s = indent + s[:i + 2], s[i + 2:]
            elif ch in "`~":
                n = len(s) - len(s.lstrip(ch))
                if n >= 3 or n == len(s):
                    return                              # a fence line: wait for its end
            elif ch == ">":
                if len(s) == 1:
                    return
                self._attr(DIM)
                self._emit(indent + "\u2502 ")          # the quote bar
                self._reset()
                pre, s = "", s[2:] if s[1] == " " else s[1:]
        self.start = False
        self.head = ""
        self._emit(pre)
        self._chars(s)
        if final:
            self._inline("\n")

    # -- inline spans -------------------------------------------------------
    def _inline(self, c):
        if c == "\n":
            self._end()
            return self._newline()
        em = self.em
        if em & 4:                      # in `code`
            if c == "`":
                self.em = em & 3
                self._off(CODE_OFF)
            else:
                self._emit(c)
            return
        link = self.link
        if link is not None:
            if len(link[0]) + len(link[1] or "") <= _MAX_LINK:
                if link[1] is None:
                    if c == "]":
                        link[1] = ""            # text done; "(" must follow
                    else:
                        link[0] += c
                    return
                if not link[2]:
                    if c == "(":
                        link[2] = True
                        return
                elif c == ")":
                    self.link = None
                    self._attr(UNDER)
                    self._emit(link[0])
                    self._off(UNDER_OFF)
                    if link[1] and link[1] != link[0]:
                        self._attr(DIM)
                        self._emit(" <" + link[1] + ">")
                        self._reset()
                    return
                else:
                    link[1] += c
                    return
            self._end()                 # not a link after all: literal
        p = self.pend
        if p == "\\":
            self.pend = ""
            if c in "\\`*_{}[]()#+-.!>~|":     # escapable
                self._emit(c)
                return
            self._emit(p)
        elif p:
            if c == p[0] and len(p) < 3:
                self.pend = p + c
                return
            self._emphasis(c)
        if c in "*_\\":
            self.pend = c
        elif c == "`":
            self.em |= 4
            self._attr(CODE)
        elif c == "[":
            self.link = ["", None, False]
        else:
            self._emit(c)

    def _emphasis(self, c):
        """Resolve the held run of * or _ now that the next character is
        known: it opens, closes, or is literal. Its length is the mask:
        1 italic, 2 bold, 3 both."""
        run, self.pend = self.pend, ""
        m = len(run)
        prev = self.prev
        left = c not in " \n\t"               # can open (c: the next character)
        right = prev not in " \n\t"          # can close
        if run[0] == "_":
            left = left and not (prev.isalpha() or prev.isdigit())
            right = right and not (c.isalpha() or c.isdigit())
        em = self.em
        if em & m == m and right:
            self.em = em ^ m
            self._off((BOLD_OFF if m & 2 else "") + (ITAL_OFF if m & 1 else ""))
        elif not em & m and left:
            self.em = em | m
            self._attr((BOLD if m & 2 else "") + (ITAL if m & 1 else ""))
        else:
            self._emit(run)

    def _end(self):
        """Write what is held (a link's start, an escape or an emphasis
        run) at the end of a line or of the reply."""
        link = self.link
        if link is not None:
            self.link = None
            s = "[" + link[0]
            if link[1] is not None:
                s += "]"
                if link[2]:
                    s += "(" + link[1]
            self._emit(s)
        if self.pend == "\\":
            self.pend = ""
            self._emit("\\")
        elif self.pend:
            self._emphasis("\n")

    # -- a reply on the console (Screen) ------------------------------------
    def wait(self, label="thinking"):
        self.end()
        self.spin = term.Spinner(label)

    def sink(self, piece):
        term.check_interrupt()
        if self.spin is not None:
            self.spin.stop()
            self.spin = None
        self.pieces += 1
        self.feed(piece)

    def end(self):
        if self.spin is not None:
            self.spin.stop()
            self.spin = None
        self.close()


def Screen():
    """A reply on the console: a spinner until the first piece, then the
    rendered markdown. The sink polls the keyboard between pieces: Ctrl-C
    raises KeyboardInterrupt. end() stops the spinner and closes the reply."""
    return Render(shell.raw, shell.tty())
