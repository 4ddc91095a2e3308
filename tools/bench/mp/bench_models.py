# Benchmark scenario (MicroPython unix port): extract every data[*].id from a
# models list file with jsonstream.select, with the built-in json.load(file)
# (reads a byte at a time) or with json.loads(f.read()) (what r.json() of
# `requests` does: the whole body in RAM).
# argv: method (js|json|loads) path repeats mode (time|heap)
# Prints "RESULT count=<n> idlen=<n> last=<id> best_ms=<ms>".
import json
import jsonstream
from benchmp import ARGS, best_ms, result, sample

method, path, reps = ARGS[0], ARGS[1], int(ARGS[2])
sample()

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


def run_loads():
    with open(path, "rb") as f:
        doc = json.loads(f.read())
    for e in doc["data"]:
        on_id(None, e["id"])


fn = {"js": run_js, "json": run_json, "loads": run_loads}[method]


def once():
    state[0] = state[1] = 0
    fn()


best = best_ms(once, reps)
result("count=%d idlen=%d last=%s" % (state[0], state[1], state[2]), best)
