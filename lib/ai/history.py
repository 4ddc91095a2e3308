"""Chat history on flash: append-only JSON lines, one message a line.

    h = History("chat")          # <root>/history/chat.jsonl
    for msg in h: ...            # streamed from the file, never loaded whole
    t = h.turn({"role": "user", "content": "hi"})
    ai.run(t, ...)               # t iterates the file, then the new messages
    t.commit()                   # only now are the new lines written

A turn is written only when it completed, so an aborted request (Ctrl-C, an
error) leaves no half turn. Each line goes out in one write; a kill mid-write
leaves at most one torn last line, which readers skip and the next append
terminates first, so it never swallows a good line. trim() rewrites the file
atomically, dropping whole turns from the front (a turn starts at a user
message, so a tool call is never split from its result).
"""
import os

import jsonstream
import store

MAX_LINE = 32768     # longest message line read back


class History:
    def __init__(self, use):
        self.use = use
        self.path = store.path("history", use + ".jsonl")

    def __iter__(self):
        try:
            f = open(self.path, "rb")
        except OSError:
            return
        with f:
            while True:
                line = f.readline()
                if not line:
                    break
                if not line.endswith(b"\n") or len(line) > MAX_LINE:
                    continue    # torn by a kill, or too long to hold: skip
                try:
                    msg = jsonstream.loads(line)
                except jsonstream.JSONError:
                    continue
                if isinstance(msg, dict) and "role" in msg:
                    yield msg

    def _open_append(self):
        store.makedirs(store.path("history"))
        f = open(self.path, "ab")
        try:
            size = os.stat(self.path)[6]
        except OSError:
            size = 0
        if size:
            with open(self.path, "rb") as r:
                r.seek(size - 1)
                if r.read(1) != b"\n":
                    f.write(b"\n")   # close a torn line so it stays one bad line
        return f

    def append(self, *msgs):
        f = self._open_append()
        with f:
            for m in msgs:
                parts = []
                jsonstream.dump(m, parts.append)
                parts.append(b"\n")
                f.write(b"".join(parts))   # one write per line
                f.flush()

    def turn(self, *msgs):
        """A pending turn: iterates the saved history, then msgs and whatever
        is appended; commit() saves the new messages."""
        return Turn(self, list(msgs))

    def clear(self):
        try:
            os.remove(self.path)
        except OSError:
            pass

    def size(self):
        try:
            return os.stat(self.path)[6]
        except OSError:
            return 0

    def trim(self, max_bytes, max_turns):
        """Keep the newest whole turns within max_bytes and max_turns."""
        starts = []      # byte offset of each user message line
        total = 0
        for line_len, is_user in self._scan():
            if is_user:
                starts.append(total)
            total += line_len
        if total <= max_bytes and len(starts) <= max_turns:
            return False
        keep_from = total
        for i in range(len(starts) - 1, -1, -1):
            if total - starts[i] > max_bytes or len(starts) - i > max_turns:
                break
            keep_from = starts[i]
        src = self.path

        def copy(write):
            buf = bytearray(512)
            with open(src, "rb") as f:
                f.seek(keep_from)
                while True:
                    n = f.readinto(buf)
                    if not n:
                        break
                    write(bytes(buf[:n]) if n < len(buf) else buf)
        store.write_atomic(self.path, copy)
        return True

    def _scan(self):
        """(line length, is a user message) for each line of the file."""
        try:
            f = open(self.path, "rb")
        except OSError:
            return
        role = []
        with f:
            while True:
                line = f.readline()
                if not line:
                    break
                role.clear()
                try:
                    jsonstream.select(line, {"role": lambda path, v: role.append(v)})
                except jsonstream.JSONError:
                    pass
                yield len(line), role == ["user"]


class Turn:
    def __init__(self, history, pending):
        self.history = history
        self.pending = pending

    def __iter__(self):
        for m in self.history:
            yield m
        for m in self.pending:
            yield m

    def append(self, msg):
        self.pending.append(msg)

    def commit(self):
        if self.pending:
            self.history.append(*self.pending)
            self.pending = []
