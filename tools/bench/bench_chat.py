"""Benchmark: a 2,000-event streamed chat reply (OpenAI-style chunks, one
select() per event with one Rules, as ai/styles/openai.py reads them):
jsonstream (and the baseline jsonstream) against json.loads of each event,
side by side on the MicroPython unix port: parse time (the time to read
and split the events subtracted) and smallest heap."""
import os

from chat_doc import write_chat
from common import kb, ratio, table

EVENTS = 2000
REPS = 3
ROUNDS = 3
# (name, argv method, baseline jsonstream, names interned as frozen)
METHODS = (("jsonstream.select", "js", False, True),
           ("baseline jsonstream", "js", True, True),
           ("json.loads per event", "json", False, True),
           ("json.loads, plain port", "json", False, False),
           ("reading only", "read", False, True))
HEAP = "64K"
GOAL = 3.0  # baseline / now


def run(ctx):
    path = os.path.join(ctx.build, "chat.jsonl")
    pieces, chars, finish = write_chat(path, EVENTS)
    print("reply: %d events, %d bytes, %d characters of text" % (
        EVENTS, os.path.getsize(path), chars))
    best = ctx.best([(name, "bench_chat", HEAP, [m, path, REPS, "time"], base, frozen)
                     for name, m, base, frozen in METHODS], ROUNDS)
    ok = True
    ms = {}
    for name, m, _base, _frozen in METHODS:
        b = best[name]
        if isinstance(b, str):
            ms[name] = b
            ok = ok and b == "no baseline"
            continue
        f = b[1]
        if m != "read" and (int(f["pieces"]), int(f["chars"]), f["finish"]) != (pieces, chars, finish):
            raise SystemExit("wrong result from %s: %r" % (name, f))
        ms[name] = b[0]
    read = ms["reading only"]
    rows = []
    parse = {}
    for name, m, base, frozen in METHODS:
        if m == "read":
            continue
        if isinstance(ms[name], str):
            rows.append([name, ms[name], "-", "-", "-"])
            continue
        parse[name] = ms[name] - read
        heap = None if not frozen else ctx.min_heap("bench_chat", [m, path, 1, "time"], base, hint=16384)
        rows.append([name, "%.1f" % ms[name], "%.1f" % parse[name],
                     ratio(parse[name], parse["jsonstream.select"]), kb(heap)])
    table(["method", "best ms", "parse ms", "parse / js", "smallest heap"], rows)
    print("reading and splitting the events (in every figure): %.1f ms; plain port:\n"
          "lib's names not interned up front (strings are made faster)" % read)
    if "baseline jsonstream" in parse:
        r = ratio(parse["baseline jsonstream"], parse["jsonstream.select"])
        print("parse time, baseline / now: %s (goal >= %.0f)%s" % (
            r, GOAL, "" if float(r) >= GOAL else "  <-- NOT MET"))
    return ok
