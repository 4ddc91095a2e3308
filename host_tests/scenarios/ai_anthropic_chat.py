# One chat round, one streamed round and a tool-call round trip with
# thinking (signature echoed) through ai.ask against a FakeAnthropic server
# under a small heap. argv: base_url model key store_dir ; the pytest side
# queues the replies.
import sys
import gc
import ai
import aisteps
import heapmon

base, model, key, root = sys.argv[1:5]
ov = aisteps.setup("anthropic", base, model, key, root)
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
aisteps.say("PLAIN", hist, ov)
gc.collect()
pieces = aisteps.stream(hist, ov, "stream please")
gc.collect()

ov["tools"] = [aisteps.WEATHER]
ov["thinking"] = "low"
err, calls, shown = aisteps.ask_calls(hist, ov, "weather in Rochdale?")
print("CALLS", repr(err), shown, "echo" if "_echo" in hist[-1] else "no-echo")
aisteps.answer(hist, calls, "12 C, drizzle")
gc.collect()
aisteps.say("FOLLOWUP", hist, ov)

del ov["stream"]
err, calls, shown = aisteps.ask_calls(hist, ov, "and tomorrow?")
print("CALLS2", repr(err), shown)
aisteps.answer(hist, calls, "14 C, sun")
gc.collect()
aisteps.say("FOLLOWUP2", hist, ov)
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
