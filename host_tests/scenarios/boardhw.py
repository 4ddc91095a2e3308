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
#   camera (cnadler86/micropython-camera-API's module): Camera(**pins and
#     settings) (kept in CAMERA["args"]); capture() -> the frame buffer, a
#     JPEG of CAMERA["bytes"] bytes (ANTOS_CAMERA_BYTES, else 48 KB: the
#     test chooses): frame(n), sliced on demand as a board's memoryview of
#     a buffer outside the heap is; free_buffer() and deinit() are counted
# State lives in this module for the life of the process (the console
# forgets lib/ modules a command imported, never this one).
import os
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


CAMERA = {"bytes": 48 * 1024, "args": None, "freed": 0, "deinits": 0}
_PAT = bytes(range(256)) * 17       # (4352 bytes: a slice of up to 4 KB at any offset)


def frame(n, a=0, b=None):
    """Bytes a to b of the stand-in camera's JPEG of n bytes: its start of
    image and APP0 marker, bytes 0-255 over and over, its end marker."""
    b = n if b is None else min(b, n)
    out = b""
    while a < b:
        k = min(b - a, 4096)
        out += _PAT[a % 256:a % 256 + k]
        a += k
    if not out:
        return out
    start = b - len(out)
    if start < 4:
        out = b"\xff\xd8\xff\xe0"[start:min(4, b)] + out[min(4, b) - start:]
    if b > n - 2:
        keep = max(n - 2 - start, 0)
        out = out[:keep] + b"\xff\xd9"[max(start - (n - 2), 0):b - (n - 2)]
    return out


class _Frame:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, s):
        return frame(self.n, s.start or 0, s.stop if s.stop is not None else self.n)


class _Camera:
    """The camera module's names."""

    class PixelFormat:
        JPEG = 4
        RGB565 = 0

    class GrabMode:
        WHEN_EMPTY = 0
        LATEST = 1

    class FrameSize:
        QQVGA, QVGA, CIF, HVGA, VGA, SVGA, XGA, HD, SXGA, UXGA = 1, 6, 8, 9, 10, 11, 12, 13, 14, 15

    class Camera:
        def __init__(self, **kw):
            CAMERA["args"] = kw
            self.up = True

        def capture(self):
            return _Frame(CAMERA["bytes"]) if self.up else None

        def free_buffer(self):
            CAMERA["freed"] += 1

        def deinit(self):
            self.up = False
            CAMERA["deinits"] += 1


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
        sys.modules["camera"] = _Camera
        n = os.getenv("ANTOS_CAMERA_BYTES")
        if n:
            CAMERA["bytes"] = int(n)
    path = profile and os.getenv("ANTOS_HW")
    if path:
        try:
            import boardprofile  # noqa: F401
        except ImportError:
            import json

            class _Profile:
                pass
            with open(path) as f:
                p = json.load(f)
            _Profile.PROFILE = dict((k, p[k]) for k in ("hw", "camera") if k in p)
            sys.modules["boardprofile"] = _Profile
