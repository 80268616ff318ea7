"""What the phones' table views cost the tablet's main thread (issue 32).

``PhoneSource.poll`` runs every frame; it builds each seated phone's view only when the state,
a timer or the phones asking change. Printed: the cost of a frame where nothing changed, and of
one after a table move, with every seat's phone asking (23 Knives' whole demo game, 4 players;
Cicero's scripted table, 5 players), the phones in three languages. Wall-clock on whatever else the machine is doing.

    .venv/bin/python benchmarks/phone_table.py [--moves 40] [--quick]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core.journal import Journal  # noqa: E402
from companion.core.session import GameSession  # noqa: E402
from companion.phone.server import RateLimiter  # noqa: E402
from companion.phone.source import PhoneSource  # noqa: E402

from _args import parse_quick  # noqa: E402

LANGS = ("en", "fr", "de")


def measure(rules, setup, moves, seats):
    with tempfile.TemporaryDirectory() as d:
        session = GameSession.start(Journal(Path(d) / "j.sqlite"), rules, setup)
        source = PhoneSource(bytes(16), execute=session.execute, state=lambda: session.state,
                             rules=lambda: session.rules, host="127.0.0.1",
                             rate=RateLimiter(), decoder=lambda data: [])
        for i, seat in enumerate(seats):
            source.server.table.want(seat, LANGS[i % 3])
        idle, moved = [], []
        for cmd in moves:
            session.execute(cmd)
            t = time.perf_counter()
            source.publish_table()
            moved.append(time.perf_counter() - t)
            for _ in range(5):
                t = time.perf_counter()
                source.publish_table()
                idle.append(time.perf_counter() - t)
        return idle, moved


def line(name, times):
    return (f"  {name}: median {statistics.median(times) * 1000:.3f} ms, "
            f"slowest {max(times) * 1000:.3f} ms ({len(times)} frames)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=40)
    args = parse_quick(ap, argv, moves=8)
    from companion.games.knives23 import demo
    from companion.games.knives23.rules import Knives23Rules
    players = demo.SETUP["players"]
    idle, moved = measure(Knives23Rules(), demo.SETUP, demo.commands(), players)
    print(f"23 Knives, the whole demo game, {len(players)} phones (en/fr/de), {len(moved)} table moves:")
    print(line("frame with nothing new", idle))
    print(line(f"frame after a move ({len(players)} views built)", moved))
    from companion.games.cicero import demo as cdemo
    from companion.games.cicero.rules import CiceroRules
    five = ["Ann", "Bo", "Cy", "Di", "Ed"]
    setup = {"players": five, "ages": {p: 30 + i for i, p in enumerate(five)}}
    with tempfile.TemporaryDirectory() as d:   # the scripted table's moves, recorded once
        s = GameSession.start(Journal(Path(d) / "j.sqlite"), CiceroRules(), setup)
        moves = []
        for _ in range(args.moves):
            cmd = cdemo.table_move(s.view("table"))
            cdemo.execute_breaking_ties(lambda c: (s.execute(c), moves.append(c)), cmd)
    idle, moved = measure(CiceroRules(), setup, moves, five)
    print(f"Cicero, 5 phones (en/fr/de), {len(moved)} table moves:")
    print(line("frame with nothing new", idle))
    print(line("frame after a move (5 views built)", moved))
    return 0


if __name__ == "__main__":
    sys.exit(main())
