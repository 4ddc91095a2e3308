"""Putting the firmware on a board: the board folders, firmware/manifest.py,
boot.py and main.py, the Makefile targets (firmware, flash, erase, mpy,
deploy, repl) and tools/deploy.py. ESP-IDF and boards are absent here, so
the commands are checked through `make -n` and --dry-run, the manifest by
running it with stand-in functions, the frozen set by compiling it for the
ESP32, and the deployed set by running it under the MicroPython unix port."""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

from fakes import FakeOpenAI, Text
from mpyrun import tool
from toolrun import PY, ROOT, load, make, run

BOARDS = {"ANTOS_ESP32": ("esp32", "0x1000"), "ANTOS_ESP32S3": ("esp32s3", "0x0"),
          "ANTOS_XIAO_S3_SENSE": ("esp32s3", "0x0")}
LIB = os.path.join(ROOT, "lib")
deploy = load("deploy")
mpybuild = load("mpybuild")
MICROPYTHON = tool("micropython")


def commands_of(r):
    """The command lines of `make -n` output, without the .venv bootstrap
    lines (shown when the stamp is older than the requirements)."""
    assert r.returncode == 0, r.stderr
    return [shlex.split(ln) for ln in r.stdout.splitlines()
            if ln and "pip install" not in ln and "venv" not in ln.split()[:3]
            and not ln.startswith("touch ")]


@pytest.fixture
def checkout(tmp_path):
    """Just enough of a MicroPython checkout for the Makefile's check."""
    mp = tmp_path / "micropython"
    (mp / "ports/esp32").mkdir(parents=True)
    (mp / "ports/esp32/Makefile").write_text("all:\n")
    return str(mp)


# ---------------------------------------------------------------- make firmware / flash

@pytest.mark.parametrize("board", sorted(BOARDS))
def test_make_firmware_builds_the_board_out_of_tree(board, checkout):
    cmds = commands_of(make("firmware", "BOARD=" + board, "MICROPY_DIR=" + checkout))
    bd = "BOARD_DIR=" + os.path.join(ROOT, "boards", board)
    assert os.path.isabs(bd[len("BOARD_DIR="):])
    port = checkout + "/ports/esp32"
    assert [c for c in cmds if c[0] == "make"] == [
        ["make", "-C", checkout + "/mpy-cross"],
        ["make", "-C", port, bd, "submodules"],
        ["make", "-C", port, bd]]
    text = " ".join(" ".join(c) for c in cmds)
    assert "idf.py" in text and "ESP-IDF 5.5.1" in text       # the environment check
    assert "%s/build-%s/firmware.bin" % (port, board) in text    # the output is named


def test_make_firmware_builds_the_camera_module_when_given(checkout, tmp_path):
    """CAMERA_DIR: the camera board's firmware with cnadler86's camera
    module as a user C module (its src/micropython.cmake)."""
    cmds = commands_of(make("firmware", "BOARD=ANTOS_XIAO_S3_SENSE", "MICROPY_DIR=" + checkout,
                            "CAMERA_DIR=%s" % tmp_path))
    build = [c for c in cmds if c[0] == "make"][-1]
    assert build[-1] == "USER_C_MODULES=%s/src/micropython.cmake" % tmp_path, build


def test_make_firmware_refuses_without_a_checkout_or_a_known_board(tmp_path, checkout):
    r = make("firmware")
    assert r.returncode != 0 and "give MICROPY_DIR=" in r.stderr, r.stderr
    r = make("firmware", "MICROPY_DIR=%s" % tmp_path)
    assert r.returncode != 0 and "is not a MicroPython checkout" in r.stderr
    r = make("firmware", "BOARD=ESP32_GENERIC", "MICROPY_DIR=" + checkout)
    assert r.returncode != 0 and "ANTOS_ESP32 ANTOS_ESP32S3 ANTOS_XIAO_S3_SENSE" in r.stderr


def test_make_firmware_without_esp_idf_says_so(checkout):
    env = dict(os.environ, PATH="/usr/bin:/bin")          # no idf.py anywhere
    r = make("firmware", "MICROPY_DIR=" + checkout, dry=False, env=env)
    assert r.returncode != 0
    assert "ESP-IDF is not set up" in r.stderr and "export.sh" in r.stderr
    assert "make -C" not in r.stdout                          # nothing was built


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_make_flash_writes_at_the_chip_offset(board, checkout):
    chip, offset = BOARDS[board]
    fw = checkout + "/ports/esp32/build-%s/firmware.bin" % board
    cmds = commands_of(make("flash", "BOARD=" + board, "PORT=/dev/ttyUSB0",
                            "MICROPY_DIR=" + checkout))
    esptool = [c for c in cmds if c[0].endswith("esptool")]
    assert esptool == [[".venv/bin/esptool", "--chip", chip, "--port", "/dev/ttyUSB0",
                        "--baud", "460800", "write-flash", offset, fw]]
    assert any(c[:2] == ["test", "-f"] and c[2] == fw for c in cmds)   # missing file: error
    # PORT=auto (the default) lets esptool find the port; FIRMWARE= another file
    cmds = commands_of(make("flash", "BOARD=" + board, "FIRMWARE=/tmp/fw.bin", "BAUD=921600"))
    assert [c for c in cmds if c[0].endswith("esptool")] == [
        [".venv/bin/esptool", "--chip", chip, "--baud", "921600", "write-flash", offset,
         "/tmp/fw.bin"]]
    cmds = commands_of(make("erase", "BOARD=" + board, "PORT=/dev/ttyACM0"))
    assert cmds == [[".venv/bin/esptool", "--chip", chip, "--port", "/dev/ttyACM0",
                     "--baud", "460800", "erase-flash"]]


def test_make_flash_errors_name_what_is_missing(tmp_path):
    r = make("flash")
    assert r.returncode != 0 and "MICROPY_DIR=" in r.stderr and "FIRMWARE=" in r.stderr
    r = make("flash", "FIRMWARE=%s" % (tmp_path / "none.bin"), dry=False)
    assert r.returncode != 0 and "none.bin not found" in r.stderr
    r = make("flash", "BOARD=ESP32_GENERIC_S3", "FIRMWARE=x.bin")
    assert r.returncode != 0 and "is not one of" in r.stderr


def test_a_port_in_the_environment_does_not_leak_in():
    cmds = commands_of(make("erase", env={"PORT": "8080", "BOARD": "X"}))
    assert cmds == [[".venv/bin/esptool", "--chip", "esp32", "--baud", "460800",
                     "erase-flash"]]


def test_make_repl_and_certs():
    assert commands_of(make("repl", "PORT=/dev/ttyUSB0")) == [
        [".venv/bin/mpremote", "connect", "/dev/ttyUSB0", "repl"]]
    assert commands_of(make("repl")) == [[".venv/bin/mpremote", "connect", "auto", "repl"]]
    assert commands_of(make("certs")) == [[".venv/bin/python", "tools/cabundle.py"]]


# ---------------------------------------------------------------- boards

def cmake_list(text, var):
    m = re.search(r"set\(\s*%s\s+(.*?)\)" % var, text, re.S)
    assert m, "no set(%s ...)" % var
    return [w for w in m.group(1).split() if not w.startswith("#")]


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_board_folder_is_a_valid_out_of_tree_board(board):
    chip, offset = BOARDS[board]
    d = os.path.join(ROOT, "boards", board)
    assert sorted(os.listdir(d)) == ["board.json", "manifest.py", "mpconfigboard.cmake",
                                     "mpconfigboard.h", "profile.json", "sdkconfig.board"]
    cm = open(os.path.join(d, "mpconfigboard.cmake")).read()
    h = open(os.path.join(d, "mpconfigboard.h")).read()
    assert "MICROPY_HW_BOARD_NAME" in h and "MICROPY_HW_MCU_NAME" in h
    frags = cmake_list(cm, "SDKCONFIG_DEFAULTS")
    assert frags[:2] == ["boards/sdkconfig.base", "${SDKCONFIG_IDF_VERSION_SPECIFIC}"]
    assert "boards/sdkconfig.ble" in frags
    # port fragments relative to ports/esp32, the board's own via MICROPY_BOARD_DIR
    assert frags[-1] == "${MICROPY_BOARD_DIR}/sdkconfig.board"
    for f in frags[2:-1]:
        assert f.startswith("boards/"), f
    assert "${MICROPY_PORT_DIR}" not in cm          # not defined yet at that point
    manifest = cmake_list(cm, "MICROPY_FROZEN_MANIFEST")
    assert manifest == ["${MICROPY_BOARD_DIR}/manifest.py"]
    # the board's manifest is the firmware's with this board's profile
    assert run_manifest(os.path.join(d, "manifest.py"), {}) == [
        ("include", os.path.join(ROOT, "firmware", "manifest.py"), {"board": board})]
    for line in open(os.path.join(d, "sdkconfig.board")):
        assert line.startswith("#") or not line.strip() or re.match(r"CONFIG_[A-Z0-9_]+=", line), line
    meta = json.load(open(os.path.join(d, "board.json")))
    assert meta["mcu"] == chip and meta["deploy_options"]["flash_offset"] == offset
    prof = json.load(open(os.path.join(d, "profile.json")))
    assert prof["board"] == board and prof["chip"] == chip
    # every figure, the hardware part and a camera say where they come
    # from, and nothing else is sourced
    assert set(prof["sources"]) == set(prof["figures"]) | {"hw"} | ({"camera"} & set(prof))
    cam = prof.get("camera")
    if cam:     # (shell/hw.py camera) its pins are none of the pins offered
        p = cam["pins"]
        used = set(p["data"]) | {p[k] for k in ("vsync", "href", "pclk", "xclk", "sda", "scl")}
        assert len(p["data"]) == 8 and not used & (set(prof["hw"]["pins_read"]) |
                                                   set(prof["hw"]["pins_write"]))
        assert cam["size"] in cam["frame_sizes"] and cam["path"].startswith("/")
    # the pins (shell/hw.py): a pin is read-only or writable, never both;
    # the analog inputs and the I2C buses' pins are pins of the board
    hw = prof["hw"]
    ro, rw = set(hw["pins_read"]), set(hw["pins_write"])
    assert rw and not ro & rw and set(hw["adc"]) <= ro | rw
    for bus in hw["i2c"]:
        assert len(bus) == 3 and {bus[1], bus[2]} <= rw, bus
    assert {int(k) for k in hw["labels"]} <= ro | rw
    for k, why in prof["sources"].items():
        assert len(why) > 20, k
    fig = prof["figures"]
    assert fig["tls_max"] >= 1 and fig["sockets_max"] >= fig["tls_max"]
    # the TLS connections allowed fit in the IDF heap left after WiFi: one
    # moving data, the others idle
    busy = fig["tls_connection_%s" % prof["mbedtls"]]
    need = busy + (fig["tls_max"] - 1) * fig["tls_connection_idle"]
    assert need <= fig["idf_heap_after_wifi"] or fig["psram"]
    cfg = open(os.path.join(d, "sdkconfig.board")).read()
    assert ("CONFIG_MBEDTLS_DYNAMIC_BUFFER=y" in cfg) == (prof["mbedtls"] == "dynamic")
    # httpc keeps one SSL context for the session: its CA roots must stay
    assert "CONFIG_MBEDTLS_DYNAMIC_FREE_CA_CERT=y" not in cfg
    if chip == "esp32s3":
        assert cmake_list(cm, "IDF_TARGET") == ["esp32s3"]
        for f in ("boards/sdkconfig.spiram_sx", "boards/ESP32_GENERIC_S3/sdkconfig.board",
                  "boards/sdkconfig.spiram_oct"):
            assert f in frags
    else:
        assert "IDF_TARGET" not in cm and not any("spiram" in f for f in frags)


# ---------------------------------------------------------------- frozen set

class Options:
    """tools/manifestfile.py's IncludeOptions: a missing option is None."""
    def __init__(self, kw):
        self.kw = kw

    def __getattr__(self, name):
        return self.kw.get(name)

    def __bool__(self):
        return True


def run_manifest(path, path_vars, options=None):
    """Execute a manifest the way MicroPython's tools/manifestfile.py does:
    in the manifest's folder, $(VAR) substitution, relative paths resolved
    there. Records the calls; includes are not followed."""
    calls = []
    here = os.path.dirname(os.path.abspath(path))

    def resolve(p):
        for k, v in path_vars.items():
            p = p.replace("$(%s)" % k, v)
        return os.path.normpath(os.path.join(here, p))

    def include(p, **kw):
        calls.append(("include", resolve(p), kw or None))

    def module(name, base_path=".", opt=None):
        calls.append(("module", os.path.join(resolve(base_path), name), opt))

    def package(name, files=None, base_path=".", opt=None):
        assert files is None, "package %s lists files: new modules would be missed" % name
        calls.append(("package", os.path.join(resolve(base_path), name), opt))

    def other(*a, **kw):
        calls.append(("other", a, None))
    g = {"include": include, "module": module, "package": package, "require": other,
         "freeze": other, "metadata": other, "c_module": other, "add_library": other,
         "options": Options(options or {})}
    cwd = os.getcwd()
    os.chdir(here)
    try:
        exec(compile(open(path).read(), path, "exec"), g)
    finally:
        os.chdir(cwd)
    return calls


def lib_entries():
    out = set()
    for n in os.listdir(LIB):
        full = os.path.join(LIB, n)
        if n.endswith(".py"):
            out.add(full)
        elif os.path.isdir(full) and n != "__pycache__":
            assert os.path.isfile(os.path.join(full, "__init__.py")), \
                "lib/%s has no __init__.py (package() would freeze a namespace nobody imports)" % n
            out.add(full)
    return out


def test_manifest_freezes_the_port_set_then_exactly_lib(tmp_path):
    calls = run_manifest(os.path.join(ROOT, "firmware", "manifest.py"), {"PORT_DIR": "/PORT"})
    assert calls[0] == ("include", "/PORT/boards/manifest.py", None)
    frozen = calls[1:]
    assert all(kind in ("module", "package") for kind, _, _ in frozen), frozen
    assert all(opt == mpybuild.OPT for _, _, opt in frozen)   # what `make mpy` measures
    # lib/, each module folded (mpybuild.fold), from a copy in build/
    copy = os.path.join(ROOT, "build", "frozen-lib")
    assert {os.path.join(LIB, os.path.relpath(p, copy)) for _, p, _ in frozen} == lib_entries()
    assert len(frozen) == len(lib_entries())
    assert all(os.path.isfile(p) == (k == "module") for k, p, _ in frozen)
    folded = 0
    for d, _, fs in os.walk(LIB):
        for f in fs:
            if f.endswith(".py"):
                src = open(os.path.join(d, f), encoding="utf-8").read()
                got = open(os.path.join(copy, os.path.relpath(d, LIB), f), encoding="utf-8").read()
                assert got == (mpybuild.fold(src) or src), f
                folded += got != src
    assert folded >= 3          # compat, jsonstream, httpc at least
    # a module added to lib/ is frozen too, without editing the manifest
    fake = tmp_path / "firmware"
    shutil.copytree(os.path.join(ROOT, "firmware"), fake)
    (tmp_path / "tools").mkdir()
    shutil.copy(os.path.join(ROOT, "tools", "mpybuild.py"), tmp_path / "tools")
    (tmp_path / "lib" / "ai").mkdir(parents=True)
    (tmp_path / "lib" / "ai" / "__init__.py").write_text("")
    (tmp_path / "lib" / "extra.py").write_text("")
    (tmp_path / "lib" / "notes").mkdir()                       # not a package
    calls = run_manifest(str(fake / "manifest.py"), {"PORT_DIR": "/PORT"})
    assert [(k, os.path.basename(p)) for k, p, _ in calls[1:]] == [
        ("package", "ai"), ("module", "extra.py")]


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_a_board_freezes_its_profile(board):
    """Included by a board's manifest, the firmware's freezes that board's
    profile (profile.json without its sources) as the module boardprofile,
    which lib/ reads through compat.board()."""
    calls = run_manifest(os.path.join(ROOT, "firmware", "manifest.py"), {"PORT_DIR": "/PORT"},
                         {"board": board})
    kind, path, opt = calls[1]
    assert kind == "module" and os.path.basename(path) == "boardprofile.py"
    assert opt == mpybuild.OPT and len(calls) == len(lib_entries()) + 2
    ns = {}
    exec(open(path).read(), ns)
    with open(os.path.join(ROOT, "boards", board, "profile.json")) as f:
        prof = json.load(f)
    del prof["sources"]
    assert ns["PROFILE"] == prof
    r = subprocess.run([mpybuild.mpy_cross(), "-march=xtensawin", "-o", os.devnull, path],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_frozen_set_compiles_for_the_esp32_within_the_flash_budget(tmp_path):
    r = run("mpybuild.py", "--march", "xtensawin", "--out", tmp_path / "x")
    assert r.returncode == 0, r.stderr
    rows = mpybuild.sizes(str(tmp_path / "x"))
    py = sorted(os.path.relpath(os.path.join(d, f), LIB)[:-3]
                for d, _, fs in os.walk(LIB) for f in fs if f.endswith(".py"))
    assert sorted(p[:-4] for p, _ in rows) == py
    total = sum(n for _, n in rows)
    lines = r.stdout.splitlines()
    assert lines[-2].split()[:2] == ["total", str(total)], r.stdout   # the table's total
    print("frozen lib/ (xtensawin, -O%d): %d bytes in %d modules; budget %d"
          % (mpybuild.OPT, total, len(rows), mpybuild.BUDGET))
    # margin: room for the next feature before the budget is reached
    assert total <= mpybuild.BUDGET - 6 * 1024, total
    # the check can fail: a module that does not compile is named
    (tmp_path / "broken.py").write_text("def f(:\n")
    errors = mpybuild.compile_tree(str(tmp_path), str(tmp_path / "out"), march="xtensawin")
    assert [os.path.basename(e[0]) for e in errors] == ["broken.py"]


def test_firmware_boot_and_main_compile_for_xtensawin(tmp_path):
    for name in ("boot.py", "main.py"):
        out = tmp_path / (name[:-3] + ".mpy")
        r = subprocess.run([tool("mpy-cross"), "-march=xtensawin", "-o", str(out),
                            os.path.join(ROOT, "firmware", name)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert out.read_bytes()[:1] == b"M"           # an .mpy header


# ---------------------------------------------------------------- boot.py, main.py

NETWORK_STUB = '''
STA_IF = 0
STAT_WRONG_PASSWORD = 202
STAT_NO_AP_FOUND = 201
import os
MODE = os.getenv("WIFI")
class WLAN:
    def __init__(self, i):
        self.n = 0
    def active(self, on=None):
        return True
    def connect(self, ssid, pw):
        print("CONNECT", ssid, pw)
    def isconnected(self):
        self.n += 1
        return MODE == "ok" and self.n > 3
    def status(self):
        return {"badpw": 202, "noap": 201}.get(MODE, 1)
    def ifconfig(self):
        return ("192.168.1.7", "255.255.255.0", "192.168.1.1", "192.168.1.1")
'''
NTP_STUB = '''
import os
def settime():
    if os.getenv("NTP") != "ok":
        raise OSError(110)
    print("NTP SET")
'''


def run_boot(tmp_path, settings, wifi="ok", ntp="ok"):
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    (stubs / "network.py").write_text(NETWORK_STUB)
    (stubs / "ntptime.py").write_text(NTP_STUB)
    flash = tmp_path / "flash"
    flash.mkdir(exist_ok=True)
    if settings is not None:
        (flash / "settings.json").write_text(json.dumps(settings))
    env = dict(os.environ, MICROPYPATH="%s:%s" % (stubs, LIB), WIFI=wifi, NTP=ntp)
    t0 = time.monotonic()
    r = subprocess.run([MICROPYTHON, os.path.join(ROOT, "firmware", "boot.py")],
                       cwd=str(flash), env=env, capture_output=True, text=True, timeout=60)
    return r, time.monotonic() - t0


def test_boot_joins_wifi_and_reports_every_failure_without_stopping(tmp_path):
    ok = {"wifi.ssid": "home", "wifi.password": "secret"}
    r, _ = run_boot(tmp_path, ok)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["CONNECT home secret", "boot: WiFi home, address 192.168.1.7"]
    r, _ = run_boot(tmp_path, {})
    assert r.returncode == 0 and "boot: no WiFi configured" in r.stdout and "CONNECT" not in r.stdout
    r, took = run_boot(tmp_path, dict(ok, **{"wifi.wait": 1}), wifi="badpw")
    assert r.returncode == 0, r.stderr
    assert "boot: WiFi home not joined within 1 s (wrong password)" in r.stdout
    assert "wifi connect SSID PASS" in r.stdout and took < 10       # the wait is bounded
    r, _ = run_boot(tmp_path, dict(ok, **{"wifi.wait": 1}), wifi="noap")
    assert "(network not found)" in r.stdout
    (tmp_path / "flash" / "settings.json").write_text("{not json")
    r, _ = run_boot(tmp_path, None)
    assert r.returncode == 0 and r.stderr == "", r.stderr        # no traceback, ever


CLOCK = '''
import sys
sys.path.insert(0, %r)
import compat
import ntptime
YEAR = [2000]                    # the power-on epoch of the ESP32 port


class Clock:                     # compat's view of the time module
    ticks_ms = compat.time.ticks_ms

    def gmtime(self):
        return (YEAR[0], 1, 1, 0, 0, 0, 0, 1)


compat.time = Clock()
_set = ntptime.settime


def settime():
    _set()
    YEAR[0] = 2026


ntptime.settime = settime
print(compat.clock_ok(), compat.clock_ok())   # the second call does not retry yet
compat._ntp[0] -= 61000                        # a minute later
print(compat.clock_ok(), compat.clock_ok())
'''


def test_clock_is_set_by_ntp_and_retried_at_most_once_a_minute(tmp_path):
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    # first attempt fails (no network), the retry a minute later succeeds
    (stubs / "ntptime.py").write_text('''
N = [0]
def settime():
    N[0] += 1
    print("NTP", N[0])
    if N[0] == 1:
        raise OSError(110)
''')
    script = tmp_path / "clock.py"
    script.write_text(CLOCK % LIB)
    env = dict(os.environ, MICROPYPATH=str(stubs))
    r = subprocess.run([MICROPYTHON, str(script)], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["NTP", "1", "False", "False", "NTP", "2", "True", "True"]


def run_main(tmp_path, flag=False, interrupt=False, autostart=False):
    board = tmp_path / "board"
    board.mkdir(exist_ok=True)
    (board / "shell.py").write_text("def run():\n    print('CONSOLE')\n\n\n"
                                    "def dispatch(line):\n    print('TYPED ' + line)\n")
    (board / "store.py").write_text("def get(key):\n    return %r.get(key)\n" % (
        {"mcp.serve.autostart": True} if autostart else {}))
    if flag:
        (board / "noconsole").write_text("")
    elif (board / "noconsole").exists():
        (board / "noconsole").unlink()
    p = subprocess.Popen([MICROPYTHON, os.path.join(ROOT, "firmware", "main.py")],
                         cwd=str(board), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, MICROPYPATH=str(board)))
    if interrupt:
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    return p.returncode, out, err


def test_main_starts_the_console_unless_asked_for_the_plain_repl(tmp_path):
    rc, out, err = run_main(tmp_path)
    assert rc == 0 and out.splitlines() == ["AntOS console in 1 s (Ctrl-C: plain REPL)",
                                            "CONSOLE"], (out, err)
    rc, out, err = run_main(tmp_path, interrupt=True)
    assert rc == 0 and "CONSOLE" not in out and "main: plain REPL" in out, (out, err)
    rc, out, err = run_main(tmp_path, flag=True)
    assert rc == 0 and "CONSOLE" not in out and "noconsole file found" in out, (out, err)
    # mcp.serve.autostart: the MCP server first, as if `mcp serve` were typed
    rc, out, err = run_main(tmp_path, autostart=True)
    assert rc == 0 and out.splitlines()[1:] == ["TYPED mcp serve", "CONSOLE"], (out, err)


# ---------------------------------------------------------------- deploy

def dry(*args):
    r = run("deploy.py", *args, "--dry-run")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.replace("\\\n", "").splitlines()
    return r, [shlex.split(ln) for ln in lines if ln and not ln.startswith("#")]


def steps(argv):
    """An mpremote chain split at '+'."""
    out, cur = [], []
    for a in argv:
        if a == "+":
            out.append(cur)
            cur = []
        else:
            cur.append(a)
    return out + [cur]


def lib_mpy():
    """Every lib/ module as the device path deploy must create."""
    want = set()
    for d, _, files in os.walk(LIB):
        rel = os.path.relpath(d, LIB).replace(os.sep, "/")
        for f in files:
            if f.endswith(".py") and "__pycache__" not in d:
                want.add("/lib/" + (rel + "/" if rel != "." else "") + f[:-3] + ".mpy")
    return want


def test_deploy_compiles_lib_and_copies_it_with_boot_and_main():
    r, cmds = dry()
    assert cmds[0] == [deploy.show(PY), "tools/mpybuild.py", "--quiet", "--march",
                       "xtensawin", "--out", "build/deploy-lib"]
    assert len(cmds) == 2 and r.stdout.startswith("# from %s\n" % ROOT)
    s = steps(cmds[1])
    assert s[0][:4] == [".venv/bin/mpremote", "connect", "auto", "exec"]
    assert s[1:3] == [["cp", "firmware/boot.py", ":/boot.py"],
                      ["cp", "firmware/main.py", ":/main.py"]]
    assert s[-1] == ["reset"]
    copies = {c[2]: c[1] for c in s[3:-1]}
    assert all(c[0] == "cp" for c in s[3:-1])
    assert set(copies) == {":" + p for p in lib_mpy()} and len(copies) > 20
    assert all(local == "build/deploy-lib/" + dev[len(":/lib/"):] for dev, local in copies.items())
    # every folder a copy lands in is made first, parents before children
    made = re.findall(r'"(/[^"]*)"', s[0][4])
    need = {os.path.dirname(k[1:]) for k in copies}
    assert need <= set(made)
    assert all(made.index(os.path.dirname(m)) < made.index(m)
               for m in made if os.path.dirname(m) != "/")


def test_deploy_frozen_copies_only_boot_and_main_and_make_passes_the_options():
    _, cmds = dry("--frozen", "--port", "/dev/ttyUSB0", "--no-reset")
    assert cmds == [[".venv/bin/mpremote", "connect", "/dev/ttyUSB0", "cp", "firmware/boot.py",
                     ":/boot.py", "+", "cp", "firmware/main.py", ":/main.py"]]
    # `make deploy DRY_RUN=1` runs the tool's dry run: the same commands
    r = make("deploy", "PORT=/dev/ttyUSB0", "DRY_RUN=1", dry=False)
    assert r.returncode == 0, r.stderr
    printed = [shlex.split(ln) for ln in r.stdout.replace("\\\n", "").splitlines()
               if ln.startswith(".venv/") and "tools/deploy.py" not in ln]
    want = deploy_lines("--port", "/dev/ttyUSB0")
    assert [c[1:] for c in printed] == [c[1:] for c in want]
    assert [os.path.basename(c[0]) for c in printed] == ["python", "mpremote"]
    r = make("deploy", "FROZEN=1", "DRY_RUN=1", dry=False)
    assert "mpybuild" not in r.stdout and "cp firmware/main.py :/main.py" in r.stdout


def deploy_lines(*args):
    return dry(*args)[1]


def test_deploy_mkdir_line_runs_on_micropython_and_is_idempotent(tmp_path):
    base = str(tmp_path)
    dirs = [base + "/lib", base + "/lib/ai", base + "/lib/ai/styles"]
    code = deploy.mkdirs_code(dirs)
    for _ in range(2):
        r = subprocess.run([MICROPYTHON, "-c", code], capture_output=True, text=True,
                           timeout=30)
        assert r.returncode == 0, r.stderr
    assert all(os.path.isdir(d) for d in dirs)


FAKE_MPREMOTE = """#!/bin/sh
# fails as a board busy with the console does once, then succeeds
echo "$@" >> "%(log)s"
if [ ! -f "%(seen)s" ]; then touch "%(seen)s"; echo "could not enter raw repl" >&2; exit 1; fi
%(rest)s
"""


@pytest.mark.parametrize("second", ["ok", "fails"])
def test_deploy_asks_mpremote_twice_then_explains(tmp_path, monkeypatch, capsys, second):
    """A console busy with a command spends mpremote's first raw-REPL
    request (its Ctrl-C stops the command), so deploy runs the chain once
    more; a second failure is explained."""
    fake = tmp_path / "mpremote"
    fake.write_text(FAKE_MPREMOTE % {"log": tmp_path / "log", "seen": tmp_path / "seen",
                                     "rest": "exit 0" if second == "ok" else "exit 1"})
    fake.chmod(0o755)
    monkeypatch.setattr(deploy, "mpremote", lambda: str(fake))
    rc = deploy.main(["--frozen", "--port", "/dev/ttyUSB0"])
    err = capsys.readouterr().err
    calls = (tmp_path / "log").read_text().splitlines()
    assert len(calls) == 2 and calls[0] == calls[1]
    assert calls[0].startswith("connect /dev/ttyUSB0 cp ")
    assert "trying again" in err
    if second == "ok":
        assert rc == 0 and "could not talk" not in err
    else:
        assert rc == 1 and "could not talk to the board" in err and "--port" in err


def test_deploy_help_explains_the_two_kinds_of_board():
    flat = " ".join(run("deploy.py", "--help").stdout.split())
    assert "'.frozen', '/lib'" in flat and "never override" in flat and "--frozen" in flat


def test_deploy_chain_is_understood_by_mpremote(monkeypatch):
    """Feed the chain to mpremote's own command-line parser (command
    handlers replaced by recorders, no device): every step must come out as
    the intended command with the intended arguments."""
    import mpremote.main as mm
    argv = deploy.commands("/dev/ttyUSB0", tool="mpremote")[-1]
    seen = []

    def rec(name, fields):
        def handler(state, args):
            state.did_action()
            seen.append((name,) + tuple(getattr(args, f) for f in fields))
        return handler
    for name, fields in (("connect", ("device",)), ("exec", ("expr",)),
                         ("fs", ("command", "path"))):
        monkeypatch.setitem(mm._COMMANDS, name, (rec(name, fields), mm._COMMANDS[name][1]))
    monkeypatch.setattr(mm, "load_user_config", type("C", (), {"commands": {}}))
    monkeypatch.setattr(sys, "argv", argv)
    assert mm.main() == 0
    files, dirs = deploy.lib_files()
    assert seen[0] == ("connect", ["/dev/ttyUSB0"])
    assert seen[1] == ("exec", [deploy.mkdirs_code(dirs)])
    cps = [s for s in seen if s[0] == "fs"]
    assert all(s[1] == ["cp"] and len(s[2]) == 2 for s in cps)
    assert cps[:2] == [("fs", ["cp"], [os.path.join(ROOT, "firmware", "boot.py"), ":/boot.py"]),
                       ("fs", ["cp"], [os.path.join(ROOT, "firmware", "main.py"), ":/main.py"])]
    assert len(cps) == 2 + len(files)
    assert seen[-1][0] == "exec" and "machine.reset()" in seen[-1][1][0]


SMOKE = '''
import sys
sys.path[:] = ["", "lib"]          # the board's sys.path, without the frozen part
import ai, store
store.set_root(".")
print("MODULE", ai.__file__)
reply, err = ai.ask_simple("hello", {"provider": "openai", "base_url": sys.argv[1],
                                     "model": "gpt-4o-mini", "key": "sk-test",
                                     "style": "openai"})
print("REPLY", repr(reply), repr(err))
'''


def test_deployed_set_runs_a_chat_round_under_micropython(tmp_path):
    """Do what deploy does, with the board replaced by a folder: compile lib/
    for the host (the same mpy-cross run, without -march), then carry out
    the chain's cp steps; boot the result under the unix port with only the
    board's /lib on sys.path and run one chat round against the fake."""
    cmds = deploy.commands(tool="mpremote", march=None, build=str(tmp_path / "build"))
    r = subprocess.run(cmds[0], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    board = tmp_path / "board"
    for step in steps(cmds[1]):
        if step[0] == "cp":
            dest = board / step[2].lstrip(":/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(step[1], dest)
    assert {"/" + str(p.relative_to(board)) for p in board.rglob("*.mpy")} == lib_mpy()
    assert (board / "boot.py").is_file() and (board / "main.py").is_file()
    (board / "smoke.py").write_text(SMOKE)
    with FakeOpenAI() as srv:
        srv.queue(Text("Hi from the fake."))
        r = subprocess.run([MICROPYTHON, "-X", "heapsize=512K", "smoke.py", srv.base_url],
                           cwd=str(board), capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, MICROPYPATH=":"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MODULE lib/ai/__init__.mpy" in r.stdout, r.stdout
    assert "REPLY 'Hi from the fake.' None" in r.stdout, r.stdout
