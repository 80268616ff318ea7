"""23 Knives speed and memory: the scripted demo game through a real SQLite journal.

    .venv/bin/python benchmarks/knives23_game.py [--games 5]

Prints per-command latency (decide + fold + journal commit), the time to resume (replay) a
finished game, the time of one table view, and peak Python memory.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import RULES, demo

from _args import parse_quick


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=5)
    args = parse_quick(ap, argv, games=1)
    commands = demo.commands()
    per_command, resumes, views = [], [], []
    tracemalloc.start()
    with tempfile.TemporaryDirectory() as d:
        journal = Journal(Path(d) / "bench.db")
        for _ in range(args.games):
            s = GameSession.start(journal, RULES, demo.SETUP)
            for cmd in commands:
                t0 = time.perf_counter()
                s.execute(cmd)
                per_command.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            again = GameSession.resume(journal, s.game_id, RULES)
            resumes.append(time.perf_counter() - t0)
            assert again.state == s.state
            t0 = time.perf_counter()
            for _ in range(100):
                RULES.view(again.state, "table")
            views.append((time.perf_counter() - t0) / 100)
        events = len(s.events)
        journal.close()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
    p95 = sorted(per_command)[int(0.95 * len(per_command))] * 1000
    print(f"knives23 scripted game: {len(commands)} commands, {events} events, {args.games} games")
    print(f"command (decide+fold+SQLite commit): median {ms(per_command):.2f} ms, p95 {p95:.2f} ms")
    print(f"resume a finished game (replay {events} events): median {ms(resumes):.2f} ms")
    print(f"table view: median {ms(views):.3f} ms")
    print(f"peak Python memory: {peak / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
