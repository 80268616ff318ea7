# Two commands for a fresh Debian machine (root, Python 3.11 or newer): `make run` and `make test`.
# Both install what they need on first use (Debian packages when missing, a local .venv).
VENV  := .venv
PY    := $(VENV)/bin/python

.PHONY: run test check demo setup-run setup-test bench
run: setup-run
	$(PY) -m companion

demo: setup-run
	$(PY) -m companion demo

# Two workers per core, at most 4 (pytest-xdist), a test file to a worker: its app and fixtures stay
# together. Much of a worker's time is waiting (real-time clocks, vote boxes on pseudo-terminals,
# child processes, sockets): the whole suite used about 950 s of CPU for 2 x 769 s of workers' time,
# and 86 % of the time of tests/hardware, tests/qr, tests/vision and the narration tests used none
# (scripts/suite_times.py), so a second worker per core fills it.
# Files go out in the suite's order, the long app tests first (xdist would otherwise send the files
# with the most tests first and leave the app tests, few but long, to the end on one worker).
WORKERS := $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( 2 * n < 4 ? 2 * n : 4 )))
test: setup-test
	bash scripts/test.sh -n $(WORKERS) --dist loadfile --no-loadscope-reorder

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
