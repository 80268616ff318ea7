"""23 Knives on the tablet: the setup checklist, the board (turns, Forum, Kalends, Curia), the
Tribune's tie decisions, Issue resolution (with narrated eyes-closed Issues), the Curia reveal,
the tableaux and the winner. Votes go through the shell's pass-and-play vote and reveal screens.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

from kivy.clock import Clock

from companion.app.gameui import GameUI, OptionField
from companion.core.events import Command, Event
from companion.core.i18n import tr
from companion.core.rules import NOTES
from companion.core.votes import vote_open
from companion.games.knives23 import EyesClosedIssue, Knives23Rules, Phase, load_script, said_after, table_data

PHASE_SCREEN: dict[Phase, str] = {"setup": "checklist", "turn": "board", "exile_called": "board", "issue_vote": "board",
                "exile_vote": "board", "issue_tie": "decision", "exile_tie": "decision",
                "issue_resolve": "issue", "eyes_closed": "issue", "end_abilities": "curia",
                "curia_reveal": "curia", "tableaux": "tableaux", "opportunists": "tableaux",
                "over": "result"}
CURIA_SAID = "curia_total_said"  # the mark after the last Curia total is spoken
SCREENS = ("checklist", "board", "decision", "issue", "curia", "tableaux", "result", "effects", "correct")
# The panels the table opens by hand, and the view's words on whether each may stay open now
# (the effects panel also records a Sway a Citizen's ability calls for, as during a bribe).
PANELS: dict[str, tuple[str, ...]] = {"effects": ("can_apply_effects", "can_sway_by_ability"),
                                      "correct": ("can_correct",)}


class Knives23UI(GameUI):
    def __init__(self) -> None:
        k = table_data()["kalends"]
        super().__init__(
            game_id="knives23", rules=Knives23Rules(), title="knives23.title", blurb="knives23.blurb",
            options=[
                OptionField("advanced_citizens", "knives23.option.advanced_citizens", "bool", True),
                OptionField("simplicitas", "knives23.option.simplicitas", "bool", False,
                            help="knives23.option.simplicitas_help"),
                OptionField("quid_pro_quo", "knives23.option.quid_pro_quo", "bool", False,
                            help="knives23.option.quid_pro_quo_help"),
                OptionField("bribe_seconds", "knives23.option.bribe_seconds", "int",
                            table_data()["bribe_seconds"], minimum=10, maximum=180),
                OptionField("variant", "knives23.option.variant", "choice", "standard",
                            choices=("standard", "all-or-nothing")),
                OptionField("curia_knowledge", "knives23.option.curia_knowledge", "bool", False,
                            help="knives23.option.curia_knowledge_help"),
                OptionField("kalends_spaces", "knives23.option.kalends_spaces", "int", k["spaces"],
                            minimum=2, maximum=20, help="knives23.option.kalends_help"),
                OptionField("dagger_start", "knives23.option.dagger_start", "int", 0, minimum=0,
                            maximum=20, help="knives23.option.dagger_start_help"),
            ])
        self.eyes = EyesClosedIssue()
        self._last: tuple | None = None   # (game id, events folded, state): the state after the last batch
        self.panel: str | None = None   # "effects" or "correct" while the table has that panel open
        self._narrator = None

    def make_setup(self, table: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
        o = dict(options)
        kalends = {}
        if o.get("kalends_spaces", table_data()["kalends"]["spaces"]) != table_data()["kalends"]["spaces"]:
            kalends["spaces"] = int(o["kalends_spaces"])
        if o.get("dagger_start"):  # 0: the table data's start space for this many players
            kalends["dagger_start"] = int(o["dagger_start"])
        setup = {"players": list(table["players"]), "start_player": table["first"]}
        for key in ("advanced_citizens", "simplicitas", "quid_pro_quo", "bribe_seconds", "variant",
                    "curia_knowledge"):
            if key in o:
                setup[key] = o[key]
        if kalends:
            setup["kalends"] = kalends
        return setup

    def build_screens(self, app) -> list:
        from companion.app.games.knives23 import (board, checklist, correct, curia, decision, effects, issue,
                                                  result, tableaux)
        self._last, self.panel = None, None
        self.eyes = EyesClosedIssue()
        return [m.make(app) for m in (checklist, board, decision, issue, curia, tableaux, result, effects, correct)]

    def screen_for(self, view: Mapping[str, Any]) -> str:
        # The verdict waits for the voice: the Curia screen stays until the last total is said
        # (the app shows the play screen again when the narrator reaches the mark).
        narrator = self._narrator
        if narrator is not None and narrator.has_pending_mark(CURIA_SAID) \
                and view.get("phase") in ("tableaux", "opportunists", "over"):
            return "knives23.curia"
        if self.panel and any(view.get(key) for key in PANELS[self.panel]):
            return "knives23." + self.panel
        self.panel = None   # the game moved on (a vote, the end): the panel closes by itself
        phase = cast(Phase, view.get("phase"))  # the view's phase is the state's (rules.view)
        return "knives23." + PHASE_SCREEN.get(phase, "board")

    def reveal_outcome(self, view: Mapping[str, Any], vote: Mapping[str, Any]) -> str:
        """"Bo is exiled", "The red Issue passes", or the tie the Tribune decides."""
        what = str(vote.get("vote_id", "")).split("-")[0]
        if view.get("phase") in ("issue_tie", "exile_tie"):
            return tr("touches.k23.tie", tribune=view.get("tribune", ""))
        if what == "exile" and view.get("exiles"):
            last = view["exiles"][-1]
            if last["exiled"]:
                return tr("touches.k23.exiled", target=last["target"])
            return tr("touches.k23.remains", target=last["target"], caller=last["caller"])
        colour = (view.get("issues") or {}).get("colour")
        if what == "issue" and colour in ("red", "grey"):
            return tr(f"touches.k23.passes_{colour}")
        return ""

    def open_panel(self, app, name: str) -> None:
        """The Forum's card effects or the corrections, over the screen of play."""
        self.panel = name
        app.go_home()

    def close_panel(self, app) -> None:
        self.panel = None
        app.go_home()

    # narration ---------------------------------------------------------------------------
    def on_events(self, app, events: Sequence[Event], view: Mapping[str, Any]) -> None:
        session = app.session
        self._narrator = app.narrator
        if any(e.kind == "undo" for e in events):
            app.narrator.cancel()   # an undone action's lines are no longer true
            app.narrator.stop_background()
            self._refresh(app)
            return
        before = len(session.events) - len(events)
        cached = self._last if self._last and self._last[:2] == (session.game_id, before) else None
        # the state before this batch: kept from the last batch (the game folds it again only
        # after a resume); the game says what each event calls for
        said = said_after(session.setup, session.events[:before], events, cached[2] if cached else None)
        for ev, cues in said:
            # The masking sound covers the rustle of cards while eyes are closed.
            if ev.kind == "eyes_closed" and app.settings.masking_loop:
                app.narrator.start_background()
            elif ev.kind == "eyes_opened":
                app.narrator.stop_background()
            for name, ctx in cues:
                if name == "eyes_closed":
                    self.eyes.started(session.game_id, ev.seq)
                app.narrator.enqueue_script(load_script(name), ctx,
                                            still_true=_still_true(app, name, ctx))
        self._last = (session.game_id, len(session.events), session.state)
        self._refresh(app)

    def _refresh(self, app) -> None:
        for name in SCREENS:
            screen = app.built_screen(f"knives23.{name}")
            if screen is not None and app.sm.current == screen.name:
                screen.refresh()

    # the bribe's time (Quid Pro Quo: the view's timer) and the end of an eyes-closed Issue ------
    def show_timer(self, app, countdown) -> None:
        board = app.built_screen("knives23.board")
        if board is not None:  # not built: nothing to show the time on
            board.update_timer(countdown.remaining())

    def tick(self, app) -> None:
        super().tick(app)
        session = app.session
        if session is None:
            return
        # "finally, for everyone to reopen their eyes": the game says when the script is over;
        # a resumed game's script goes on from the step the journal kept
        command = self.eyes.tick(session.game_id, (app.view or {}).get("phase"), session.events, app.narrator,
                                 app.narration_progress)
        if command is not None:
            Clock.schedule_once(lambda dt: _eyes_open(app, command), 0)

    def on_narration_mark(self, app, name: str) -> None:
        """The eyes-closed narration reached a step: kept in the journal as it goes, so a
        narration cut short (the app killed) resumes there."""
        if app.session is None:
            return
        reached = self.eyes.step_reached(app.session.game_id, name)
        if reached is not None:
            app.narration_progress.record(app.session.game_id, *reached)

    def bribe_remaining(self) -> float | None:
        return self.timer.remaining()


def _still_true(app, name: str, ctx: dict):
    """What keeps a report true until it is said (None: its key alone, a newer one replaces it)."""
    if name == "turn":
        def turn_still_true() -> bool:
            view = app.view or {}
            return view.get("phase") == "turn" and (view.get("turn") or {}).get("player") == ctx["player"]
        return turn_still_true
    if name == "vote_open":  # said only while that vote is on
        def vote_still_open() -> bool:
            return vote_open(app.view)
        return vote_still_open
    if name == "bribe":  # said only while the bribe's time runs (the view's timer)
        def bribe_still_on() -> bool:
            return ((app.view or {}).get("timer") or {}).get("name") == "knives23.bribe"
        return bribe_still_on
    if name in ("vote_result", "decision"):
        # a result is news until the table acts again (moves, calls an Exile, opens a vote):
        # then it is a past state, dropped rather than said late
        session = app.session
        acted = _actions(session)

        def result_still_true() -> bool:
            return app.session is session and _actions(session) == acted
        return result_still_true
    return None


def _actions(session) -> int:
    """How many of the table's actions the journal holds (its bookkeeping notes left out)."""
    return sum(1 for e in session.events if e.kind not in NOTES)


def _eyes_open(app, command: Command) -> None:
    if (app.view or {}).get("phase") == "eyes_closed":  # not ended another way meanwhile
        app.send_command(command)


UI = Knives23UI  # the app makes one per game attached (load_ui)
