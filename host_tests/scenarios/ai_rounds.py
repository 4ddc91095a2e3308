# One chat round and one streamed round through ai.ask, the way the board
# does it: argv provider base_url model key store_root [tools]. With "tools"
# the plain round offers a tool and answers the call it gets (one round trip).
import sys
import ai
import store
from ai import config
from ai.styles import load
import heapmon

provider, base, model, key, root = sys.argv[1:6]
with_tools = sys.argv[6:] == ["tools"]
store.set_root(root)
ov = {"provider": provider, "base_url": base, "model": model, "key": key,
      "timeout": 10}
load(config.resolve(ov)["style"])   # the style's code is in the baseline too
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
if with_tools:
    ov["tools"] = [{"name": "get_weather", "description": "Weather for a city",
                    "parameters": {"type": "object",
                                   "properties": {"city": {"type": "string"}},
                                   "required": ["city"]}}]
    reply, err, calls = ai.ask(hist, ov)
    print("CALLS", repr(err), [(c["name"], c["args"]) for c in calls or ()])
    for c in calls or ():
        hist.append({"role": "tool", "tool_call_id": c["id"], "name": c["name"],
                     "content": "12 C, drizzle"})
    del ov["tools"]
reply, err, calls = ai.ask(hist, ov)
print("PLAIN", repr(reply), repr(err), len(hist))

pieces = []
ov["stream"] = pieces.append
hist.append({"role": "user", "content": "stream please"})
reply, err, calls = ai.ask(hist, ov)
print("STREAM", len(pieces), repr("".join(pieces)), repr(reply), repr(err))
heapmon.report()
