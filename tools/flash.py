"""Build and flash the AntOS firmware (esptool 5).

Flash (the default action):
    python tools/flash.py [--chip esp32|esp32s3] [--port auto] [--baud 460800]
                          [--erase] [--micropython DIR] [--dry-run] [FIRMWARE]
  FIRMWARE defaults to <micropython>/ports/esp32/build-<BOARD>/firmware.bin,
  <micropython> being --micropython or $MICROPY_DIR and BOARD ANTOS_ESP32
  (esp32) or ANTOS_ESP32_S3 (esp32s3). That file is the merged image
  (bootloader + partition table + app) and goes at 0x1000 on the ESP32,
  0x0 on the ESP32-S3. Its header is checked first: ESP image magic 0xE9
  and the chip id (0 = ESP32, 9 = ESP32-S3) must match --chip, so an S3
  image is never written to an ESP32 at the wrong offset.
  Commands: [esptool --chip C [--port P] --baud B erase-flash]  (--erase)
            esptool --chip C [--port P] --baud B write-flash OFFSET FIRMWARE

Build (prints, with --run runs, the commands; needs a real ESP-IDF):
    python tools/flash.py --build [--chip ...] [--micropython DIR] [--run]
  On your machine: a MicroPython 1.28 or 1.29 checkout (git clone of
  micropython/micropython at tag v1.28.0 / v1.29.0) and ESP-IDF 5.5.x
  (1.28 wants 5.5.1, 1.29 wants 5.5.2) set up with `. $IDF_PATH/export.sh`.
  ESP-IDF cannot be installed on the machine this tool was written on, so
  the build itself is not tested here; `make -n` of these commands is.
    make -C <micropython>/mpy-cross
    make -C <micropython>/ports/esp32 BOARD_DIR=<abs path of boards/BOARD> submodules
    make -C <micropython>/ports/esp32 BOARD_DIR=<abs path of boards/BOARD>
  (BOARD_DIR must be absolute, else "Invalid BOARD specified".)

--dry-run prints the commands instead of running them.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# chip -> (board folder under boards/, flash offset of firmware.bin, image chip id)
CHIPS = {
    "esp32": ("ANTOS_ESP32", "0x1000", 0),
    "esp32s3": ("ANTOS_ESP32_S3", "0x0", 9),
}
CHIP_NAMES = {0: "esp32", 2: "esp32s2", 5: "esp32c3", 9: "esp32s3", 12: "esp32c2",
              13: "esp32c6", 16: "esp32h2", 18: "esp32p4"}
IDF_HINT = ("ESP-IDF is not set up in this shell: install ESP-IDF 5.5.x "
            "(MicroPython 1.28 wants 5.5.1, 1.29 wants 5.5.2) and run "
            "`. $IDF_PATH/export.sh`, then try again")


class Error(Exception):
    pass


def esptool():
    here = os.path.join(ROOT, ".venv", "bin", "esptool")
    if os.path.exists(here):
        return here
    return shutil.which("esptool") or here


def board_dir(chip):
    return os.path.join(ROOT, "boards", CHIPS[chip][0])


def micropython_dir(given):
    mp = given or os.environ.get("MICROPY_DIR")
    if not mp:
        raise Error("no MicroPython checkout: give --micropython DIR or set "
                    "MICROPY_DIR (or give the firmware.bin path)")
    return os.path.abspath(os.path.expanduser(mp))


def default_firmware(chip, mp):
    return os.path.join(mp, "ports", "esp32", "build-" + CHIPS[chip][0], "firmware.bin")


def image_chip(path):
    """Chip id from an ESP image header: byte 0 is the magic 0xE9, bytes
    12-13 (extended header) the chip id, little-endian."""
    with open(path, "rb") as f:
        head = f.read(16)
    if len(head) < 16 or head[0] != 0xE9:
        raise Error("%s is not an ESP32 firmware image (no 0xE9 magic byte); use "
                    "the merged firmware.bin of the build" % path)
    return head[12] | (head[13] << 8)


def flash_commands(chip, firmware, port="auto", baud=460800, erase=False, tool=None):
    tool = tool or esptool()
    base = [tool, "--chip", chip]
    if port and port != "auto":       # esptool finds the port by itself
        base += ["--port", port]
    base += ["--baud", str(baud)]
    cmds = []
    if erase:
        cmds.append(base + ["erase-flash"])
    cmds.append(base + ["write-flash", CHIPS[chip][1], firmware])
    return cmds


def build_commands(chip, mp):
    port = os.path.join(mp, "ports", "esp32")
    bd = "BOARD_DIR=" + board_dir(chip)
    return [["make", "-C", os.path.join(mp, "mpy-cross")],
            ["make", "-C", port, bd, "submodules"],
            ["make", "-C", port, bd]]


def run_all(cmds, dry_run, what):
    for c in cmds:
        line = shlex.join(c)
        if dry_run:
            print(line)
            continue
        print("+ " + line, flush=True)
        r = subprocess.run(c)
        if r.returncode:
            raise Error("%s failed (exit %d): %s" % (what, r.returncode, line))


def do_build(a):
    mp = micropython_dir(a.micropython)
    cmds = build_commands(a.chip, mp)
    if not os.path.isfile(os.path.join(mp, "ports", "esp32", "Makefile")):
        msg = ("%s is not a MicroPython checkout (no ports/esp32/Makefile); clone "
               "micropython/micropython at v1.28.0 or v1.29.0" % mp)
        if not a.run:
            print("# note: " + msg)
        else:
            raise Error(msg)
    if not a.run:
        print("# needs ESP-IDF 5.5.x set up (. $IDF_PATH/export.sh); --run runs these")
        run_all(cmds, True, "build")
        print("# output: %s" % default_firmware(a.chip, mp))
        return 0
    if not (os.environ.get("IDF_PATH") and shutil.which("idf.py")):
        raise Error(IDF_HINT)
    run_all(cmds, False, "build")
    print("flash: built %s" % default_firmware(a.chip, mp))
    return 0


def do_flash(a):
    fw = a.firmware or default_firmware(a.chip, micropython_dir(a.micropython))
    fw = os.path.abspath(fw)
    if not os.path.isfile(fw):
        raise Error("firmware not found: %s (build it: python tools/flash.py --build "
                    "--chip %s --micropython DIR --run)" % (fw, a.chip))
    cid = image_chip(fw)
    if cid != CHIPS[a.chip][2]:
        raise Error("%s is an image for %s, not %s: give the matching --chip or "
                    "firmware" % (fw, CHIP_NAMES.get(cid, "chip id %d" % cid), a.chip))
    cmds = flash_commands(a.chip, fw, a.port, a.baud, a.erase)
    if not a.dry_run and not os.path.exists(cmds[0][0]):
        raise Error("esptool not found (run `make` once to create .venv, or pip "
                    "install esptool)")
    try:
        run_all(cmds, a.dry_run, "esptool")
    except Error:
        print("flash: if esptool cannot connect, hold BOOT, tap RESET (EN), release "
              "BOOT and try again; check --port", file=sys.stderr)
        raise
    if not a.dry_run:
        print("flash: done. Next: make certs deploy PORT=%s" % a.port)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="flash.py",
        description="Flash the AntOS firmware with esptool (default), or print/run "
                    "the firmware build (--build). See the docstring of this file.")
    p.add_argument("firmware", nargs="?",
                   help="firmware.bin to flash (default: the build output in the "
                        "MicroPython checkout)")
    p.add_argument("--chip", choices=sorted(CHIPS), default="esp32",
                   help="esp32 (firmware at 0x1000, board ANTOS_ESP32) or esp32s3 "
                        "(0x0, board ANTOS_ESP32_S3); default esp32")
    p.add_argument("--port", default="auto",
                   help="serial port, or auto (esptool searches; default)")
    p.add_argument("--baud", type=int, default=460800, help="default 460800")
    p.add_argument("--erase", action="store_true",
                   help="erase the whole flash first (also the filesystem: "
                        "settings, keys and /certs are lost)")
    p.add_argument("--micropython", metavar="DIR",
                   help="MicroPython checkout (default $MICROPY_DIR)")
    p.add_argument("--dry-run", action="store_true", help="print the commands only")
    p.add_argument("--build", action="store_true",
                   help="print the firmware build commands (make -C "
                        "<micropython>/ports/esp32 BOARD_DIR=...); with --run, run them")
    p.add_argument("--run", action="store_true",
                   help="with --build: run the build (needs ESP-IDF 5.5.x)")
    a = p.parse_args(argv)
    try:
        if a.build:
            return do_build(a)
        if a.run:
            raise Error("--run only goes with --build")
        return do_flash(a)
    except Error as e:
        print("flash: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
