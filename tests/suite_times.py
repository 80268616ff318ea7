"""Where the suite's time goes, measured while it runs (a pytest hook, off unless asked for).

``SUITE_TIMES=FOLDER bash scripts/test.sh ...`` writes one JSON line per test to
``FOLDER/<worker>.jsonl``: when it started, its wall time (set-up, call and tear-down), the
CPU its process spent (every thread) and its finished child processes spent, and, for the
thread running the test, its time on a core and its time waiting for one
(``/proc/thread-self/schedstat``). On a shared machine a test's wall time is mostly other
people's load: its wall time less its time waiting for a core is what it would take on a
quiet machine. ``scripts/suite_times.py FOLDER`` prints the per-file totals, each worker's
timeline and the critical path from these lines.
"""
from __future__ import annotations

import json
import os
import time

import pytest


def _schedstat() -> tuple[float, float]:
    """(seconds on a core, seconds runnable but waiting for one) of the calling thread."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            on_cpu, waiting, _ = f.read().split()
    except (OSError, ValueError):   # not Linux, or no scheduler statistics
        return 0.0, 0.0
    return int(on_cpu) / 1e9, int(waiting) / 1e9


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start, cpu, children, sched = time.time(), time.process_time(), os.times(), _schedstat()
    yield
    wall, after, sched_after = time.time() - start, os.times(), _schedstat()
    folder = os.environ["SUITE_TIMES"]
    os.makedirs(folder, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    line = {"id": item.nodeid, "file": item.nodeid.split("::")[0], "worker": worker, "start": start,
            "wall": wall, "cpu": time.process_time() - cpu,
            "children": (after.children_user + after.children_system)
            - (children.children_user + children.children_system),
            "on_core": sched_after[0] - sched[0], "runqueue": sched_after[1] - sched[1]}
    with open(os.path.join(folder, f"{worker}.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
