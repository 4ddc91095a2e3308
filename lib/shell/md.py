"""Streaming markdown renderer for the console.

    r = Render(write, tty=True, width=0)    # write(str) gets rendered pieces
                                    # (raw: they hold the renderer's escape
                                    # codes); width: wrap at that many columns
    r.feed(piece) ...               # reply text as it arrives, any split;
                                    # sanitized first (shell.clean)
    r.close()                       # end of reply: flush, reset, end the line

On a terminal (tty=True) the reply is shown with ANSI attributes as it
streams: headings (bold; H1 also underlined), **bold**, *italic* / _italic_,
`inline code` (cyan), fenced code blocks (``` or ~~~, cyan, indented, the
language as a dim label), bullet lists ("-", "*", "+" -> a bullet), numbered
lists, block quotes (a dim bar), rules, links [text](url) (underlined
text, the url dim after it) and tables: a row's "|" become dim bars, the
"|---|---|" row a rule as wide as the table, and the rows are held until
the table ends, then written with their cells padded into columns (a
cell's width is its characters). A table whose rows take more than
_MAX_TABLE bytes (each counted with _ROW more), one wider than the
terminal, or one the heap has no room for goes out as it comes instead:
row by row, not aligned, the rule as wide as the row above it. With a width (the terminal's columns) lines are wrapped
at word boundaries before that column (list items and quotes go on under
their text; code blocks are never wrapped). Text goes out as soon as it
can be classified: only a line's first few characters (until the block
kind is known), the word being written (to wrap before it), an emphasis
run ("*", "**"), a backslash escape, a link's text or a table's rows are
held back.
Attributes never outlive a line, so a cut stream cannot leave the terminal
bold. With tty=False the markdown passes through unchanged (plain text for
pipes and files). `nl` is the line end written ("\r\n" on a raw terminal).

    s = Screen(); s.wait(); s.sink(piece) ...; s.end()   # spinner, then Render

Memory: the text is walked as UTF-8 bytes (MicroPython interns every
one-character str for good), plain runs are copied whole, and the output
waits in one buffer written out every _FLUSH bytes: what is held is bounded
by a screen line (a line start of _MAX_HEAD bytes, one pending link of
_MAX_LINK, a word of at most a line, the buffer) or a table of
_MAX_TABLE, never by the reply.
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
_FLUSH = const(256)     # output bytes collected before a write
_MAX_TABLE = const(2048)  # a table's rows held to align them (then: as they come),
_ROW = const(32)          # each row counted with what its object costs
BAR = DIM + "\u2502" + RESET     # a cell's edge as written; in a held row
_BAR = b"\x1b[2m\xe2\x94\x82\x1b[0m"
_EDGE = b"\x1f"                  # one byte (clean() leaves no control character)
_RULED = b"\x1b[2m\xe2\x94\x80"   # how the |---| row's rule starts
_TAB = const(0x09)
_LF = const(0x0A)
_SP = const(0x20)
_HASH = const(0x23)       # #
_LPAREN = const(0x28)     # (
_RPAREN = const(0x29)     # )
_STAR = const(0x2A)       # *
_PLUS = const(0x2B)       # +
_ZERO = const(0x30)
_NINE = const(0x39)
_GT = const(0x3E)         # >
_UPPER_A = const(0x41)
_UPPER_Z = const(0x5A)
_LBRACKET = const(0x5B)   # [
_BSLASH = const(0x5C)     # \
_RBRACKET = const(0x5D)   # ]
_UNDER = const(0x5F)      # _
_BACKTICK = const(0x60)   # `
_LOWER_A = const(0x61)
_LOWER_Z = const(0x7A)
_PIPE = const(0x7C)       # |
_INLINE = b"\n*_\\`[|"  # bytes that end a plain run of text
_ESCAPABLE = b"\\`*_{}[]()#+-.!>~|"


def _alnum(c):
    """A letter or digit byte; any byte of a non-ASCII character counts."""
    return _ZERO <= c <= _NINE or _UPPER_A <= c <= _UPPER_Z or _LOWER_A <= c <= _LOWER_Z or c >= 128


def _cols(b, i, j):
    """Columns the bytes b[i:j] show: characters, our escape codes left out."""
    n = 0
    while i < j:
        if b[i] == 0x1B:                # ESC [ ... m
            i = b.find(b"m", i, j)
            if i < 0:
                break
        elif b[i] & 0xC0 != 0x80:
            n += 1
        i += 1
    return n


def _cells(b, e, widths, write):
    """The cells of a held table row b[:e] (_EDGE between them): without
    write, widen widths to them; with it -> the row, its cells padded to
    widths (None: the row has no cell)."""
    row = bytearray()
    k = s = 0
    while True:
        j = b.find(_EDGE, s, e)
        t = e if j < 0 else j
        if k:               # a cell: its text, spaces around it left out
            while s < t and b[s] == _SP:
                s += 1
            while t > s and b[t - 1] == _SP:
                t -= 1
        elif j < 0:
            return None
        c = _cols(b, s, t)
        if k and j < 0 and not c:
            break           # after the last bar: no cell (a reset)
        if not write:
            if k == len(widths):
                widths.append(c)
            elif c > widths[k]:
                widths[k] = c
        elif k:
            row += _BAR + b" " + b[s:t] + b" " * (widths[k] - c + 1)
        else:
            row += b[s:t] + b" " * (widths[0] - c)
        k += 1
        if j < 0:
            s = e
            break
        s = j + 1
    while k < len(widths):          # a row with fewer cells
        row += _BAR + b" " * (widths[k] + 2)
        k += 1
    return row + _BAR + b[s:e]


def _space(c):
    return c == _SP or c == _LF or c == _TAB


class Render(term.Waiting):    # (the Screen's spinner while one is shown)
    pieces = 0      # pieces fed through sink()

    def __init__(self, write, tty=True, nl="\n", width=0):
        self.w = write
        self.tty = tty
        self.nl = nl
        self.width = width if tty else 0    # 0: no wrapping
        self.brk = -1         # wrapping: where in out the word being written
        self.gap = 0          # starts, with the spaces before it (gap): a
        self.wcols = 0        # break goes there if it ends past the width
        self.long = False     # it is longer than a line (the terminal wraps it)
        self.margin = 0       # columns a wrapped line starts at (a list item's)
        self.table = False    # the line is a table row
        self.rule = 0         # columns of the line before, when a table row
        self.hold = -1        # where in out the table row being held starts
                              # (-2: this table goes out as it comes)
        self.rows = None      # the table's rows held before it (bytes each),
        self.held = 0         # their bytes (counted with _ROW each)
        self.out = bytearray()
        self.start = True     # at the start of a line (head being classified)
        self.head = b""       # held line start
        self.fence = 0        # the fence byte while inside a code block
        self.pend = b""       # held emphasis run or b"\\"
        self.link = None      # None, or [text, url or None, "(" seen]
        self.em = 0           # inline attributes on: 1 italic, 2 bold, 4 code
        self.heading = ""     # the heading attribute while the line is one
        self.styled = False   # some attribute is on in this line
        self.prev = _SP       # last visible byte written
        self.col = 0          # columns written on this line (the word apart)

    # -- output ---------------------------------------------------------
    def _emit(self, s):
        """Visible bytes; with a width, the word being written stays in out
        from self.brk on (never flushed) until a space or the line's end
        says whether it fits: if not, the spaces before it become a break."""
        if not s:
            return
        self.prev = s[-1]
        if not self.width or self.fence:
            self.out += s
            self.col += term.columns(s, 0, len(s)) if max(s) >= 0x80 else len(s)
            return
        n = len(s)
        wide = max(s) >= 0x80       # else a byte is a column
        self.out += s       # all at once; a break replaces spaces in place,
        i = 0               # before s[i], which stays at len(out) - (n - i)
        while i < n:
            j = s.find(b" ", i)
            if j < 0:
                j = n
            if j > i:
                if self.brk < 0:
                    self.brk = len(self.out) - n + i
                self.wcols += term.columns(s, i, j) if wide else j - i
                if self.wcols >= self.width - 1 - self.margin:
                    self._word()        # longer than a line: out as it comes
                    self.long = True
            if j < n:
                self._word()
                self.long = False
                self.brk = len(self.out) - n + j
                self.gap = 1
                j += 1
            i = j

    def _word(self, end=False):
        """Settle the word being written: it stays on the line, or the
        spaces before it become a new line at the margin when it would
        reach the last column; end=True: spaces before nothing go."""
        b = self.brk
        if b < 0:
            return
        g = self.gap
        if end and not self.wcols:
            self.out[b:b + g] = b""
        elif self.wcols and not self.long and self.col > self.margin and \
                self.col + g + self.wcols > self.width - 1:
            self.out[b:b + g] = (self.nl + " " * self.margin).encode()
            if self.hold >= 0:      # a table row wider than the terminal
                self._release()
            self.col = self.margin + self.wcols
        else:
            self.col += g + self.wcols
        self.brk = -1
        self.gap = self.wcols = 0

    def _put(self, s):
        self.out += s.encode()

    def _attr(self, s):
        self._put(s)
        self.styled = True

    def _off(self, s):
        self._put(s)
        if self.heading:      # "bold off" also ends the heading's bold
            self._put(self.heading)
        self.styled = bool(self.em or self.heading)

    def _reset(self):
        """All attributes off, then the open inline ones on again."""
        self._put(RESET)
        self.styled = False
        if self.heading:
            self._attr(self.heading)
        if self.em & 2:
            self._attr(BOLD)
        if self.em & 1:
            self._attr(ITAL)

    def _flush(self):
        """Write out what is settled (up to a word still being written, or
        a table being held while it is within _MAX_TABLE)."""
        if self.hold >= 0 and self._over():
            self._release()
        k = self.hold
        if k < 0:
            k = len(self.out) if self.brk < 0 else self.brk
        self._out(k)

    def _out(self, k):
        """Write out out[0:k]."""
        if k:
            s = str(memoryview(self.out)[0:k], "utf-8").replace("\x1f", BAR)
            self.out[0:k] = b""         # (the buffer is kept)
            if self.brk > 0:
                self.brk -= k
            if self.hold > 0:
                self.hold -= k
            self.w(s)

    def feed(self, text):
        if not text:
            return
        text = shell.clean(text)    # outside text: no control characters
        if not self.tty:
            self.col = 0 if text[-1] == "\n" else 1
            self.w(text.replace("\n", self.nl))
            return
        self._chars(text.encode())
        self._flush()

    def close(self):
        """End of the reply: write what is held, reset, end the line."""
        if self.tty:
            if self.start and self.head:
                self._classify(True)
            if not self.start:
                if self.fence:
                    self._put(CODE_OFF)
                    self.styled = False
                else:
                    self._end()
        # after what was held is written: its last word is settled too (a
        # word left pending would be cut off by the flush below)
        self._word(True)
        if self.col:
            self._newline()     # (a table's last row is kept with the others)
        elif self.styled:
            self._put(RESET)
        self._align()
        self._flush()
        self.__init__(self.w, self.tty, self.nl, self.width)     # fresh for the next reply

    # -- the walk -----------------------------------------------------------
    def _chars(self, b):
        """Render the bytes b (whole characters; clean() left no CR)."""
        i = 0
        n = len(b)
        while i < n:
            c = b[i]
            k = i + 1
            if c >= 0xC0:       # a character's whole UTF-8 sequence
                while k < n and b[k] & 0xC0 == 0x80:
                    k += 1
            if self.start:
                self.head += b[i:k]
                i = k
                self._classify(c == _LF)
            elif self.link is not None or self.pend:
                self._inline(c, b[i:k])
                i = k
            else:
                # a plain run: to the next byte that means something here
                code = self.fence or self.em & 4
                j = i
                e = i + _FLUSH if i + _FLUSH < n else n
                while j < e:
                    d = b[j]
                    if d == _LF or (d in _INLINE if not code else d == _BACKTICK and not self.fence):
                        break
                    j += 1
                while j < n and j > i and b[j] & 0xC0 == 0x80:
                    j += 1      # (a run cut at e ends after a character)
                if j > i:
                    self._emit(b[i:j])
                    i = j
                else:
                    if self.fence:      # only a newline ends a run here
                        self._put(CODE_OFF)
                        self.styled = False
                        self._newline()
                    else:
                        self._inline(c, b[i:k])
                    i = k
            if len(self.out) >= _FLUSH:
                self._flush()

    def _newline(self):
        self._word(True)        # (trailing spaces: never written)
        self.long = False
        if self.styled:
            self._put(RESET)
            self.styled = False
        self.heading = ""
        self._put(self.nl)
        self.rule = self.col if self.table else 0
        if self.hold >= 0:
            self._keep()
        self.col = self.em = self.margin = 0
        self.table = False
        self.prev = _SP
        self.start = True
        self.head = b""

    def _classify(self, final):  # noqa: C901 (one line, every block kind)
        """Decide the kind of the held line start, or keep holding it."""
        head = self.head
        f = self.fence
        if f:                           # inside a code block
            s = head.strip()
            if s and not s.strip(bytes((f,))) and (len(s) >= 3 if final else (
                    len(head) <= _MAX_HEAD and head.lstrip(b" ")[0] == f)):
                if final:               # the closing fence: no output
                    self.fence = 0
                    self.head = b""
                return                  # (or could still be it)
            self.start = False
            self.head = b""
            self._attr(CODE)
            self._emit(b"  " + head.rstrip(b"\n"))
            if final:
                self._put(CODE_OFF)
                self.styled = False
                self._newline()
            return
        s = head.lstrip(b" ")
        if self.hold != -1 and (s or final) and s[:1] != b"|":
            self._align()               # the line after a table
        indent = head[:len(head) - len(s)]
        pre = indent                    # ordinary text unless a branch says
        if final:
            s = s.rstrip(b"\n")
            line = s.rstrip()
            if not line:
                return self._newline()
            ch = line[0]
            if len(line) >= 3 and ch in b"-*_" and not line.strip(bytes((ch, _SP))):
                self._attr(DIM)
                self._emit(RULE.encode())
                return self._newline()
            if ch == _PIPE and b"-" in line and not line.strip(b"|-: "):
                self._attr(DIM)             # a table's |---|---| row: as
                n = self.rule or len(line)  # wide as the row above it
                self._emit(("\u2500" * min(n, self.width - 1 if self.width else n)).encode())
                return self._newline()
            if len(line) >= 3 and ch in b"`~" and line[1] == ch and line[2] == ch:
                self.fence = ch
                lang = line[3:].strip(bytes((ch, _SP)))
                if lang:
                    self._attr(DIM)
                    self._emit(b"  " + lang)
                    self._newline()
                else:
                    self.head = b""
                return
        elif len(head) <= _MAX_HEAD:
            if not s:
                return                                  # only indentation so far
            ch = s[0]
            if ch == _HASH:
                n = len(s) - len(s.lstrip(b"#"))
                if n <= 6:
                    if n == len(s):
                        return
                    if s[n] == _SP:
                        self.heading = H1 if n == 1 else BOLD
                        self._attr(self.heading)
                        pre, s = b"", s[n + 1:]
            elif ch in b"-*+_":
                if len(s) == 1:
                    return
                if ch != _UNDER and s[1] == _SP and (len(s) == 2 or s[2] != ch or ch == _PLUS):
                    pre, s = indent + "\u2022 ".encode(), s[2:]     # the bullet
                elif not s.strip(bytes((ch, _SP))):
                    return                              # a rule, or bold: wait
            elif _ZERO <= ch <= _NINE:
                i = 0
                while i < len(s) and _ZERO <= s[i] <= _NINE:
                    i += 1
                if i < 10:
                    if i == len(s) or (s[i] in b".)" and i + 1 == len(s)):
                        return
                    if s[i] in b".)" and s[i + 1] == _SP:
                        pre, s = indent + s[:i + 2], s[i + 2:]
            elif ch in b"`~":
                n = len(s) - len(s.lstrip(bytes((ch,))))
                if n >= 3 or n == len(s):
                    return                              # a fence line: wait for its end
            elif ch == _PIPE:                           # a table row
                if not s.strip(b"|-: "):
                    return                              # its |---| row: wait
                self.table = True
                if self.hold == -1:                     # hold the table's rows
                    self.hold = len(self.out)
                    self.rows = []
            elif ch == _GT:
                if len(s) == 1:
                    return
                self._attr(DIM)
                self._emit(indent + "\u2502 ".encode())     # the quote bar
                self._reset()
                pre, s = b"", s[2:] if s[1] == _SP else s[1:]
        self.start = False
        self.head = b""
        self._emit(pre)
        m = self.col + self.gap     # a wrapped line goes on under the text
        self.margin = m if m < self.width // 2 else 0
        self._chars(s)
        if final:
            self._inline(_LF, b"\n")

    # -- tables ---------------------------------------------------------------
    def _align(self):
        """The table being held has ended (its last row kept): write it with
        the cells padded into columns, or as it came when aligned it would
        be wider than the terminal."""
        if self.hold >= 0:
            widths = []
            if self._rows(widths, None) < self.width or not self.width:
                self._out(self.hold)            # what came before it
                self._rows(widths, self.w)
                self.rows = ()
            self._release()
        self.hold = -1

    def _over(self):
        """The table being held would be longer than _MAX_TABLE."""
        return self.held + len(self.out) - self.hold + _ROW > _MAX_TABLE

    def _keep(self):
        """A row of the table being held has ended: keep it with the others
        (the table goes out as it comes when too long, or when the heap has
        no room)."""
        if self._over():
            return self._release()
        try:
            r = bytes(memoryview(self.out)[self.hold:])
            self.rows.append(r)
            self.held += len(r) + _ROW
            self.out[self.hold:] = b""
        except MemoryError:
            self._release()

    def _release(self):
        """The table being held goes out as it came, and its rows still to
        come too."""
        self._out(self.hold)                    # what came before it
        self._rows(None, self.w)
        self.rows = None
        self.hold = -2

    def _rows(self, widths, write):
        """Walk the held rows. Without write: widen widths to the columns'
        cells (widths[0]: what precedes the first bar, an indent) and return
        the table's width. With it: write each row with its cells padded to
        widths (None: as it is), the |---| row a rule as wide as the table."""
        nl = self.nl.encode()
        wide = sum(widths) + 3 * len(widths) - 2 if widths else 0
        for b in self.rows:
            row = None                  # as it is
            if widths is None:
                pass
            elif b.startswith(_RULED):
                row = _RULED + _RULED[4:] * (wide - 1) + RESET.encode()
            else:
                row = _cells(b, len(b) - len(nl), widths, write)
            if write:
                write(str(b.replace(_EDGE, _BAR) if row is None else row + nl, "utf-8"))
        return 0 if widths is None else sum(widths) + 3 * len(widths) - 2

    # -- inline spans -------------------------------------------------------
    def _inline(self, c, ch):
        """One character: c its first byte, ch its bytes."""
        if c == _LF:
            self._end()
            return self._newline()
        em = self.em
        if em & 4:                      # in `code`
            if c == _BACKTICK:
                self.em = em & 3
                self._off(CODE_OFF)
            else:
                self._emit(ch)
            return
        link = self.link
        if link is not None:
            if len(link[0]) + len(link[1] or b"") <= _MAX_LINK:
                if link[1] is None:
                    if c == _RBRACKET:
                        link[1] = bytearray()   # text done; "(" must follow
                    else:
                        link[0] += ch
                    return
                if not link[2]:
                    if c == _LPAREN:
                        link[2] = True
                        return
                elif c == _RPAREN:
                    self.link = None
                    self._attr(UNDER)
                    self._emit(link[0])
                    self._off(UNDER_OFF)
                    if link[1] and link[1] != link[0]:
                        self._attr(DIM)
                        self._emit(b" <" + link[1] + b">")
                        self._reset()
                    return
                else:
                    link[1] += ch
                    return
            self._end()                 # not a link after all: literal
        p = self.pend
        if p == b"\\":
            self.pend = b""
            if c in _ESCAPABLE:
                self._emit(ch)
                return
            self._emit(p)
        elif p:
            if c == p[0] and len(p) < 3:
                self.pend = p + ch
                return
            self._emphasis(c)
        if c == _STAR or c == _UNDER or c == _BSLASH:
            self.pend = ch
        elif c == _BACKTICK:
            self.em |= 4
            self._attr(CODE)
        elif c == _LBRACKET:
            self.link = [bytearray(), None, False]
        elif c == _PIPE and self.table:     # a cell's edge
            if self.hold >= 0:
                self._emit(_EDGE)           # (written as BAR)
            else:
                self._attr(DIM)
                self._emit(b"\xe2\x94\x82")    # U+2502
                self._reset()
        else:
            self._emit(ch)

    def _emphasis(self, c):
        """Resolve the held run of * or _ now that the next character is
        known (c: its first byte): it opens, closes, or is literal. Its
        length is the mask: 1 italic, 2 bold, 3 both."""
        run, self.pend = self.pend, b""
        m = len(run)
        prev = self.prev
        left = not _space(c)                # can open
        right = not _space(prev)            # can close
        if run[0] == _UNDER:
            left = left and not _alnum(prev)
            right = right and not _alnum(c)
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
            s = b"[" + link[0]
            if link[1] is not None:
                s += b"]"
                if link[2]:
                    s += b"(" + link[1]
            self._emit(s)
        if self.pend == b"\\":
            self.pend = b""
            self._emit(b"\\")
        elif self.pend:
            self._emphasis(_LF)

    # -- a reply on the console (Screen) ------------------------------------
    def sink(self, piece):
        term.check_interrupt()
        self.unspin()
        self.pieces += 1
        self.feed(piece)

    def end(self):
        self.unspin()
        self.close()


def Screen():
    """A reply on the console: a spinner until the first piece, then the
    rendered markdown, wrapped at the terminal's width. The sink polls the
    keyboard between pieces: Ctrl-C raises KeyboardInterrupt. end() stops
    the spinner and closes the reply."""
    return Render(shell.raw, shell.tty(), width=term.cols)
