# ai.run with one local tool against the openai provider (Responses
# style), streamed or whole: a tool round whose follow-up replays the
# reasoning item (its encrypted content) of the first reply.
# argv: base_url model key store_root stream|whole
import sys
import ai
import aisteps
import heapmon
from ai import loop  # noqa: F401  (code in the baseline, as frozen)

base, model, key, root, mode = sys.argv[1:6]
ov = aisteps.setup("openai", base, model, key, root, "responses")
ai.register_tool("get_weather", "Weather for a city", aisteps.WEATHER["parameters"],
                 lambda a: "12 C, drizzle in " + a.get("city", "?"))
pieces = []
if mode == "stream":
    ov["stream"] = pieces.append
heapmon.start()
hist = [{"role": "user", "content": "weather in Rochdale?"}]
reply, err = ai.run(hist, ov, tools=["get_weather"])
print("RUN", repr(reply), repr(err), [m["role"] for m in hist])
print("ECHO", [it["type"] for it in hist[1]["_echo"]["items"]] if len(hist) > 1 else None)
print("PIECES", len(pieces))
heapmon.report()
