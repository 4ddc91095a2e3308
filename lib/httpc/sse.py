# httpc.sse: the Server-Sent Events reader, imported on first use of
# httpc.SSE / httpc.Event.
#
# Wire format (WHATWG "text/event-stream"): lines of "field: value" ending
# in LF, CR or CRLF; one space after the colon is dropped; a line starting
# with ":" is a comment; a blank line ends the event. "data" lines join
# with "\n"; "event" names the event, "id" (without NUL) sets the last
# event id, "retry" (digits) the reconnection time; a leading UTF-8 BOM is
# dropped.
#
# Memory: one buffer per stream, of max_line + 16 bytes or bufsize (a
# larger one: fewer reads for a stream of many small events). Field lines
# other than data are bounded by max_line; data streams through the
# caller's buffer (Event.readinto) and is never held whole. Nothing is
# allocated per event: the stream has one Event, handed out again by each
# next() (an Event is good until the next one), and reading copies from the
# buffer straight into the caller's.
#
# Polling: next(block=False) reads only what has arrived (the source must
# take readinto(buf, False) and return None when nothing has: a Response
# does) and returns None until an event is there whole (its data up to
# the blank line that ends it, in the buffer: reading it then never
# waits), or fills the buffer (a longer event is returned as its data
# starts, and reading it may wait); comments, blank lines, chunk framing
# and the rest of the event before are consumed, a partial line is kept
# for the next call. take() is next() as a step generator (compat.drive):
# it yields the connection to wait for (the asyncio driver, httpc/aio.py).
from compat import const, copy, ticks_ms, ticks_diff
from httpc import HTTPError, LINE_MAX, utf8

# where the reader is (SSE._st)
_IN_DATA = const(0)           # inside a data value
_LINE_START = const(1)        # at the start of a line of the event
_EVENT_END = const(2)         # the event's data has ended

# what SSE._field() found
_END = const(0)               # the end of the stream
_BLANK = const(1)             # a blank line: the event ends
_AT_DATA = const(2)           # the value of a data line starts here
_LATER = const(3)             # not blocking: no complete line has arrived

_LAP = const(2)               # ms take() parses on before the loop's other tasks run
_LF = const(10)
_CR = const(13)
_SP = const(32)
_COLON = const(58)


class Event:
    """The current SSE event (until the next next()). .event/.id/.retry are
    final once the data has been read to its end (fields after the data
    lines are rare but legal). The data is a byte stream: readinto(buf) /
    read(limit)."""

    def __init__(self, sse):
        self._src = sse
        self._reset()

    def _reset(self):
        s = self._src
        self._n = 0
        self.event = "message"
        self.id = s.last_id
        self.retry = s.retry

    def readinto(self, buf):
        s = self._src
        if s._cur is not self:
            return 0
        return s._data(buf, self)

    def read(self, limit=None):
        """The whole (small) data as bytes; HTTPError "toolong" when it is
        larger than limit (default 16 KB)."""
        from httpc.body import read_all
        return read_all(self, limit, "SSE event data")

    def startswith(self, prefix):
        """True when the data starts with prefix (a few bytes), looked at
        in the buffer before any of the data is read: nothing consumed,
        nothing copied (False once reading has started)."""
        s = self._src
        if s._cur is not self or self._n or s._nl or s._st != _IN_DATA:
            return False
        return s._starts(prefix)

    @property
    def empty(self):
        """True when the event's data is empty (e.g. a priming `data:`)."""
        if self._n:
            return False
        s = self._src
        if s._cur is not self:
            return True
        return s._peek_empty()


class SSE:
    """Server-Sent Events reader over anything with readinto() (a Response).

    next() returns the next Event that has a data field (possibly empty:
    check .empty), or None at the end of the stream (.ended is True then).
    next(False) does not wait: None while no event has started (see the
    module comment). Events without any
    data line (e.g. retry-only) are NOT returned, as in the WHATWG spec;
    their id/retry still update .last_id/.retry. The Event is returned as
    soon as its first data line starts; unread data is skipped by the next
    next(). An event cut off by the end of the stream ends its data early.
    Field lines other than data (event, id, retry, unknown) are bounded by
    max_line; data lines are streamed and unbounded. bufsize: the buffer
    (at least max_line + 16)."""

    def __init__(self, resp, max_line=LINE_MAX, bufsize=0):
        self._src = resp
        self._max_line = max_line
        self._b = bytearray(max(bufsize, max_line + 16))
        self._mv = memoryview(self._b)
        self.pos = self.end = 0
        self._eof = False
        self._lf = False      # the last line ended with CR: drop one LF
        self._bom = True
        self._skip = False    # inside a comment line
        self._cur = None      # the event being read (or its fields, not yet given)
        self._ev = None       # the stream's one Event
        self._given = False   # _cur was returned by next()
        self._held = False    # (block False) at _cur's data, not yet whole
        self._lap = 0         # (take) ticks_ms when the loop last had its turn
        self.ended = False
        self._st = _EVENT_END
        self._nl = False      # "\n" owed between two data lines
        self.last_id = None
        self.retry = None

    def __iter__(self):
        return self

    def __next__(self):
        ev = self.next()
        if ev is None:
            raise StopIteration
        return ev

    def close(self):
        self._cur = None
        self._given = self._held = False
        self._src.close()

    def take(self):
        """next(False) as a step generator (compat.drive): yields the
        connection to wait for until the next event is there whole; the
        event, or None at the end. Events that keep arriving are parsed
        one after another, so every _LAP ms it also yields 0 (a sleep of
        none): the loop's other tasks run."""
        while True:
            ev = self.next(False)
            if ev is not None or self.ended:
                if ticks_diff(ticks_ms(), self._lap) >= _LAP:
                    yield 0
                    self._lap = ticks_ms()
                return ev
            yield self._src._c
            self._lap = ticks_ms()

    def _fill(self, block=True):
        """More bytes into the buffer: True; False at the end of the stream;
        None when block is False and nothing has arrived."""
        if self._eof:
            return False
        if self.pos == self.end:
            self.pos = self.end = 0
        elif self.end == len(self._b):
            k = self.end - self.pos
            copy(self._b, 0, self._b, self.pos, k)     # (to the front)
            self.pos, self.end = 0, k
        # (the whole buffer when it is empty: no view made)
        mv = self._mv[self.end:] if self.end else self._mv
        n = self._src.readinto(mv) if block else self._src.readinto(mv, False)
        if n is None:
            return None
        if not n:
            self._eof = True
            return False
        self.end += n
        return True

    def _eol(self, a):
        b = self._b
        i = b.find(b"\n", a, self.end)
        j = b.find(b"\r", a, self.end if i < 0 else i)
        return j if j >= 0 else i

    def _skip_line(self, block=True):
        """To the next line: True; False at the end of the stream; None when
        block is False and the line's end has not arrived."""
        while True:
            i = self._eol(self.pos)
            if i >= 0:
                self.pos = i + 1
                self._lf = self._b[i] == _CR
                return True
            self.pos = self.end
            got = self._fill(block)
            if not got:
                return got

    def _toolong(self):
        return HTTPError("SSE field line longer than %d bytes" % self._max_line,
                         "toolong", True)

    def _field(self, block=True):
        """Consume lines up to the next data value or blank line: _AT_DATA,
        _BLANK, _END at the end of the stream, or (block False) _LATER when
        no complete line has arrived; a partial line stays buffered."""
        b = self._b
        while True:
            if self.pos == self.end:
                got = self._fill(block)
                if not got:
                    return _END if got is False else _LATER
            if self._lf:
                self._lf = False
                if b[self.pos] == _LF:
                    self.pos += 1
                    continue
            if self._skip:                 # the rest of a comment line
                i = self._eol(self.pos)
                if i < 0:
                    self.pos = self.end
                    continue
                self.pos = i + 1
                self._lf = b[i] == _CR
                self._skip = False
                continue
            if self._bom:
                while self.end - self.pos < 3:
                    got = self._fill(block)
                    if got is None:
                        return _LATER
                    if not got:
                        break
                self._bom = False
                if b.find(b"\xef\xbb\xbf", self.pos, self.pos + 3) == self.pos:
                    self.pos += 3
                continue
            c = b[self.pos]
            if c == _LF or c == _CR:
                self.pos += 1
                self._lf = c == _CR
                return _BLANK
            if c == _COLON:                # a comment: skipped, unbounded
                self._skip = True
                continue
            while True:                    # the name ends at ":" or the EOL
                k = self._eol(self.pos)
                col = b.find(b":", self.pos, self.end if k < 0 else k)
                if col >= 0 or k >= 0:
                    break
                if self.end - self.pos >= self._max_line:
                    raise self._toolong()
                got = self._fill(block)
                if not got:
                    return _END if got is False else _LATER
            a = self.pos
            end = col if col >= 0 else k
            if end - a == 4 and b.find(b"data", a, end) == a:
                if col < 0:
                    self.pos = k            # "data" alone: empty value
                    return _AT_DATA
                if col + 1 == self.end and not self._eof:
                    # is the next byte the space to drop? Read on, then
                    # parse the line again (the buffer may have moved)
                    if self._fill(block) is None:
                        return _LATER
                    continue
                self.pos = col + 1
                if self.pos < self.end and b[self.pos] == _SP:
                    self.pos += 1
                return _AT_DATA
            while k < 0:                   # other fields: the whole line
                if self.end - self.pos >= self._max_line:
                    raise self._toolong()
                got = self._fill(block)
                if not got:
                    return _END if got is False else _LATER
                k = self._eol(self.pos)
            if k - self.pos > self._max_line:
                raise self._toolong()
            self._apply(self.pos, k)
            self.pos = k + 1
            self._lf = b[k] == _CR

    def _apply(self, a, k):
        b = self._b
        col = b.find(b":", a, k)
        if col < 0:
            name, val = bytes(self._mv[a:k]), b""
        else:
            name = bytes(self._mv[a:col])
            v = col + 1
            if v < k and b[v] == _SP:
                v += 1
            val = bytes(self._mv[v:k])
        ev = self._cur
        if name == b"event":
            ev.event = utf8(val, "SSE event name") if val else "message"
        elif name == b"id":
            if b"\x00" not in val:
                self.last_id = utf8(val, "SSE id")
                ev.id = self.last_id
        elif name == b"retry":
            if val and val.isdigit():
                self.retry = int(val)
                ev.retry = self.retry

    def _data(self, mv, ev):
        n = len(mv)
        got = 0
        b = self._b
        while got < n:
            if self._nl:
                mv[got] = _LF
                got += 1
                self._nl = False
                continue
            st = self._st
            if st == _IN_DATA:
                if self.pos == self.end:
                    # (the line goes on: read on, the caller's buffer is
                    # filled whole, fewer and longer reads; the buffer is
                    # empty, so the read goes into all of it)
                    if not self._fill():
                        self._st = _EVENT_END
                        break
                i = self._eol(self.pos)
                e = self.end if i < 0 else i
                k = e - self.pos
                if k > n - got:
                    k = n - got
                if k:
                    copy(mv, got, self._b, self.pos, k)
                    self.pos += k
                    got += k
                if i >= 0 and self.pos == i:
                    self.pos = i + 1
                    self._lf = b[i] == _CR
                    self._st = _LINE_START
            elif st == _LINE_START:
                if got and self.pos == self.end:
                    break          # hand over what we have before blocking
                self._next_line()
            else:
                break
        ev._n += got
        return got

    def _next_line(self):
        """At a line start inside an event: into the next data value, or
        to the event's end."""
        if self._field() == _AT_DATA:
            self._nl = True
            self._st = _IN_DATA
        else:
            self._st = _EVENT_END

    def _starts(self, prefix):
        n = len(prefix)
        while self.end - self.pos < n and self._eol(self.pos) < 0:
            if not self._fill():
                break
        return self._b.find(prefix, self.pos, self.pos + n) == self.pos

    def _peek_empty(self):
        b = self._b
        while True:
            if self._nl:
                return False
            st = self._st
            if st == _IN_DATA:
                if self.pos == self.end and not self._fill():
                    self._st = _EVENT_END
                    return True
                c = b[self.pos]
                if c != _LF and c != _CR:
                    return False
                self.pos += 1
                self._lf = c == _CR
                self._st = _LINE_START
            elif st == _LINE_START:
                self._next_line()
            else:
                return True

    def _finish(self, block=True):
        """Skip what is left of the current event's data: True; None when
        block is False and the rest has not arrived (the state stays)."""
        while True:
            st = self._st
            self._nl = False
            if st == _IN_DATA:
                r = self._skip_line(block)
                if r is None:
                    return None
                self._st = _LINE_START if r else _EVENT_END
            elif st == _LINE_START:
                r = self._field(block)
                if r == _LATER:
                    return None
                self._st = _IN_DATA if r == _AT_DATA else _EVENT_END
            else:
                return True

    def _ends(self, a):
        """True when a blank line (the event's end) follows in the buffer
        from a."""
        b = self._b
        end = self.end
        while True:
            k = self._eol(a)
            if k < 0:
                return False
            j = k + 1
            if b[k] == _CR:
                if j == end:
                    return False        # (an LF of its CRLF may follow)
                if b[j] == _LF:
                    j += 1
            if j >= end:
                return False
            c = b[j]
            if c == _LF or c == _CR:
                return True
            a = j

    def _whole(self):
        """(not blocking) True when the event whose data starts at pos is
        in the buffer up to its end, or the stream has ended, or the buffer
        is full; reads what has arrived."""
        while not self._ends(self.pos):
            if self._eof or (not self.pos and self.end == len(self._b)):
                return True
            if self._fill(False) is None:
                return False
        return True

    def next(self, block=True):
        """The next event with data, or None at the end of the stream; with
        block=False also None while it has not arrived whole (.ended says
        which; see the module comment)."""
        if self._given:
            if not self._finish(block):
                return None
            self._cur = None
            self._given = False
        if self._held:          # at the data of an event not yet whole
            if not block and not self._whole():
                return None
            self._held = False
            self._given = True
            return self._cur
        ev = self._cur
        if ev is None:
            ev = self._ev
            if ev is None:
                ev = self._ev = Event(self)
            else:
                ev._reset()
            self._cur = ev
        while True:
            r = self._field(block)
            if r == _AT_DATA:
                self._st = _IN_DATA
                self._nl = False
                if not block and not self._whole():
                    self._held = True
                    return None
                self._given = True
                return ev
            if r == _END:
                self._cur = None
                self._st = _EVENT_END
                self.ended = True
                return None
            if r == _LATER:
                return None
            ev.event = "message"         # blank line without data: discarded
            ev.id = self.last_id
