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

$(STAMP): tools/requirements.txt tools/requirements-peers.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r tools/requirements.txt -r tools/requirements-peers.txt
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
