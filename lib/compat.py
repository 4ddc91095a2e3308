# The few real differences between MicroPython and CPython, in one place.
# Everything else in lib/ is written to the common subset of both.
import sys
import gc
import errno

MICROPYTHON = sys.implementation.name == "micropython"

# The firmware's one version number: the console's banner, the board's MCP
# serverInfo, the MCP clientInfo, the HTTP User-Agent, ai.__version__ and
# the mip package descriptions (tools/dist.py) all say this.
VERSION = "0.2.0"

# errno names MicroPython's errno module lacks: Linux's numbers (the unix
# port; the ESP32's newlib has the same EPIPE, and lwIP never reports
# ENETUNREACH)
EPIPE = getattr(errno, "EPIPE", 32)
ENETUNREACH = getattr(errno, "ENETUNREACH", 101)

if MICROPYTHON:
    from micropython import const
else:
    def const(x):
        return x

_GC_LEAST = const(1024)    # bytes: tighten() collects no more often
_ZERO = const(0x30)
_NINE = const(0x39)
_UPPER_A = const(0x41)
_UPPER_Z = const(0x5A)
_LOWER_A = const(0x61)
_LOWER_Z = const(0x7A)
# Heap that an emulated board's flash holds (make sim and the tests load
# the frozen code's image into the heap; romboot sets this): `free` leaves
# it out, so the figures read as the board's. 0 on a board.
HEAP_HELD = 0
# [calls the asyncio driver runs at once, the GC threshold before the first]
# (httpc/aio.py): their tighten()/loosen() pairs interleave, so the last to
# end puts back what the first found
CALLS = [0, None]

if MICROPYTHON:
    import micropython
    import time
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    sleep_ms = time.sleep_ms

    def collect():
        gc.collect()

    def gc_policy():
        """The firmware's GC setting, made once at boot (firmware/boot.py;
        the test harness's romboot and make sim boot the same way): collect
        each time a quarter of the heap free now has been allocated. Left to
        itself the GC runs only when an allocation fails: by then garbage is
        spread over the whole heap with what lives on between it, and a
        large block fails although the total is free (the board's MCP
        server answered "out of memory" that way); on an ESP32 the heap
        then grows into the ESP-IDF heap that TLS needs."""
        _set(_quarter())

    def _quarter():
        return max(gc.mem_free() >> 2, _GC_LEAST)

    _ours = None    # the threshold gc_policy/tighten/stream_gc set last

    def _set(t):
        global _ours
        gc.threshold(t)
        _ours = gc.threshold()      # (in whole GC blocks)

    def tighten():
        """While a long exchange runs, have the GC collect each time a
        quarter of the heap that is free now has been allocated (unless it
        already collects more often: gc_policy() set at boot, or the
        program's gc.threshold): garbage cleared early keeps what lives on
        low in the heap instead of scattered over it. A board with megabytes
        free collects as rarely as it did. Returns what loosen() puts
        back."""
        t = gc.threshold()
        every = _quarter()
        if t < 0 or t > every:
            _set(every)
        return t

    def stream_gc():
        """Once a reply's text flows, what it allocates does not live on
        (the text goes to the caller and to flash; what lives on while it
        streams was made before): garbage is collected now, and then only
        when the heap is full, as MicroPython does by default. A threshold
        would mostly count call frames: MicroPython allocates the frame of
        any function with more than 11 words of locals and stack on the
        heap and gives it back on return (about 2 KB per event of a
        stream, ten times the garbage), so tighten()'s quarter collected
        every few events. A threshold the program set is kept, and so is
        the tighter one while other calls run at once (CALLS: an asyncio
        program's; one may keep its text in RAM). Returns what loosen()
        puts back."""
        t = gc.threshold()
        if CALLS[0] < 2 and (t == _ours or t < 0):
            gc.collect()
            # (a collection starts the allocator's search for free blocks
            # at the heap's start and only a one-block allocation moves it
            # on: until one, each call frame, several blocks, is searched
            # for from there, and a stream of only frames never makes one)
            bytearray(1)
            _set(-1)
        return t

    def loosen(t):
        gc.threshold(t)

    @micropython.viper
    def copy(dst: ptr8, d: int, src: ptr8, s: int, n: int):
        """dst[d:d + n] = src[s:s + n] without a view of either (a view is
        a heap object: this runs for every read of a stream). src may be
        dst, copied towards the front."""
        i = 0
        while i < n:
            dst[d + i] = src[s + i]
            i += 1
else:
    import time

    def ticks_ms():
        return int(time.monotonic() * 1000)

    def ticks_diff(a, b):
        return a - b

    def sleep_ms(ms):
        time.sleep(ms / 1000)

    def collect():
        pass

    def gc_policy():
        pass

    def tighten():
        return None

    stream_gc = tighten

    def loosen(t):
        pass

    def copy(dst, d, src, s, n):
        dst[d:d + n] = src[s:s + n]


def drive(steps):
    """Run a step generator to its end here, blocking; its return value.
    Protocol code is written once as step generators that never wait
    themselves: they yield a connection when it must become ready (only
    with block=False, under the asyncio driver: httpc/aio.py) and an int
    for ms to sleep (a retry's wait), which is slept here."""
    try:
        while True:
            ms = next(steps)
            if isinstance(ms, int):
                sleep_ms(ms)
    except StopIteration as e:
        return e.value


def board():
    """This board's profile without its sources (boards/<BOARD>/profile.json,
    which the firmware freezes as the module boardprofile): {"board",
    "chip", "figures": {"tls_max", "sockets_max", "gc_heap", ...}, ...};
    {} where there is none (stock MicroPython, CPython)."""
    try:
        from boardprofile import PROFILE
    except ImportError:
        return {}
    return PROFILE


def left(deadline, t0):
    """Seconds left of a deadline of `deadline` seconds that started at
    ticks t0 (0 once it has passed: httpc then fails at once with kind
    "deadline")."""
    return max(deadline - ticks_diff(ticks_ms(), t0) / 1000, 0)


def epoch():
    """Seconds since 1970-01-01 UTC (the ESP32's time.time() counts from
    2000). Meaningful once clock_ok()."""
    t = int(time.time())
    return t + 946684800 if time.gmtime(0)[0] == 2000 else t


def quote(s):
    """Percent-encode s (RFC 3986 unreserved bytes kept), as URL queries and
    form bodies want: urllib.parse.quote(s, safe="-._~"), which MicroPython
    lacks. Walks bytes (MicroPython interns every one-character str)."""
    out = bytearray()
    for b in s.encode():
        if _ZERO <= b <= _NINE or _UPPER_A <= b <= _UPPER_Z or _LOWER_A <= b <= _LOWER_Z or b in b"-_.~":
            out.append(b)
        else:
            out.extend(("%%%02X" % b).encode())
    return out.decode()


def unquote(s, form=False):
    """%XX escapes decoded (form: "+" is a space too, as in a query or a
    form body); a malformed escape stays as it is, and a text whose bytes
    are not UTF-8 comes back unchanged."""
    if form:
        s = s.replace("+", " ")
    parts = s.split("%")
    if len(parts) == 1:
        return s
    o = bytearray(parts[0].encode())
    for p in parts[1:]:
        v = -1
        if len(p) > 1:
            try:
                v = int(p[:2], 16)
            except ValueError:
                pass
        if v < 0:
            o.extend(b"%" + p.encode())
        else:
            o.append(v)
            o.extend(p[2:].encode())
    try:
        return str(o, "utf-8")
    except UnicodeError:
        return s


def is_timeout(exc):
    """True when an OSError means a socket timeout (ETIMEDOUT on esp32,
    EAGAIN on the unix port, socket.timeout on CPython)."""
    if not isinstance(exc, OSError):
        return False
    if type(exc).__name__ in ("timeout", "TimeoutError"):
        return True
    code = exc.args[0] if exc.args else None
    return code == errno.EAGAIN or code == errno.ETIMEDOUT


_ntp = [None]     # ticks_ms of the last NTP attempt


def clock_ok():
    """True when the clock holds a real date (TLS checks certificate dates).
    On MicroPython a clock still at its power-on epoch (before 2025) is set
    with NTP, tried at most once a minute (boot.py tries first; httpc asks
    again before each TLS handshake). CPython trusts the system clock."""
    if not MICROPYTHON or time.gmtime()[0] >= 2025:
        return True
    now = ticks_ms()
    if _ntp[0] is not None and ticks_diff(now, _ntp[0]) < 60000:
        return False
    _ntp[0] = now
    try:
        import ntptime
        ntptime.settime()
    except Exception:       # no network or no answer: the next call retries
        return False
    return time.gmtime()[0] >= 2025


def lazy(names, package=None):
    """A module's __getattr__ that loads its rarely used public names on
    first use (CONTRIBUTING.md: Loading lazily). names: a tuple of pairs
    (public name, the module that defines it), constant so that frozen it
    costs no heap. package: also any other name as its submodule, which
    MicroPython asks __getattr__ for before "from package import sub"
    imports it."""
    def getattr_(name):
        if name[:1] != "_":     # (__path__, __spec__... that imports ask for)
            for n, m in names:
                if n == name:
                    return getattr(__import__(m, None, None, (n,)), name)
            if package:
                try:
                    return __import__(package + "." + name, None, None, (name,))
                except ImportError:
                    pass
        raise AttributeError(name)
    return getattr_
