"""The journal's start-up check and reads on a 10,000-event journal: SQLite's quick_check (the
check before issue 34) against integrity_check (the check now: it also compares every index with
its table), and reading a game's events with the journal's text reader (text that is not UTF-8
read as damage) against Python's built-in one. Ratios measured side by side in one run.

    .venv/bin/python benchmarks/journal_open_check.py [--events 10000] [--repeat 7]
"""
from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.journal_replay import build  # noqa: E402
from companion.core.journal import Journal  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.sqlite3"
        game = build(path, args.events)
        conn = sqlite3.connect(path)
        quick = best(lambda: conn.execute("PRAGMA quick_check(3)").fetchall(), args.repeat)
        full = best(lambda: conn.execute("PRAGMA integrity_check(3)").fetchall(), args.repeat)
        conn.close()
        opened = best(lambda: Journal(path).close(), args.repeat)
        journal = Journal(path)
        ours = best(lambda: journal.events(game), args.repeat)
        journal._db.text_factory = str
        builtin = best(lambda: journal.events(game), args.repeat)
        journal.close()
        size = path.stat().st_size
    print(f"journal: {args.events} events, {size / 1e6:.1f} MB (median of {args.repeat})")
    print(f"quick_check {quick * 1000:.1f} ms, integrity_check {full * 1000:.1f} ms ({full / quick:.2f}x)")
    print(f"Journal(path) open with its checks: {opened * 1000:.1f} ms")
    print(f"events(): {ours * 1000:.1f} ms with the journal's text reader, {builtin * 1000:.1f} ms with "
          f"Python's ({ours / builtin:.2f}x)")


if __name__ == "__main__":
    main()
