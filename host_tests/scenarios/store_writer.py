# Rewrites the settings forever (until killed): each version is consistent,
# n and len(pad) agree, so a reader can tell a torn write from a whole one.
# Prints one line once the first version is written, so the test kills it
# only after it made progress.
import sys
import store

store.set_root(sys.argv[1])
n = store.get("n", 0)
first = True
while True:
    n += 1
    store.update({"n": n, "pad": "x" * (n % 700), "ai.chat.key": "sk-%d" % n})
    if first:
        sys.stdout.write("wrote %d\n" % n)
        if hasattr(sys.stdout, "flush"):
            sys.stdout.flush()
        first = False
