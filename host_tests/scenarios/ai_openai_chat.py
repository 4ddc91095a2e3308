# One chat round, one streamed round and one tool-call round trip through
# ai.ask against a FakeOpenAI server (openai style) under a small heap.
# argv: base_url provider model key ; the pytest side queues the replies.
import sys
import gc
import ai
import store
import heapmon
# imported before the baseline: ai.ask loads it lazily, but its bytecode is
# frozen in flash on the device and is not part of the working set
from ai.styles import openai  # noqa: F401

base, provider, model, key = sys.argv[1:5]
store.set_root(sys.argv[5])
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
ov = {"provider": provider, "base_url": base, "model": model, "timeout": 10}
if key != "-":
    ov["key"] = key
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
reply, err, calls = ai.ask(hist, ov)
print("PLAIN", repr(reply), repr(err), len(hist))

pieces = []
ov["stream"] = pieces.append
hist.append({"role": "user", "content": "stream please"})
reply, err, calls = ai.ask(hist, ov)
print("STREAM", len(pieces), repr("".join(pieces)), repr(reply), repr(err))
gc.collect()

ov["tools"] = [WEATHER]
hist.append({"role": "user", "content": "weather in Rochdale?"})
reply, err, calls = ai.ask(hist, ov)
print("CALLS", repr(err), [(c["name"], c["args"]) for c in calls or ()])
for c in calls or ():
    hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                 "content": "12 C, drizzle in " + c["name"]})
reply, err, calls = ai.ask(hist, ov)
print("FOLLOWUP", repr(reply), repr(err), len(hist))

# errors (the pytest side queued: a 401, a non-JSON 400, a mid-stream error)
del ov["tools"]
q = [{"role": "user", "content": "x"}]
for name in ("ERR401", "ERRPAGE", "ERRMID"):
    reply, err, calls = ai.ask(q, ov)
    print(name, repr(err))
heapmon.report()
