"""A reply's JSON parsed as its text arrives: jsonstream's pull parser fed
by pushes (ai.ask with a schema, ai.ask_json, the console's ai -schema).

    f = Feed(rules={"items[*]": fn}, hook=None)
    f.feed(piece)        # str or bytes pieces, cut anywhere
    f.end()              # the text is over: JSONError unless it was one document

A schema reply is JSON inside the provider's JSON: its text reaches the
driver's Out in pieces cut anywhere (inside \\", inside \\u00e9, between
the two halves of a surrogate pair, in a number). jsonstream.Parser pulls
its document from a source; here the text is pushed. The Feed keeps the
bytes not yet taken in one buffer and has a Parser in RAM mode over it
take a token only once the token is whole in the buffer, so every verdict
(escapes, strict UTF-8, number rules, literals, depth, sizes) and every
message is the Parser's, with byte offsets from the start of the text.
Whether a token is whole is told by _whole() from its first byte: a
string by its closing quote (one not escaped), a number by a byte after
it, a literal by its length. That is the one small state machine here,
and it judges nothing: a token it lets through is the Parser's to accept
or refuse.

The tokens then drive, one at a time:
- hook(ev, value, path) when given: every token (KEY, a value's first
  token, END_OBJ/END_ARR) with the path it sits at (the schema's check,
  the console's printer);
- the rules (jsonstream's select() patterns and handler convention,
  compiled by jsonstream.Rules): a value at a rule's path is built from
  its tokens (read_value's loop, a token at a time, bounded by max_value
  bytes of text and max_items) and handed to the rule's handlers as soon
  as its last token is read; deeper rules are not called for it (the
  outermost wins, as in select()); nothing else is kept.

Memory: the buffer holds the unread part of one token and the last piece
(it grows to a token's size, bounded by max_value); a value is held only
while a rule builds it. The heap is flat in the number of values.
"""
import jsonstream
from jsonstream import OBJ, END_OBJ, ARR, END_ARR, KEY, STR
from compat import copy

_NUMBER = b"+-.0123456789eE"
_WS = b" \t\r\n"


def _skip_ws(b, i, n):
    while i < n and b[i] in _WS:
        i += 1
    return i


class Feed:
    def __init__(self, rules=None, hook=None, max_value=16384, max_items=jsonstream.MAX_ITEMS,
                 max_depth=64, bufsize=128, fence=False):
        self.fence = fence      # a code fence around the document is passed over
        self.buf = bytearray(bufsize)
        p = self.p = jsonstream.Parser(self.buf, max_depth=max_depth, max_value=max_value,
                                       max_items=max_items)
        p._n = 0
        self.hook = hook
        if rules is not None and not isinstance(rules, jsonstream.Rules):
            rules = jsonstream.Rules(rules)
        self.rules = rules
        self.path = []
        self.nodes = []         # the rules' node of each open container (0: none)
        self.node = 1 if rules is not None else 0   # the node of the value about to start
        self.build = None       # [value, containers up, key, items left, start, node]
        self.v = None           # the value being delivered (see peek)
        self.scan = 0           # where the search for a string's closing quote goes on
        self.done = False       # the root value is complete

    # -- input ------------------------------------------------------------
    def feed(self, piece):
        """More of the text (str or bytes); tokens completed by it are read."""
        if isinstance(piece, str):
            piece = piece.encode()
        p = self.p
        if len(piece) > 256:    # (a long piece a part at a time: the buffer holds a token)
            mv = memoryview(piece)
            for a in range(0, len(piece), 256):
                self.feed(mv[a:a + 256])
            return
        n = len(piece)
        if p._n + n > len(p._b):
            self._room(n)
        p._mv[p._n:p._n + n] = piece
        p._n += n
        self._run(False)

    def end(self):
        """The text is over: the rest is read with the end of input as the
        end of the document (JSONError when it is not one whole document)."""
        self._run(True)
        self.p.finish()

    def _room(self, n):
        """Room for n more bytes: the bytes already read go, then the
        buffer grows (a token longer than it; bounded by max_value)."""
        p = self.p
        i = p._i
        if i:
            copy(p._b, 0, p._b, i, p._n - i)
            p._base += i
            p._n -= i
            p._i = 0
            self.scan = max(self.scan - i, 0)
        need = p._n + n
        if need > len(p._b):
            if need > p._maxv + 64:
                p._fail("value longer than %d bytes" % p._maxv)
            b = bytearray(max(need, min(2 * len(p._b), p._maxv + 64)))
            b[0:p._n] = p._mv[0:p._n]
            p._b = self.buf = b
            p._mv = memoryview(b)

    def _whole(self, final):
        """True when the next token (after whitespace and a ',' or ':') is
        whole in the buffer; at the end of the text (final) always."""
        if final:
            return True
        p = self.p
        b = p._b
        n = p._n
        i = _skip_ws(b, p._i, n)
        if i < n and (b[i] == 44 or b[i] == 58):     # , :
            i = _skip_ws(b, i + 1, n)
        if i >= n:
            return False
        c = b[i]
        if c == 34:                             # a string: its closing quote
            q = b.find(b'"', max(i + 1, self.scan), n)
            while q >= 0:
                k = q - 1
                while b[k] == 92:               # \ (the opening quote stops it)
                    k -= 1
                if (q - k) & 1:                 # an even number of them: the end
                    # (an escape cut by the quote is the Parser's error once
                    # its 6 bytes are there, as it is in a whole text)
                    k = b.rfind(b"\\", i + 1, q)
                    if k >= 0 and k + 6 > n:
                        return False
                    self.scan = 0
                    return True
                q = b.find(b'"', q + 1, n)
            self.scan = n
            return False
        if c == 45 or 48 <= c <= 57:            # a number: a byte after it
            i += 1
            while i < n and b[i] in _NUMBER:
                i += 1
            return i < n
        if c == 116 or c == 110:                # true, null
            return i + 4 <= n
        if c == 102:                            # false
            return i + 5 <= n
        return True                             # one byte (or the Parser's error)

    def _run(self, final):
        p = self.p
        if self.fence and not self.path and not self.done and p._st == 0 and \
                not self._fenced(final, True):      # (before the first token)
            return
        while not self.done:
            if not self._whole(final):
                return
            ev = p.next()
            self._token(ev, p.value)
        if self.fence and not self._fenced(final, False):
            return
        if final or p._i < p._n:
            p.finish()      # only whitespace after the document

    def _fenced(self, final, opening):
        """With fence: a line "```json" (any label) before the document and
        "```" after it are passed over (a model told to answer with JSON
        alone may fence it). False while a fence may still be coming."""
        p = self.p
        b = p._b
        n = p._n
        i = _skip_ws(b, p._i, n)
        if n - i < 3 and not final and (i == n or b.find(b"`", i, n) == i):
            return False
        if b.find(b"```", i, i + 3) != i:
            return True
        if opening:
            e = b.find(b"\n", i, n)
            if e < 0:
                if not final:
                    return False
                e = n - 1
            p._i = e + 1
            return True
        p._i = i + 3
        return True

    # -- tokens -----------------------------------------------------------
    def _token(self, ev, v):
        path = self.path
        if ev == KEY:
            path[-1] = v
            if self.hook is not None:
                self.hook(ev, v, path)
            if self.build is not None:
                self._add(ev, v)
            else:
                nd = self.nodes[-1]
                self.node = jsonstream._edge(self.rules.c, nd, v) if nd else 0
            return
        if ev == END_OBJ or ev == END_ARR:
            if self.hook is not None:
                self.hook(ev, None, path)
            path.pop()
            self.nodes.pop()
            if self.build is not None:
                self._add(ev, None)
            if not path:
                self.done = True
            return
        # a value starts: its place, then the hook, then the rules
        nd = self.node
        if path and type(path[-1]) is int:
            path[-1] += 1
            up = self.nodes[-1]
            nd = jsonstream._edge(self.rules.c, up, path[-1]) if up else 0
        if self.hook is not None:
            self.hook(ev, v, path)
        if self.build is not None:
            self._add(ev, v)
        elif nd and self.rules is not None:
            prog = self.rules.c[0]
            o = (prog[0] | prog[1] << 8) + 2 * nd - 2     # (as select() finds a node's record)
            o = prog[o] | prog[o + 1] << 8
            if prog[o] & 1:
                if ev == OBJ or ev == ARR:
                    p = self.p
                    self.build = [{} if ev == OBJ else [], [], None, p._maxi - 1,
                                  p.pos() - 1, o]
                else:
                    self._deliver(v, o)
                nd = 0      # (nothing deeper is walked)
        if ev == OBJ or ev == ARR:
            path.append(None if ev == OBJ else -1)
            self.nodes.append(nd)
        elif not path:
            self.done = True

    def _add(self, ev, v):
        """The next token of the value being built (read_value's loop)."""
        b = self.build
        p = self.p
        if ev == END_OBJ or ev == END_ARR:
            if b[1]:
                b[0] = b[1].pop()
                return
            self.build = None
            self._deliver(b[0], b[5])
            return
        b[3] -= 1
        if b[3] < 0:
            p._fail("more than %d elements" % p._maxi, b[4])
        if p.pos() - b[4] > p._maxv:
            p._fail("value longer than %d bytes" % p._maxv, b[4])
        if ev == KEY:
            b[2] = v
            return
        if ev == OBJ:
            v = {}
        elif ev == ARR:
            v = []
        cur = b[0]
        if type(cur) is list:
            cur.append(v)
        else:
            cur[b[2]] = v
        if ev == OBJ or ev == ARR:
            b[1].append(cur)
            b[0] = v

    def _deliver(self, v, o):
        self.v = v
        path = self.path
        try:
            jsonstream._deliver(self, path, len(path), self.rules, self.rules.c[0], o)
        finally:
            self.v = None

    # the value delivered as jsonstream._deliver reads one at a parser's
    # cursor: the handlers get it by select()'s convention (a Stream rule:
    # a string as one piece, then None)
    def peek(self):
        return STR if isinstance(self.v, str) else 0

    def read_value(self):
        return self.v

    def stream_string(self, sink):
        if self.v:
            sink(self.v)
        return True
