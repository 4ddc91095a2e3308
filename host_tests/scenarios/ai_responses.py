# A Responses (openai provider) chat under a small heap: one plain round,
# then a tool round trip whose follow-up replays the reasoning item.
# argv: base_url model key store_root whole|stream; the pytest side queues.
import sys
import aisteps
import heapmon

base, model, key, root, mode = sys.argv[1:6]
ov = aisteps.setup("openai", base, model, key, root, "responses")
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
aisteps.say("PLAIN", hist, ov)
pieces = []
if mode == "stream":
    ov["stream"] = pieces.append
ov["tools"] = [aisteps.WEATHER]
err, calls, shown = aisteps.ask_calls(hist, ov, "weather in Rochdale?")
print("CALLS", repr(err), shown)
print("ECHO", [it["type"] for it in hist[-1]["_echo"]["items"]])
aisteps.answer(hist, calls, lambda c: "12 C, drizzle in " + c["name"])
aisteps.say("FOLLOWUP", hist, ov)
print("PIECES", len(pieces))
heapmon.report()
