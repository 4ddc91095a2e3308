# Benchmark scenario (MicroPython unix port): serialize a chat-like request
# (argv[2] messages of ~1 KB with newlines, quotes and non-ASCII) with
# jsonstream.dump to a counting sink, jsonstream.encoded_len, or json.dumps.
# argv: method (dump|len|json) messages repeats mode (time|heap)
# Prints "RESULT bytes=<n> best_ms=<ms>".
import sys
import gc
import time
import json
import jsonstream

method = sys.argv[1]
count = int(sys.argv[2])
reps = int(sys.argv[3])
mode = sys.argv[4]
text = ("Line with \"quotes\", a tab\tand caf\u00e9 \u2615 text.\n" * 20)
body = {"model": "m", "stream": True, "temperature": 0.5, "max_tokens": 1024,
        "messages": [{"role": "user" if i % 2 else "assistant", "content": text}
                     for i in range(count)]}
if mode == "heap":
    import heapmon
    heapmon.start()
total = [0]


def sink(b):
    total[0] += len(b)


def run():
    total[0] = 0
    if method == "dump":
        jsonstream.dump(body, sink)
    elif method == "len":
        total[0] = jsonstream.encoded_len(body)
    else:
        total[0] = len(json.dumps(body).encode())


best = None
for _ in range(reps):
    gc.collect()
    t0 = time.ticks_us()
    run()
    dt = time.ticks_diff(time.ticks_us(), t0)
    if best is None or dt < best:
        best = dt
if mode == "heap":
    heapmon.report()
print("RESULT bytes=%d best_ms=%.2f" % (total[0], best / 1000))
