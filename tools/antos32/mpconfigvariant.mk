# The variant tools/mpunix.py builds (see mpconfigvariant.h).
# 32-bit objects, pointers and GC blocks, as on the ESP32.
MICROPY_FORCE_32BIT = 1
# Threads with a GIL, as on the ESP32; with the GIL a SIGINT is scheduled
# for the next bytecode (mp_sched_keyboard_interrupt), as the board's UART
# schedules Ctrl-C, instead of raised inside whatever C code runs.
MICROPY_PY_THREAD_GIL = 1
# Not on the board, and they need 32-bit system libraries.
MICROPY_PY_FFI = 0
MICROPY_PY_BTREE = 0
FROZEN_MANIFEST ?= $(VARIANT_DIR)/manifest.py
