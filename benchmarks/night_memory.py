"""Does the app's memory stay flat over a game night? Plays a compressed night in the real app
(Kivy under Xvfb, the real picker and setup screens, the real journal) and prints after each game
the process's resident memory, the screens and widgets alive, and the screens in use.

Games rotate through all four kinds. Masks is played through a whole round as the table plays
it (the deal, the narrated Hidden Phase, the 7-minute Discussion on its timer, the secret vote
by pass-and-play, the reveal); the other three are started through setup, run on their timers
for a minute, visited in the History screen, undone once where the rules allow, and left to the
picker as a table leaves a game. Narration: captions (the engines' clock is a fake clock moved
by the driver, so a night takes minutes); sound on SDL's dummy driver.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python benchmarks/night_memory.py [--games 24] [--quick]
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.test_languages_app import GAMES  # noqa: E402  (the four kinds, as the app tests set them up)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def alive() -> tuple[int, int]:
    """(screens, widgets) alive after a full collection. ``type(o)``, not ``isinstance``: a dead
    weak proxy among the objects raises on ``isinstance``."""
    from kivy.uix.screenmanager import Screen
    from kivy.uix.widget import Widget
    gc.collect()
    screens = widgets = 0
    for o in gc.get_objects():
        t = type(o)
        if issubclass(t, Widget):
            widgets += 1
            screens += issubclass(t, Screen)
    return screens, widgets


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


def play_masks_round(driver) -> str:
    """The deal, the Hidden Phase, the Discussion to its end, everyone's secret vote, the reveal."""
    from tests.app.test_masks_app import cast_votes, run_hidden_phase
    app = driver.app
    driver.tap(driver.screen.ids.start_button)
    run_hidden_phase(driver)
    driver.advance(7 * 60 + 1)        # the Discussion's timer runs out: straight to the vote
    driver.advance(20)                # the count-in
    players = app.session.setup["players"]
    cast_votes(driver, {p: "center" for p in players})
    driver.pump_until(lambda: app.sm.current == "reveal", "the reveal")
    driver.count_in()
    return f"{len(app.session.events)} events, {len(players)} ballots"


def play_a_while(driver) -> str:
    """A minute on the game's timers, the History screen, one undo where the rules allow."""
    app = driver.app
    driver.advance(60, step=0.5)
    play = app.sm.current
    app.goto("history")
    driver.pump(6)
    app.goto(play)
    driver.pump(4)
    undone = app.send("undo")
    driver.pump(4)
    return f"{len(app.session.events)} events{', one undone' if undone else ''}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--quick", action="store_true", help="8 games (two of each kind)")
    args = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        raise SystemExit("error: no X display; run under xvfb-run")
    games = 8 if args.quick else args.games
    with tempfile.TemporaryDirectory() as tmp:
        driver = start_app(Path(tmp))
        app = driver.app
        screens, widgets = alive()
        print(f"start: {rss_mb():.1f} MB, {screens} screens alive ({len(app.sm.screens)} in use), "
              f"{widgets} widgets", flush=True)
        sizes = []
        for i in range(games):
            kind = list(GAMES)[i % len(GAMES)]
            names, kw = GAMES[kind]
            driver.start_game(kind, names, **kw)
            did = play_masks_round(driver) if kind == "masks" else play_a_while(driver)
            app.leave_game()
            driver.pump(6)
            screens, widgets = alive()
            sizes.append(rss_mb())
            print(f"game {i + 1:2d} {kind:12s} {did:28s} {sizes[-1]:7.1f} MB, {screens:3d} screens alive "
                  f"({len(app.sm.screens)} in use), {widgets:5d} widgets", flush=True)
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
