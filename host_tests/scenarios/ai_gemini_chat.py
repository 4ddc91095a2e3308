# One chat round, one streamed round and one tool-call round trip (with a
# thought signature to echo) through ai.ask against FakeGemini under a
# small heap. argv: base_url model key store_root; pytest queues replies.
import sys
import gc
import ai
from ai.styles import gemini  # noqa: F401  (bytecode in the baseline)
import store
import heapmon

base, model, key, root = sys.argv[1:5]
store.set_root(root)
WEATHER = {"name": "get_weather", "description": "Weather for a city",
           "parameters": {"type": "object", "additionalProperties": False,
                          "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
ov = {"provider": "gemini", "base_url": base, "model": model, "key": key,
      "timeout": 10}
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
hist.append({"role": "user", "content": "weather in Rochdale and Leeds?"})
reply, err, calls = ai.ask(hist, ov)
print("CALLS", repr(err), [(c["name"], c["args"]) for c in calls or ()])
print("SIG", len(hist[-1].get("_echo", {}).get("call_sigs", [""])[0] or ""))
for c in calls or ():
    hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                 "content": "12 C, drizzle"})
reply, err, calls = ai.ask(hist, ov)
print("FOLLOWUP", repr(reply), repr(err), len(hist))
heapmon.report()
