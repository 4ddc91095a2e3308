# The console (pipe mode: lines from stdin) serving MCP from its prompt
# wait, for host_tests/test_mcp_server.py: the test types `mcp serve PORT`,
# drives the server with real clients and answers the console's questions,
# then types `exit`. Measured on the way (heapmon's sampler):
#   SERVE idle=<heap kept by `mcp serve` at the idle prompt>
#         peak=<largest peak above that while one connection was served>
#         first=<heap in use after the first connection> last=<after the last>
#         n=<connections served>
#         peaks=<the peak of each connection, in order, comma-separated>
#         before=<heap in use before the first connection>
#         afters=<heap in use after each connection above `before`, in
#                order, comma-separated (live only)>
# With the firmware's GC (a Board's default) nothing here collects: a
# connection's peak is the heap in use above what was in use when it came
# (garbage included), first and last are 0 and idle is measured once, when
# `mcp serve` starts (before and afters are 0). With live=True
# (heapmon.LIVE) the heap is collected before and after each connection, so
# the figures are live data: what the tests compare across sizes, over
# hundreds of requests and over sessions in a row.
import array
import gc

import shell
from shell import term  # noqa: F401  (the run loop imports it too)
import heapmon

_st = {"pre": None, "idle": None, "peak": 0, "first": 0, "last": 0, "n": 0, "before": 0}
_peaks = array.array("i", bytearray(1000))     # made before measuring: no growth
_afters = array.array("h", bytearray(1000 if heapmon.LIVE else 0))   # (live runs only)
_dispatch = shell.dispatch


def _measured(w):
    inner = w.serve

    def serve(ready):
        if heapmon.LIVE:
            gc.collect()
        base = gc.mem_alloc()
        if _st["idle"] is None:
            if not heapmon.LIVE:
                gc.collect()
            _st["idle"] = gc.mem_alloc() - _st["pre"]
            if heapmon.LIVE:
                _st["before"] = base
        heapmon._state["peak"] = base
        inner(ready)
        heapmon.sample()
        _st["peak"] = max(_st["peak"], heapmon._state["peak"] - base)
        if ready:
            n = _st["n"]
            if n < len(_peaks):
                _peaks[n] = heapmon._state["peak"] - base
            if heapmon.LIVE:
                gc.collect()
                _st["last"] = gc.mem_alloc()
                if n < len(_afters):
                    _afters[n] = _st["last"] - _st["before"]
                if not n:
                    _st["first"] = _st["last"]
            _st["n"] = n + 1
    w.serve = serve


def dispatch(line):
    if line.startswith("mcp serve") and _st["pre"] is None:
        gc.collect()
        _st["pre"] = gc.mem_alloc()
    _dispatch(line)
    w = term.WATCH
    if w is not None and not getattr(w, "_m", False):
        w._m = True
        _measured(w)


shell.dispatch = dispatch
heapmon.start()
shell.run()
_n = min(_st["n"], len(_peaks))
print("SERVE idle=%d peak=%d first=%d last=%d n=%d before=%d peaks=%s afters=%s" % (
    _st["idle"] or 0, _st["peak"], _st["first"], _st["last"], _st["n"], _st["before"],
    ",".join(str(_peaks[i]) for i in range(_n)) or "-",
    ",".join(str(_afters[i]) for i in range(min(_n, len(_afters)))) or "-"))
heapmon.report()
