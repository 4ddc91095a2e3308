# One chat round and one streamed round through ai.ask, the way the board
# does it: argv provider base_url model key store_root [tools]. With "tools"
# the plain round offers a tool and answers the call it gets (one round trip).
import sys
import aisteps
import heapmon

ov = aisteps.setup(*sys.argv[1:6])
heapmon.start()

hist = [{"role": "user", "content": "hello"}]
if sys.argv[6:] == ["tools"]:
    ov["tools"] = [aisteps.WEATHER]
    err, calls, shown = aisteps.ask_calls(hist, ov)
    print("CALLS", repr(err), shown)
    aisteps.answer(hist, calls, "12 C, drizzle")
    del ov["tools"]
aisteps.say("PLAIN", hist, ov)
aisteps.stream(hist, ov, "stream please")
heapmon.report()
