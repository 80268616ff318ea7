"""Seven Knights Bewitched on the tablet: the game's screens and how the shell drives them.

Screens: search (round setup + Search Phase), questions (the shared Question log, also for the
Captain's additional question, reached from the captain screen), recommend (before the secret vote; the vote itself and its
reveal are the shell's shared screens), captain (Order Phase), score (Cleanup and the end), and
correct (Correct an Arrow: a panel the table opens from the search, recommend, captain or score
screen; the screens only send commands, the rules decide what a correction changes).
"""
from __future__ import annotations

from typing import Any

from companion.app.gameui import GameUI, OptionField
from companion.core.narration import Mark, WaitFor
from companion.games.sevenknights import Phase, SevenKnightsRules, event_cues, script, start_cues

SCREENS: dict[Phase, str] = {
    "search": "search", "questions": "questions", "order_question": "captain",
    "recommendation": "recommend", "captain_reveal": "captain", "formation": "captain",
    "cleanup": "score", "game_over": "score",
}

PHASE_TOPIC = "sevenknights.phase"  # narration about the phase the table is in

class SevenKnightsUI(GameUI):
    def __init__(self) -> None:
        super().__init__(
            game_id="sevenknights", rules=SevenKnightsRules(), title="game.sevenknights",
            blurb="sevenknights.blurb",
            options=[OptionField("mode", "sevenknights.option.mode", kind="choice", default="basic",
                                 choices=("basic", "groping", "advanced", "unity"),
                                 help="sevenknights.option.mode_help")])
        self._last: Any = None
        self.correcting = False   # the Correct an Arrow panel is open

    def make_setup(self, table, options):
        return {"players": list(table["players"]), "first": table["first"],
                "colours": list(table.get("colours") or []), "mode": options.get("mode", "basic")}

    def build_screens(self, app):
        from . import captain, correct, questions, recommend, score, search
        self._last = app.session.state if app.session is not None else None
        self.correcting = False
        if app.session is not None and len(app.session.events) <= 1 and app.narrator is not None:
            self._speak(app, start_cues(app.session.state))  # a new game, not a resumed one
        return [m.make(app) for m in (search, questions, recommend, captain, score, correct)]

    def screen_for(self, view):
        if self.correcting and view.get("can_correct"):
            return "sevenknights.correct"
        self.correcting = False   # the round's result is in (or a new round): the panel closes
        return "sevenknights." + SCREENS.get(view.get("phase"), "search")

    # -- Correct an Arrow ------------------------------------------------------------------
    def open_correct(self, app) -> None:
        """The Correct an Arrow panel, over the screen of play, while the view says an Arrow of
        this round may be corrected (until the next round starts). Once the round's result is
        in, the rules record the result the corrected Arrow gives with the correction."""
        if not (app.view or {}).get("can_correct"):
            return
        self.correcting = True
        app.go_home()

    def close_correct(self, app) -> None:
        self.correcting = False
        app.go_home()

    def on_events(self, app, events, view):
        before, after = self._last, app.session.state
        self._last = after
        # An undo walks back: narrating the phase we return to would repeat old lines.
        if before is None or any(e.kind == "undo" for e in events) or app.narrator is None:
            return
        if getattr(after, "phase", None) != getattr(before, "phase", None):
            app.narrator.drop_topic(PHASE_TOPIC)  # the last phase's lines are no longer true
        self._speak(app, event_cues(before, after))

    def _speak(self, app, pairs):
        for name, context in pairs:
            s = script(name)
            # A script with a mark or a wait is spoken whole; the others are about the phase.
            whole = any(isinstance(step, (Mark, WaitFor)) for step in s.steps)
            app.narrator.enqueue_script(s, context, topic=None if whole else PHASE_TOPIC)


UI = SevenKnightsUI  # the app makes one per game attached (load_ui)
