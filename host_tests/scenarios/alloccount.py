# Counting every byte a run allocates (tools/bench/bench_stream.py and
# host_tests/test_alloc.py): the collector off, no threshold (the library's
# compat.tighten() is kept from setting one), and each explicit collect of
# the library (compat.collect) adds what was allocated before it. The count
# is in whole GC blocks (16 bytes); a block given back explicitly (the old
# block of a grown buffer, a call frame kept on the heap) is not counted.
import gc
import sys

import compat

_acc = [0, 0]     # allocated before the last collect; mem_alloc() after it


def _collect():
    _acc[0] += gc.mem_alloc() - _acc[1]
    gc.collect()
    _acc[1] = gc.mem_alloc()


def _tighten():
    return gc.threshold()


def start():
    """Count from here (call it once the code is imported and warm)."""
    real = (compat.collect, compat.tighten)
    for m in list(sys.modules.values()):
        for name, new in (("collect", _collect), ("tighten", _tighten)):
            if getattr(m, name, None) in real:
                setattr(m, name, new)
    gc.threshold(-1)
    gc.disable()
    gc.collect()
    _acc[0] = 0
    _acc[1] = gc.mem_alloc()


def count():
    """Bytes allocated since start()."""
    return _acc[0] + gc.mem_alloc() - _acc[1]
