// The tests' and `make sim`'s MicroPython: the unix port built for 32 bits
// (tools/mpunix.py) and configured like the ESP32 port (ports/esp32/
// mpconfigport.h) where that changes the heap or behaviour. What still
// differs from the board is listed in host_tests/README.md ("The tests'
// MicroPython").

#define MICROPY_CONFIG_ROM_LEVEL (MICROPY_CONFIG_ROM_LEVEL_EXTRA_FEATURES)

#include "variants/mpconfigvariant_common.h"

// The ESP32's error messages: shorter, and fewer allocations to make them.
#undef MICROPY_ERROR_REPORTING
#define MICROPY_ERROR_REPORTING (MICROPY_ERROR_REPORTING_NORMAL)
