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

Which pins and buses exist, and which pins may be set at all, is data: the
board profile's "hw" part (boards/<BOARD>/profile.json, frozen into the
firmware as the module boardprofile: compat.board()):
    {"pins_read": [...],   pins that may be read only (strapping, input-only)
     "pins_write": [...],  pins that may be read and set
     "adc": [...],         pins with an analog input
     "i2c": [[id, scl, sda], ...],
     "labels": {"2": "LED", ...}}
A pin that is not listed is refused with the list. The hardware is the
machine module (esp32 for the temperature); on the unix port make sim and
the tests put a stand-in in its place (host_tests/scenarios/boardhw.py).
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
