# The pure security functions under MicroPython: argv flash_root. stdin: one
# JSON [function, args...] per line; prints one JSON result per line
# (test_security.py compares them with CPython's and with what they must be).
import sys
import json

import store
store.set_root(sys.argv[1])
from ai.styles import Reply, text
from ai import loop
from shell import approve


def parse(t):
    r = text.parse(Reply(t, None, "stop", {"role": "assistant", "content": t}))
    return [r.text, [[c["name"], json.loads(c["args"])] for c in r.calls or ()]]


FUNCS = {
    "parse": parse,
    "scrub": store.scrub,
    "mask_url": store.mask_url,
    "tool_name": loop.tool_name,
    "lines": lambda t, j, w: list(approve.lines(t, j, w)),
}

for line in sys.stdin:
    if line.strip():
        a = json.loads(line)
        print(json.dumps(FUNCS[a[0]](*a[1:])))
