# Peak-heap sampler for scenarios under the MicroPython unix port (see
# host_tests/mpyrun.py). Not part of the device code.
import gc
import time
import _thread

THRESHOLD = 1024
_state = {"peak": 0, "base": 0, "run": False}


def sample():
    """Record the heap now (the thread also samples every 100 us)."""
    a = gc.mem_alloc()
    if a > _state["peak"]:
        _state["peak"] = a


def _sample():
    while _state["run"]:
        sample()
        time.sleep_us(100)
    _state["run"] = None


def start():
    gc.collect()
    _state["base"] = _state["peak"] = gc.mem_alloc()
    gc.threshold(THRESHOLD)
    _state["run"] = True
    _thread.start_new_thread(_sample, ())
    time.sleep_ms(2)


def report():
    sample()
    if _state["run"]:
        _state["run"] = False
        while _state["run"] is not None:
            time.sleep_ms(1)
    print("HEAPMON baseline=%d peak=%d" % (_state["base"], _state["peak"]))
