# jsonstream under MicroPython, differential for the native scanner:
# argv[1] is a file with one JSON text per line (valid or broken); each is
# read through readers returning at most k bytes per readinto for every k
# in argv[2:] (0: in place; bufsize 32, 256 for k = 1000) with select() and
# PATTERNS, and with skip_value(). Prints "<line> <k> <dumps(events)>"
# where events are the handler calls [path, value] and a last ["error",
# message] if one was raised, then "<line> <k> skip <pos or message>". The
# test computes the same on CPython (no native code there) and compares.
import sys
from collections import OrderedDict
import jsonstream as js
from js_chunks import Chunks


LONG = "k" * 300  # a key longer than the scanner's packed keys allow
PATTERNS = ("a", "b.c", "d[*].id", "d[*].n", "e[1]", "*.k", "[*].id", "[0].a", "f.*",
            "d[*].o.id", "\u00e9", "x\"y", LONG, "g[*][*].id", "d[*].*")
STREAMS = ("d[*].n", "\u00e9")
events = []


def rule(pat):
    if pat in STREAMS:
        return js.Stream(lambda p, v: events.append([p, v]))
    return lambda p, v: events.append([p, v])


def run(src, rules, k):
    del events[:]
    try:
        if k == 1000:  # default buffer: the parser of the last run is reused
            js.select(src, rules, max_value=4096)
        else:
            js.select(src, rules, bufsize=32, max_value=4096)
    except js.JSONError as e:
        events.append(["error", str(e)])
    return js.dumps(events)


# the same rule order on both interpreters (rules matching one value are
# called in it)
rules = js.Rules(OrderedDict((pat, rule(pat)) for pat in PATTERNS))
ks = [int(a) for a in sys.argv[2:]]
f = open(sys.argv[1], "rb")
no = -1
while True:
    doc = f.readline()
    if not doc:
        break
    no += 1
    doc = doc[:-1]
    for k in ks:
        src = doc if k == 0 else Chunks(doc, k)
        print(no, k, run(src, rules, k))
        try:
            p = js.Parser(doc if k == 0 else Chunks(doc, k), bufsize=32)
            p.skip_value()
            p.finish()
            r = p.pos()
        except js.JSONError as e:
            r = e
        print(no, k, "skip", r)
print("DONE")
