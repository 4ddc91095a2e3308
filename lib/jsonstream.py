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
string gives no piece; the sink may stop the pieces and have the rest
counted), stream_bytes() (a string's UTF-8 bytes through a buffer of the
caller's, no str made), load()/loads(), and select() (path rules ->
handlers; everything else is skipped; Rules() compiles the rules once for
many documents), p.pos() (the offset of the next unread byte). After a KEY
event, read_value(), skip_value() and stream_string() act on that member's
value.
Iterative, never recursive; nesting is limited (max_depth), every
materialized value is limited (max_value bytes of JSON text, strings and
numbers included, and max_items values and keys: "JSON: more than 1024
elements at byte X"); a skipped string or number may be of any length.

Writer: dump() writes bytes pieces of at most ~bufsize through write(),
encoded_len() counts the exact length first (for Content-Length), dumps() for
small values. Raw() echoes pre-encoded JSON verbatim, RawFile(path, offset,
length) copies pre-encoded JSON from a file in pieces (with encode=
"base64" or "text": a file's bytes made a JSON string in pieces),
Array(factory) writes an array from a re-runnable generator factory.

Decisions for the implementation-defined inputs (JSONTestSuite i_*.json):
- numbers with huge exponents or too many digits: floats follow float()
  (1e999 -> inf, 1e-999 -> 0.0, as CPython's json); integers of any size are
  int; a materialized number is limited to max_value bytes like a string.
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

Speed on MicroPython: two @micropython.viper functions (chosen at import;
CPython runs the pure-Python path alone). _run walks select()'s and
skip_value()'s documents through the buffer natively, following the rules
compiled to a node program (Rules), and hands Python only the values
rules take; every token it does not take whole (cut by the end of the
buffer, longer than it, escaped or wildcard keys, anything wrong) goes
through next(), so verdicts, messages and offsets are the pure-Python
path's at every chunking. _wesc escapes strings into dump()'s buffer.
"""
from compat import const, copy, MICROPYTHON

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

# the bytes of JSON's syntax (the viper walker compares bytes: names cost
# nothing, const() is replaced where it is used)
_QUOTE = const(34)      # "
_BSLASH = const(92)     # \
_COMMA = const(44)      # ,
_COLON_B = const(58)    # :
_LBRACE = const(123)    # {
_RBRACE = const(125)    # }
_LBRACKET = const(91)   # [
_RBRACKET = const(93)   # ]
_MINUS = const(45)      # -
_ZERO = const(48)       # 0
_NINE = const(57)       # 9
_SP = const(32)         # space: whitespace is space, LF, CR and tab
_LF = const(10)
_CR = const(13)
_TAB = const(9)

# parser states: what the next token must be
_VALUE = const(0)      # a value starts here
_KEY = const(1)        # a key string starts here
_AFTER = const(2)      # after a value: ',' or a closer (or the end at depth 0)
_COLON = const(3)      # after a key
_FIRST_OBJ = const(4)  # after '{': key or '}'
_FIRST_ARR = const(5)  # after '[': value or ']'
_CLOSE = const(6)      # the closer at the cursor is checked, not consumed
_DONE = const(7)       # the root value is complete

# _run's results
_END = const(1)
_HIT = const(2)
_MOVED = const(4)

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
_ESC = {34: 34, 92: 92, 47: 47, 98: 8, 102: 12, 110: 10, 114: 13, 116: 9}  # byte
# strict UTF-8 on MicroPython: lead bytes that need a narrower second byte
_LEADS = ((b"\xe0", 0xA0, 0xBF), (b"\xed", 0x80, 0x9F),
          (b"\xf0", 0x90, 0xBF), (b"\xf4", 0x80, 0x8F))


# read_value() refuses a value of more items than this (every value and
# object key counts, the outermost included): the text bound max_value does
# not bound the heap (a short text of "[[],[],...]" is thousands of lists,
# each a heap object); 1024 items stay within a small board's heap and hold
# any tool schema or call arguments seen in practice.
MAX_ITEMS = const(1024)

# a RawFile's read piece when it makes a string: base64 (a multiple of 3 bytes, 1 KB of base64),
# text (escaped into dump's buffer)
_B64_PIECE = const(768)
_TEXT_PIECE = const(256)


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


if MICROPYTHON:
    @micropython.viper
    def _run(p, prog: ptr8, ns: ptr8, ix: ptr32, path, strs) -> int:  # noqa: C901 (one viper loop: a call per state costs time)
        # The native walker (see _drive): reads the well-formed tokens
        # wholly in parser p's buffer from its cursor, depth and state and
        # leaves them updated. A value whose node (p._cur; 0: none) is
        # walked: a container is entered, its node kept in ns[depth]; each
        # key or index leads to the next node by the edges of the program
        # prog (see Rules) and goes into path; a value whose node has
        # rules ending there stops the walk (_HIT, state _VALUE), a string
        # without escapes read first (state _AFTER, the result + 8 times
        # where its text starts). Every other value is skipped. p._wd: the depth of the
        # innermost walked container; the walk ends (_END) when the value
        # at depth p._bd is complete. It stops (0) before any token it does
        # not take whole: one cut by the end of the buffer, one with an
        # error, a key of a walked object with an escape or that no edge
        # names but one for any key does. _MOVED: the cursor moved.
        b = ptr8(p._b)
        nt = ptr8(_NT)
        cls = ptr8(_CLS)
        i = int(p._i)
        i0 = i
        n = int(p._n)
        stk = ptr8(p._stack)
        top = int(len(p._stack)) - 1
        d = int(p._depth)
        st = int(p._st)
        cur = int(p._cur)
        wd = int(p._wd)
        base = int(p._bd)
        d0 = d  # (stored back only when changed, see the end)
        st0 = st
        cur0 = cur
        wd0 = wd
        tab = 0  # where the nodes' offsets are (minus node 0)
        if cur != 0 or wd != base:  # (not skip_value's walk, which has none)
            tab = (prog[0] | prog[1] << 8) - 2
        r = 0
        if d == base and st == _AFTER:
            r = _END
            n = 0  # (no loop)
        while i < n:
            c = b[i]
            if c == _SP or c == _LF or c == _CR or c == _TAB:
                i += 1
                continue
            k = -1  # an array element's index
            if st == _AFTER:
                if c == _COMMA:
                    i += 1
                    if stk[d - 1] == 1:
                        st = _KEY
                        continue
                    st = _VALUE
                    if d != wd:
                        continue
                    k = ix[d] + 1
                else:
                    if c != (_RBRACE if stk[d - 1] == 1 else _RBRACKET):
                        break
                    i += 1
                    d -= 1
                    if d < wd:
                        wd = d
                    if d == base:
                        r = _END
                        break
                    continue
            elif st == _COLON:
                if c != _COLON_B:
                    break
                st = _VALUE
                i += 1
                continue
            elif st >= _FIRST_OBJ:
                if c == (_RBRACE if st == _FIRST_OBJ else _RBRACKET):
                    i += 1
                    d -= 1
                    st = _AFTER
                    if d < wd:
                        wd = d
                    if d == base:
                        r = _END
                        break
                    continue
                if st == _FIRST_OBJ:
                    st = _KEY
                else:
                    st = _VALUE
                    if d == wd:
                        k = 0
            if k >= 0:
                # the next element of a walked array: its index and node
                ix[d] = k
                path[d - 1] = k
                o = tab + 2 * ns[d]
                o = prog[o] | prog[o + 1] << 8
                e = o + 5
                q = prog[o + 3]
                while q > 0:  # past the key edges
                    e += prog[e + 2] + 3
                    q -= 1
                cur = prog[o + 2]
                q = prog[o + 4]
                while q > 0:
                    if (prog[e + 1] | prog[e + 2] << 8 | prog[e + 3] << 16) == k:
                        cur = prog[e]
                        break
                    e += 4
                    q -= 1
                continue
            if st == _VALUE and d == wd and cur != 0 and prog[prog[tab + 2 * cur] | prog[tab + 2 * cur + 1] << 8] != 0:
                # a value for rules: a plain string is read here
                r = _HIT
                if c != _QUOTE:
                    break
            j = i + 1
            if c == _QUOTE:
                esc = 0
                while j < n:
                    x = b[j]
                    if x >= 35 and x != _BSLASH and x < 128:
                        j += 1
                    elif x == _QUOTE:
                        break
                    elif x == _SP or x == 33:
                        j += 1
                    elif x == _BSLASH:
                        esc = 1
                        if j + 1 >= n:
                            j = n
                            break
                        x = b[j + 1]
                        if x == 117:
                            if j + 5 >= n:
                                j = n
                                break
                            k = j + 2
                            while k < j + 6:
                                x = b[k] | 32
                                if x < _ZERO or (x > _NINE and x < 97) or x > 102:
                                    break
                                k += 1
                            if k < j + 6:
                                j = n
                                break
                            j += 6
                        elif x == _QUOTE or x == _BSLASH or x == 47 or x == 98 or x == 102 or x == 110 or x == 114 or x == 116:
                            j += 2
                        else:
                            j = n
                            break
                    elif x < 0xC2 or x > 0xF4:  # control, lone continuation, overlong
                        j = n
                        break
                    else:
                        # strict UTF-8: the second byte's range depends on the lead
                        lo = 0x80
                        hi = 0xBF
                        k = 1
                        if x >= 0xF0:
                            k = 3
                            if x == 0xF0:
                                lo = 0x90
                            elif x == 0xF4:
                                hi = 0x8F
                        elif x >= 0xE0:
                            k = 2
                            if x == 0xE0:
                                lo = 0xA0
                            elif x == 0xED:
                                hi = 0x9F
                        if j + k >= n:
                            j = n
                            break
                        x = b[j + 1]
                        if x < lo or x > hi:
                            j = n
                            break
                        q = 2
                        while q <= k:
                            x = b[j + q]
                            if x < 0x80 or x > 0xBF:
                                break
                            q += 1
                        if q <= k:
                            j = n
                            break
                        j += k + 1
                if j >= n:
                    break
                if r == _HIT:
                    if esc == 0:
                        r |= (i + 1) << 3  # where its text starts
                        i = j + 1
                        st = _AFTER
                    break
                if st == _KEY:
                    if d == wd:
                        # a key of a walked object: its node by the edges
                        if esc:
                            break
                        o = tab + 2 * ns[d]
                        o = prog[o] | prog[o + 1] << 8
                        e = o + 5
                        q = prog[o + 3]
                        ln = j - i - 1
                        if ln >= 255:
                            break  # (named keys that long: see Rules)
                        while q > 0:
                            if prog[e + 2] == ln:
                                k = 0
                                while k < ln and prog[e + 3 + k] == b[i + 1 + k]:
                                    k += 1
                                if k == ln:
                                    break
                            e += prog[e + 2] + 3
                            q -= 1
                        if q > 0:
                            cur = prog[e]
                            path[d - 1] = strs[prog[e + 1]]
                        elif prog[o + 1] != 0:
                            break  # for any key: Python keeps the key itself
                        else:
                            cur = 0
                    st = _COLON
                    i = j + 1
                    continue
            elif st == _KEY:
                break
            elif c == _LBRACE or c == _LBRACKET:
                if d >= top:
                    break
                if d == wd and cur != 0:
                    wd = d + 1
                    ns[wd] = cur
                stk[d] = 1 if c == _LBRACE else 2
                d += 1
                st = _FIRST_OBJ if c == _LBRACE else _FIRST_ARR
                i += 1
                continue
            elif c == _MINUS or (c >= _ZERO and c <= _NINE):
                # the number grammar table (see _NT): the token must end
                # in the buffer, in an accepting state
                q = 0
                j = i
                while j < n:
                    x = b[j] - 43
                    if x < 0 or x > 58:
                        break
                    x = nt[q * 7 + cls[x]]
                    if x == 255:
                        break
                    q = x
                    j += 1
                if j >= n or (q != 2 and q != 3 and q != 5 and q != 8):
                    break
                j -= 1
            elif c == 116 or c == 110:
                j = i + 3
                if j >= n:
                    break
                if c == 116:
                    if b[i + 1] != 114 or b[i + 2] != 117 or b[j] != 101:
                        break
                elif b[i + 1] != 117 or b[i + 2] != 108 or b[j] != 108:
                    break
            elif c == 102:
                j = i + 4
                if j >= n or b[i + 1] != 97 or b[i + 2] != 108 or b[i + 3] != 115 or b[j] != 101:
                    break
            else:
                break
            # a scalar value ends at b[j]
            i = j + 1
            st = _AFTER
            if d == base:
                r = _END
                break
        # (stores only of what changed: each is a search of the parser's
        # attribute table)
        if i != i0:
            p._i = i
            r |= _MOVED
        if d != d0:
            p._depth = d
        if st != st0:
            p._st = st
        if cur != cur0:
            p._cur = cur
        if wd != wd0:
            p._wd = wd
        return r

    @micropython.viper
    def _scan(p, b: ptr8, i: int, n: int) -> int:
        # Where the run of plain string bytes from b[i] ends (Parser._rest):
        # at a quote, a control character, a byte that is no strict UTF-8
        # (see _run), a backslash that is not a one-character escape
        # (\uXXXX) or any sequence cut by n; n if none. One-character
        # escapes are passed over, their number in p.value (each stands for
        # one byte: a long text has one every line).
        k = 0
        while i < n:
            x = b[i]
            if x >= _SP and x != _QUOTE and x != _BSLASH and x < 128:
                i += 1
                continue
            if x == _BSLASH:
                if i + 1 >= n:
                    break
                x = b[i + 1]
                if (x == _QUOTE or x == _BSLASH or x == 47 or x == 98 or x == 102
                        or x == 110 or x == 114 or x == 116):
                    i += 2
                    k += 1
                    continue
                break
            if x < 0xC2 or x > 0xF4:
                break
            lo = 0x80
            hi = 0xBF
            m = 1
            if x >= 0xF0:
                m = 3
                if x == 0xF0:
                    lo = 0x90
                elif x == 0xF4:
                    hi = 0x8F
            elif x >= 0xE0:
                m = 2
                if x == 0xE0:
                    lo = 0xA0
                elif x == 0xED:
                    hi = 0x9F
            if i + m >= n:
                break
            x = b[i + 1]
            if x < lo or x > hi:
                break
            q = 2
            ok = 1
            while q <= m:
                x = b[i + q]
                if x < 0x80 or x > 0xBF:
                    ok = 0
                    break
                q += 1
            if not ok:
                break
            i += m + 1
        p.value = k
        return i

    @micropython.viper
    def _unesc(p, dst: ptr8, d: int, dn: int, b: ptr8, i: int, j: int) -> int:
        # The run b[i:j] that _scan passed (plain bytes and one-character
        # escapes) copied into dst[d:dn] with its escapes decoded, until
        # the run or dst ends (an escape is never split); returns where it
        # ended in dst, where in b in p.value.
        while i < j and d < dn:
            x = b[i]
            i += 1
            if x == _BSLASH:
                x = b[i]
                i += 1
                if x == 110:
                    x = 10
                elif x == 116:
                    x = 9
                elif x == 114:
                    x = 13
                elif x == 98:
                    x = 8
                elif x == 102:
                    x = 12
            dst[d] = x
            d += 1
        p.value = i
        return d
else:
    def _unesc(p, dst, d, dn, b, i, j):
        """(CPython: _unesc above.)"""
        while i < j and d < dn:
            x = b[i]
            i += 1
            if x == _BSLASH:
                x = _ESC[b[i]]
                i += 1
            dst[d] = x
            d += 1
        p.value = i
        return d

    def _scan(p, b, i, n):
        """(CPython: _scan above, by the decoder.)"""
        k = 0
        while True:
            e = n
            for c in (b'"', b"\\"):
                j = b.find(c, i, e)
                if j >= 0:
                    e = j
            for j in range(i, e):
                if b[j] < _SP:
                    e = j
                    break
            try:
                bytes(b[i:e]).decode()
            except UnicodeDecodeError as x:
                e = i + x.start
                break
            if e + 1 < n and b[e] == _BSLASH and b[e + 1] in _ESC:     # (\\u is not in _ESC)
                i = e + 2
                k += 1
                continue
            break
        p.value = k
        return e


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
        # the native walker's state (see _run)
        self._cur = self._wd = self._bd = 0
        self._start(max_value, max_items)
        if self._src is None:
            self._n = len(self._b)

    def reuse(self, src, max_value=16384, max_items=MAX_ITEMS):
        """Read another document, from src (readinto), with this parser's
        buffer and attribute table: fewer allocations in a fragmented heap
        (select() reuses one parser per Rules for the events of a stream,
        ai/lines one per file for its lines)."""
        self._src = src
        self._start(max_value, max_items)

    def _start(self, max_value, max_items):
        """Ready for a document from self._src."""
        self._n = self._i = self._base = self._depth = 0
        self._st = _VALUE
        self._maxv = max_value
        self._maxi = max_items
        self._skip = False
        self.value = None

    def pos(self):
        """Byte offset of the next unread byte. (A method: a property
        would make every attribute store of a parser look the name up in
        its class first.)"""
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
        # (attributes read once into locals: each use is a table search)
        i = self._i
        n = self._n
        mv = self._mv
        if i:
            if i < n:
                copy(self._b, 0, self._b, i, n - i)
            n -= i
            self._base += i
            self._i = 0
        k = 0
        if n < len(self._b):
            # (into the whole buffer when it is empty: no view made)
            k = self._src.readinto(mv[n:] if n else mv)
            if not k:
                self._src = None
        if i or k:
            self._n = n + (k or 0)
        return n >= len(self._b) or bool(k)

    def _ws(self):
        """Skip whitespace; return the next byte (not consumed) or -1."""
        b = self._b
        i = self._i
        n = self._n
        while True:
            while i < n:
                c = b[i]
                if c > _SP or (c != _SP and c != _LF and c != _CR and c != _TAB):
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
        if c <= _SP:
            c = self._ws()
        st = self._st
        if st == _AFTER:
            d = self._depth
            if not d:
                self._st = _DONE
                return c
            if c == _COMMA:
                i = self._i + 1
                self._i = i
                self._st = _KEY if self._stack[d - 1] == 1 else _VALUE
                c = b[i] if i < self._n else -1
                return c if c > _SP else self._ws()
            if self._stack[d - 1] == 1:
                if c == _RBRACE:
                    self._st = _CLOSE
                    return c
                self._err("',' or '}'", c)
            if c == _RBRACKET:
                self._st = _CLOSE
                return c
            self._err("',' or ']'", c)
        if st == _COLON:
            if c != _COLON_B:
                self._err("':'", c)
            i = self._i + 1
            self._i = i
            self._st = _VALUE
            c = b[i] if i < self._n else -1
            return c if c > _SP else self._ws()
        if st == _FIRST_OBJ:
            self._st = _CLOSE if c == _RBRACE else _KEY
        elif st == _FIRST_ARR:
            self._st = _CLOSE if c == _RBRACKET else _VALUE
        return c

    # -- events -----------------------------------------------------------
    def next(self):
        """Consume the next token and return its event (see module consts)."""
        c = self._prep()
        st = self._st
        if st == _VALUE:
            return self._val(c)
        if st == _KEY:
            if c != _QUOTE:
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
        if c == _QUOTE:
            self._i += 1
            v = None if self._skip else self._sfast()
            if v is None:
                v = self._str(_SKIP if self._skip else _COLLECT, None)
            self.value = v
            self._st = _AFTER
            return STR
        if c == _MINUS or _ZERO <= c <= _NINE:
            v = None if self._skip else self._nfast()
            self.value = self._num() if v is None else v
            self._st = _AFTER
            return NUM
        if c == _LBRACE or c == _LBRACKET:
            d = self._depth
            if d >= len(self._stack) - 1:
                self._fail("nesting deeper than %d" % d)
            self._i += 1
            self._depth = d + 1
            if c == _LBRACE:
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
        if c == _QUOTE:
            return STR
        if c == _LBRACE:
            return OBJ
        if c == _LBRACKET:
            return ARR
        if c == _MINUS or _ZERO <= c <= _NINE:
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
        while k < n and _ZERO <= b[k] <= _NINE:
            k += 1
        if k >= n or k - i > 15 or b[k] == 46 or b[k] | 32 == 101:
            return None
        if b[i] == _MINUS:
            if k == i + 1 or (b[i + 1] == _ZERO and k > i + 2):
                return None
        elif b[i] == _ZERO and k > i + 1:
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
                if not self._skip:  # (a skipped number is counted, not kept)
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
            if _ZERO <= c <= _NINE:
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
        while j < e and b[j] >= _SP:
            j += 1
        u = _utf8_bad(b, self._mv, a, j)
        if u < j or j == e:
            self._fail("invalid UTF-8", self._base + u)
        self._fail("control character in string", self._base + j)

    def _str(self, mode, sink):  # noqa: C901 (one loop over a string's bytes)
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
        q = -1  # the closing quote found ahead (-1: look again)
        while True:
            if q < i:
                # (kept across escapes: searching from each one to the
                # end of a document in RAM made escapes quadratic)
                q = b.find(b'"', i, n)
                if q < 0:
                    q = n + 1  # none before n
            e = q if q < n else n
            bs = b.find(b"\\", i, e)
            if bs >= 0:
                e = bs
            r = e
            if q > n and bs < 0:  # an unfinished UTF-8 sequence waits for more
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
                    q = -1
                    continue
                u = bs + 1 < n and b[bs + 1] == 117
                i = self._esc(bs, n)
                if acc is not None:
                    if u:
                        acc += chr(self.value).encode()
                    else:
                        acc.append(self.value)
            elif q < n:
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
                q = -1
            if acc is not None:
                if mode == _COLLECT:
                    if len(acc) > maxv:
                        self._fail("value longer than %d bytes" % maxv, start)
                elif len(acc) >= flush:
                    if sink(str(acc, "utf-8")) is True:
                        sink(self._rest(i))     # (the rest is not wanted)
                        return None
                    acc = bytearray()
        if mode == _COLLECT:
            if len(acc) > maxv:
                self._fail("value longer than %d bytes" % maxv, start)
            return str(acc, "utf-8")
        if acc:
            sink(str(acc, "utf-8"))
        return None

    def _rest(self, i, write=None, o=None):  # noqa: C901 (one loop over a string's bytes)
        """The rest of a string from i, checked as a skipped string is and
        counted in UTF-8 bytes (an escape as what it stands for): nothing
        decoded or built (the rest of a streamed string that is no longer
        wanted); or, with write, its bytes decoded into o and written
        (write(o) each time it is full, write(o[:k]) with the last k).
        The cursor ends after the closing quote. Returns the count."""
        b = self._b
        n = self._n
        count = 0
        d = 0           # bytes in o not yet written
        dn = 0 if o is None else len(o)
        while True:
            j = _scan(self, b, i, n)      # the plain run from i
            if write is None:
                count += j - i - self.value
                i = j
            while i < j:
                d = _unesc(self, o, d, dn, b, i, j)
                i = self.value
                if d == dn:
                    write(o)
                    count += d
                    d = 0
            if j < n:
                c = b[j]
                if c == _QUOTE:
                    if d:
                        write(o[:d])
                    self._i = j + 1
                    return count + d
                if c == _BSLASH:
                    if n - j < 12 and self._src is not None:
                        self._i = j         # (the escape whole in the buffer first)
                        self._fill()
                        i = self._i
                        n = self._n
                        continue
                    i = self._esc(j, n)     # a \uXXXX escape
                    cp = self.value
                    k = 0 if cp < 0x80 else 1 if cp < 0x800 else 2 if cp < 0x10000 else 3
                    if write is None:
                        count += k + 1
                        continue
                    x = cp if k == 0 else (0xC0, 0xE0, 0xF0)[k - 1] | cp >> (6 * k)
                    while True:     # its UTF-8 bytes
                        o[d] = x
                        d += 1
                        if d == dn:
                            write(o)
                            count += d
                            d = 0
                        if not k:
                            break
                        k -= 1
                        x = 0x80 | (cp >> (6 * k)) & 0x3F
                    continue
                if _tail(b, j, n) != n - j:
                    self._bad_run(j, n)
            self._i = i             # the buffer's end, or a character cut by it
            if not self._fill():
                self._err("", -1, self._base + self._n)
            i = self._i
            n = self._n

    def _esc(self, bs, n):
        """The escape at bs (wholly in the buffer unless the input ends):
        its code point in self.value; returns where it ends."""
        b = self._b
        if bs + 1 >= n:
            self._err("", -1, self._base + n)
        c = b[bs + 1]
        if c != 117:
            if _ESC.get(c) is None:
                self._err("escape character", 0, self._base + bs + 1)
            self.value = _ESC[c]
            return bs + 2
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
        self.value = cp
        return i

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
        if self._st != _COLON:
            self._at_value()
        if MICROPYTHON:     # (_run: the native walker)
            self._cur = 0  # no node: the native walker skips the value
            self._wd = self._bd = self._depth
            _drive(self, None)
        else:
            d = self._depth
            self._skip = True
            try:
                self.next()
                while self._depth != d or self._st != _AFTER:
                    self.next()
            finally:
                self._skip = False
        self.value = None

    def stream_string(self, sink):
        """If the next value is a string, pass it to sink(piece) in str
        pieces (no length limit) and return True; else leave it, False.
        A sink that returns True wants no more pieces: the rest of the
        string is checked and counted, not decoded, and sink gets its length
        in UTF-8 bytes (an int) once."""
        c = self._prep()
        if self._st != _VALUE or c != _QUOTE:
            return False
        self._i += 1
        self._str(_STREAM, sink)
        self._st = _AFTER
        return True

    def stream_bytes(self, write, out):
        """If the next value is a string, hand its UTF-8 bytes to write()
        through out, a buffer of the caller's (a bytearray, or a memoryview
        of one, reused): write(out) each time it is full, write(out[:k])
        with the last k bytes. Returns the string's length in bytes; None
        (and the value is left) if it is no string. No length limit, and
        nothing allocated per byte: what is written is only out."""
        c = self._prep()
        if self._st != _VALUE or c != _QUOTE:
            return None
        self._i += 1
        n = self._rest(self._i, write, out)
        self._st = _AFTER
        return n

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
    (int), None (any key) or -1 (any index).

    self.c = (program, keys) of the rules (at most 32): one node per set of
    rules that match a path so far (a mask) and its depth, from the root
    (node 1; node 0: no rule, the value is skipped). program: two bytes
    (little endian) saying where the node table starts, then per node a
    record: where rules end, 1 (+2 if all of them are Stream, +4 if any)
    and their mask (4 bytes, little endian); elsewhere 0, the node after any key not
    named, after any index not named, the number of keys named, of indices
    named; per key: its node, its index in keys, UTF-8 length (at most 255)
    and bytes; per index: its node, 3 bytes (little endian). Then the
    table: two bytes (little endian) per node, from node 1, for the offset
    of its record.
    Where rules end nothing deeper is looked at (the outermost match takes
    the value whole). Two passes: the first finds the nodes and counts, so
    that what is kept is allocated first, each piece once (rules are
    compiled per reply, on a fragmented heap)."""

    def __init__(self, rules):
        self.r = []
        self.p = None  # the parser of the last stream, reused
        self.t = None  # the handlers' first argument (select's target)
        seen = {}  # key -> one str object shared by every rule naming it
        for pat in rules:
            h = rules[pat]
            s = isinstance(h, Stream)
            self.r.append((h.fn if s else h, s) + _pattern(pat, seen))
        self.w = None  # the native walker's state, made at the first select
        # the program, compiled here (not in a function of its own: on the
        # board each function is a heap object from import on)
        rl = self.r
        if len(rl) > 32:
            raise ValueError("select: too many rules")
        prog = keys = None
        tab = 0     # where the node table starts (known after the first pass)
        order = [((1 << len(rl)) - 1) << 7]  # node k + 1: mask << 7 | depth
        for _ in range(2):
            nk = 0
            at = 2
            k = 0
            while k < len(order):
                m = order[k] >> 7
                d = order[k] & 127
                k += 1
                o = at
                at += 5
                if prog is not None:
                    prog[tab + 2 * k - 2] = o & 255
                    prog[tab + 2 * k - 1] = o >> 8
                hit = 0
                flags = 3  # see above: 2 is cleared by a rule not Stream
                anykey = anyidx = 0
                for i in range(len(rl)):
                    r = rl[i]
                    if not m >> i & 1:
                        continue
                    if len(r) == d + 2:
                        hit |= 1 << i
                        flags = flags | 4 if r[1] else flags & 5
                    elif r[d + 2] is None:
                        anykey |= 1 << i
                    elif r[d + 2] == -1:
                        anyidx |= 1 << i
                if hit:
                    if prog is not None:
                        prog[o] = flags
                        for i in range(4):
                            prog[o + 1 + i] = hit >> 8 * i & 255
                    continue
                done = 0  # the rules whose named step is written
                for i in range(2 * len(rl)):  # the keys, then the indices
                    t = rl[i % len(rl)][d + 2] if m >> i % len(rl) & 1 else None
                    if t is None or t == -1 or done >> i % len(rl) & 1 or isinstance(t, str) != (i < len(rl)):
                        continue
                    i %= len(rl)
                    mt = anykey if isinstance(t, str) else anyidx
                    for j in range(i, len(rl)):
                        if m >> j & 1 and rl[j][d + 2] == t:
                            mt |= 1 << j
                            done |= 1 << j
                    e = t.encode()[:255] if isinstance(t, str) else None
                    nk += e is not None
                    mt = mt << 7 | d + 1  # (its node: new ones go into order)
                    if mt not in order:
                        order.append(mt)
                    if prog is not None:
                        prog[at] = order.index(mt) + 1
                        if isinstance(t, str):
                            # (a key of 255 bytes or more: its first 255; the
                            # walker leaves such keys to _edge)
                            prog[o + 3] += 1
                            prog[at + 1] = nk - 1
                            prog[at + 2] = len(e)
                            prog[at + 3:at + 3 + len(e)] = e
                            keys[nk - 1] = t
                        else:
                            prog[o + 4] += 1
                            prog[at + 1] = t & 255
                            prog[at + 2] = t >> 8 & 255
                            prog[at + 3] = t >> 16 & 255
                    at += 4 if e is None else 3 + len(e)
                for i in range(1, 3):  # the nodes after any key, any index
                    mt = anykey if i == 1 else anyidx
                    if mt:
                        mt = mt << 7 | d + 1
                        if mt not in order:
                            order.append(mt)
                        if prog is not None:
                            prog[o + i] = order.index(mt) + 1
            if prog is None:
                if at + 2 * len(order) > 65535 or nk > 255 or len(order) > 255:
                    raise ValueError("select: too many rules")
                tab = at
                prog = bytearray(at + 2 * len(order))
                prog[0] = at & 255
                prog[1] = at >> 8
                keys = [None] * nk
        self.c = (prog, keys)
        # the path a handler gets: a rule naming every step has its own,
        # made at its first value (nothing allocated per value after it);
        # wild: the rules with a wildcard, whose path is made per value
        self.fixed = [None] * len(rl)
        self.wild = 0
        for i in range(len(rl)):
            if None in rl[i][2:] or -1 in rl[i][2:]:
                self.wild |= 1 << i


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


def _edge(c, nd, key):
    """The node after a key (str) or index (int) from node nd of the
    compiled rules c."""
    prog = c[0]
    o = (prog[0] | prog[1] << 8) + 2 * nd - 2  # its record
    o = prog[o] | prog[o + 1] << 8
    e = o + 5
    for _ in range(prog[o + 3]):
        if c[1][prog[e + 1]] == key:
            return prog[e]
        e += prog[e + 2] + 3
    if isinstance(key, str):
        return prog[o + 1]
    for _ in range(prog[o + 4]):
        if prog[e + 1] | prog[e + 2] << 8 | prog[e + 3] << 16 == key:
            return prog[e]
        e += 4
    return prog[o + 2]


def _deliver(p, path, d, rules, prog, o, v=None):
    """Hand the value at the cursor, or v (a string the native walker has
    read), to the rules that end at the node whose record is prog[o:] (its
    mask: the bits of rules in rules.r). The value's path is path[:d] (a
    rule's fixed path when it names every step)."""
    m = prog[o + 1] | prog[o + 2] << 8 | prog[o + 3] << 16 | prog[o + 4] << 24
    rl = rules.r
    t = rules.t
    fixed = rules.fixed
    pw = None     # the path of the rules with a wildcard: made once
    for i in range(len(rl)):
        if m >> i & 1 and fixed[i] is None:
            if rules.wild >> i & 1:
                if pw is None:
                    pw = path[:d]
            else:
                fixed[i] = list(rl[i][2:])
    if prog[o] & 2 and (v is not None or p.peek() == STR):  # all Stream
        if v is None:
            _stream(p, m, rl, fixed, pw, t)
            return
        for i in range(len(rl)):   # (what stream_string gives for it)
            if m >> i & 1:
                pl = pw if fixed[i] is None else fixed[i]
                h = rl[i][0]
                if t is None:
                    if v:
                        h(pl, v)
                    h(pl, None)
                else:
                    if v:
                        h(t, pl, v)
                    h(t, pl, None)
        return
    if v is None:
        v = p.read_value()
    for i in range(len(rl)):
        if m >> i & 1:
            pl = pw if fixed[i] is None else fixed[i]
            h = rl[i][0]
            if t is None:
                h(pl, v)
            else:
                h(t, pl, v)
            if rl[i][1] and isinstance(v, str):
                if t is None:
                    h(pl, None)
                else:
                    h(t, pl, None)


def _stream(p, m, rl, fixed, pw, t):
    """_deliver's long string, in pieces (a function of its own: the
    variables a closure shares are heap cells, made at every call of the
    function that has it)."""
    def sink(piece):
        for i in range(len(rl)):
            if m >> i & 1:
                pl = pw if fixed[i] is None else fixed[i]
                if t is None:
                    rl[i][0](pl, piece)
                else:
                    rl[i][0](t, pl, piece)
    p.stream_string(sink)
    sink(None)


def _drive(p, rules):
    """MicroPython: run the native walker (_run) until the value at depth
    p._bd ends, delivering the values its nodes take to their rules (None
    for skip_value), reading input as it runs out and taking one at a time
    the tokens it leaves: next() reads them (longer than the buffer, escaped
    keys, errors: same messages everywhere)."""
    filled = False
    prog = ns = ix = b""  # skip_value: no rules (the walker reads none)
    keys = path = c = None
    tab = 0
    if rules is not None:
        c = rules.c
        prog, keys = c
        ns, ix, path = rules.w
        tab = (prog[0] | prog[1] << 8) - 2  # node k's record: at prog[tab + 2k]
    while True:
        r = _run(p, prog, ns, ix, path, keys)
        if r & _END:
            return
        if r & _HIT:
            filled = False
            nd = p._cur
            o = prog[tab + 2 * nd] | prog[tab + 2 * nd + 1] << 8
            at = r >> 3  # where the text of a string the walker read starts
            if p._st == _AFTER:  # a string read by the walker
                if prog[o] != 5 and p._i - 1 - at <= p._maxv:
                    # (rules all Stream or none: mixed ones materialize it)
                    _deliver(p, path, p._depth, rules, prog, o,
                             str(p._mv[at:p._i - 1], "utf-8"))
                    continue
                p._i = at - 1  # too long: read again for the error
                p._st = _VALUE
            _deliver(p, path, p._depth, rules, prog, o)
            continue
        if r & _MOVED or not filled:
            # stopped at a token cut by the buffer's end (or one for
            # next(), found out when it stops there again)
            p._fill()
            filled = True
            continue
        filled = False
        d = p._depth
        if c is not None and d == p._wd and p._st == _KEY:
            p.next()  # a key of a walked object, decoded
            p._cur = _edge(c, ns[d], p.value)
            path[d - 1] = p.value
            continue
        p._skip = True
        try:
            p.next()
        finally:
            p._skip = False


def select(src, rules, max_value=16384, buf=None, bufsize=256, max_depth=64,
           max_items=MAX_ITEMS, target=None):
    """Read one document, calling handler(path, value) for values whose path
    matches a rule pattern; skip everything else. Then finish(). rules: a
    dict {pattern: handler} or Rules; the other arguments are Parser's (buf=
    reuses one). A handler's path is a list it must not change (a rule that
    names every step gets the same one each time). target: handlers are
    called handler(target, path, value) (functions of target's class: rules
    compiled once for the readers of many documents, one select at a time)."""
    if not isinstance(rules, Rules):
        rules = Rules(rules)
    rules.t = target
    p = rules.p
    if p is not None and hasattr(src, "readinto") and bufsize == 256 and max_depth == 64:
        # the same rules for another stream: the same parser
        p.reuse(src, max_value, max_items)
    else:
        p = Parser(src, bufsize, max_depth, max_value, buf, max_items)
        if hasattr(src, "readinto"):
            rules.p = p
    if MICROPYTHON:     # (_run: the native walker)
        if rules.w is None:
            # the native walker's node, index and path per walked depth
            k = 2
            for r in rules.r:
                k = max(k, len(r))
            rules.w = (bytearray(k), bytearray(4 * k), [None] * k)
        p._cur = 1
        p._wd = p._bd = 0
        _drive(p, rules)
        p.finish()
        return
    prog = rules.c[0]
    path = []
    nodes = []  # the node of each walked container
    nd = 1
    while True:
        # the value at path: deliver it, walk into it or skip it
        o = -1
        if nd:
            o = (prog[0] | prog[1] << 8) + 2 * nd - 2  # its record
            o = prog[o] | prog[o + 1] << 8
        if o >= 0 and prog[o] & 1:
            _deliver(p, path, len(path), rules, prog, o)
        elif nd and p.peek() in (OBJ, ARR):
            p.next()
            nodes.append(nd)
            path.append(-1)
        else:
            p.skip_value()
        # the next key or element, or the end of the container
        while True:
            if not nodes:
                p.finish()
                return
            if p._stack[p._depth - 1] == 1:
                if p.next() == KEY:
                    path[-1] = p.value
                    break
            elif p.peek() != END_ARR:
                path[-1] += 1
                break
            else:
                p.next()
            nodes.pop()
            path.pop()
        nd = _edge(rules.c, nodes[-1], path[-1])


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
    RAM (long messages from the chat-history file).

    With encode, the file's bytes from offset (length of them) are made a
    JSON string instead: "base64" after head (ASCII: a data URI's
    "data:image/png;base64,"), from pieces of a multiple of 3 bytes (no
    padding but at the end), its length known without the file, 2 +
    len(head) + 4 * ceil(length / 3); or "text", the file's UTF-8 text
    escaped (escapes work on bytes: a character cut between two reads
    comes out whole; the text is taken to be UTF-8, ai/files.py checks it
    first), counted in a pass over the file."""

    def __init__(self, path, offset, length, encode=None, head=""):
        self.path = path
        self.offset = offset
        self.length = length
        self.encode = encode
        self.head = head


class Array:
    """A JSON array of the values yielded by factory(); factory is called
    again for every pass (encoded_len, then dump)."""

    def __init__(self, factory):
        self.factory = factory


class _Out:
    """Batches small writes into one fixed bytearray; with write=None it
    only counts (encoded_len). view: write() gets memoryview slices of the
    buffer, not bytes copies (see dump)."""

    def __init__(self, write, size, view=False):
        self.write = write
        self.size = size
        self.n = 0
        self.view = view
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
            self._send(mv[a:z if z < n else n])
            a = z

    def copy(self, rf):
        """Copy a RawFile's bytes through the buffer (with encode: _string)."""
        if rf.encode is not None:
            return _string(self, rf)
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
            self._send(self.mv[0:self.k])
            self.k = 0

    def _send(self, mv):
        self.write(mv if self.view else bytes(mv))


if MICROPYTHON:
    @micropython.viper
    def _wesc(out, e: ptr8, i: int, n: int, count: int) -> int:
        # The native writer of a string's bytes e[i:n] as JSON string text
        # (the escapes of CPython's json.dumps, ensure_ascii=False) into out's
        # buffer, up to where it is full; returns the next i. count: only
        # add the length to out.n (encoded_len), return n.
        if count:
            c = int(out.n)
            while i < n:
                x = e[i]
                i += 1
                if x >= _SP and x != _QUOTE and x != _BSLASH:
                    c += 1
                elif x == _QUOTE or x == _BSLASH or x == _LF or x == _CR or x == _TAB or x == 8 or x == 12:
                    c += 2
                else:
                    c += 6
            out.n = c
            return n
        b = ptr8(out.buf)
        k = int(out.k)
        size = int(out.size)
        while i < n:
            x = e[i]
            if x >= _SP and x != _QUOTE and x != _BSLASH:
                if k >= size:
                    break
                b[k] = x
                k += 1
            else:
                y = x
                if x == _LF:
                    y = 110
                elif x == _CR:
                    y = 114
                elif x == _TAB:
                    y = 116
                elif x == 8:
                    y = 98
                elif x == 12:
                    y = 102
                elif x < _SP:
                    y = 117  # \u00XX
                if k + (6 if y == 117 else 2) > size:
                    break
                b[k] = 92
                b[k + 1] = y
                k += 2
                if y == 117:
                    b[k] = 48
                    b[k + 1] = 48
                    b[k + 2] = 48 + (x >> 4)
                    x &= 15
                    b[k + 3] = x + (48 if x < 10 else 87)
                    k += 4
            i += 1
        out.k = k
        return i
else:
    # CPython (the tests' interpreter, which has the memory): its json
    # module escapes exactly as _wesc does, and is the reference for it
    import json as _json

    def _utf8_decoder():
        import codecs
        return codecs.getincrementaldecoder("utf-8")()

    def _esc_text(s):
        return _json.dumps(s, ensure_ascii=False)[1:-1].encode()


def _wstr(out, s):
    if not MICROPYTHON:
        out.put(_json.dumps(s, ensure_ascii=False).encode())
        return
    e = s.encode()
    out.put(b'"')
    _wbytes(out, e, len(e))
    out.put(b'"')


def _string(out, rf):
    """A RawFile with encode: quotes, head, then the file's bytes as base64
    or escaped text, read in pieces (see RawFile)."""
    out.put(b'"')
    if rf.head:
        out.put(rf.head.encode())
    left = rf.length
    text = rf.encode == "text"
    if not text and out.write is None:
        out.n += 4 * ((left + 2) // 3) + 1       # (and the closing quote)
        return
    from binascii import b2a_base64
    # one read buffer per file: base64 of a piece is one 1 KB write (httpc
    # sends a write that long as it is, no copy)
    buf = bytearray(_TEXT_PIECE if text else _B64_PIECE)
    mv = memoryview(buf)
    dec = None if MICROPYTHON or not text else _utf8_decoder()
    with open(rf.path, "rb") as f:
        f.seek(rf.offset)
        while left > 0:
            k = 0
            want = len(buf) if len(buf) < left else left
            while k < want:         # a whole piece: a multiple of 3 bytes
                got = f.readinto(mv[k:want])
                if not got:
                    raise JSONError("JSON: %s ends before byte %d" % (rf.path, rf.offset + rf.length))
                k += got
            left -= k
            if not text:
                out.flush()
                out._send(memoryview(b2a_base64(mv[0:k], newline=False)))
            elif MICROPYTHON:
                _wbytes(out, buf, k)
            else:
                out.put(_esc_text(dec.decode(bytes(mv[0:k]), left == 0)))
    out.put(b'"')


def _wbytes(out, e, n):
    """The UTF-8 bytes e[:n] escaped into out (MicroPython)."""
    count = out.write is None
    k = _wesc(out, e, 0, n, count)
    while k < n:  # the buffer is full
        out.flush()
        k = _wesc(out, e, k, n, count)


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


def dump(value, write, bufsize=256, view=False):
    """Serialize value, calling write(bytes) with pieces of <= bufsize
    (at least 8: an escape is written whole). view=True: write() gets each
    piece as a memoryview of dump's buffer, valid only during the call, so
    no piece is copied (a writer that sends or copies it at once: a
    request body)."""
    _dump(value, _Out(write, bufsize if bufsize > 8 else 8, view))


def encoded_len(value):
    """Exact number of bytes dump(value) writes."""
    c = _Out(None, 0)
    _dump(value, c)
    return c.n


def esc(s):
    """The str s escaped as the inside of a JSON string: bytes, no quotes
    (a piece of a string written in pieces). Backslashes, quotes and line
    breaks are replaced (replace() copies only when it finds one); a text
    with another control character is written by dumps()."""
    e = s.encode().replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    if e and min(e) < 32:
        e = dumps(s)[1:-1].encode()
    return e


def dumps(value):
    parts = []
    dump(value, parts.append)
    return b"".join(parts).decode()
