# Shared by the benchmark scenarios: argv (method, its argument, repeats,
# and a mode: "heap" samples the heap), the best time of a few runs, and
# the RESULT line the runner parses.
import gc
import sys
import time

ARGS = sys.argv[1:]
HEAP = len(ARGS) > 3 and ARGS[3] == "heap"


def sample():
    """Start the heap sampler in heap mode (after the set-up not measured)."""
    if HEAP:
        import heapmon
        heapmon.start()


def best_ms(fn, reps):
    """The best of reps calls of fn(), in ms (a collection before each)."""
    best = None
    for _ in range(reps):
        gc.collect()
        t0 = time.ticks_us()
        fn()
        dt = time.ticks_diff(time.ticks_us(), t0)
        if best is None or dt < best:
            best = dt
    return best / 1000


def result(fields, ms):
    """Print the HEAPMON line in heap mode, then "RESULT <fields> best_ms=<ms>"."""
    if HEAP:
        import heapmon
        heapmon.report()
    print("RESULT %s best_ms=%.2f" % (fields, ms))
