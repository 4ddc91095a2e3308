# One chat round, one streamed round and a tool-call round trip with
# thinking (signature echoed) through ai.ask against a FakeAnthropic server
# under a small heap. argv: base_url model key store_dir ; the pytest side
# queues the replies.
import sys
import gc
import ai
import ai.config
import store
from ai.styles import anthropic  # noqa: F401  (imported before the baseline:
import heapmon                   # frozen on the device, it costs no heap there)

base, model, key = sys.argv[1:4]
store.set_root(sys.argv[4])
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object",
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
ov = {"provider": "anthropic", "base_url": base, "model": model, "key": key,
      "timeout": 10}
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
reply, err, calls = ai.ask(hist, ov)
print("PLAIN", repr(reply), repr(err), len(hist))
gc.collect()

pieces = []
ov["stream"] = pieces.append
hist.append({"role": "user", "content": "stream please"})
reply, err, calls = ai.ask(hist, ov)
print("STREAM", len(pieces), repr("".join(pieces)), repr(reply), repr(err))
gc.collect()

ov["tools"] = [WEATHER]
ov["thinking"] = "low"
hist.append({"role": "user", "content": "weather in Rochdale?"})
reply, err, calls = ai.ask(hist, ov)
print("CALLS", repr(err), [(c["name"], c["args"]) for c in calls or ()],
      "echo" if "_echo" in hist[-1] else "no-echo")
for c in calls or ():
    hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                 "content": "12 C, drizzle"})
gc.collect()
reply, err, calls = ai.ask(hist, ov)
print("FOLLOWUP", repr(reply), repr(err), len(hist))

del ov["stream"]
hist.append({"role": "user", "content": "and tomorrow?"})
reply, err, calls = ai.ask(hist, ov)
print("CALLS2", repr(err), [(c["name"], c["args"]) for c in calls or ()])
for c in calls or ():
    hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                 "content": "14 C, sun"})
gc.collect()
reply, err, calls = ai.ask(hist, ov)
print("FOLLOWUP2", repr(reply), repr(err), len(hist))
gc.collect()

# errors: the service's error body and a mid-stream error event
ov["key"] = "sk-ant-wrong"
reply, err, calls = ai.ask([{"role": "user", "content": "x"}], ov)
print("ERR", repr(reply), repr(err))
ov["key"] = key
ov["stream"] = pieces.append
reply, err, calls = ai.ask([{"role": "user", "content": "x"}], ov)
print("MID", repr(reply), repr(err))
heapmon.report()
