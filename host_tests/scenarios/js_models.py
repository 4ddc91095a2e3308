# jsonstream.select over an OpenAI-style models list file (argv[1]) keeping
# only counters for every data[*].id; argv[2] == "json" uses json.load
# instead (to show what it needs), "one" selects only data[5000].id.
# Prints count/idlen/last and HEAPMON.
import sys
import json
import jsonstream
import heapmon

heapmon.start()
state = [0, 0, None]


def on_id(p, v):
    state[0] += 1
    state[1] += len(v)
    state[2] = v


mode = sys.argv[2] if len(sys.argv) > 2 else "ids"
if mode == "json":
    with open(sys.argv[1], "rb") as f:
        for e in json.load(f)["data"]:
            on_id(None, e["id"])
elif mode == "one":  # one wanted field deep inside, the rest skipped
    with open(sys.argv[1], "rb") as f:
        jsonstream.select(f, {"data[5000].id": on_id})
else:
    with open(sys.argv[1], "rb") as f:
        jsonstream.select(f, {"data[*].id": on_id})
heapmon.report()
print("count=%d idlen=%d last=%s" % (state[0], state[1], state[2]))
