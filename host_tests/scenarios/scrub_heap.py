# store.scrub's working heap under MicroPython: argv flash_root size. A text
# of size characters with a configured key in it near the end is scrubbed;
# prints LEN of the result and the HEAPMON line (the result is a copy of the
# text: the test subtracts its size and compares 1 KB with 64 KB).
import sys
import store
store.set_root(sys.argv[1])
n = int(sys.argv[2])
key = store.get("ai.chat.key")
text = "x" * (n - len(key) - 8) + " " + key.upper() + " tail.."
import heapmon
heapmon.start()
r = store.scrub(text)
heapmon.report()
print("LEN", len(r), r[-13:])
