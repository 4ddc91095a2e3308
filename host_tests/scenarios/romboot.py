# Starts a scenario the way the board runs code: lib/ as .mpy files in a
# read-only ROM filesystem (VfsRom), whose bytecode runs in place, like the
# frozen modules in the ESP32's flash. The image is loaded into a bytearray
# before anything else (so it sits at the start of the heap and plays the
# flash); the runner adds its size to -X heapsize, so the cap a test names is
# the heap left for everything else.
#   micropython -X heapsize=<cap+image> -m romboot <scenario> [args...]
import os
import sys
import vfs

_path = os.getenv("ANTOS_ROM")
if _path:
    _f = open(_path, "rb")
    _img = bytearray(os.stat(_path)[6])
    _f.readinto(_img)
    _f.close()
    vfs.mount(vfs.VfsRom(_img), "/rom")
    sys.path.insert(0, "/rom")
    del _f, _path
sys.argv[:] = sys.argv[1:]
__import__(sys.argv[0])
