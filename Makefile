# Two commands for a fresh Debian machine (root, Python 3.11 or newer): `make run` and `make test`.
# Both install what they need on first use (Debian packages when missing, a local .venv).
VENV  := .venv
PY    := $(VENV)/bin/python

.PHONY: run test demo setup-run setup-test bench
run: setup-run
	$(PY) -m companion

demo: setup-run
	$(PY) -m companion demo

# Two workers or more (pytest-xdist), a test file to a worker: its app and fixtures stay together.
test: setup-test
	bash scripts/test.sh -n auto --maxprocesses 4 --dist loadfile

bench: setup-test
	bash scripts/bench.sh

setup-run:
	bash scripts/setup.sh run

setup-test:
	bash scripts/setup.sh test
