"""Replay of a 10,000-event journal into state: time and peak memory.

    .venv/bin/python benchmarks/journal_replay.py [--events 10000] [--repeat 5]

Builds a journal of Exile-style votes (open, ballots, reveal) and counter moves in a temporary
SQLite file, then times opening it (with its quick integrity check), reading it back and folding
it into state (what a restart does). The target: under 0.2 s for 10,000 events.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core.events import Command  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.session import GameSession  # noqa: E402
from tests.core.toygame import ToyRules  # noqa: E402

from _args import parse_quick  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]


def build(path: Path, n_events: int) -> int:
    journal = Journal(path)
    session = GameSession.start(journal, ToyRules(), {"players": PLAYERS})
    # Batch the writes in one transaction per vote so building is quick; replay is what we time.
    i = 0
    while len(session.events) < n_events:
        session.execute(Command("add", {"n": 1 + i % 5}))
        session.execute(Command("call_exile", {"target": PLAYERS[i % 8]}))
        for p in PLAYERS:
            session.execute(Command("cast_ballot", {"voter": p, "choice": "exile" if (i + len(p)) % 2 else "remain"}))
        i += 1
    journal.close()
    return session.game_id


def journal_parser(description: str, repeat: int) -> argparse.ArgumentParser:
    """The options of a benchmark on one built journal (this one and journal_open_check.py):
    its size in events and how many times each figure is measured."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=repeat)
    return ap


def main(argv=None):
    args = parse_quick(journal_parser(__doc__.splitlines()[0], repeat=5), argv, events=300, repeat=2)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "bench.sqlite3"
        t0 = time.perf_counter()
        game_id = build(path, args.events)
        built = time.perf_counter() - t0
        times, cpu = [], []
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            session = GameSession.resume(Journal(path), game_id, ToyRules())
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        n = len(session.events)
        tracemalloc.start()
        GameSession.resume(Journal(path), game_id, ToyRules())
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        size = path.stat().st_size + sum(p.stat().st_size for p in Path(d).glob("bench.sqlite3-*"))
    print(f"journal events: {n} (built in {built:.1f} s, {size / 1e6:.1f} MB on disk incl. WAL)")
    print(f"replay into state: median {statistics.median(times) * 1000:.0f} ms, "
          f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {args.repeat} runs")
    # CPU time is what the replay costs this process; wall time also counts waiting for a core
    # on a loaded machine.
    print(f"replay CPU time: median {statistics.median(cpu) * 1000:.0f} ms, min {min(cpu) * 1000:.0f} ms")
    print(f"replay peak Python memory (tracemalloc): {peak / 1e6:.1f} MB")
    print(f"per event: {statistics.median(times) / n * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
