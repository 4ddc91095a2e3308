"""The board's hardware as console commands (and so as tools: shell/tools.py).

    pin                   the board's pins: which can be read, which set
    pin PIN               read a pin: 0 or 1
    pin PIN 0|1|on|off    set an output pin (a write: as a tool it needs
                          ai.tools.local = all or mcp.serve.allow, and a
                          person's yes at the console for each call)
    adc [PIN]             read an analog input: raw 0-65535 and volts
    i2c scan [BUS]        the 7-bit addresses that answer on a bus
    i2c buses             the board's I2C buses and their pins
    temp                  the chip's temperature
    camera [PATH] [-s SIZE]  a JPEG from the board's camera saved to flash
                          (PATH: the profile's, /camera.jpg; SIZE: one of
                          its frame sizes); only on a board whose profile
                          lists a camera; as a tool (board_camera) it reads:
                          a path makes it a write

Which pins and buses exist, and which pins may be set at all, is data: the
board profile's "hw" part (boards/<BOARD>/profile.json, frozen into the
firmware as the module boardprofile: compat.board()):
    {"pins_read": [...],   pins that may be read only (strapping, input-only)
     "pins_write": [...],  pins that may be read and set
     "adc": [...],         pins with an analog input
     "i2c": [[id, scl, sda], ...],
     "labels": {"2": "LED", ...}}
A pin that is not listed is refused with the list. The profile's
"camera" part: {"sensor", "pins": {"data": [D0..D7], "vsync", "href",
"pclk", "xclk", "sda", "scl", "pwdn", "reset"}, "xclk_freq",
"frame_sizes": ["QVGA", ...], "size", "quality", "path"}. The hardware is
the machine module (esp32 for the temperature; the camera module of
cnadler86/micropython-camera-API for the camera: its capture() is a
memoryview of the frame buffer, in PSRAM, written to flash in slices and
given back before anything else runs); on the unix port make sim and the
tests put a stand-in in its place (host_tests/scenarios/boardhw.py).
"""
import shell
from shell import out, Error


def _hw():
    from compat import board
    return board().get("hw") or {}


def _machine(cmd, what):
    try:
        import machine
        getattr(machine, what)
    except (ImportError, AttributeError):
        raise Error("%s: this port has no %s (make sim gives the unix port a stand-in)"
                    % (cmd, what))
    return machine


def _list(ns):
    return " ".join(str(n) for n in sorted(ns)) or "none"


def _labelled(hw, ns):
    """The pins, each with its label when the profile has one."""
    lab = hw.get("labels") or {}
    return ", ".join(str(n) + (" (%s)" % lab[str(n)] if str(n) in lab else "")
                     for n in sorted(ns)) or "none"


def _no_profile(cmd):
    raise Error("%s: no pins in this board's profile (boards/<BOARD>/profile.json, hw)" % cmd)


def pin(args):
    hw = _hw()
    ro, rw = hw.get("pins_read") or (), hw.get("pins_write") or ()
    if not ro and not rw:
        _no_profile("pin")
    if not args:
        out("pins that can be read and set: " + _labelled(hw, rw))
        out("pins that can only be read: " + _labelled(hw, ro))
        return out("(pin PIN reads one; pin PIN 1 sets one)", shell.DIM)
    n = int(args[0])
    if n not in ro and n not in rw:
        raise Error("pin: %d is not one of this board's pins: %s" % (n, _list(list(ro) + list(rw))))
    m = _machine("pin", "Pin")
    if len(args) < 2:
        return out("pin %d = %d" % (n, m.Pin(n).value()))
    if n not in rw:
        raise Error("pin: %d may only be read (pins that can be set: %s)" % (n, _list(rw)))
    v = 1 if args[1] in ("1", "on") else 0
    p = m.Pin(n, m.Pin.OUT)
    p.value(v)
    out("pin %d set to %d" % (n, p.value()))


def adc(args):
    hw = _hw()
    pins = hw.get("adc") or ()
    if not pins:
        raise Error("adc: no analog inputs in this board's profile (boards/<BOARD>/profile.json, hw)")
    if not args:
        return out("analog inputs (adc PIN reads one): " + _labelled(hw, pins))
    n = int(args[0])
    if n not in pins:
        raise Error("adc: %d is not one of this board's analog inputs: %s" % (n, _list(pins)))
    m = _machine("adc", "ADC")
    a = m.ADC(m.Pin(n))
    raw = a.read_u16()
    uv = a.read_uv() if hasattr(a, "read_uv") else None
    out("adc %d = %d of 65535%s" % (n, raw, "" if uv is None else " (%d.%03d V)" % (
        uv // 1000000, uv // 1000 % 1000)))


def i2c(args):
    hw = _hw()
    buses = hw.get("i2c") or ()
    if not buses:
        raise Error("i2c: no I2C bus in this board's profile (boards/<BOARD>/profile.json, hw)")
    if args[0] == "buses":
        for b in buses:
            out("bus %d: scl pin %d, sda pin %d" % (b[0], b[1], b[2]))
        return
    n = int(args[1]) if len(args) > 1 else buses[0][0]
    bus = None
    for b in buses:
        if b[0] == n:
            bus = b
    if bus is None:
        raise Error("i2c: no bus %d on this board (buses: %s)" % (n, _list(b[0] for b in buses)))
    m = _machine("i2c", "I2C")
    found = m.I2C(bus[0], scl=m.Pin(bus[1]), sda=m.Pin(bus[2])).scan()
    if not found:
        return out("i2c bus %d: no device answered" % n)
    out("i2c bus %d: %s at %s" % (n, shell.count(len(found), "device"),
                                  " ".join("0x%02x" % a for a in found)))


def temp(args):
    try:
        import esp32
    except ImportError:
        esp32 = None
    f = getattr(esp32, "mcu_temperature", None)
    if f is not None:
        c = f()
    else:
        f = getattr(esp32, "raw_temperature", None)    # the ESP32's: Fahrenheit
        if f is None:
            raise Error("temp: this chip has no temperature sensor MicroPython reads")
        c = (f() - 32) * 5 // 9
    out("chip temperature: %d C" % c)


def camera(args):
    """camera [PATH] [-s SIZE]: a JPEG from the board's camera saved to
    flash; a command run as a tool hands it to the model (shell.attach)."""
    from compat import board
    cam = board().get("camera")
    if not cam:
        raise Error("camera: this board's profile lists no camera (boards/<BOARD>/profile.json, camera)")
    path = args[0] if args and args[0] else cam.get("path") or "/camera.jpg"
    size = args[1] if len(args) > 1 else cam.get("size") or "VGA"
    sizes = cam.get("frame_sizes") or ()
    if size not in sizes:
        raise Error("camera: %s is not a frame size of this camera: %s" % (size, " ".join(sizes)))
    shown = shell.show(shell.resolve(path))
    if shell.private(shown):
        raise Error("camera: %s is private to the board" % shown)
    try:
        import camera as mod
    except ImportError:
        raise Error("camera: this firmware has no camera module (build it with "
                    "cnadler86/micropython-camera-API: make firmware CAMERA_DIR=...)")
    p = cam.get("pins") or {}
    c = mod.Camera(data_pins=p.get("data"), vsync_pin=p.get("vsync"), href_pin=p.get("href"),
                   sda_pin=p.get("sda"), scl_pin=p.get("scl"), pclk_pin=p.get("pclk"),
                   xclk_pin=p.get("xclk"), xclk_freq=cam.get("xclk_freq") or 20000000,
                   powerdown_pin=p.get("pwdn", -1), reset_pin=p.get("reset", -1),
                   pixel_format=mod.PixelFormat.JPEG, frame_size=getattr(mod.FrameSize, size),
                   jpeg_quality=cam.get("quality") or 85, fb_count=1,
                   grab_mode=mod.GrabMode.WHEN_EMPTY)
    try:
        img = c.capture()       # (the frame buffer itself: outside the GC heap)
        if not img:
            raise Error("camera: the camera gave no picture")
        n = len(img)
        host = shell.resolve(path)
        with open(host, "wb") as f:
            for a in range(0, n, 4096):
                f.write(img[a:a + 4096])
        img = None
        c.free_buffer()
    finally:
        c.deinit()          # (the driver's buffers go back before anything is sent)
    from ai.files import size_text
    out("saved %s (%s, a %s JPEG from the %s)" % (shown, size_text(n), size,
                                                 cam.get("sensor") or "camera"))
    shell.attach(shown)
