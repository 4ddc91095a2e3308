# The firmware's frozen modules: the ESP32 port's own set (it mounts the
# filesystem and brings asyncio, ntptime, networking and micropython-lib
# `requests` for user scripts), then every module and package under lib/,
# found by listing the folder so a new module can never be left out.
# Frozen bytecode runs from flash: it costs flash, not heap.
# opt=3 drops line-number tables (about 9 KB of flash), as the port does for
# asyncio; tracebacks from frozen code then show no line numbers.
# What is frozen is a copy of lib/ with each `if MICROPYTHON:` test made a
# constant (tools/mpybuild.py fold()), so the compiler drops CPython's
# branches: the same code `make mpy` measures and the tests run.
# MicroPython runs this file with the manifest folder as the current
# directory (tools/manifestfile.py), so "../lib" is this repository's lib/.
# A board's manifest (boards/<BOARD>/manifest.py) includes this one with
# board=<BOARD>: its profile is frozen too, as the module boardprofile
# (written from boards/<BOARD>/profile.json by tools/boardprofile.py).
include("$(PORT_DIR)/boards/manifest.py")

import os
import sys

sys.path.insert(0, "../tools")
import mpybuild

if options and options.board:
    import boardprofile
    path = boardprofile.write_module(options.board, "../build/boardprofile/" + options.board)
    module("boardprofile.py", base_path=os.path.dirname(path), opt=3)

lib = mpybuild.folded_tree("../lib", "../build/frozen-lib")
for name in sorted(os.listdir(lib)):
    if name.endswith(".py"):
        module(name, base_path=lib, opt=3)
    elif os.path.isfile("%s/%s/__init__.py" % (lib, name)):
        package(name, base_path=lib, opt=3)
