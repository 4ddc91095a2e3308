# AntOS AI firmware: host-side entry points.
#   make check  the quick tier a change needs before a commit (under 2 min):
#               CPython tests with the loopback fakes + MicroPython smoke tests
#   make test   create .venv (first time), install pinned tools, run the suite
#               (JOBS pytest workers, default 3: most tests wait on sockets)
#   make sim    run the serial console on the MicroPython unix port, as the
#               board runs it (BOARD=ANTOS_ESP32, the default, ANTOS_ESP32S3 or
#               ANTOS_XIAO_S3_SENSE)
#   make demo   the console with a demo AI provider and MCP server on this
#               computer: no key, no network (tools/demo.py; also make sim DEMO=1)
#   make bench  speed and heap benchmarks on the MicroPython unix port
#   make measure  bisect the smallest heaps, run make bench, and write
#               tools/bench/MEASUREMENTS.md (generated; never edited by hand)
#   make lint   ruff (pinned) over lib/, host_tests/ and tools/ (rules: ruff.toml)
#   make mpy    compile lib/ for the ESP32 (ARCH=xtensawin) into build/ARCH,
#               with a size table against the frozen-size budget
#   make dist   a release in build/dist: the .mpy bundle, the mip index,
#               SHA256SUMS (tools/dist.py)
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NODE_STAMP := tools/node/node_modules/.installed
# The tests' and make sim's MicroPython: v1.28.0 built for 32 bits, once
# (tools/mpunix.py; needs gcc-multilib, which it installs when run as root)
MICROPYTHON := $(VENV)/micropython-1.28.0-x86/micropython

.PHONY: test check sim demo bench measure mpy dist clean lint

$(STAMP): tools/requirements.txt tools/requirements-peers.txt tools/constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r tools/requirements.txt -r tools/requirements-peers.txt -c tools/constraints.txt
	touch $(STAMP)

# MCP test peers (Node): exact versions from the committed lock file.
$(NODE_STAMP): tools/node/package.json tools/node/package-lock.json
	cd tools/node && npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

$(MICROPYTHON): | $(STAMP)
	VENV=$(abspath $(VENV)) $(PY) tools/mpunix.py >/dev/null

JOBS ?= 3
XDIST = $(if $(filter-out 0 1,$(JOBS)),-n $(JOBS))

test: $(STAMP) $(NODE_STAMP) $(MICROPYTHON)
	$(PY) -m pytest host_tests $(XDIST) $(PYTEST_ARGS)

check: $(STAMP) $(MICROPYTHON)
	$(PY) -m pytest host_tests $(XDIST) -m "smoke or not (micropython or peers or conformance or pty)" $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check lib host_tests tools

sim: $(STAMP) $(MICROPYTHON)
	$(PY) tools/$(if $(DEMO),demo.py $(DEMO_ARGS),sim.py --board $(BOARD) $(SIM_ARGS))

demo: $(STAMP) $(MICROPYTHON)
	$(PY) tools/demo.py $(DEMO_ARGS)

bench: $(STAMP) $(MICROPYTHON)
	$(PY) tools/bench/run.py

measure: $(STAMP) $(NODE_STAMP) $(MICROPYTHON)
	$(PY) tools/bench/measure.py --jobs $(JOBS) $(PYTEST_ARGS)

ARCH = xtensawin
mpy: $(STAMP)
	$(PY) tools/mpybuild.py --march $(ARCH) --out build/$(ARCH)

# A release: lib/ as .mpy for ARCH (a zip), the mip index of the parts
# (.mpy for ARCH and .py), the firmware image when MICROPY_DIR's is built,
# and SHA256SUMS of them all, in DIST_OUT (tools/README.md: "Releases").
DIST_OUT = build/dist
dist: $(STAMP)
	$(PY) tools/dist.py --arch $(ARCH) --out $(DIST_OUT) $(if $(FIRMWARE),--firmware $(FIRMWARE))

clean:
	rm -rf build .pytest_cache

# Put the firmware on a board (tools/README.md: "Flashing and deploying").
#   make firmware BOARD=ANTOS_ESP32 MICROPY_DIR=~/micropython
#                        build it (needs the ESP-IDF environment: . export.sh);
#                        CAMERA_DIR=<a micropython-camera-API checkout>: its
#                        camera module too (BOARD=ANTOS_XIAO_S3_SENSE)
#   make flash BOARD=ANTOS_ESP32 PORT=/dev/ttyUSB0 MICROPY_DIR=~/micropython
#                        write build-BOARD/firmware.bin (or FIRMWARE=file)
#   make erase BOARD=... PORT=...      wipe the whole flash (settings too)
#   make deploy PORT=... [DRY_RUN=1] [ARCH=host]  stock MicroPython: copy lib/ as .mpy
#                                      (ARCH=host: for tools/simboard.py),
#                                      boot.py and main.py with mpremote;
#                                      FROZEN=1: our firmware, boot/main only
#   make repl PORT=...                 open the console
#   make hil PORT=... [HOST=address] [ONLY=name,...]
#                        the MicroPython scenarios on the board: heap table
#                        (tools/README.md: "Testing on a board")
#   make simboard        a simulated board on a serial line (build/simboard/tty)
#   make certs                         regenerate lib/cacerts.py (CA roots)
# Plain "=" so a PORT/BOARD in the environment does not leak in; set them
# on the make command line. PORT=auto: the first USB serial port.
PORT = auto
BOARD = ANTOS_ESP32
BAUD = 460800
BOARD_DIR = $(abspath boards/$(BOARD))
CHIP_ANTOS_ESP32 = esp32
CHIP_ANTOS_ESP32S3 = esp32s3
CHIP_ANTOS_XIAO_S3_SENSE = esp32s3
CHIP = $(CHIP_$(BOARD))
# where the merged image (bootloader + partition table + app) starts
OFFSET_esp32 = 0x1000
OFFSET_esp32s3 = 0x0
FIRMWARE = $(if $(MICROPY_DIR),$(MICROPY_DIR)/ports/esp32/build-$(BOARD)/firmware.bin)
ESPTOOL = $(VENV)/bin/esptool --chip $(CHIP) $(if $(filter-out auto,$(PORT)),--port $(PORT)) --baud $(BAUD)
MPREMOTE = $(VENV)/bin/mpremote connect $(PORT)
need_board = $(if $(CHIP),,$(error BOARD=$(BOARD) is not one of: ANTOS_ESP32 ANTOS_ESP32S3 ANTOS_XIAO_S3_SENSE))
need_micropython = $(if $(MICROPY_DIR),,$(error give MICROPY_DIR=<path of a \
  MicroPython 1.28 or 1.29 checkout (git tag v1.28.0 or v1.29.0)>))$(if $(wildcard \
  $(MICROPY_DIR)/ports/esp32/Makefile),,$(error MICROPY_DIR=$(MICROPY_DIR) is not a \
  MicroPython checkout (no ports/esp32/Makefile)))
.PHONY: firmware flash erase deploy repl certs hil simboard

# "make" (not $(MAKE)) so that make -n prints these lines without running them
firmware:
	$(need_board)$(need_micropython)
	@command -v idf.py >/dev/null || { echo "firmware: ESP-IDF is not set up in this shell: run . <esp-idf>/export.sh (MicroPython 1.28 wants ESP-IDF 5.5.1, 1.29 wants 5.5.2)" >&2; exit 1; }
	make -C $(MICROPY_DIR)/mpy-cross
	make -C $(MICROPY_DIR)/ports/esp32 BOARD_DIR=$(BOARD_DIR) submodules
	make -C $(MICROPY_DIR)/ports/esp32 BOARD_DIR=$(BOARD_DIR)$(if $(CAMERA_DIR), USER_C_MODULES=$(abspath $(CAMERA_DIR))/src/micropython.cmake)
	@echo "firmware: $(FIRMWARE) (next: make flash BOARD=$(BOARD) PORT=... MICROPY_DIR=$(MICROPY_DIR))"

flash: $(STAMP)
	$(need_board)
	$(if $(FIRMWARE),,$(error give MICROPY_DIR=<the checkout make firmware built in> or FIRMWARE=file.bin))
	@test -f "$(FIRMWARE)" || { echo "flash: $(FIRMWARE) not found: build it first (make firmware BOARD=$(BOARD) MICROPY_DIR=...)" >&2; exit 1; }
	$(ESPTOOL) write-flash $(OFFSET_$(CHIP)) $(FIRMWARE)

erase: $(STAMP)
	$(need_board)
	$(ESPTOOL) erase-flash

deploy: $(STAMP)
	$(PY) tools/deploy.py --port $(PORT) --march $(ARCH) $(if $(FROZEN),--frozen) $(if $(DRY_RUN),--dry-run)

repl: $(STAMP)
	$(MPREMOTE) repl

hil: $(STAMP)
	$(PY) tools/hil.py --port $(PORT) $(if $(HOST),--host $(HOST)) $(if $(ONLY),--only $(ONLY))

simboard: $(STAMP) $(MICROPYTHON)
	$(PY) tools/simboard.py $(SIMBOARD_ARGS)

certs: $(STAMP)
	$(PY) tools/cabundle.py $(CERTS_ARGS)
