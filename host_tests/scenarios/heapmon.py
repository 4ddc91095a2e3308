# Peak-heap sampler for scenarios, under the MicroPython unix port (see
# host_tests/mpyrun.py) and on a board (tools/hil.py). Not part of the
# device code. A thread samples gc.mem_alloc() every 100 us on the unix
# port; on a board every 10 ms, since an ESP32's sleep_us and a sleep_ms
# shorter than its 10 ms tick wait holding the GIL, which would stop the
# scenario. Without _thread (a port built without threads) only start(),
# report() and explicit sample() calls sample: then the peak is a lower
# bound (sampler=none in the report line).
import gc
import sys
import time
try:
    import _thread
except ImportError:
    _thread = None

THRESHOLD = 1024
UNIX = sys.platform in ("linux", "darwin")
_state = {"peak": 0, "base": 0, "run": False}


def sample():
    """Record the heap now."""
    a = gc.mem_alloc()
    if a > _state["peak"]:
        _state["peak"] = a


def _sample():
    while _state["run"]:
        sample()
        if UNIX:
            time.sleep_us(100)
        else:
            time.sleep_ms(10)
    _state["run"] = None


def start():
    gc.collect()
    _state["base"] = _state["peak"] = gc.mem_alloc()
    gc.threshold(THRESHOLD)
    if _thread:
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
    print("HEAPMON baseline=%d peak=%d heap=%d sampler=%s"
          % (_state["base"], _state["peak"], gc.mem_alloc() + gc.mem_free(),
             "thread" if _thread else "none"))
