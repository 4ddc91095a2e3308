"""ai.edit: change a region of a file with the model; ai.undo. Imported on
first use.

    summary, err = ai.edit(path, start=None, end=None, where="replace",
                           instruction="...", overrides=None)
    summary, err = ai.undo()

The region is lines start..end (1-based, inclusive; end defaults to start;
no start: the whole file). where: "replace" (the model writes the complete
new text of the region), "before" / "after" (text to insert above / below
it). "#file" in the instruction puts the whole file in front as context,
labelled with its name (the word itself becomes the name). The one user
message is, in this order:

    The whole file NAME, for context:        (with #file)
    ```
    <file>
    ```
    Lines S-E of NAME:                       (or: The file NAME:)
    ```
    <region>
    ```
    <instruction>

with a system prompt that asks for the text in one fenced code block, and
after it the caller's own system prompt (overrides["system"], else the
settings ai.edit.system, ai.general.system). The text of that block is
taken, prose around it dropped; an answer with no block is the new text
itself (the fence is optional: small models told to answer with the code
only leave it out), but for blank lines at its ends. An answer with two
blocks or more, one never closed, or no text leaves the file unchanged
and the error says why; the summary and ai.undo() guard the rest.
overrides are ai.ask's; a "stream" callable there sees the answer's pieces
(progress).

Memory: nothing of the file is held in RAM. A scan finds the region's
byte offsets; the message is written to flash as one JSON string (the file
read in pieces, escaped piece by piece) and sent as a jsonstream.RawFile;
the answer streams to flash as it comes (fences left out); the new file is
written from the old one and the answer by copying pieces. A region over
MAX_REGION bytes is refused. The splice is atomic (store.write_atomic): on
any failure, Ctrl-C or an empty answer the file is unchanged. Before it,
the old file is copied to the undo slot (one level, on flash: .edit/undo
and .edit/undo.json naming the file); ai.undo() puts it back.
Use-type "edit" (ai.edit.* settings, then ai.general.*).
"""

import jsonstream
import store
from compat import const

MAX_REGION = const(8192)       # bytes of the region the model rewrites
MAX_ANSWER = const(16384)      # characters of its answer
_PIECE = const(512)
_LF = const(0x0A)
SYSTEM = ("You edit one region of a file. Answer with %s in one fenced code block "
          "(```); nothing outside the block is used. If the text has lines that start "
          "with ```, fence it with ````.")
WHAT = {"replace": "the complete new text of the region",
        "before": "the new text to insert above the region",
        "after": "the new text to insert below the region"}


def _dir(name):
    d = store.path(".edit")
    store.makedirs(d)
    return d + "/" + name


def _name(path):
    return path.rstrip("/").split("/")[-1]


def _scan(path, start, end):
    """(a, b, lines, size): the byte offsets of lines start..end (b after
    the end line's newline), the file's line count and size."""
    a = 0 if start <= 1 else None
    b = None
    line = 1                     # the line the next byte belongs to
    pos = 0
    last = _LF
    buf = bytearray(_PIECE)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            last = buf[n - 1]
            i = 0
            while True:
                j = buf.find(b"\n", i, n)
                if j < 0:
                    break
                line += 1
                if line == start:
                    a = pos + j + 1
                if line == end + 1:
                    b = pos + j + 1
                i = j + 1
            pos += n
    lines = line if last != _LF else line - 1
    return a, b if b is not None else pos, lines, pos


def _copy(src, a, b, write):
    """Bytes a..b of the file src to write(), in pieces."""
    buf = bytearray(_PIECE)
    mv = memoryview(buf)
    with open(src, "rb") as f:
        f.seek(a)
        left = b - a
        while left > 0:
            n = f.readinto(mv[:min(_PIECE, left)])
            if not n:
                break
            write(bytes(mv[:n]))
            left -= n


def _escape(src, a, b, write):
    """Bytes a..b of src as the inside of a JSON string (UTF-8 pieces
    decoded at character boundaries). ValueError for bytes that are not
    UTF-8 text. Returns the last byte (_LF when there is none)."""
    tail = b""
    last = _LF

    def piece(data):
        nonlocal tail, last
        last = data[-1]
        data = tail + data
        k = len(data)
        # a character cut at the end of the piece waits for the next one
        i = k - 1
        while i >= 0 and i >= k - 3 and data[i] & 0xC0 == 0x80:
            i -= 1
        if i >= 0 and data[i] >= 0xC0:
            need = 2 if data[i] < 0xE0 else 3 if data[i] < 0xF0 else 4
            if k - i < need:
                k = i
        tail = data[k:]
        try:
            s = data[:k].decode()
        except UnicodeError:
            raise ValueError("is not UTF-8 text")
        write(jsonstream.dumps(s)[1:-1].encode())

    _copy(src, a, b, piece)
    if tail:
        raise ValueError("is not UTF-8 text")
    return last


def _message(path, req, a, b, label, context, instruction):
    """Write the user message as one JSON string to req (label names the
    region, context: the whole file first); its length."""
    name = _name(path)
    n = [0]

    def write(data):
        f.write(data)
        n[0] += len(data)

    def text(s):
        write(jsonstream.dumps(s)[1:-1].encode())

    def block(label, a, b):
        text(label + ":\n```\n")
        last = _escape(path, a, b, write)
        text(("```" if last == _LF else "\n```") + "\n\n")

    with open(req, "wb") as f:
        write(b'"')
        if context:
            block("The whole file %s, for context" % name, 0, store.size(path))
        block(label, a, b)
        text(instruction)
        write(b'"')
    return n[0]


class _Answer:
    """The model's answer to a file on flash, and where in it the new text
    is (span: start and end byte, lines before and after): the text of its
    one fenced code block (``` or ~~~, any longer run closes only with as
    long a run), prose around it dropped; with no block, the whole answer
    but the blank lines at its ends (a fence is optional). err() says why
    the answer cannot be used: more than one block, one never closed, or
    no text."""

    def __init__(self, f):
        self.f = f
        self.line = []
        self.fence = None       # the open block's fence, e.g. "```"
        self.blocks = 0
        self.size = 0
        self.lines = 0
        self.span = None        # [start, end, lines at start, lines at end]

    def feed(self, piece):
        while piece:
            i = piece.find("\n")
            if i < 0:
                self.line.append(piece)
                return
            self.line.append(piece[:i + 1])
            piece = piece[i + 1:]
            self._put("".join(self.line))
            self.line = []

    def _put(self, s):
        t = s.strip()
        c = t[:1]
        k = 0
        while k < len(t) and t[k] == c and c in "`~":
            k += 1
        if self.fence is not None:
            if k >= len(self.fence) and k == len(t) and c == self.fence[0]:
                self.fence = None       # the block ends
                return
        elif k >= 3:
            self.fence = t[:k]
            self.blocks += 1
            if self.blocks == 1:        # the text before it was prose
                self.span = [self.size, self.size, self.lines, self.lines]
            return
        elif self.blocks:
            return                      # prose after a block
        elif not t:
            self._write(s)              # blank: kept only between lines of text
            return
        if self.blocks > 1:
            return                  # (not used: the answer is refused)
        if self.span is None:
            self.span = [self.size, self.size, self.lines, self.lines]
        self._write(s)
        self.span[1] = self.size
        self.span[3] = self.lines

    def _write(self, s):
        data = s.encode()
        self.f.write(data)
        self.size += len(data)
        self.lines += 1

    def close(self):
        if self.line:               # the last line: whole, like the others
            self._put("".join(self.line) + "\n")
            self.line = []

    def err(self, name):
        """Why the answer cannot be used (None: it can)."""
        if self.blocks > 1:
            return ("the model's answer has %d code blocks, so which one is the new text is "
                    "unclear; %s is unchanged" % (self.blocks, name))
        if self.fence is not None:
            return ("the model's code block was never closed (the answer was cut short?); "
                    "%s is unchanged" % name)
        if self.span is None or self.span[0] == self.span[1]:
            return "the model's answer was empty; %s is unchanged" % name
        return None


def edit(path, start=None, end=None, where="replace", instruction=None, overrides=None):
    """ai.edit() (see the module docstring): (summary, None) or (None, err)."""
    import ai
    if where not in WHAT:
        return None, "where must be replace, before or after, not %r" % (where,)
    if not isinstance(instruction, str) or not instruction.strip():
        return None, "say what to change (an instruction)"
    name = _name(path)
    if store.is_dir(path):
        return None, "%s: is a folder" % name
    if store.size(path) is None:
        return None, "%s: no such file" % name
    whole = start is None
    start = 1 if whole else start
    end = start if end is None else end
    if start < 1 or end < start:
        return None, "%s: bad line range %d-%d" % (name, start, end)
    a, b, lines, size = _scan(path, start, 1 << 30 if whole else end)
    if a is None or start > max(lines, 1):
        return None, "%s has %d lines; line %d is not in it" % (name, lines, start)
    if whole:
        end = max(lines, 1)
    end = min(end, max(lines, start))
    if b - a > MAX_REGION:
        return None, ("%s: lines %d-%d are %d bytes; ai edit rewrites at most %d at a "
                      "time (give a smaller line range)" % (name, start, end, b - a, MAX_REGION))
    context = "#file" in instruction
    instruction = instruction.replace("#file", name).strip()
    req, ans = _dir("req.json"), _dir("answer")
    o = {"use": "edit"}
    o.update(overrides or {})
    progress = o.get("stream")      # sees the answer's pieces too
    from ai.config import ConfigError, resolve
    try:
        own = resolve(o)["system"]      # the caller's system prompt comes after the edit's
    except ConfigError as e:
        return None, str(e)
    o["system"] = SYSTEM % WHAT[where] + ("\n\n" + own if own else "")
    o["max_reply"] = MAX_ANSWER
    o["keep"] = False               # the answer goes to a file, not into RAM
    try:
        try:
            label = ("The file " + name) if whole else "Lines %d-%d of %s" % (start, end, name)
            n = _message(path, req, a, b, label, context and not whole, instruction)
        except ValueError as e:
            return None, "%s %s" % (name, e)
        with open(ans, "wb") as f:
            out = _Answer(f)

            def sink(piece):
                out.feed(piece)
                if progress:
                    progress(piece)
            o["stream"] = sink
            _, err, _ = ai.ask([{"role": "user",
                                 "content": jsonstream.RawFile(req, 0, n)}], o)
            out.close()
        if err:
            return None, err
        err = out.err(name)
        if err:
            return None, err
        _splice(path, ans, out, a, b, where, size)
    finally:
        store.remove(req)
        store.remove(ans)
    removed = (end - start + 1 if lines else 0) if where == "replace" else 0
    return "+%d -%d lines at %d-%d" % (out.span[3] - out.span[2], removed, start, end), None


def _splice(path, ans, out, a, b, where, size):
    """The new file from the old one and the answer; the old one to the
    undo slot first. Both writes are atomic."""
    undo = _dir("undo")
    store.write_atomic(undo, lambda w: _copy(path, 0, size, w))
    store.write_atomic(_dir("undo.json"), jsonstream.dumps({"path": path}))
    cut, rest = (a, b) if where == "replace" else (a, a) if where == "before" else (b, b)

    def write(w):
        _copy(undo, 0, cut, w)
        _copy(ans, out.span[0], out.span[1], w)     # (whole lines: close() ends the last)
        _copy(undo, rest, size, w)
    store.write_atomic(path, write)


def undo():
    """ai.undo(): put back the file the last edit changed: (summary, None) or
    (None, err)."""
    meta, copy = _dir("undo.json"), _dir("undo")
    try:
        with open(meta, "rb") as f:
            path = jsonstream.load(f).get("path")
    except (OSError, ValueError, AttributeError):
        path = None
    size = store.size(copy)
    if path is None or size is None:
        return None, "nothing to undo"
    store.write_atomic(path, lambda w: _copy(copy, 0, size, w))
    store.remove(meta)
    store.remove(copy)
    return "%s restored (%d bytes)" % (_name(path), size), None
