# Benchmark scenario (MicroPython unix port): extract every data[*].id from a
# models list file with jsonstream.select or with the built-in json.load.
# argv: method (js|json) path repeats mode (time|heap)
# Prints "RESULT count=<n> idlen=<n> last=<id> best_ms=<ms>".
import sys
import gc
import time
import json
import jsonstream

method = sys.argv[1]
path = sys.argv[2]
reps = int(sys.argv[3])
mode = sys.argv[4]
if mode == "heap":
    import heapmon
    heapmon.start()

state = [0, 0, None]


def on_id(p, v):
    state[0] += 1
    state[1] += len(v)
    state[2] = v


def run_js():
    with open(path, "rb") as f:
        jsonstream.select(f, {"data[*].id": on_id})


def run_json():
    with open(path, "rb") as f:
        doc = json.load(f)
    for e in doc["data"]:
        on_id(None, e["id"])


fn = run_js if method == "js" else run_json
best = None
for _ in range(reps):
    state[0] = state[1] = 0
    gc.collect()
    t0 = time.ticks_us()
    fn()
    dt = time.ticks_diff(time.ticks_us(), t0)
    if best is None or dt < best:
        best = dt
if mode == "heap":
    heapmon.report()
print("RESULT count=%d idlen=%d last=%s best_ms=%.2f" % (state[0], state[1], state[2], best / 1000))
