"""Putting the firmware on a board: tools/deploy.py (mpremote),
tools/flash.py (esptool, firmware build), the Makefile targets, and the
board/firmware folders they use. No board and no network: deploy/flash are
checked through --dry-run and `make -n`."""
import os
import re
import shlex
import subprocess
import sys

import pytest

from toolrun import PY, ROOT, TOOLS, load, run

BOARDS = {"esp32": "ANTOS_ESP32", "esp32s3": "ANTOS_ESP32_S3"}
deploy = load("deploy")
flash = load("flash")


# ---------------------------------------------------------------- deploy

def dry(tool, *args, env=None):
    r = run(tool, *args, "--dry-run", env=env)
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


def test_deploy_dry_run_copies_boot_main_and_bundle(tmp_path):
    ca = tmp_path / "ca.der"
    ca.write_bytes(b"\x30\x00")
    r, cmds = dry("deploy.py", "--ca", ca)
    assert r.returncode == 0, r.stderr
    assert len(cmds) == 1
    s = steps(cmds[0])
    assert s[0][:3] == [".venv/bin/mpremote", "connect", "auto"] and s[0][3] == "exec"
    assert '("/certs",)' in s[0][4]
    assert s[1:] == [["cp", "firmware/boot.py", ":/boot.py"],
                     ["cp", "firmware/main.py", ":/main.py"],
                     ["cp", str(ca), ":/certs/ca.der"],
                     ["reset"]]
    assert r.stdout.startswith("# from %s\n" % ROOT)
    r, cmds = dry("deploy.py", "--ca", ca, "--port", "/dev/ttyUSB0", "--no-reset")
    s = steps(cmds[0])
    assert s[0][1:3] == ["connect", "/dev/ttyUSB0"] and s[-1][0] == "cp"


def test_deploy_lib_compiles_for_xtensawin_and_copies_every_module(tmp_path):
    ca = tmp_path / "ca.der"
    ca.write_bytes(b"\x30\x00")
    r, cmds = dry("deploy.py", "--ca", ca, "--lib")
    assert r.returncode == 0, r.stderr
    assert cmds[0][1:] == ["tools/mpybuild.py", "--march", "xtensawin", "--out",
                           "build/deploy-lib"]
    s = steps(cmds[1])
    copies = {c[2]: c[1] for c in s if c[0] == "cp"}
    want = {}
    for d, _, files in os.walk(os.path.join(ROOT, "lib")):
        rel = os.path.relpath(d, os.path.join(ROOT, "lib")).replace(os.sep, "/")
        for f in files:
            if f.endswith(".py") and "__pycache__" not in d:
                p = (rel + "/" if rel != "." else "") + f[:-3] + ".mpy"
                want[":/lib/" + p] = "build/deploy-lib/" + p
    assert len(want) > 10
    assert {k: v for k, v in copies.items() if k.startswith(":/lib/")} == want
    # every directory a copy lands in is made first, parents before children
    made = re.findall(r'"(/[^"]*)"', s[0][4])
    need = {os.path.dirname(k[1:]) for k in copies} - {"/"}
    assert need <= set(made)
    assert all(made.index(os.path.dirname(m)) < made.index(m)
               for m in made if os.path.dirname(m) != "/")


def test_deploy_mkdir_line_runs_on_micropython_and_is_idempotent(tmp_path):
    base = str(tmp_path)
    dirs = [base + "/certs", base + "/lib", base + "/lib/ai", base + "/lib/ai/styles"]
    code = deploy.mkdirs_code(dirs)
    micropython = os.path.join(os.path.dirname(PY), "micropython")
    for _ in range(2):
        r = subprocess.run([micropython, "-c", code], capture_output=True, text=True,
                           timeout=30)
        assert r.returncode == 0, r.stderr
    assert all(os.path.isdir(d) for d in dirs)


def test_deploy_errors_and_help(tmp_path):
    r = run("deploy.py", "--ca", tmp_path / "missing.der", "--dry-run")
    assert r.returncode == 1 and "make certs" in r.stderr
    h = run("deploy.py", "--help").stdout
    flat = " ".join(h.split())
    assert "'.frozen', '/lib'" in flat and "never override" in flat


# ---------------------------------------------------------------- flash

def fake_image(path, chip_id):
    """Just the ESP image header bits flash.py checks: magic, chip id."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = bytearray(64)
    head[0], head[1] = 0xE9, 3
    head[12], head[13] = chip_id & 0xFF, chip_id >> 8
    with open(path, "wb") as f:
        f.write(bytes(head))
    return path


@pytest.fixture
def mpdir(tmp_path):
    mp = tmp_path / "micropython"
    fake_image(str(mp / "ports/esp32/build-ANTOS_ESP32/firmware.bin"), 0)
    fake_image(str(mp / "ports/esp32/build-ANTOS_ESP32_S3/firmware.bin"), 9)
    return str(mp)


ESPTOOL = os.path.join(ROOT, ".venv", "bin", "esptool")


def test_flash_dry_run_offsets_per_chip(mpdir):
    fw32 = mpdir + "/ports/esp32/build-ANTOS_ESP32/firmware.bin"
    fws3 = mpdir + "/ports/esp32/build-ANTOS_ESP32_S3/firmware.bin"
    r, cmds = dry("flash.py", "--micropython", mpdir)
    assert r.returncode == 0, r.stderr
    assert cmds == [[ESPTOOL, "--chip", "esp32", "--baud", "460800", "write-flash",
                     "0x1000", fw32]]
    r, cmds = dry("flash.py", "--chip", "esp32s3", "--port", "/dev/ttyACM0", "--erase",
                  env={"MICROPY_DIR": mpdir})
    assert r.returncode == 0, r.stderr
    base = [ESPTOOL, "--chip", "esp32s3", "--port", "/dev/ttyACM0", "--baud", "460800"]
    assert cmds == [base + ["erase-flash"], base + ["write-flash", "0x0", fws3]]
    r, cmds = dry("flash.py", "--baud", "921600", fw32)     # explicit file, no checkout
    assert cmds[0][4:] == ["921600", "write-flash", "0x1000", fw32]


def test_flash_refuses_missing_wrong_or_foreign_images(mpdir, tmp_path):
    r = run("flash.py", "--micropython", tmp_path / "empty", "--dry-run")
    assert r.returncode == 1
    assert "firmware not found: %s" % (tmp_path / "empty/ports/esp32/build-ANTOS_ESP32/firmware.bin") in r.stderr
    env = {k: v for k, v in os.environ.items() if k != "MICROPY_DIR"}
    r = subprocess.run([PY, os.path.join(TOOLS, "flash.py"), "--dry-run"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "--micropython DIR or set MICROPY_DIR" in r.stderr
    r = run("flash.py", "--chip", "esp32s3", "--dry-run",
            mpdir + "/ports/esp32/build-ANTOS_ESP32/firmware.bin")
    assert r.returncode == 1 and "image for esp32, not esp32s3" in r.stderr
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff" * 64)
    r = run("flash.py", "--dry-run", junk)
    assert r.returncode == 1 and "not an ESP32 firmware image" in r.stderr
    assert r.stdout == ""


def test_flash_build_prints_the_make_commands(tmp_path):
    mp = tmp_path / "mp"
    (mp / "ports/esp32").mkdir(parents=True)
    (mp / "ports/esp32/Makefile").write_text("all:\n")
    for chip, board in BOARDS.items():
        r = run("flash.py", "--build", "--chip", chip, "--micropython", mp)
        assert r.returncode == 0, r.stderr
        cmds = [shlex.split(ln) for ln in r.stdout.splitlines() if not ln.startswith("#")]
        bd = "BOARD_DIR=" + os.path.join(ROOT, "boards", board)
        assert cmds == [["make", "-C", str(mp / "mpy-cross")],
                        ["make", "-C", str(mp / "ports/esp32"), bd, "submodules"],
                        ["make", "-C", str(mp / "ports/esp32"), bd]]
        assert os.path.isabs(bd[len("BOARD_DIR="):])
        assert "build-%s/firmware.bin" % board in r.stdout and "ESP-IDF 5.5" in r.stdout
    env = {k: v for k, v in os.environ.items() if k != "IDF_PATH"}
    r = subprocess.run([PY, os.path.join(TOOLS, "flash.py"), "--build", "--run",
                        "--micropython", str(mp)], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "ESP-IDF is not set up" in r.stderr


# ---------------------------------------------------------------- make

def make_n(*args, env=None):
    """The tool command lines `make -n` would run, as token lists (the
    .venv bootstrap lines, shown when the stamp is stale, are left out)."""
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(["make", "-n"] + list(args), cwd=ROOT, capture_output=True,
                       text=True, env=e, timeout=60)
    assert r.returncode == 0, r.stderr
    return [ln.split() for ln in r.stdout.splitlines() if "tools/" in ln]


def test_make_targets_show_the_tool_commands():
    py = ".venv/bin/python"
    assert make_n("flash", "PORT=/dev/ttyUSB1", "CHIP=esp32s3", "ERASE=1") == [
        [py, "tools/flash.py", "--chip", "esp32s3", "--port", "/dev/ttyUSB1",
         "--baud", "460800", "--erase"]]
    # a PORT in the environment (web tools set one) does not leak in
    assert make_n("flash", env={"PORT": "8080"}) == [
        [py, "tools/flash.py", "--chip", "esp32", "--port", "auto", "--baud", "460800"]]
    assert make_n("deploy", "PORT=/dev/ttyUSB0", "DEPLOY_ARGS=--lib") == [
        [py, "tools/cabundle.py", "-o", "build/certs/ca.der"],
        [py, "tools/deploy.py", "--port", "/dev/ttyUSB0", "--ca", "build/certs/ca.der",
         "--lib"]]
    assert make_n("certs") == [[py, "tools/cabundle.py", "-o", "build/certs/ca.der"]]
    assert make_n("firmware", "CHIP=esp32s3") == [
        [py, "tools/flash.py", "--build", "--run", "--chip", "esp32s3"]]


# ---------------------------------------------------------------- boards, firmware

def cmake_list(text, var):
    m = re.search(r"set\(\s*%s\s+(.*?)\)" % var, text, re.S)
    assert m, "no set(%s ...)" % var
    return m.group(1).split()


@pytest.mark.parametrize("chip,board", sorted(BOARDS.items()))
def test_board_folder_is_a_valid_out_of_tree_board(chip, board):
    d = os.path.join(ROOT, "boards", board)
    cm = open(os.path.join(d, "mpconfigboard.cmake")).read()
    h = open(os.path.join(d, "mpconfigboard.h")).read()
    assert "MICROPY_HW_BOARD_NAME" in h and "MICROPY_HW_MCU_NAME" in h
    frags = cmake_list(cm, "SDKCONFIG_DEFAULTS")
    assert frags[:2] == ["boards/sdkconfig.base", "boards/sdkconfig.ble"]
    for f in frags:       # port fragments relative, board files via MICROPY_BOARD_DIR
        assert f.startswith("boards/") or f.startswith("${MICROPY_BOARD_DIR}/"), f
        if f.startswith("${MICROPY_BOARD_DIR}/"):
            assert os.path.exists(os.path.join(d, f.split("/", 1)[1])), f
    assert "${MICROPY_PORT_DIR}" not in cm          # not defined yet at that point
    assert cmake_list(cm, "MICROPY_FROZEN_MANIFEST") == ["${MICROPY_BOARD_DIR}/manifest.py"]
    if chip == "esp32s3":
        assert cmake_list(cm, "IDF_TARGET") == ["esp32s3"]
        for f in ("boards/sdkconfig.spiram_sx", "boards/ESP32_GENERIC_S3/sdkconfig.board",
                  "boards/sdkconfig.spiram_oct"):
            assert f in frags
    else:
        assert "IDF_TARGET" not in cm and not any("spiram" in f for f in frags)
    # board manifest: the port's manifest first, then ours
    calls = run_manifest(os.path.join(d, "manifest.py"), {"BOARD_DIR": d,
                                                          "PORT_DIR": "/PORT"})
    assert calls[0] == ("include", "/PORT/boards/manifest.py")
    assert calls[1] == ("include", os.path.join(ROOT, "firmware", "manifest.py"))


def run_manifest(path, path_vars):
    """Execute a manifest the way MicroPython's manifestfile.py does: $(VAR)
    substitution, paths relative to the manifest's folder. Records calls;
    includes are not followed."""
    calls = []
    here = os.path.dirname(os.path.abspath(path))

    def resolve(p):
        for k, v in path_vars.items():
            p = p.replace("$(%s)" % k, v)
        return os.path.normpath(os.path.join(here, p))

    def include(p, **kw):
        calls.append(("include", resolve(p)))

    def module(name, base_path=".", opt=None):
        calls.append(("module", os.path.join(resolve(base_path), name)))

    def package(name, files=None, base_path=".", opt=None):
        assert files is None, "package %s lists files: new modules would be missed" % name
        calls.append(("package", os.path.join(resolve(base_path), name)))

    def other(*a, **kw):
        calls.append(("other", a))
    g = {"include": include, "module": module, "package": package, "require": other,
         "freeze": other, "metadata": other, "options": None}
    exec(compile(open(path).read(), path, "exec"), g)
    return calls


def test_firmware_manifest_freezes_every_top_level_module_and_package():
    lib = os.path.join(ROOT, "lib")
    calls = run_manifest(os.path.join(ROOT, "firmware", "manifest.py"), {})
    frozen = set()
    for kind, p in calls:
        assert kind in ("module", "package"), (kind, p)
        assert os.path.dirname(p) == lib, p
        if kind == "module":
            assert p.endswith(".py") and os.path.isfile(p), p
        else:
            assert os.path.isfile(os.path.join(p, "__init__.py")), p
        frozen.add(os.path.basename(p))
    present = set()
    for n in os.listdir(lib):
        full = os.path.join(lib, n)
        if n.endswith(".py"):
            present.add(n)
        elif os.path.isdir(full) and n != "__pycache__":
            assert os.path.isfile(os.path.join(full, "__init__.py")), \
                "lib/%s has no __init__.py (package() would freeze it as a " \
                "namespace nobody imports)" % n
            present.add(n)
    assert frozen == present, ("not frozen: %s; frozen but absent: %s"
                               % (sorted(present - frozen), sorted(frozen - present)))


def test_firmware_boot_and_main_compile_for_xtensawin(tmp_path):
    tool = os.path.join(os.path.dirname(PY), "mpy-cross")
    for name in ("boot.py", "main.py"):
        out = tmp_path / (name[:-3] + ".mpy")
        r = subprocess.run([tool, "-march=xtensawin", "-o", str(out),
                            os.path.join(ROOT, "firmware", name)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert out.read_bytes()[:1] == b"M"           # an .mpy header
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    r = subprocess.run([tool, "-march=xtensawin", str(bad)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0                         # the check can fail


def test_deploy_chain_is_understood_by_mpremote(monkeypatch, tmp_path):
    """Feed the --lib chain to mpremote's own command-line parser (command
    handlers replaced by recorders, no device): every step must come out as
    the intended command with the intended arguments."""
    import mpremote.main as mm
    ca = tmp_path / "ca.der"
    ca.write_bytes(b"\x30\x00")
    argv = deploy.commands("/dev/ttyUSB0", str(ca), lib=True, reset=True,
                           tool="mpremote")[-1]
    seen = []

    def rec(name, fields):
        def handler(state, args):
            state.did_action()
            seen.append((name,) + tuple(getattr(args, f) for f in fields))
        return handler
    for name, fields in (("connect", ("device",)), ("exec", ("expr",)),
                         ("fs", ("command", "path"))):
        monkeypatch.setitem(mm._COMMANDS, name, (rec(name, fields), mm._COMMANDS[name][1]))
    monkeypatch.setattr(mm, "load_user_config", lambda: type("C", (), {"commands": {}})())
    monkeypatch.setattr(sys, "argv", argv)
    assert mm.main() == 0
    assert seen[0] == ("connect", ["/dev/ttyUSB0"])
    assert seen[1] == ("exec", [deploy.mkdirs_code(["/certs"] + deploy.lib_files()[1])])
    cps = [s for s in seen if s[0] == "fs"]
    assert all(s[1] == ["cp"] and len(s[2]) == 2 for s in cps)
    assert cps[:3] == [("fs", ["cp"], [os.path.join(ROOT, "firmware", "boot.py"), ":/boot.py"]),
                       ("fs", ["cp"], [os.path.join(ROOT, "firmware", "main.py"), ":/main.py"]),
                       ("fs", ["cp"], [str(ca), ":/certs/ca.der"])]
    assert len(cps) == 3 + len(deploy.lib_files()[0])
    assert seen[-1][0] == "exec" and "machine.reset()" in seen[-1][1][0]
