# One chat round, one streamed round and one tool-call round trip through
# ai.ask against a FakeOpenAI server (openai style) under a small heap.
# argv: base_url provider model key store_root; the pytest side queues the
# replies.
import sys
import gc
import ai
import aisteps
import heapmon

base, provider, model, key, root = sys.argv[1:6]
ov = aisteps.setup(provider, base, model, key, root)
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
aisteps.say("PLAIN", hist, ov)
aisteps.stream(hist, ov, "stream please")
gc.collect()

ov["tools"] = [aisteps.WEATHER]
err, calls, shown = aisteps.ask_calls(hist, ov, "weather in Rochdale?")
print("CALLS", repr(err), shown)
aisteps.answer(hist, calls, lambda c: "12 C, drizzle in " + c["name"])
aisteps.say("FOLLOWUP", hist, ov)

# errors (the pytest side queued: a 401, a non-JSON 400, a mid-stream error)
del ov["tools"]
q = [{"role": "user", "content": "x"}]
for name in ("ERR401", "ERRPAGE", "ERRMID"):
    reply, err, calls = ai.ask(q, ov)
    print(name, repr(err))
heapmon.report()
