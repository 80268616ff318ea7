"""The journal's start-up check and reads on a 10,000-event journal: SQLite's quick_check (the
check before issue 34) against integrity_check (the check now: it also compares every index with
its table), reading a game's events with the journal's text reader (text that is not UTF-8
read as damage) against Python's built-in one, and a salvage of the journal with one page zeroed.
Ratios measured side by side in one run.

    .venv/bin/python benchmarks/journal_open_check.py [--events 10000] [--repeat 7] [--quick]
"""
from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.journal_replay import build, journal_parser  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.salvage import salvage  # noqa: E402
from tests.core.toygame import ToyRules  # noqa: E402

from _args import parse_quick  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None):
    args = parse_quick(journal_parser(__doc__.splitlines()[0], repeat=7), argv, events=300, repeat=2)
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
        # Salvage (what the app does at start with a damaged journal): a page in the middle zeroed.
        data = bytearray(path.read_bytes())
        middle = len(data) // 4096 // 2
        data[middle * 4096:(middle + 1) * 4096] = bytes(4096)
        damaged = Path(d) / "damaged.sqlite3"
        damaged.write_bytes(bytes(data))
        fresh = Journal(Path(d) / "fresh.sqlite3")
        t = time.perf_counter()
        report = salvage(damaged, fresh, rules_of=lambda game: ToyRules())
        salvaged = time.perf_counter() - t
        kept = len(fresh.events(game))
        fresh.close()
    print(f"journal: {args.events} events, {size / 1e6:.1f} MB (median of {args.repeat})")
    print(f"quick_check {quick * 1000:.1f} ms, integrity_check {full * 1000:.1f} ms ({full / quick:.2f}x)")
    print(f"Journal(path) open with its checks: {opened * 1000:.1f} ms")
    print(f"salvage after a page in the middle was zeroed: {salvaged * 1000:.0f} ms, {kept} events kept "
          f"({report.lines()[0] if report.lines() else 'whole'})")
    print(f"events(): {ours * 1000:.1f} ms with the journal's text reader, {builtin * 1000:.1f} ms with "
          f"Python's ({ours / builtin:.2f}x)")


if __name__ == "__main__":
    main()
