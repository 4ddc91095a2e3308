"""Chat history on flash: JSON lines, one message a line.

    h = History("chat")           # <root>/history/chat.jsonl
    for msg in h: ...             # streamed from the file, a line at a time
    t = h.turn({"role": "user", "content": "hi"})
    ai.run(t, {"stream": t.record, "keep": False})
    t.commit(max_bytes, max_turns)   # only now does the history change
    t.drop()                         # or forget it (Ctrl-C, an error)

File format: one JSON object per line, a message of the internal vocabulary
(ai/__init__.py), role first; a message's files come next, each as the
reference ai/files.py ref() makes ({"path", "size", "type", "sha"}), never
its bytes: a request sends the file again while it is unchanged (else its
label says "changed or gone"), and trimming counts it by its base64 size
(what each request carries). The messages of the turn being asked are
marked "_new" as they are read (their files are checked strictly). Read
with ai/lines.py: in a line longer than lines.SMALL
bytes the "content" string is not read but comes as a jsonstream.RawFile of
its JSON text, which a request copies from the file in pieces, `ai history`
streams through the renderer (pieces()) and string() reads where a str is
needed (ai.styles.as_str). So a 64 KB reply costs no heap to send again or to
show.

A turn collects its messages in <use>.turn beside the history: an appended
message is a line there at once (a jsonstream.RawFile content, e.g. a tool
result on flash, is copied in), and record(piece) writes a streamed reply
JSON-escaped into an open line as it arrives, which the next appended
assistant message with empty content closes (its other fields follow the
text). commit() rewrites the history atomically (store.write_atomic: a kill
leaves the old file or the new one) as the newest whole turns of the old
history that fit max_bytes and max_turns, then the new turn, which is always
kept (a turn starts at a user message, so a tool call is never split from
its result). An aborted turn (Ctrl-C, an error) never reaches the history;
a line torn by a kill is skipped by readers.
"""
import jsonstream
import store
from compat import MICROPYTHON, const
from ai.lines import _Slice, _lines, read

_SP = const(0x20)


class History:
    def __init__(self, use):
        self.use = use
        self.path = store.path("history", use + ".jsonl")

    def __iter__(self):
        return read(self.path)

    def turn(self, *msgs):
        """A pending turn: iterates the saved history, then msgs and whatever
        is appended; commit() saves it."""
        return Turn(self, msgs)

    def clear(self):
        store.remove(self.path)

    def size(self):
        return store.size(self.path) or 0


class Turn:
    def __init__(self, history, msgs):
        self.history = history
        self.path = history.path[:-6] + ".turn"
        self.f = None       # the line a streamed reply is being recorded in
        self.mark = 0       # where that line starts
        store.makedirs(store.path("history"))
        with open(self.path, "wb") as f:
            for m in msgs:
                _write(f, m)

    def __iter__(self):
        for m in self.history:
            yield m
        for m in read(self.path):
            if "files" in m:
                m["_new"] = True        # this turn's: checked strictly (ai/files.py)
            yield m

    def record(self, piece):
        """A piece of a streamed reply, written into the open line."""
        f = self.f
        if f is None:
            self.mark = store.size(self.path)
            f = self.f = open(self.path, "ab")
            f.write(b'{"content":"')
        # (its bytes looked at through a view: iterating the str would make
        # a str of each character)
        if MICROPYTHON and piece and '"' not in piece and "\\" not in piece and min(memoryview(piece)) >= _SP:
            f.write(piece)      # (as it is: a str's bytes, no copy)
        else:
            f.write(jsonstream.esc(piece))

    def append(self, msg):
        f = self.f
        self.f = None
        if f is not None:
            if not msg.get("content"):      # the recorded text is the content
                f.write(b'"')
                for k in msg:
                    if k != "content":
                        _member(f.write, k, msg[k])
                f.write(b"}\n")
                f.close()
                return
            f.close()       # another text was decided (the text fallback)
            store.truncate(self.path, self.mark)
        with open(self.path, "ab") as f:
            _write(f, msg)

    def recorded(self):
        """The text recorded into the open line so far, as str (the text
        fallback looks for calls in it)."""
        self.f.flush()
        a = self.mark + 11          # the quote after '{"content":'
        sp = store.Spool("read")
        with open(self.path, "rb") as f:
            jsonstream.Parser(_Slice(f, a, store.size(self.path) - a, b'"')).stream_string(sp.add)
        return sp.text()

    def commit(self, max_bytes=1 << 30, max_turns=1 << 30):
        """Save the turn: the newest old turns that fit, then this one."""
        self._cut()
        hist = self.history.path
        starts = []         # offset of each user message in the history
        sent = []           # the base64 of the files of the lines from each on
        end = 0             # end of its last whole line
        for a, n, w in _heads(hist):
            if w < 0:
                starts.append(a)
                sent.append(0)
                w = -1 - w
            if sent:
                sent[-1] += w
            end = a + n
        size = store.size(self.path)
        total = end + size
        for _, _, w in _heads(self.path):      # (the new turn's files)
            total += -1 - w if w < 0 else w
        keep = 0
        for i in range(len(starts) - 1, -1, -1):
            total += sent[i]
            if total - starts[i] > max_bytes or len(starts) - i + 1 > max_turns:
                keep = starts[i + 1] if i + 1 < len(starts) else end
                break
        pend = self.path

        def copy(write):
            if end > keep:
                store.copy(hist, write, keep, end - keep)
            store.copy(pend, write)
        store.write_atomic(hist, copy)
        store.remove(pend)

    def drop(self):
        """Forget the turn."""
        self._cut()
        store.remove(self.path)

    def _cut(self):
        if self.f is not None:      # a reply recorded but never appended
            self.f.close()
            self.f = None
            store.truncate(self.path, self.mark)


def _heads(path):
    """(offset, length, w) of each whole line of the file: w the base64
    size of the files its message refers to (they come right after its
    role), as -1 - w for a user message (a turn starts there)."""
    f = None
    try:
        for a, n in _lines(path):
            if f is None:
                f = open(path, "rb")
            role, w = None, 0
            try:
                p = jsonstream.Parser(_Slice(f, a, n))
                if p.next() == jsonstream.OBJ and p.next() == jsonstream.KEY and p.value == "role":
                    role = p.read_value()
                    if p.next() == jsonstream.KEY and p.value == "files":
                        for r in p.read_value():
                            w += 4 * ((r.get("size", 0) + 2) // 3)
            except (ValueError, TypeError, AttributeError):
                pass
            yield a, n, -1 - w if role == "user" else w
    finally:
        if f is not None:
            f.close()


# ---------------------------------------------------------------- writing

def _member(write, k, v):
    write(b',"')
    write(jsonstream.esc(k))
    write(b'":')
    jsonstream.dump(v, write, view=True)    # (a file copies each piece)


def _write(f, m):
    """One message line, role first, then its files (trim finds them
    without reading on): each file a reference (ai/files.py ref()), not
    its bytes."""
    w = f.write
    w(b'{"role":')
    jsonstream.dump(m.get("role"), w, view=True)
    fs = m.get("files")
    if fs:
        from ai.files import ref
        _member(w, "files", [x if isinstance(x, dict) else ref(x) for x in fs])
    for k in m:
        if k != "role" and k != "files" and k != "_new":
            _member(w, k, m[k])
    w(b"}\n")


class StrFile:
    """A JSON string written piece by piece to tmp/<name> on flash (a tool
    result the loop keeps out of RAM), scrubbed of every secret on the way
    (store.Scrub: a server may echo a key or token); value() is its
    jsonstream.RawFile."""

    def __init__(self, name):
        store.makedirs(store.path("tmp"))
        self.path = store.path("tmp", name)
        self.f = None
        self.drop()

    def drop(self):
        """Start the string again (empty)."""
        if self.f is not None:
            self.f.close()
        f = self.f = open(self.path, "wb")
        f.write(b'"')
        self.s = store.Scrub(lambda piece: f.write(jsonstream.esc(piece)))

    def add(self, s):
        self.s.add(s)

    def value(self):
        self.s.close()
        f = self.f
        f.write(b'"')
        n = f.tell()
        f.close()
        return jsonstream.RawFile(self.path, 0, n)


# ---------------------------------------------------------------- reading

def pieces(v, sink):
    """Hand a content (str, or a RawFile of a string) to sink in str pieces
    of about 256 bytes."""
    if isinstance(v, str):
        for i in range(0, len(v), 256):
            sink(v[i:i + 256])
        return
    with open(v.path, "rb") as f:
        jsonstream.Parser(_Slice(f, v.offset, v.length)).stream_string(sink)


def string(v):
    """A RawFile string as str (built with one allocation: store.Spool)."""
    sp = store.Spool("read")
    pieces(v, sp.add)
    return sp.text()


def head(v, n):
    """The first n characters of a content (str or RawFile)."""
    if isinstance(v, str):
        return v[:n]
    got = []

    def take(s):
        got.append(s)
        if sum(len(x) for x in got) >= n:
            raise StopIteration
    try:
        pieces(v, take)
    except StopIteration:
        pass
    return "".join(got)[:n]
