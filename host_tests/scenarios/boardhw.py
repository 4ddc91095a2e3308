# A stand-in for the board's hardware on the unix port (make sim, the
# tests): install() puts it in sys.modules as `machine` and `esp32` when
# the port's own machine module has no Pin (the unix port's has none), so
# lib/shell/hw.py runs unchanged. What it offers, as the ESP32 port's
# modules do:
#   machine.Pin(n[, mode]): value() / value(v); an output keeps what was
#     set, an input reads LEVELS (pin 0, the BOOT button: 1, released)
#   machine.ADC(pin): read_u16(), read_uv() (a level per pin, 0-3.3 V)
#   machine.I2C(id, scl=, sda=): scan() -> the DEVICES on that bus
#   esp32.mcu_temperature() -> TEMP_C
# State lives in this module for the life of the process (the console
# forgets lib/ modules a command imported, never this one).
import sys

LEVELS = {0: 1}                 # pin -> level read (unset pins read 0)
DEVICES = {0: [0x3C, 0x76]}     # bus -> addresses: an SSD1306 display, a BME280
TEMP_C = 41


class Pin:
    IN = 1
    OUT = 3

    def __init__(self, n, mode=None):
        self.n = n
        if mode is not None:
            _modes[n] = mode

    def value(self, v=None):
        if v is None:
            return LEVELS.get(self.n, 0)
        LEVELS[self.n] = 1 if v else 0
        return None

    def __call__(self, v=None):
        return self.value(v)


_modes = {}


class ADC:
    def __init__(self, pin):
        self.n = pin.n

    def read_uv(self):
        return (self.n * 97) % 3300 * 1000     # a fixed level per pin

    def read_u16(self):
        return self.read_uv() * 65535 // 3300000


class I2C:
    def __init__(self, bus, scl=None, sda=None, freq=400000):
        self.bus = bus

    def scan(self):
        return list(DEVICES.get(self.bus, ()))


class _Esp32:
    @staticmethod
    def mcu_temperature():
        return TEMP_C


def install(profile=False):
    """The stand-in in place of machine and esp32; profile=True: also the
    pins of the board profile that ANTOS_HW names (a profile.json), as a
    boardprofile module holding only them, when there is none (tools/sim.py
    --lib: the console tests)."""
    try:
        import machine
        real = hasattr(machine, "Pin")
    except ImportError:
        real = False
    if not real:
        sys.modules["machine"] = sys.modules[__name__]
        sys.modules["esp32"] = _Esp32
    path = profile and __import__("os").getenv("ANTOS_HW")
    if path:
        try:
            import boardprofile  # noqa: F401
        except ImportError:
            import json

            class _Profile:
                pass
            with open(path) as f:
                _Profile.PROFILE = {"hw": json.load(f)["hw"]}
            sys.modules["boardprofile"] = _Profile
