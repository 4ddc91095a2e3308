# Starts a scenario the way the board runs code (see host_tests/mpyrun.py):
# lib/ and the scenarios as .mpy files in a read-only ROM filesystem
# (VfsRom) whose bytecode runs in place, like the frozen modules in the
# ESP32's flash, and (ANTOS_QSTRS) every name and str constant lib/ uses
# interned up front, like the firmware's static qstr table and its string
# objects in flash (a constant found interned costs no heap when loaded;
# a line "=<hex>" is one with a line break, in UTF-8). The image is loaded into a
# bytearray, which plays the flash; the runner sizes -X heapsize so that
# the heap a test names is what is free after this.
#   micropython -X heapsize=<N> -m romboot <scenario> [args...]
#   micropython -X heapsize=<N> -m romboot --calibrate
# ANTOS_BOARD=<BOARD>: that board's profile (boardprofile) and its network
# budget (netcount.py). ANTOS_CA=<file>: httpc.CA_FILE, as a program sets it.
import gc
import os
import sys
import vfs

# names first, with frequent collections: reading them makes garbage, and
# without them the names would end up spread over the whole heap, leaving
# no contiguous block for the image
_path = os.getenv("ANTOS_QSTRS")
if _path:
    gc.threshold(2048)
    _f = open(_path)
    for _name in _f:
        _name = _name[:-1]
        if _name[:1] == "=":
            _name = str(bytes.fromhex(_name[1:]), "utf-8")
        hasattr(int, _name)      # interns it, as frozen code has it
    _f.close()
    # The next name interned would open a pool twice the size of the last
    # one (10K+ entries, ~100 KB here) and charge it to whatever scenario
    # got there first; on the board the frozen names sit in flash and the
    # heap's own pool starts at 10 entries. So open that pool now, as part
    # of the emulated flash: names a scenario makes cost (next to) nothing.
    _a = gc.mem_alloc()
    _n = 0
    while True:
        hasattr(int, "_rom_pad%d" % _n)
        _n += 1
        _b = gc.mem_alloc()
        if _b - _a > 4096:      # a pool, not a name's characters
            break
        _a = _b
    del _f, _name, _a, _b, _n
    gc.threshold(-1)
_path = os.getenv("ANTOS_ROM")
if _path:
    _f = open(_path, "rb")
    _img = bytearray(os.stat(_path)[6])
    _f.readinto(_img)
    _f.close()
    vfs.mount(vfs.VfsRom(_img), "/rom")
    sys.path.insert(0, "/rom")
    del _f
del _path
# The board profile (ANTOS_BOARD): its boardprofile module on the path, as
# the firmware freezes it, the board's network budget enforced, and a
# stand-in for its hardware (machine.Pin, ADC, I2C: boardhw.py)
_path = os.getenv("ANTOS_BOARD")
if _path:
    sys.path.insert(1, "/rom/boards/" + _path)
    import boardprofile
    import netcount
    import boardhw
    netcount.install(boardprofile.PROFILE)
    boardhw.install()
    del boardprofile, netcount, boardhw
del _path
gc.collect()
sys.argv[:] = sys.argv[1:]
_path = os.getenv("ANTOS_ARGV")      # (mpyrun.run: the scenario's arguments)
if _path:
    sys.argv.extend(_path.split("\x1f")[1:])     # (each one starts with the separator)
del _path
# the GC as the firmware's boot.py sets it (compat.gc_policy; a lib/ of
# before it, which make bench measures beside this one, had none)
import compat
if hasattr(compat, "gc_policy"):
    compat.gc_policy()
compat.HEAP_HELD = gc.mem_alloc()     # (the emulated flash: `free` leaves it out)
del compat
if sys.argv[0] == "--calibrate":
    print("CALIBRATE alloc=%d free=%d" % (gc.mem_alloc(), gc.mem_free()))
else:
    # ANTOS_CA: the CA file a program on this board trusts (a test CA for
    # servers behind a TLS front, host_tests/tlsfront.py)
    _path = os.getenv("ANTOS_CA")
    if _path:
        import httpc
        httpc.CA_FILE = _path
        del httpc
    del _path
    __import__(sys.argv[0])
