# Benchmark scenario (MicroPython unix port): a streamed chat reply, one
# OpenAI-style chunk document per line of argv[2], parsed event by event as
# ai/styles/openai.py does it (jsonstream.select with one Rules for the
# whole stream, each event read through readinto like an SSE data line) or
# with json.loads of each event's bytes.
# argv: method (js|json|read) path repeats mode (time|heap)
# "read" only reads and splits the events: the cost every method shares.
# Prints "RESULT pieces=<n> chars=<n> finish=<s> best_ms=<ms>".
import json
import jsonstream
from benchmp import ARGS, best_ms, result, sample

method, path, reps = ARGS[0], ARGS[1], int(ARGS[2])
sample()

state = [0, 0, None]


def on_text(p, piece):
    if piece:
        state[0] += 1
        state[1] += len(piece)


def on_finish(p, v):
    if isinstance(v, str):
        state[2] = v


def ignore(p, v):
    pass


# the block the events are read into, made first (as httpc makes its
# connection buffer at import, before the heap fragments)
BLK = bytearray(4096)
S = jsonstream.Stream
RULES = jsonstream.Rules({
    "choices[0].delta.content": S(on_text),
    "choices[0].delta.refusal": S(on_text),
    "choices[0].delta.reasoning_content": S(ignore),
    "choices[0].delta.tool_calls[*]": ignore,
    "choices[0].finish_reason": on_finish,
    "error": ignore,
})


class Event:
    """One event's bytes out of the read block, served by readinto."""

    def __init__(self, mv):
        self.mv = mv
        self.a = self.e = 0

    def readinto(self, buf):
        k = self.e - self.a
        if k > len(buf):
            k = len(buf)
        buf[0:k] = self.mv[self.a:self.a + k]
        self.a += k
        return k


def events(fn):
    """Call fn(event) for each line of the file, read in 4 KB blocks."""
    blk = BLK
    mv = memoryview(blk)
    ev = Event(mv)
    with open(path, "rb") as f:
        n = 0
        while True:
            k = f.readinto(mv[n:])
            n += k
            a = 0
            while True:
                e = blk.find(b"\n", a, n)
                if e < 0:
                    break
                ev.a = a
                ev.e = e
                fn(ev)
                a = e + 1
            if not k:
                return
            mv[0:n - a] = mv[a:n]
            n -= a


buf = bytearray(256)


def parse_js(ev):
    jsonstream.select(ev, RULES, buf=buf)


def parse_json(ev):
    d = json.loads(bytes(ev.mv[ev.a:ev.e]))
    if "error" in d:
        return
    c = d["choices"][0]
    delta = c.get("delta") or {}
    for k in ("content", "refusal"):
        v = delta.get(k)
        if isinstance(v, str):
            on_text(None, v)
    if isinstance(c.get("finish_reason"), str):
        on_finish(None, c["finish_reason"])


def parse_none(ev):
    pass


fn = {"js": parse_js, "json": parse_json, "read": parse_none}[method]


def once():
    state[0] = state[1] = 0
    events(fn)


best = best_ms(once, reps)
result("pieces=%d chars=%d finish=%s" % (state[0], state[1], state[2]), best)
