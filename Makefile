# Two commands for a fresh Debian machine (root, Python 3.11 or newer): `make run` and `make test`.
# Both install what they need on first use (Debian packages when missing, a local .venv).
VENV  := .venv
PY    := $(VENV)/bin/python

.PHONY: run test check demo setup-run setup-test bench
run: setup-run
	$(PY) -m companion

demo: setup-run
	$(PY) -m companion demo

# Two workers or more (pytest-xdist), a test file to a worker: its app and fixtures stay together.
# Files go out in the suite's order, the long app tests first (xdist would otherwise send the files
# with the most tests first and leave the app tests, few but long, to the end on one worker).
test: setup-test
	bash scripts/test.sh -n auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder

# The fast loop: the rules, the core, the referee, the docs' examples, the layer contract and mypy,
# under a minute, with no X display and no app (the tests marked slow run in `make test`).
check: setup-test
	bash scripts/check.sh

# Every benchmark in benchmarks/ to completion, printing its figures (`bash scripts/bench.sh --quick`:
# the tiny run of each, as the suite runs them).
bench: setup-test
	bash scripts/bench.sh

setup-run:
	bash scripts/setup.sh run

setup-test:
	bash scripts/setup.sh test
