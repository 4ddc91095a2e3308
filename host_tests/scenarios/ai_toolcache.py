# A chat offering the tools cache (store_root/tools.jsonl, written by the
# test) through ai.run, the way the console does it: the conversation a
# turn on flash, the reply recorded there. The fake provider calls one
# cached tool (its server is not configured: the error goes back to the
# model, which answers). argv: provider base_url model key store_root
import sys
import ai
import aisteps
import heapmon
from ai import history, loop  # noqa: F401  (code in the baseline, as frozen)

ov = aisteps.setup(*sys.argv[1:6])
ov["keep"] = False
h = history.History("chat")
t = h.turn({"role": "user", "content": "use a tool"})
heapmon.start()
reply, err = ai.run(t, ov)
print("RUN", repr(reply), repr(err))
if err is None:
    t.commit()
t = None
print("ROLES", [m["role"] for m in h])
heapmon.report()
