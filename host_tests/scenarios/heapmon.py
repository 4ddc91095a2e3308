# Peak-heap sampler for scenarios, under the MicroPython unix port (see
# host_tests/mpyrun.py) and on a board (tools/hil.py). Not part of the
# device code. It leaves the GC as the firmware sets it (gc.threshold
# untouched: a sampler that collected more often would hide the
# fragmentation the board sees), so the peak is the heap in use, live data
# and garbage not yet collected: "gc=firmware" in its report line. Only to
# measure the working set (live data: does it grow with content?) does
# ANTOS_HEAPMON=live (mpyrun's live=True; on a board tools/hil.py sets
# heapmon.LIVE before the scenario starts) have the GC collect every 1 KB
# while it samples ("gc=live"); a heap cap is never judged that way. A
# thread samples gc.mem_alloc() every 100 us on the unix port (time.sleep,
# which lets the GIL go: the tests' build has one, as the ESP32 has, and
# its sleep_us waits holding it); on a board every 10 ms, since an ESP32's
# sleep_us and a sleep_ms shorter than its 10 ms tick wait holding the
# GIL, which would stop the scenario. Without _thread (a port built without threads) only start(),
# report() and explicit sample() calls sample: then the peak is a lower
# bound (sampler=none in the report line). A scenario that knows where it
# holds its most (a piece in hand) measures its working set there instead:
# start(sampler=False) and probe() at each such point.
import gc
import os
import sys
import time
try:
    import _thread
except ImportError:
    _thread = None

UNIX = sys.platform in ("linux", "darwin")
LIVE = os.getenv("ANTOS_HEAPMON") == "live" if hasattr(os, "getenv") else False
_state = {"peak": 0, "base": 0, "run": False, "gc": None}
_TICK = 0.0001          # (one float object: a sample allocates nothing)


def sample():
    """Record the heap now."""
    a = gc.mem_alloc()
    if a > _state["peak"]:
        _state["peak"] = a


def probe():
    """In a live run, the live heap (after a collect) at a point where the
    scenario holds its most: exact where a sampler thread can miss a brief
    peak on a busy machine (start(sampler=False) with it). A run with the
    firmware's GC is left alone."""
    if LIVE:
        gc.collect()
        sample()


def _sample():
    while _state["run"]:
        sample()
        if UNIX:
            time.sleep(_TICK)
        else:
            time.sleep_ms(10)
    _state["run"] = None


def start(sampler=True):
    """Take the baseline and start sampling; sampler=False: only explicit
    sample() calls sample (a scenario that knows where its peak is)."""
    gc.collect()
    _state["base"] = _state["peak"] = gc.mem_alloc()
    if LIVE:
        _state["gc"] = gc.threshold()
        gc.threshold(1024)
    if _thread and sampler:
        _state["run"] = True
        _thread.start_new_thread(_sample, ())
        time.sleep_ms(2)


def report():
    """Print "HEAPMON baseline=B peak=P heap=H sampler=thread|none": H is
    the heap's size now (an ESP32's grows on demand), H - P the least free
    heap seen."""
    sample()
    if _state["run"]:
        _state["run"] = False
        while _state["run"] is not None:
            time.sleep_ms(1)
    if LIVE:
        gc.threshold(_state["gc"])
    print("HEAPMON baseline=%d peak=%d heap=%d sampler=%s gc=%s"
          % (_state["base"], _state["peak"], gc.mem_alloc() + gc.mem_free(),
             "thread" if _thread and _state["run"] is not False else "none",
             "live" if LIVE else "firmware"))
