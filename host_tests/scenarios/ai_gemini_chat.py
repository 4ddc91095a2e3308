# One chat round, one streamed round and one tool-call round trip (with a
# thought signature to echo) through ai.ask against FakeGemini under a
# small heap. argv: base_url model key store_root; pytest queues replies.
import sys
import gc
import aisteps
import heapmon

base, model, key, root = sys.argv[1:5]
ov = aisteps.setup("gemini", base, model, key, root)
# a schema keyword Gemini refuses: the style must drop it
params = dict(aisteps.WEATHER["parameters"], additionalProperties=False)
WEATHER = dict(aisteps.WEATHER, parameters=params)
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
aisteps.say("PLAIN", hist, ov)
aisteps.stream(hist, ov, "stream please")
gc.collect()

ov["tools"] = [WEATHER]
err, calls, shown = aisteps.ask_calls(hist, ov, "weather in Rochdale and Leeds?")
print("CALLS", repr(err), shown)
print("SIG", len(hist[-1].get("_echo", {}).get("call_sigs", [""])[0] or ""))
aisteps.answer(hist, calls, "12 C, drizzle")
aisteps.say("FOLLOWUP", hist, ov)
heapmon.report()
