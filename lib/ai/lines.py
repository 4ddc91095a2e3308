"""JSON lines on flash, read a line at a time without holding one: the
chat history (ai/history.py) and the tool lists (ai/toolcache.py).

File format: one JSON object per line ("\n" ends it; a last line without
one, torn by a kill, is skipped). Files are read in 128-byte pieces, every
line of a file by one parser (its buffer and attribute table made once: a
request offers up to 256 tool lines). A line up to `small` bytes is loaded
whole; in a longer one the value of one key is not read: it comes as
jsonstream.RawFile(path, offset, length) of its JSON text (the history's
long "content" strings, every tool's "parameters"), which a request copies
from the file in pieces, load() reads (a schema) and ai/history.py streams
(pieces) or reads (string).
"""
import jsonstream
from compat import const

SMALL = 1024        # a line up to this many bytes is loaded whole
_MAX_VALUE = 32768  # other values of a long line (calls, echo), materialized
_BUF = const(128)   # bytes read at a time


class _Slice:
    """readinto() over n bytes of the open file f from offset a, then the
    bytes tail."""

    def __init__(self, f, a, n, tail=b""):
        f.seek(a)
        self.f = f
        self.left = n
        self.tail = tail

    def readinto(self, buf):
        n = self.left
        if n <= 0:
            t = self.tail
            self.tail = b""
            buf[0:len(t)] = t
            return len(t)
        if n < len(buf):
            buf = memoryview(buf)[0:n]
        k = self.f.readinto(buf) or 0
        self.left = n - k
        return k


def _lines(path):
    """(offset, length) of each whole line of the file (none if missing)."""
    try:
        f = open(path, "rb")
    except OSError:
        return
    buf = bytearray(_BUF)
    pos = start = 0
    with f:
        while True:
            n = f.readinto(buf)
            if not n:
                return
            i = 0
            while True:
                j = buf.find(b"\n", i, n)
                if j < 0:
                    break
                yield start, pos + j + 1 - start
                start = pos + j + 1
                i = j + 1
            pos += n


def read(path, key="content", small=SMALL, at=False):
    """The objects of a JSON-lines file, one per whole line; in a line
    longer than `small` bytes the value of `key` comes as a RawFile (a
    "content" only when it is a string). Lines that are not objects are
    skipped. at: (offset, length, object) for each."""
    f = p = None
    try:
        for a, n in _lines(path):
            if f is None:
                f = open(path, "rb")
            src = _Slice(f, a, n)
            if p is None:
                p = jsonstream.Parser(src, max_value=_MAX_VALUE, buf=bytearray(_BUF))
            else:
                p.reuse(src, _MAX_VALUE)
            try:
                m = _load_line(p, path, a, key, n > small)
            except ValueError:      # torn by a kill, or not JSON
                continue
            if isinstance(m, dict):
                yield (a, n, m) if at else m
    finally:
        if f is not None:
            f.close()


def _load_line(p, path, a, key, long):
    J = jsonstream
    if not long:
        m = p.read_value()
        p.finish()
        return m
    if p.next() != J.OBJ:
        return None
    m = {}
    while p.next() == J.KEY:
        k = p.value
        t = p.peek()
        if k == key and (t == J.STR or key != "content"):
            s = p.pos()
            p.skip_value()
            m[k] = J.RawFile(path, a + s, p.pos() - s)
        else:
            m[k] = p.read_value()
    p.finish()
    return m


def load(v):
    """The value of JSON text kept as jsonstream.Raw or RawFile."""
    if isinstance(v, jsonstream.Raw):
        return jsonstream.loads(v.data)
    with open(v.path, "rb") as f:
        return jsonstream.load(_Slice(f, v.offset, v.length), bufsize=_BUF, max_value=_MAX_VALUE)
