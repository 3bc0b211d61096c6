# The two commands of the README: `make run` and `make test`.
# Both create the virtualenv in .venv on first use, from pyproject.toml.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test install browser broker micropython pi-install pi-doctor

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("Python 3.11 or newer is needed" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(BIN)/.installed

run: install
	$(BIN)/companion serve

# The dashboard's browser tests drive Debian's chromium (never a downloaded browser).
browser:
	@./.ci/ensure-chromium

# The firmware tests run it under real MicroPython: its WebAssembly port, on node, at the
# version pinned in tests/firmware/board/package-lock.json.
MICROPYTHON := tests/firmware/board/node_modules/.package-lock.json

$(MICROPYTHON): tests/firmware/board/package-lock.json
	@./.ci/ensure-node
	cd tests/firmware/board && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# node is checked every time too: a checkout copied with its node_modules has the port
# but not always node.
micropython: $(MICROPYTHON)
	@./.ci/ensure-node

# The hub's tests start Debian's Mosquitto themselves (never a downloaded broker).
broker:
	@./.ci/ensure-mosquitto

# Two pytest processes (pytest-xdist), each given whole test modules, so a module's
# server and browser start once: the browser tests spend much of their time waiting.
PYTEST_WORKERS ?= 2

test: install browser broker micropython
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/vulture
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile

# The Raspberry Pi's service install (hardware.md, "Service on Raspberry Pi OS"), as root:
# sudo make pi-install [TIMER=serial:/dev/clapperbox]
TIMER ?= gpio
pi-install:
	./deploy/pi-install.sh --timer '$(TIMER)'

# `companion doctor` as the installed service runs it (stops and restarts the service)
pi-doctor:
	./deploy/pi-install.sh --doctor
