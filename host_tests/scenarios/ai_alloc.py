# Bytes allocated per streamed event of a chat reply (host_tests/test_alloc.py):
# ai.ask as the console calls it (keep=False, the text recorded into a
# history turn on flash and handed to a stream callback), one round to warm
# up, then the same round counted (alloccount.py).
# argv: base_url store_root
# Prints "ALLOC <bytes> <pieces> <chars> <err>".
import sys

import ai
import alloccount
import store
from ai import history
from ai.styles import load

store.set_root(sys.argv[2])
load("openai")
h = history.History("chat")
h.clear()
got = [0, 0]


def sink(piece):
    got[0] += 1
    got[1] += len(piece)


ov = {"provider": "groq", "base_url": sys.argv[1], "model": "llama-3.3-70b-versatile",
      "key": "gsk-test", "timeout": 30, "keep": False, "stream": sink, "max_reply": 65536}
q = {"role": "user", "content": "a long answer please"}


def ask():
    got[0] = got[1] = 0
    hist = h.turn(q)
    reply, err, calls = ai.ask(hist, ov)
    hist.drop()
    return err


err = ask()
alloccount.start()
err = err or ask()
print("ALLOC", alloccount.count(), got[0], got[1], repr(err))
