# Rewrites the settings forever (until killed): each version is consistent,
# n and len(pad) agree, so a reader can tell a torn write from a whole one.
import sys
import store

store.set_root(sys.argv[1])
n = store.get("n", 0)
while True:
    n += 1
    store.update({"n": n, "pad": "x" * (n % 700), "ai.chat.key": "sk-%d" % n})
