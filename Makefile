# Two commands on a fresh machine:
#   make run    create .venv, install, start the app on http://localhost:8501
#   make test   also install the test tools and Chromium, then lint + every test
# Benchmarks: make bench-latency, make bench-load, make bench-soak (see README).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test lint pytest chromium bench-latency bench-load bench-soak clean

$(VENV)/.runtime: requirements.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade --quiet pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app.py --server.port $(PORT)

# The browser tests drive the system Chromium (Debian package); Playwright never downloads one.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

pytest: $(VENV)/.dev chromium
	$(PY) -m pytest -n 2

test: lint pytest

bench-latency: $(VENV)/.dev chromium
	$(PY) -m bench.latency --steps 40

bench-load: $(VENV)/.dev
	$(PY) -m bench.load --sessions 100 --duration 120 --think 2:5

bench-soak: $(VENV)/.dev
	$(PY) -m bench.load --sessions 100 --soak 600 --after 180 --think 2:5

clean:
	rm -rf $(VENV) artifacts bench/results .pytest_cache .ruff_cache .hypothesis
