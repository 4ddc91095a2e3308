# AntOS AI firmware: host-side entry points.
#   make test   create .venv (first time), install pinned tools, run the suite
#   make sim    run the serial console on the MicroPython unix port
#   make bench  speed and heap benchmarks on the MicroPython unix port
#   make mpy    compile lib/ for the ESP32 (xtensawin) into build/xtensawin
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NODE_STAMP := tools/node/node_modules/.installed

.PHONY: test sim bench mpy clean

$(STAMP): tools/requirements.txt tools/requirements-peers.txt tools/constraints.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r tools/requirements.txt -r tools/requirements-peers.txt -c tools/constraints.txt
	touch $(STAMP)

# MCP test peers (Node): exact versions from the committed lock file.
$(NODE_STAMP): tools/node/package.json tools/node/package-lock.json
	cd tools/node && npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

test: $(STAMP) $(NODE_STAMP)
	$(PY) -m pytest host_tests $(PYTEST_ARGS)

sim: $(STAMP)
	$(PY) tools/sim.py

bench: $(STAMP)
	$(PY) tools/bench/run.py

mpy: $(STAMP)
	$(PY) tools/mpybuild.py --march xtensawin --out build/xtensawin

clean:
	rm -rf build .pytest_cache

# Put the firmware on a board (README: "Flashing and deploying").
#   make certs                        CA bundle build/certs/ca.der (tools/cabundle.py)
#   make firmware CHIP=esp32 MICROPY_DIR=~/micropython
#                                     build it (needs ESP-IDF 5.5.x; tools/flash.py --build)
#   make flash PORT=/dev/ttyUSB0 CHIP=esp32 [ERASE=1] [MICROPY_DIR=...]
#   make deploy PORT=/dev/ttyUSB0 [DEPLOY_ARGS=--lib]
# Plain "=" so a PORT/CHIP/BAUD in the environment does not leak in; set
# them on the make command line.
PORT = auto
CHIP = esp32
BAUD = 460800
.PHONY: certs firmware flash deploy

certs: $(STAMP)
	$(PY) tools/cabundle.py -o build/certs/ca.der $(CERTS_ARGS)

firmware: $(STAMP)
	$(PY) tools/flash.py --build --run --chip $(CHIP)

flash: $(STAMP)
	$(PY) tools/flash.py --chip $(CHIP) --port $(PORT) --baud $(BAUD) $(if $(ERASE),--erase) $(FLASH_ARGS)

deploy: certs
	$(PY) tools/deploy.py --port $(PORT) --ca build/certs/ca.der $(DEPLOY_ARGS)
