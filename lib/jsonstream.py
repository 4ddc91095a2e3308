"""Streaming JSON reader and writer with bounded memory.

Wire format: RFC 8259 JSON text encoded as UTF-8, read from any object with
readinto(buf) -> int (0 or None = end of input; OSError propagates) through
ONE fixed bytearray (bufsize, at least 32; or the caller's own bytearray
buf=, reused for many documents one after another), or from bytes/bytearray/str
already in RAM (bytes/bytearray parsed in place, no copy). Exactly one
document; finish() checks that only whitespace follows.

Reader: a pull parser (Parser.next() -> OBJ, END_OBJ, ARR, END_ARR, KEY,
STR, NUM, TRUE, FALSE, NULL, EOF; p.value holds the key/str/int/float/bool/
None), peek(), read_value(), skip_value() (nothing allocated per skipped
value), stream_string() (long strings to a sink in str pieces; an empty
string gives no piece), load()/loads(), and select() (path rules ->
handlers; everything else is skipped; Rules() compiles the rules once for
many documents). After a KEY event, read_value(),
skip_value() and stream_string() act on that member's value. Iterative,
never recursive; nesting is limited (max_depth), every materialized value
is limited (max_value bytes of JSON text, strings and numbers included, and
max_items values and keys: "JSON: more than 1024 elements at byte X").

Writer: dump() writes bytes pieces of at most ~bufsize through write(),
encoded_len() counts the exact length first (for Content-Length), dumps() for
small values. Raw() echoes pre-encoded JSON verbatim, RawFile(path, offset,
length) copies pre-encoded JSON from a file in pieces, Array(factory) writes
an array from a re-runnable generator factory.

Decisions for the implementation-defined inputs (JSONTestSuite i_*.json):
- numbers with huge exponents or too many digits: floats follow float()
  (1e999 -> inf, 1e-999 -> 0.0, as CPython's json); integers of any size are
  int; a number token is limited to max_value bytes like a string.
- \\u escapes that are lone or mismatched UTF-16 surrogates decode to U+FFFD
  (replacement character): a truncated emoji from a provider must not lose
  the whole reply, and MicroPython str cannot hold lone surrogates.
- raw bytes that are not strict UTF-8 (overlong forms, encoded surrogates
  ED A0..BF, code points above U+10FFFF, truncated or lone continuation
  bytes, Latin-1, UTF-16 with or without BOM): JSONError with the offset.
  MicroPython's own decoder only checks sequence structure, so the strict
  checks are added here on MicroPython.
- a UTF-8 byte order mark before the document: JSONError (RFC 8259 8.1).
- nesting deeper than max_depth (64 by default; 500 nested arrays): JSONError.
Duplicate object keys: the last one wins (as CPython).

select() patterns: "" is the root; "a.b", "a[0]", "a[*]" (any index), "a.*"
(any key, one step), e.g. "choices[0].message.tool_calls[*].id". A key that
contains "." or "[" cannot be named. Rule nesting: when rules match both a
value and something inside it ("a" and "a.b"), the outermost non-Stream match
materializes the whole value and the deeper rule is NOT called for it;
deeper rules are only reached by walking containers that no rule matched.
Several rules matching the same value are all called with it.

Errors are JSONError(ValueError) with messages like
"JSON: expected ',' or '}' at byte 1234" (byte offset from the start of the
input).
"""
from compat import const, MICROPYTHON

OBJ = const(1)
END_OBJ = const(2)
ARR = const(3)
END_ARR = const(4)
KEY = const(5)
STR = const(6)
NUM = const(7)
TRUE = const(8)
FALSE = const(9)
NULL = const(10)
EOF = const(11)

# parser states: what the next token must be
_VALUE = const(0)      # a value starts here
_KEY = const(1)        # a key string starts here
_AFTER = const(2)      # after a value: ',' or a closer (or the end at depth 0)
_COLON = const(3)      # after a key
_FIRST_OBJ = const(4)  # after '{': key or '}'
_FIRST_ARR = const(5)  # after '[': value or ']'
_CLOSE = const(6)      # the closer at the cursor is checked, not consumed
_DONE = const(7)       # the root value is complete

# string modes
_SKIP = const(0)
_COLLECT = const(1)
_STREAM = const(2)

# number grammar -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? as a table:
# _NT[state * 7 + class] -> next state (255: the token ends or is wrong);
# classes: 0 '-', 1 '0', 2 '1'-'9', 3 '.', 4 'e'/'E', 5 '+', 6 other;
# _CLS[byte - 43] -> class; accepting states: 2, 3 (int), 5, 8 (float)
_NT = b'\x01\x02\x03\xff\xff\xff\xff\xff\x02\x03\xff\xff\xff\xff\xff\xff\xff\x04\x06\xff\xff\xff\x03\x03\x04\x06\xff\xff\xff\x05\x05\xff\xff\xff\xff\xff\x05\x05\xff\x06\xff\xff\x07\x08\x08\xff\xff\x07\xff\xff\x08\x08\xff\xff\xff\xff\xff\x08\x08\xff\xff\xff\xff'
_CLS = b'\x05\x06\x00\x03\x06\x01\x02\x02\x02\x02\x02\x02\x02\x02\x02\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x04\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x04'
_ESC = {34: '"', 92: "\\", 47: "/", 98: "\b", 102: "\f", 110: "\n",
        114: "\r", 116: "\t"}
# strict UTF-8 on MicroPython: lead bytes that need a narrower second byte
_LEADS = ((b"\xe0", 0xA0, 0xBF), (b"\xed", 0x80, 0x9F),
          (b"\xf0", 0x90, 0xBF), (b"\xf4", 0x80, 0x8F))


# read_value() refuses a value of more items than this (every value and
# object key counts, the outermost included): the text bound max_value does
# not bound the heap (16 KB of "[[],[],...]" are 5,461 lists, ~415 KB on the
# 64-bit unix port); 1024 items cost at most ~70 KB there, ~35 KB on the
# ESP32, and hold any tool schema or call arguments seen in practice.
MAX_ITEMS = const(1024)


class JSONError(ValueError):
    pass


def _utf8_ok(b, mv, a, e):
    """True if the non-empty b[a:e] is strict UTF-8 made of whole sequences."""
    try:
        str(mv[a:e], "utf-8")
    except UnicodeError:
        return False
    if MICROPYTHON:
        # MicroPython only checks lead/continuation structure
        if max(mv[a:e]) > 0xF4 or b.find(b"\xc0", a, e) >= 0 or b.find(b"\xc1", a, e) >= 0:
            return False
        for lead, lo, hi in _LEADS:
            j = b.find(lead, a, e)
            while j >= 0:
                c = b[j + 1]
                if c < lo or c > hi:
                    return False
                j = b.find(lead, j + 1, e)
    return True


def _utf8_bad(b, mv, a, e):
    """Offset of the first invalid UTF-8 sequence in b[a:e] (slow: only used
    to name the place after a fast check failed)."""
    while a < e:
        for k in (1, 2, 3, 4):
            if a + k <= e and _utf8_ok(b, mv, a, a + k):
                break
        else:
            return a
        a += k
    return a


def _tail(b, a, e):
    """Length of an incomplete UTF-8 sequence at the end of b[a:e] (0..3)."""
    j = e - 1
    while j >= a and j >= e - 4:
        c = b[j]
        if c < 0x80:
            return 0
        if c >= 0xC0:
            need = 2 if c < 0xE0 else (3 if c < 0xF0 else 4)
            return e - j if e - j < need else 0
        j -= 1
    return 0


class Parser:
    """Pull parser over one JSON document; see the module docstring."""

    def __init__(self, src, bufsize=256, max_depth=64, max_value=16384, buf=None,
                 max_items=MAX_ITEMS):
        if isinstance(src, str):
            src = src.encode()
        elif isinstance(src, memoryview):
            src = bytes(src)
        if isinstance(src, (bytes, bytearray)):
            # already in RAM: parse in place
            self._b = src
            self._src = None  # None: no more input
        else:
            if buf is None:
                buf = bytearray(bufsize if bufsize > 32 else 32)
            self._b = buf
            self._src = src
        self._mv = memoryview(self._b)
        self._stack = bytearray(max_depth + 1)
        self._start(max_value, max_items)
        if self._src is None:
            self._n = len(self._b)

    def _start(self, max_value, max_items):
        """Ready for a document from self._src (select() reuses a parser
        for the documents of one Rules, one per stream event)."""
        self._n = self._i = self._base = self._depth = 0
        self._st = _VALUE
        self._maxv = max_value
        self._maxi = max_items
        self._skip = False
        self.value = None

    @property
    def pos(self):
        """Byte offset of the next unread byte."""
        return self._base + self._i

    # -- errors -----------------------------------------------------------
    def _fail(self, msg, at=None):
        if at is None:
            at = self._base + self._i
        raise JSONError("JSON: %s at byte %d" % (msg, at))

    def _err(self, what, c, at=None):
        if c < 0:
            self._fail("unexpected end of input", at)
        self._fail("expected " + what, at)

    # -- input ------------------------------------------------------------
    def _fill(self):
        """Move the unread bytes to the front and read more. False at end."""
        if self._src is None:
            return False
        i = self._i
        n = self._n
        mv = self._mv
        if i:
            if i < n:
                mv[0:n - i] = mv[i:n]
            n -= i
            self._base += i
            self._i = 0
        self._n = n
        if n >= len(self._b):
            return True
        k = self._src.readinto(mv[n:])
        if not k:
            self._src = None
            return False
        self._n = n + k
        return True

    def _ws(self):
        """Skip whitespace; return the next byte (not consumed) or -1."""
        b = self._b
        i = self._i
        n = self._n
        while True:
            while i < n:
                c = b[i]
                if c > 32 or (c != 32 and c != 10 and c != 13 and c != 9):
                    self._i = i
                    return c
                i += 1
            self._i = i
            if not self._fill():
                return -1
            i = self._i
            n = self._n

    def _prep(self):
        """Consume whitespace and ',' / ':' before the next token; return its
        first byte and leave the state at _VALUE/_KEY/_CLOSE/_DONE."""
        # whitespace is skipped inline when the next byte is already a token
        b = self._b
        i = self._i
        c = b[i] if i < self._n else -1
        if c <= 32:
            c = self._ws()
        st = self._st
        if st == _AFTER:
            d = self._depth
            if not d:
                self._st = _DONE
                return c
            if c == 44:
                i = self._i + 1
                self._i = i
                self._st = _KEY if self._stack[d - 1] == 1 else _VALUE
                c = b[i] if i < self._n else -1
                return c if c > 32 else self._ws()
            if self._stack[d - 1] == 1:
                if c == 125:
                    self._st = _CLOSE
                    return c
                self._err("',' or '}'", c)
            if c == 93:
                self._st = _CLOSE
                return c
            self._err("',' or ']'", c)
        if st == _COLON:
            if c != 58:
                self._err("':'", c)
            i = self._i + 1
            self._i = i
            self._st = _VALUE
            c = b[i] if i < self._n else -1
            return c if c > 32 else self._ws()
        if st == _FIRST_OBJ:
            self._st = _CLOSE if c == 125 else _KEY
        elif st == _FIRST_ARR:
            self._st = _CLOSE if c == 93 else _VALUE
        return c

    # -- events -----------------------------------------------------------
    def next(self):
        """Consume the next token and return its event (see module consts)."""
        c = self._prep()
        st = self._st
        if st == _VALUE:
            return self._val(c)
        if st == _KEY:
            if c != 34:
                self._err("'\"' (object key)", c)
            self._i += 1
            v = None if self._skip else self._sfast()
            self.value = self._str(_SKIP if self._skip else _COLLECT, None) if v is None else v
            self._st = _COLON
            return KEY
        if st == _CLOSE:
            self._i += 1
            d = self._depth - 1
            self._depth = d
            self._st = _AFTER
            return END_OBJ if self._stack[d] == 1 else END_ARR
        return EOF

    def _val(self, c):
        if c == 34:
            self._i += 1
            v = None if self._skip else self._sfast()
            if v is None:
                v = self._str(_SKIP if self._skip else _COLLECT, None)
            self.value = v
            self._st = _AFTER
            return STR
        if c == 45 or 48 <= c <= 57:
            v = self._nfast()
            self.value = self._num() if v is None else v
            self._st = _AFTER
            return NUM
        if c == 123 or c == 91:
            d = self._depth
            if d >= len(self._stack) - 1:
                self._fail("nesting deeper than %d" % d)
            self._i += 1
            self._depth = d + 1
            if c == 123:
                self._stack[d] = 1
                self._st = _FIRST_OBJ
                return OBJ
            self._stack[d] = 2
            self._st = _FIRST_ARR
            return ARR
        if c == 116:
            self._lit(b"true")
            self.value = True
            return TRUE
        if c == 102:
            self._lit(b"false")
            self.value = False
            return FALSE
        if c == 110:
            self._lit(b"null")
            self.value = None
            return NULL
        self._err("value", c)

    def peek(self):
        """Event of the next token without consuming it."""
        c = self._prep()
        st = self._st
        if st == _DONE:
            return EOF
        if st == _CLOSE:
            return END_OBJ if self._stack[self._depth - 1] == 1 else END_ARR
        if st == _KEY:
            return KEY
        if c == 34:
            return STR
        if c == 123:
            return OBJ
        if c == 91:
            return ARR
        if c == 45 or 48 <= c <= 57:
            return NUM
        if c == 116:
            return TRUE
        if c == 102:
            return FALSE
        if c == 110:
            return NULL
        self._err("value", c)

    # -- tokens -----------------------------------------------------------
    def _lit(self, word):
        n = len(word)
        while self._n - self._i < n and self._fill():
            pass
        i = self._i
        if self._n - i < n:
            if word.find(bytes(self._mv[i:self._n])) == 0:
                self._err("", -1, self._base + self._n)
        if self._b.find(word, i, i + n) != i:
            self._err("value", 0)
        self._i = i + n
        self._st = _AFTER

    # Small fast paths for the common tokens: MicroPython allocates the
    # frame of a call with more than about ten locals on the heap, so these
    # stay small and leave everything unusual to _str / _num.
    def _sfast(self):
        """An ASCII string without escapes wholly in the buffer (cursor after
        the quote) -> str; else None with nothing consumed."""
        b = self._b
        i = self._i
        q = b.find(b'"', i, self._n)
        if q < 0 or q - i > self._maxv or b.find(b"\\", i, q) >= 0:
            return None
        if q > i:
            seg = self._mv[i:q]
            if min(seg) < 32 or max(seg) > 127:
                return None
        self._i = q + 1
        return str(self._mv[i:q], "utf-8")

    def _nfast(self):
        """A short integer wholly in the buffer -> int; else None."""
        b = self._b
        i = self._i
        k = i + 1
        n = self._n
        while k < n and 48 <= b[k] <= 57:
            k += 1
        if k >= n or k - i > 15 or b[k] == 46 or b[k] | 32 == 101:
            return None
        if b[i] == 45:
            if k == i + 1 or (b[i + 1] == 48 and k > i + 2):
                return None
        elif b[i] == 48 and k > i + 1:
            return None
        self._i = k
        return int(b[i:k])

    def _num(self):
        # one pass over the token with the number grammar as a state table
        # (_NT), resumable across buffer refills
        b = self._b
        i = j = self._i
        n = self._n
        org = self._base + i
        acc = None  # a number longer than the buffer is gathered here
        s = 0
        while True:
            while j < n:
                c = b[j] - 43
                if c < 0 or c > 58:
                    break
                t = _NT[s * 7 + _CLS[c]]
                if t == 255:
                    break
                s = t
                j += 1
            if j < n or self._src is None:
                break
            # the token runs to the end of the buffer: read more
            if i == 0 and n >= len(b):
                if acc is None:
                    acc = bytearray()
                acc += self._mv[0:n]
                if len(acc) > self._maxv:
                    self._fail("value longer than %d bytes" % self._maxv, org)
                self._i = n
                j = 0
            else:
                j -= i
            self._fill()
            i = self._i
            n = self._n
        self._i = j
        if s != 2 and s != 3 and s != 5 and s != 8:
            self._err("digit", -1 if j >= n and self._src is None else 0)
        if self._skip:
            return None
        if acc is not None:
            acc += self._mv[i:j]
            b = acc
            i = 0
            j = len(acc)
        try:
            if s > 3:
                return float(b[i:j])
            return int(b[i:j])
        except ValueError:
            self._fail("number too large", org)

    def _hex(self, j):
        b = self._b
        v = 0
        for k in range(j, j + 4):
            c = b[k]
            if 48 <= c <= 57:
                c -= 48
            elif 97 <= c <= 102:
                c -= 87
            elif 65 <= c <= 70:
                c -= 55
            else:
                self._err("hex digit", 0, self._base + k)
            v = v * 16 + c
        return v

    def _bad_run(self, a, e):
        """Raise for the first control character or invalid UTF-8 sequence
        in b[a:e] (the first by offset, whatever the buffer size)."""
        b = self._b
        j = a
        while j < e and b[j] >= 32:
            j += 1
        u = _utf8_bad(b, self._mv, a, j)
        if u < j or j == e:
            self._fail("invalid UTF-8", self._base + u)
        self._fail("control character in string", self._base + j)

    def _str(self, mode, sink):
        """Read a string body (the cursor is after the opening quote).
        _COLLECT returns the str; _STREAM calls sink(piece); _SKIP checks."""
        b = self._b
        mv = self._mv
        i = self._i
        n = self._n
        maxv = self._maxv
        start = self._base + i - 1
        # fast path: the whole string is in the buffer and has no escapes
        q = b.find(b'"', i, n)
        if q >= 0 and b.find(b"\\", i, q) < 0:
            self._i = q + 1
            if q == i:
                return "" if mode == _COLLECT else None
            seg = mv[i:q]
            if min(seg) < 32:
                self._bad_run(i, q)
            if mode == _SKIP:
                if max(seg) > 127 and not _utf8_ok(b, mv, i, q):
                    self._bad_run(i, q)
                return None
            if mode == _COLLECT and q - i > maxv:
                self._fail("value longer than %d bytes" % maxv, start)
            try:
                s = str(seg, "utf-8")
            except UnicodeError:
                s = None
            if s is None or (MICROPYTHON and len(s) != q - i and not _utf8_ok(b, mv, i, q)):
                self._bad_run(i, q)
            if mode == _COLLECT:
                return s
            sink(s)
            return None
        acc = None if mode == _SKIP else bytearray()
        flush = len(b) if len(b) < 512 else 512
        while True:
            q = b.find(b'"', i, n)
            e = q if q >= 0 else n
            bs = b.find(b"\\", i, e)
            if bs >= 0:
                e = bs
            r = e
            if q < 0 and bs < 0:  # an unfinished UTF-8 sequence waits for more
                r = e - _tail(b, i, e)
            if r > i:
                seg = mv[i:r]
                if min(seg) < 32 or (max(seg) > 127 and not _utf8_ok(b, mv, i, r)):
                    self._bad_run(i, r)
                if acc is not None:
                    acc += seg
            i = r
            if bs >= 0:
                if n - bs < 12 and self._src is not None:
                    self._i = bs
                    self._fill()
                    i = self._i
                    n = self._n
                    continue
                if bs + 1 >= n:
                    self._err("", -1, self._base + n)
                c = b[bs + 1]
                if c == 117:
                    if bs + 6 > n:
                        self._err("", -1, self._base + n)
                    cp = self._hex(bs + 2)
                    i = bs + 6
                    if 0xD800 <= cp <= 0xDFFF:
                        if (cp < 0xDC00 and bs + 12 <= n and b[bs + 6] == 92
                                and b[bs + 7] == 117):
                            lo = self._hex(bs + 8)
                            if 0xDC00 <= lo <= 0xDFFF:
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                                i = bs + 12
                            else:
                                cp = 0xFFFD
                        else:
                            cp = 0xFFFD
                    if acc is not None:
                        acc += chr(cp).encode()
                else:
                    ch = _ESC.get(c)
                    if ch is None:
                        self._err("escape character", 0, self._base + bs + 1)
                    i = bs + 2
                    if acc is not None:
                        acc += ch.encode()
            elif q >= 0:
                i = q + 1
                self._i = i
                break
            else:
                # the string continues past the buffer
                self._i = i
                if not self._fill():
                    self._err("", -1, self._base + self._n)
                i = self._i
                n = self._n
            if acc is not None:
                if mode == _COLLECT:
                    if len(acc) > maxv:
                        self._fail("value longer than %d bytes" % maxv, start)
                elif len(acc) >= flush:
                    sink(str(acc, "utf-8"))
                    acc = bytearray()
        if mode == _COLLECT:
            if len(acc) > maxv:
                self._fail("value longer than %d bytes" % maxv, start)
            return str(acc, "utf-8")
        if acc:
            sink(str(acc, "utf-8"))
        return None

    # -- whole values -----------------------------------------------------
    def _at_value(self):
        c = self._prep()
        if self._st != _VALUE:
            self._err("value", -1 if c < 0 else 0)
        return c

    def read_value(self):
        """Return the next value as Python objects (iterative; the JSON text
        of the value is limited to max_value bytes, its values and keys to
        max_items)."""
        c = self._at_value()
        start = self._base + self._i
        ev = self._val(c)
        if ev != OBJ and ev != ARR:
            return self.value
        maxv = self._maxv
        left = self._maxi - 1  # items still allowed after the outermost
        cur = {} if ev == OBJ else []
        root = cur
        up = []
        key = None
        while True:
            if left <= 0:
                # the bound is reached: only closers may follow; the error
                # names the first byte of the item that would exceed it
                self._prep()
                at = self._base + self._i
            ev = self.next()
            if ev == END_OBJ or ev == END_ARR:
                if not up:
                    return root
                cur = up.pop()
                continue
            left -= 1
            if left < 0:
                self._fail("more than %d elements" % self._maxi, at)
            if ev == KEY:
                key = self.value
                continue
            if ev == OBJ:
                v = {}
            elif ev == ARR:
                v = []
            else:
                v = self.value
            if type(cur) is list:
                cur.append(v)
            else:
                cur[key] = v
            if ev == OBJ or ev == ARR:
                up.append(cur)
                cur = v
            if self._base + self._i - start > maxv:
                self._fail("value longer than %d bytes" % maxv, start)

    def skip_value(self):
        """Skip the next value; strings, numbers and containers are checked
        in the buffer and nothing is built for them."""
        # One loop with the grammar inline: on MicroPython every call of a
        # larger function allocates its frame on the heap, so the common
        # tokens (plain strings, integers, punctuation) are handled here and
        # only the rare ones go through the general methods.
        st = self._st
        if st != _COLON:
            self._at_value()
            st = _VALUE
        d0 = d = self._depth
        stack = self._stack
        b = self._b
        mv = self._mv
        i = self._i
        n = self._n
        self._skip = True
        try:
            while True:
                if i >= n:
                    self._i = i
                    c = self._ws()
                    i = self._i
                    n = self._n
                else:
                    c = b[i]
                    if c == 32 or c == 10 or c == 13 or c == 9:
                        i += 1
                        continue
                if st == _AFTER:
                    if c == 44:
                        i += 1
                        st = _KEY if stack[d - 1] == 1 else _VALUE
                        continue
                    if c == (125 if stack[d - 1] == 1 else 93):
                        i += 1
                        d -= 1
                        if d == d0:
                            break
                        continue
                    self._i = i
                    self._err("',' or '}'" if stack[d - 1] == 1 else "',' or ']'", c)
                if st == _COLON:
                    if c != 58:
                        self._i = i
                        self._err("':'", c)
                    i += 1
                    st = _VALUE
                    continue
                if st == _FIRST_ARR or st == _FIRST_OBJ:
                    if c == (93 if st == _FIRST_ARR else 125):
                        i += 1
                        d -= 1
                        if d == d0:
                            break
                        st = _AFTER
                        continue
                    st = _VALUE if st == _FIRST_ARR else _KEY
                if c == 34:
                    # a string (value or key): plain ones are checked here
                    q = b.find(b'"', i + 1, n)
                    if q > i and b.find(b"\\", i + 1, q) < 0:
                        if q > i + 1:
                            seg = mv[i + 1:q]
                            if min(seg) < 32 or (max(seg) > 127 and not _utf8_ok(b, mv, i + 1, q)):
                                self._i = i
                                self._bad_run(i + 1, q)
                        i = q + 1
                    else:
                        self._i = i + 1
                        self._str(_SKIP, None)
                        i = self._i
                        n = self._n
                    if st == _KEY:
                        st = _COLON
                        continue
                elif st == _KEY:
                    self._i = i
                    self._err("'\"' (object key)", c)
                elif c == 123 or c == 91:
                    if d >= len(stack) - 1:
                        self._i = i
                        self._fail("nesting deeper than %d" % d)
                    stack[d] = 1 if c == 123 else 2
                    d += 1
                    i += 1
                    st = _FIRST_OBJ if c == 123 else _FIRST_ARR
                    continue
                else:
                    # plain integers inline, everything else the long way
                    j = i + 1 if c == 45 else i
                    k = j
                    while k < n and 48 <= b[k] <= 57:
                        k += 1
                    if k < n and k > j and (k == j + 1 or b[j] != 48) and b[k] != 46 and b[k] | 32 != 101:
                        i = k
                    else:
                        self._i = i
                        self._depth = d
                        self._val(c)
                        i = self._i
                        n = self._n
                if d == d0:
                    break
                st = _AFTER
        finally:
            self._skip = False
        self._i = i
        self._depth = d
        self._st = _AFTER
        self.value = None

    def _find_key(self, keys):
        """Inside an object: skip members until one whose key is in keys
        (a list of (bytes, str)); return that str, or None after the object
        ended (its '}' consumed). Keys are compared in the buffer; a key
        with escapes is decoded and compared."""
        while True:
            c = self._prep()
            if self._st == _CLOSE:
                self._i += 1
                self._depth -= 1
                self._st = _AFTER
                return None
            if c != 34:
                self._err("'\"' (object key)", c)
            b = self._b
            i = self._i + 1
            q = b.find(b'"', i, self._n)
            hit = None
            if q >= 0 and b.find(b"\\", i, q) < 0:
                for kb, ks in keys:
                    if len(kb) == q - i and b.find(kb, i, q) == i:
                        hit = ks
                        break
                if q > i:
                    seg = self._mv[i:q]
                    if min(seg) < 32 or (max(seg) > 127 and not _utf8_ok(b, self._mv, i, q)):
                        self._i = i
                        self._bad_run(i, q)
                self._i = q + 1
            else:
                self.next()
                for kb, ks in keys:
                    if ks == self.value:
                        hit = ks
                        break
            self._st = _COLON
            if hit is not None:
                self.value = hit
                return hit
            self.skip_value()

    def stream_string(self, sink):
        """If the next value is a string, pass it to sink(piece) in str
        pieces (no length limit) and return True; else leave it, False."""
        c = self._prep()
        if self._st != _VALUE or c != 34:
            return False
        self._i += 1
        self._str(_STREAM, sink)
        self._st = _AFTER
        return True

    def finish(self):
        """After the document: only whitespace may follow until the end."""
        c = self._prep()
        if self._st != _DONE:
            self._fail("document is not complete")
        if c >= 0:
            self._err("end of input", c)


def load(src, **kw):
    """Read one whole document from src (see Parser)."""
    p = Parser(src, **kw)
    v = p.read_value()
    p.finish()
    return v


def loads(data, **kw):
    if not isinstance(data, (bytes, bytearray, str)):
        raise TypeError("loads() needs bytes or str")
    return load(data, **kw)


# -- select ---------------------------------------------------------------

class Stream:
    """select() handler wrapper: string values arrive as fn(path, piece)
    calls, then fn(path, None); other values whole as fn(path, value)."""

    def __init__(self, fn):
        self.fn = fn


class Rules:
    """select() rules compiled once: pass Rules({pattern: handler}) to
    select() for any number of documents (e.g. one per stream event); a
    plain dict is compiled on every call. Each rule is one tuple
    (handler, is_stream, step, step, ...); a step is a key (str), an index
    (int), None (any key) or -1 (any index)."""

    def __init__(self, rules):
        self.r = []
        self.kc = {}  # depth -> keys named there, see _keys
        self.p = None  # the parser of the last stream, reused
        seen = {}  # key -> one str object shared by every rule naming it
        for pat in rules:
            h = rules[pat]
            s = isinstance(h, Stream)
            self.r.append((h.fn if s else h, s) + _pattern(pat, seen))

    def _keys(self, m, d):
        """[(bytes, str)] of the keys that the rules name at depth d
        (compared in the buffer), or None when a rule in mask m takes any
        key there. One list per depth, not per mask: select() skips a
        member that no rule in m takes."""
        for i in range(len(self.r)):
            if m >> i & 1 and not isinstance(self.r[i][d + 2], str):
                return None
        keys = self.kc.get(d)
        if keys is None:
            keys = self.kc[d] = []
            for r in self.r:
                t = r[d + 2] if len(r) > d + 2 else None
                if isinstance(t, str):
                    for kb, ks in keys:
                        if ks is t:
                            break
                    else:
                        keys.append((t.encode(), t))
        return keys


def _pattern(p, seen=None):
    """"a.b[0][*].*" -> ('a', 'b', 0, -1, None); seen: {key: key} to share
    key strings between patterns."""
    steps = []
    i = 0
    n = len(p)
    while i < n:
        c = p[i]
        if c == "[":
            j = p.find("]", i)
            if j < 0:
                raise ValueError("bad select pattern: " + p)
            t = p[i + 1:j]
            steps.append(-1 if t == "*" else int(t))
            i = j + 1
        elif c == ".":
            i += 1
        else:
            j = i
            while j < n and p[j] != "." and p[j] != "[":
                j += 1
            k = p if i == 0 and j == n else p[i:j]
            if seen is not None:
                k = seen.setdefault(k, k)
            steps.append(None if k == "*" else k)
            i = j
    return tuple(steps)


def _sub(rl, m, d, step):
    """The rules of mask m whose step d matches `step` (a key or index)."""
    out = 0
    key = isinstance(step, str)
    for i in range(len(rl)):
        if m >> i & 1:
            t = rl[i][d + 2]
            if t == step or (t is None and key) or (t == -1 and not key):
                out |= 1 << i
    return out


def _deliver(p, path, hits):
    """Hand the value at the cursor to every rule in hits."""
    streams = True
    for r in hits:
        if not r[1]:
            streams = False
    if streams and p.peek() == STR:
        pl = list(path)

        def sink(piece):
            for r in hits:
                r[0](pl, piece)
        p.stream_string(sink)
        for r in hits:
            r[0](pl, None)
        return
    v = p.read_value()
    for r in hits:
        r[0](list(path), v)
        if r[1] and isinstance(v, str):
            r[0](list(path), None)


def select(src, rules, **kw):
    """Read one document, calling handler(path, value) for values whose path
    matches a rule pattern; skip everything else. Then finish(). rules: a
    dict {pattern: handler} or Rules; kw go to Parser (buf= reuses one)."""
    if not isinstance(rules, Rules):
        rules = Rules(rules)
    rl = rules.r
    p = rules.p
    if p is not None and hasattr(src, "readinto") and not (
            "bufsize" in kw or "max_depth" in kw):
        # the same rules for another stream: reuse the parser, its buffer
        # and its attribute table (fewer allocations in a fragmented heap)
        p._src = src
        p._start(kw.get("max_value", 16384), kw.get("max_items", MAX_ITEMS))
    else:
        p = Parser(src, **kw)
        if hasattr(src, "readinto"):
            rules.p = p
    path = []
    masks = []  # per open container: the rules that go on inside it
    m = (1 << len(rl)) - 1  # the rules whose steps so far match path
    while True:
        # the value at path: deliver it, walk into it or skip it
        hits = None
        dive = False
        d = len(path)
        for i in range(len(rl)):
            if m >> i & 1:
                if len(rl[i]) == d + 2:
                    if hits is None:
                        hits = []
                    hits.append(rl[i])
                else:
                    dive = True
        if hits is not None:
            _deliver(p, path, hits)
        elif dive and p.peek() in (OBJ, ARR):
            masks.append(m)
            path.append(-1 if p.next() == ARR else None)
        else:
            p.skip_value()
        # step to the next value whose path some rule still matches
        while True:
            if not masks:
                p.finish()
                return
            m = masks[-1]
            d = len(path) - 1
            if p._stack[p._depth - 1] == 1:
                keys = rules._keys(m, d)
                if keys is not None:
                    step = p._find_key(keys)
                else:
                    step = p.value if p.next() == KEY else None
            elif p.peek() == END_ARR:
                p.next()
                step = None
            else:
                step = path[d] + 1
            if step is None:
                masks.pop()
                path.pop()
                continue
            path[d] = step
            m = _sub(rl, m, d, step)
            if m:
                break
            p.skip_value()


# -- writer ---------------------------------------------------------------

class Raw:
    """Pre-encoded JSON text written verbatim."""

    def __init__(self, data):
        self.data = data.encode() if isinstance(data, str) else bytes(data)


class RawFile:
    """`length` bytes of pre-encoded JSON copied verbatim from the file
    `path` at `offset`, in pieces through dump()'s buffer. The file is
    opened at every dump (encoded_len() only adds `length`), so a request
    can be counted, sent and retried without the text ever being whole in
    RAM (long messages from the chat-history file)."""

    def __init__(self, path, offset, length):
        self.path = path
        self.offset = offset
        self.length = length


class Array:
    """A JSON array of the values yielded by factory(); factory is called
    again for every pass (encoded_len, then dump)."""

    def __init__(self, factory):
        self.factory = factory


class _Out:
    """Batches small writes into one fixed bytearray; with write=None it
    only counts (encoded_len)."""

    def __init__(self, write, size):
        self.write = write
        self.size = size
        self.n = 0
        if write is not None:
            self.buf = bytearray(size)
            self.mv = memoryview(self.buf)
        self.k = 0

    def put(self, data):
        n = len(data)
        if self.write is None:
            self.n += n
            return
        k = self.k
        if k + n <= self.size:
            self.mv[k:k + n] = data
            self.k = k + n
            return
        self.flush()
        if n <= self.size:
            self.mv[0:n] = data
            self.k = n
            return
        mv = memoryview(data)
        a = 0
        while a < n:
            z = a + self.size
            self.write(bytes(mv[a:z if z < n else n]))
            a = z

    def copy(self, rf):
        """Copy a RawFile's bytes through the buffer."""
        left = rf.length
        if self.write is None:
            self.n += left
            return
        with open(rf.path, "rb") as f:
            f.seek(rf.offset)
            while left > 0:
                if self.k >= self.size:
                    self.flush()
                z = self.size if self.size - self.k < left else self.k + left
                got = f.readinto(self.mv[self.k:z])
                if not got:
                    raise JSONError("JSON: %s ends before byte %d" % (rf.path, rf.offset + rf.length))
                self.k += got
                left -= got

    def flush(self):
        if self.k:
            self.write(bytes(self.mv[0:self.k]))
            self.k = 0


_ESCW = {34: b'\\"', 92: b"\\\\", 10: b"\\n", 13: b"\\r", 9: b"\\t",
         8: b"\\b", 12: b"\\f"}


_SPECIAL = (b'"', b"\\", b"\n", b"\t")  # found with find(); rarer control chars by min()


def _wstr(out, s):
    e = s.encode()
    n = len(e)
    out.put(b'"')
    mv = memoryview(e)
    # next position of each _SPECIAL byte (n: none left)
    nxt = [0, 0, 0, 0]
    for t in range(4):
        x = e.find(_SPECIAL[t])
        nxt[t] = n if x < 0 else x
    k = 0
    while k < n:
        j = min(nxt)
        if j > k:
            seg = mv[k:j]
            if min(seg) < 32:
                for m in range(k, j):  # rare control characters
                    c = e[m]
                    if c < 32:
                        if m > k:
                            out.put(mv[k:m])
                        x = _ESCW.get(c)
                        out.put(x if x is not None else ("\\u%04x" % c).encode())
                        k = m + 1
                if j > k:
                    out.put(mv[k:j])
            else:
                out.put(seg)
        if j >= n:
            break
        out.put(_ESCW[e[j]])
        k = j + 1
        for t in range(4):
            if nxt[t] == j:
                x = e.find(_SPECIAL[t], k)
                nxt[t] = n if x < 0 else x
    out.put(b'"')


def _dump(value, out, max_depth=64):
    stack = []  # one iterator per open container
    kinds = bytearray(max_depth + 1)  # per level: 1 dict, 2 list; +4 first
    v = value
    while True:
        # write v, or open it and push its iterator
        it = None
        if v is None:
            out.put(b"null")
        elif v is True:
            out.put(b"true")
        elif v is False:
            out.put(b"false")
        elif isinstance(v, str):
            _wstr(out, v)
        elif isinstance(v, int):
            out.put(str(v).encode())
        elif isinstance(v, float):
            if v - v != 0.0:
                raise JSONError("JSON: cannot write NaN or infinity")
            out.put(repr(v).encode())
        elif isinstance(v, Raw):
            out.put(v.data)
        elif isinstance(v, RawFile):
            out.copy(v)
        elif isinstance(v, dict):
            it = iter(v.items())
        elif isinstance(v, (list, tuple)):
            it = iter(v)
        elif isinstance(v, Array):
            it = iter(v.factory())
        elif isinstance(v, (bytes, bytearray, memoryview)):
            raise TypeError("JSON: cannot write bytes")
        else:
            try:
                it = iter(v)
            except TypeError:
                raise TypeError("JSON: cannot write " + type(v).__name__)
        if it is not None:
            d = len(stack)
            if d >= max_depth:
                raise JSONError("JSON: nesting deeper than %d while writing" % max_depth)
            if isinstance(v, dict):
                out.put(b"{")
                kinds[d] = 5
            else:
                out.put(b"[")
                kinds[d] = 6
            stack.append(it)
        # find the next value to write
        while stack:
            d = len(stack) - 1
            k = kinds[d]
            try:
                item = next(stack[d])
            except StopIteration:
                out.put(b"}" if k & 1 else b"]")
                stack.pop()
                continue
            if k & 4:
                kinds[d] = k - 4
            else:
                out.put(b",")
            if k & 1:
                key = item[0]
                if not isinstance(key, str):
                    raise TypeError("JSON: object keys must be str")
                _wstr(out, key)
                out.put(b":")
                item = item[1]
            v = item
            break
        else:
            out.flush()
            return


def dump(value, write, bufsize=256):
    """Serialize value, calling write(bytes) with pieces of <= bufsize."""
    _dump(value, _Out(write, bufsize))


def encoded_len(value):
    """Exact number of bytes dump(value) writes."""
    c = _Out(None, 0)
    _dump(value, c)
    return c.n


def dumps(value):
    parts = []
    dump(value, parts.append)
    return b"".join(parts).decode()
