"""Does the app's memory stay flat over a game night? Plays a compressed night in the real app
(Kivy under Xvfb, the real picker, setup, vote, reveal and History screens, the real journal) and
prints after each game what it played, the process's resident memory, the screens and widgets
alive, and the screens in use; at the end the night's totals and the growth per game after the
first (issue 34 item 14: about 19 MB a game before the fix; the goal is under 2 MB).

Games rotate through all four kinds, each played whole as a table plays it
(tests/app/test_night_memory_app.py ``play_game``): 23 Knives' demo game and the worked games of
docs/commands.md for Masks, Seven Knights and Cicero, sent through the app's command path as its
screens send them, narration run to its end after each command, each vote's first ballot cast by
hand on the vote screen (with a change of mind), every reveal, the History screen, and 7 undos a
game (each followed by Redo or the same command again). Narration: captions (the engines' clock
is a fake clock moved by the driver, so a night takes minutes); sound on SDL's dummy driver.
--quick plays one game of each kind, each left after its first vote (a smoke run).

Measured 2026-12-07 on the shared 2-core machine under load (461 s): 24 games, 5,466 events,
72 votes, 474 ballots, 168 undos, every game played to its end; 321.4 MB after the first game,
349.7 MB after the 24th: 1.23 MB per game after the first, 0.46 MB once each kind has been played
(the first game of each kind loads its modules and screens); screens alive = screens in use.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python benchmarks/night_memory.py [--games 24] [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _args import parse_quick

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GAMES = ("knives23", "masks", "sevenknights", "cicero")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def type_counts() -> dict[str, int]:
    """Live objects (tracked by the collector) by type name, after a full collection."""
    import gc
    gc.collect()
    out: dict[str, int] = {}
    for o in gc.get_objects():
        name = type(o).__qualname__
        out[name] = out.get(name, 0) + 1
    return out


def start_app(tmp: Path):
    os.environ.update(KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", KIVY_HOME=str(tmp / "kivy"),
                      SDL_AUDIODRIVER="dummy", TABLE_COMPANION_CACHE=str(tmp / "cache"))
    from kivy.config import Config
    Config.set("graphics", "width", "1280")
    Config.set("graphics", "height", "800")
    Config.set("kivy", "exit_on_escape", "0")
    from kivy.base import runTouchApp

    from companion.app.main import CompanionApp
    from companion.app.narration import KivyAudioOut
    from companion.core.clock import FakeClock
    from companion.core.speakers import CaptionSpeaker
    from tests.app.driver import Driver

    clock = FakeClock()
    app = CompanionApp(data_dir=tmp / "data", engine_clock=clock, speaker=CaptionSpeaker(),
                       audio_out=KivyAudioOut())
    app._run_prepare()
    runTouchApp(embedded=True)
    driver = Driver(app, clock, tmp)
    driver.pump(10)
    return driver


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--types", action="store_true",
                        help="after each game, the object types whose number grew most (to find a leak)")
    args = parse_quick(parser, argv, help="one game of each kind, each left after its first vote")
    if not os.environ.get("DISPLAY"):
        raise SystemExit("error: no X display; run under xvfb-run")
    games = len(GAMES) if args.quick else args.games
    with tempfile.TemporaryDirectory() as tmp:
        driver = start_app(Path(tmp))
        from tests.app.test_night_memory_app import alive, play_game
        app = driver.app
        screens, widgets = alive()
        print(f"start: {rss_mb():.1f} MB, {screens} screens alive ({len(app.sm.screens)} in use), "
              f"{widgets} widgets", flush=True)
        sizes = []
        counts = type_counts() if args.types else None
        total = dict.fromkeys(("events", "votes", "ballots", "undos", "finished"), 0)
        began = time.monotonic()
        for i in range(games):
            kind = GAMES[i % len(GAMES)]
            played = play_game(driver, kind, quick=args.quick)
            app.leave_game()
            driver.pump(6)
            for key in total:
                total[key] += played[key]
            screens, widgets = alive()
            sizes.append(rss_mb())
            did = (f"{played['events']:4d} events, {played['votes']} votes, {played['ballots']:2d} ballots, "
                   f"{played['undos']} undos{', ended' if played['finished'] else ''}")
            print(f"game {i + 1:2d} {kind:12s} {did:56s} {sizes[-1]:7.1f} MB, {screens:3d} screens alive "
                  f"({len(app.sm.screens)} in use), {widgets:5d} widgets", flush=True)
            if counts is not None:
                now = type_counts()
                grown = sorted(((n - counts.get(t, 0), t) for t, n in now.items()), reverse=True)[:8]
                print("    grew: " + ", ".join(f"{t} +{d}" for d, t in grown if d > 0), flush=True)
                counts = now
        print(f"night: {games} games, {total['events']} events, {total['votes']} votes, {total['ballots']} ballots, "
              f"{total['undos']} undos, {total['finished']} games played to their end, "
              f"{time.monotonic() - began:.0f} s")
        if len(sizes) > 1:
            per_game = (sizes[-1] - sizes[0]) / (len(sizes) - 1)
            print(f"growth after the first game: {sizes[-1] - sizes[0]:.1f} MB over {len(sizes) - 1} games, "
                  f"{per_game:.2f} MB per game (goal < 2 MB)")
        if len(sizes) > len(GAMES):
            later = (sizes[-1] - sizes[len(GAMES) - 1]) / (len(sizes) - len(GAMES))
            print(f"growth once each kind has been played: {later:.2f} MB per game")
        app.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
