"""The screen audit: every screen of the shell and of the four games' flows, reached the way the
table reaches them (taps on the picker, setup, top bar and vote screens; each game's commands
sent as its screens send them), at 1280x800, 1920x1200 and 800x1280 in English, at 1280x800
in French and German, and at 1280x800 in the dim room (both themes). Each screen is photographed to
test-artifacts/audit/<size or language>/<game>/<nn>_<screen>.png and checked by tests/app/audit.py:
overflowing, cut or mid-word-broken text, overlapping siblings, contrast, text under 22sp (at
1280x800) and touch targets under 48dp. A pass fails with the list of every fault it saw."""
from __future__ import annotations

import json
import os

import pytest

from companion.core import commands_doc, i18n
from companion.core.commands import Command
from companion.games.knives23 import demo as k23demo

from .audit import audit_screen
from .driver import ARTIFACTS, ROOT

SHELL = ("settings", "devices", "camera", "phone", "past_games")

# The demo game plays every 23 Knives screen (tie-break, eyes closed, Curia, tableaux, result);
# the other games play their worked game from docs/commands.md.
K23_OPTIONS = {"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2}

# Commands the app sends itself when the narration ends (the test's clock runs it to the end):
# the script's copy is refused once the app has sent it.
SENT_BY_THE_APP = {"eyes_open", "end_hidden_phase"}


def worked_game(game: str) -> tuple[dict, list[Command]]:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    example = json.loads(commands_doc.examples_in(text)[game])
    cmds = [Command(e["command"], {k: v for k, v in e.items() if k != "command"}, "tablet")
            for e in example["commands"]]
    return example["setup"], cmds


def game_plan(game: str):
    """(names, start_game keywords, commands) for one game."""
    if game == "knives23":
        return k23demo.SETUP["players"], {"first": "Ann", "options": K23_OPTIONS}, k23demo.commands()
    setup, cmds = worked_game(game)
    names = setup["players"]
    kw: dict = {"first": names[0]}
    if "mode" in setup:
        kw["options"] = {"mode": setup["mode"]}
    if "ages" in setup:
        kw["seat_values"] = {n: {"age": a} for n, a in setup["ages"].items()}
    return names, kw, cmds


GAMES = ("knives23", "masks", "sevenknights", "cicero")


class Walk:
    def __init__(self, driver, folder: str, check_sizes: bool):
        self.d = driver
        self.app = driver.app
        self.folder = folder
        self.check_sizes = check_sizes
        self.faults: dict[str, list[str]] = {}
        self.seen: set = set()
        self.shots: list = []
        self.n = 0
        self.game = "shell"
        self.took: dict[str, int] = {}   # seconds since the walk began, at the end of each game

    # -- looking ---------------------------------------------------------------------------
    def settle(self):
        sm = self.app.sm
        for _ in range(60):
            self.d.pump(1)
            if not sm.transition.is_active:
                break
        self.d.pump(4)

    def look(self, label: str):
        self.settle()
        self.n += 1
        name = f"{self.folder}/{self.game}/{self.n:02d}_{label}"
        png = self.d.screenshot(f"audit/{name}")
        self.shots.append(png)
        names = set(self.app.view.get("players") or []) if isinstance(self.app.view, dict) else set()
        found = audit_screen(self.app.root, png, self.check_sizes, names)
        if found:
            self.faults[name] = found

    def look_once(self, key, label: str):
        if key not in self.seen:
            self.seen.add(key)
            self.look(label)

    def signature(self):
        view = self.app.view if isinstance(self.app.view, dict) else {}
        turn = view.get("turn") if isinstance(view.get("turn"), dict) else {}
        current = self.app.sm.current
        mode = getattr(self.app.screen(current), "mode", "")
        parts = [current, str(mode or ""), str(view.get("phase") or "")]
        if "." in current:   # a game's own screen: its turn step too
            parts.append(str(turn.get("step") or ""))
        if current == "knives23.board" and turn.get("step") == "action":
            # the board changes shape as Fate cards fill the Forum
            forum = view.get("forum") if isinstance(view.get("forum"), dict) else {}
            parts.append({0: "", 1: "forum1", 2: "forum2"}.get(forum.get("count", 0), "forumfull"))
        return tuple(parts), "_".join(p for p in parts if p).replace(".", "_")

    def look_if_new(self):
        key, label = self.signature()
        self.look_once((self.game,) + key, label)

    # -- moving ----------------------------------------------------------------------------
    def tap(self, widget):
        self.d.tap(widget)
        self.settle()

    def top(self, button_id: str):
        self.tap(self.app.root.ids[button_id])

    def shell(self):
        self.game = "shell"
        self.d.app.goto("picker")
        self.look("picker")
        self.top("settings_button")
        self.look("settings")
        self.top("devices_button")
        self.look("devices")
        for name in ("camera", "phone", "past_games"):
            if self.app.sm.has_screen(name):
                self.app.goto(name)
                self.look(name)
        self.top("home_button")

    def narration_done(self, limit: float = 1200):
        """Run the narrator (its clock is the test's) until it has said everything queued."""
        app, spent = self.app, 0.0
        if not (app.narrator.busy or app.narration_active):
            return
        while (app.narrator.busy or app.narration_active) and spent < limit:
            self.d.clock.advance(0.5)
            app._tick_engines(0.5)
            spent += 0.5

    def start(self, game: str):
        self.game = game
        names, kw, cmds = game_plan(game)
        d, app = self.d, self.app
        app.goto("picker")
        self.settle()
        self.tap(d.find(cls="GameCard", game_id=game))
        self.look("setup")
        d.start_game(game, names, **kw)
        return cmds

    def vote_by_hand(self, voter: str, choice):
        """One voter through the pass-and-play screens, each of them looked at."""
        vote = self.app.screen("vote")
        self.d.hold(self.d.find(cls="VoterButton", voter=voter))
        self.look_if_new()
        if vote.mode == "private":
            self.d.hold(vote.ids.show_choices)
            self.look_if_new()
        self.tap(self.d.find(cls="ChoiceButton", option=choice))
        if self.app.sm.current == "vote" and vote.mode == "done":
            self.look_if_new()
            if "done_button" in vote.ids:   # (a done screen may also hide itself)
                self.tap(vote.ids.done_button)

    def play(self, cmds):
        app = self.app
        self.narration_done()
        self.look_if_new()
        voted_by_hand = False
        for i, cmd in enumerate(cmds):
            if cmd.kind == "cast_ballot" and not voted_by_hand and app.sm.current == "vote":
                voted_by_hand = True
                self.vote_by_hand(cmd.data["voter"], cmd.data["choice"])
            elif not app.send_command(cmd):
                assert cmd.kind in SENT_BY_THE_APP, (self.game, i, cmd, app.root.ids.toast.message)
                app.root.ids.toast._clear()
                continue
            # The screen changes as the command is recorded: frames are drawn only to look.
            self.look_if_new()
            if cmd.kind != "eyes_closed":
                self.narration_done()
                self.look_if_new()
            if app.sm.current == "reveal":
                self.tap(app.screen("reveal").ids.continue_button)
                self.look_if_new()
            if i == len(cmds) // 2:
                self.history()
        self.narration_done()
        self.look_if_new()
        self.history()

    def history(self):
        self.top("history_button")
        self.look("history")
        self.app.go_home()
        self.settle()

    def run(self, games=GAMES):
        import time
        began = time.monotonic()
        self.shell()
        for game in games:
            self.play(self.start(game))
            self.took[game] = round(time.monotonic() - began)
            self.app.leave_game()
            self.settle()
        self.game = "shell"
        self.app.goto("past_games")
        self.look("past_games_after")
        self.app.goto("picker")


def choose_language(driver, name: str):
    app = driver.app
    driver.tap(app.root.ids.settings_button)
    settings = app.screen("settings")
    settings.ids.language.text = name
    driver.tap(settings.ids.save)
    driver.pump(6)


def choose_dim_room(driver, on: bool):
    """The table's "dim room" setting, tapped as a narrator does: every screen in the dim theme."""
    from companion.app.theme import ui
    app = driver.app
    driver.tap(app.root.ids.settings_button)
    toggle = app.screen("settings").ids.dim_room
    if (toggle.state == "down") != on:
        driver.tap(toggle)
    driver.tap(app.screen("settings").ids.save)
    driver.pump(6)
    assert ui.dim == on and app.settings.dim_room == on


def report(walk: Walk) -> str:
    lines = [f"{len(walk.faults)} of {len(walk.shots)} screens have faults (walk times: {walk.took}):"]
    for shot, faults in walk.faults.items():
        lines.append(f"- {shot}")
        lines += [f"    {f}" for f in faults]
    return "\n".join(lines)


# A pass walks 4 whole games (2.5 minutes on a quiet 2-core machine, 6 under load): the six passes
# are more than the suite's time, so they run on demand:
#     SCREEN_AUDIT=1 bash scripts/test.sh tests/app/test_screen_audit.py      (all six passes)
# and write each screen and test-artifacts/audit/<pass>/faults.txt. The normal suite runs the
# fast pass below (the shell and 23 Knives at 800x1280).
ON_DEMAND = pytest.mark.skipif(not os.environ.get("SCREEN_AUDIT"),
                               reason="the whole screen audit runs with SCREEN_AUDIT=1")
# (folder, window size, language, the dim room on): "dim" photographs every screen in the dim
# theme, so each screen is contrast-checked in both themes.
PASSES = [
    pytest.param("1280x800", (1280, 800), None, False, id="1280x800"),
    pytest.param("1920x1200", (1920, 1200), None, False, id="1920x1200", marks=pytest.mark.slow),
    pytest.param("800x1280", (800, 1280), None, False, id="800x1280", marks=pytest.mark.slow),
    pytest.param("fr", (1280, 800), "Français", False, id="fr", marks=pytest.mark.slow),
    pytest.param("de", (1280, 800), "Deutsch", False, id="de", marks=pytest.mark.slow),
    pytest.param("dim", (1280, 800), None, True, id="dim", marks=pytest.mark.slow),
]


def audit_pass(driver, folder: str, size, language=None, dim=False, games=GAMES) -> Walk:
    """Walks the shell and ``games`` at ``size`` (in ``language``, in the dim room) and writes
    test-artifacts/audit/<folder>/ (every screen, faults.txt)."""
    driver.reset(size=size)
    out = ARTIFACTS / "audit" / folder
    for old in out.rglob("*.png") if out.exists() else ():
        old.unlink()
    walk = Walk(driver, folder, check_sizes=size == (1280, 800))
    try:
        if language:
            choose_language(driver, language)
            assert i18n.language() != "en"
        if dim:
            choose_dim_room(driver, True)
        walk.run(games)
    finally:
        if driver.app.session is not None and (language or dim):
            driver.app.leave_game()
        if language:
            choose_language(driver, "English")
        if dim:
            choose_dim_room(driver, False)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faults.txt").write_text(report(walk), encoding="utf-8")
    return walk


@ON_DEMAND
@pytest.mark.app
@pytest.mark.parametrize("folder,size,language,dim", PASSES)
def test_every_screen_passes_the_audit(companion_app, folder, size, language, dim):
    walk = audit_pass(companion_app, folder, size, language, dim)
    assert len(walk.shots) > 40
    assert not walk.faults, report(walk)


@pytest.mark.app
def test_the_shell_and_23_knives_pass_the_audit_in_portrait(companion_app):
    """The audit's fast pass, in the normal suite: the shell's screens and every screen of 23
    Knives (the game with the most screens) at 800x1280, where the layouts are tightest. The
    whole audit (all games, every size, fr, de, the dim room) runs with SCREEN_AUDIT=1."""
    walk = audit_pass(companion_app, "quick_800x1280", (800, 1280), games=("knives23",))
    assert len(walk.shots) > 25
    assert not walk.faults, report(walk)
