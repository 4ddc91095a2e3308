# A long reply through ai.ask or ai.run under a small heap.
# argv: provider base_url model key store_root how size keep [fallback]
#   how: ask | ask-stream | run | run-stream; the fake sends `size`
#   characters of PAT repeated;
#   keep: "str" (the API's str, the conversation a list in RAM) or "flash"
#   (keep=False, the conversation an ai.history turn on flash: the text is
#   recorded as it arrives and read back from the file after commit());
#   "fallback": a tool is offered and the provider set to the text fallback.
# Prints LONG <chars checked> <err> <pattern ok> <pieces> <chars streamed>.
import sys
import ai
import aisteps
import heapmon
import store

PAT = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ.,;\n"


class Check:
    """Compares text arriving in pieces with PAT repeated."""

    def __init__(self):
        self.n = 0
        self.ok = True

    def add(self, s):
        k = 0
        while k < len(s):
            i = self.n % len(PAT)
            m = min(len(s) - k, len(PAT) - i)
            if s[k:k + m] != PAT[i:i + m]:
                self.ok = False
            k += m
            self.n += m


ov = aisteps.setup(*sys.argv[1:6])
how, size, keep = sys.argv[6], int(sys.argv[7]), sys.argv[8]
tools = None
if sys.argv[9:] == ["fallback"]:
    store.update({"ai.chat.provider": ov["provider"], "ai.chat.tools": "text-fallback"})
    tools = [aisteps.WEATHER]
    from ai.styles import text  # noqa: F401  (in the baseline, as the style is)
if how.startswith("run"):
    from ai import loop  # noqa: F401  (code in the baseline, as frozen)
got = [0, 0]


def sink(piece):
    got[0] += 1
    got[1] += len(piece)


if how.endswith("stream"):
    ov["stream"] = sink
q = {"role": "user", "content": "a long answer please"}
if keep == "flash":
    from ai import history
    ov["keep"] = False
    h = history.History("chat")
    h.clear()
    hist = h.turn(q)
else:
    hist = [q]
heapmon.start()
if how.startswith("run"):
    reply, err = ai.run(hist, ov, tools=tools)
else:
    if tools:
        ov["tools"] = tools
    reply, err, _ = ai.ask(hist, ov)
heapmon.sample()
c = Check()
if keep == "flash":
    if err is None:
        hist.commit()
        for m in h:
            if m["role"] == "assistant":
                history.pieces(m["content"], c.add)
    else:
        hist.drop()
elif reply is not None:
    c.add(reply)
print("LONG", c.n, repr(err), c.ok and c.n == size, got[0], got[1])
reply = hist = None
heapmon.report()
