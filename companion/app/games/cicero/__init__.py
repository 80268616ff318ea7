"""Cicero on the tablet: the draft and first Princeps, the round guide (the Automatii of the
2-player game, the weighted Princeps election with its debate timer, Cicero's pleading, the
Servants on the board, the tribute and the Triumvirate, the majorities, the Prestige phase) and
the winner. The secret vote and its reveal are the shell's shared screens."""
from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

from companion.app.gameui import GameUI, OptionField
from companion.core.events import Event
from companion.core.i18n import tr
from companion.core.narration import Mark, WaitFor
from companion.games.cicero import CiceroRules, Phase, event_cues, youngest_tie_break

SCREENS: dict[Phase, str] = {
    "draft": "start", "first_princeps": "start",
    "automatii": "election", "automatii_actions": "election", "election": "election", "debate": "election",
    "ballot": "election", "election_tie": "election",
    "accusation": "board", "servants": "board",
    "tribute": "tribute", "triumvirate": "tribute", "second_tribute": "tribute",
    "castes": "majorities", "guilds": "majorities",
    "prestige": "prestige", "round_end": "prestige", "game_over": "prestige",
}
SCREEN_NAMES = ("start", "election", "board", "tribute", "majorities", "prestige")

PHASE_TOPIC = "cicero.phase"  # narration about the phase the table is in

class CiceroUI(GameUI):
    def __init__(self) -> None:
        super().__init__(game_id="cicero", rules=CiceroRules(), title="game.cicero", blurb="cicero.blurb",
                         seat_fields=[OptionField("age", "cicero.ui.age", "int", 30, minimum=0, maximum=120)],
                         options=[OptionField("economy", "cicero.option.economy", "bool", False,
                                              help="cicero.option.economy_help")])
        self._last: Any = None   # the game's state after the last batch of events

    def make_setup(self, table: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
        seats = table.get("seats") or {}
        ages = {p: seats.get(p, {}).get("age") for p in table["players"]}
        setup: dict[str, Any] = {"players": list(table["players"]), "colours": list(table.get("colours") or []),
                                 "ages": ages, "options": {"economy": bool(options.get("economy", False))}}
        youngest = youngest_tie_break(table["players"], ages, table.get("first"))
        if youngest is not None:
            setup["youngest"] = youngest
        return setup

    def build_screens(self, app) -> list:
        from . import board, election, majorities, prestige, start, tribute
        self._last = app.session.state if app.session is not None else None
        if app.session is not None and len(app.session.events) <= 1 and app.narrator is not None:
            self._speak(app, event_cues(self._last, self._last, app.session.events))  # a new game
        return [m.make(app) for m in (start, election, board, tribute, majorities, prestige)]

    def screen_for(self, view: Mapping[str, Any]) -> str:
        return "cicero." + SCREENS.get(cast(Phase, view.get("phase")), "start")  # the state's phase

    def on_events(self, app, events: Sequence[Event], view: Mapping[str, Any]) -> None:
        before, after = self._last, app.session.state
        self._last = after
        if before is None or app.narrator is None:
            return
        if any(e.kind == "undo" for e in events):
            app.narrator.cancel()  # an undone action's lines are no longer true
            return
        if after.phase != before.phase or after.round != before.round:
            app.narrator.drop_topic(PHASE_TOPIC)  # the last phase's guide is no longer true
        self._speak(app, event_cues(before, after, events))

    def _speak(self, app, pairs):
        for script, context in pairs:
            # Guide lines are about the phase: a new phase overtakes those still waiting. A
            # script with a mark or a wait (the count-in before the ballot) is spoken whole.
            whole = any(isinstance(s, (Mark, WaitFor)) for s in script.steps)
            app.narrator.enqueue_script(script, context, topic=None if whole else PHASE_TOPIC)

    # the debate's time (the view's timer) ----------------------------------------------------
    def show_timer(self, app, countdown) -> None:
        screen = app.built_screen("cicero.election")
        if screen is not None:  # not built: nothing to show the time on
            screen.show_time(countdown.remaining())

    def debate_remaining(self) -> float | None:
        return self.timer.remaining()

    def debate_add(self, seconds: float) -> None:
        self.timer.add(seconds)

    def debate_toggle(self) -> None:
        self.timer.toggle()

    def reveal_outcome(self, view: Mapping[str, Any], vote: Mapping[str, Any]) -> str:
        """"Cy is Princeps", or the tie the outgoing Princeps decides."""
        election = view.get("election") or {}
        if election.get("tied"):
            return tr("touches.cicero.tie", names=", ".join(election["tied"]), outgoing=election.get("outgoing") or "")
        result = election.get("result") or {}
        return tr("touches.cicero.princeps", name=result["princeps"]) if result.get("princeps") else ""

    def reveal_note(self, view: Mapping[str, Any], vote: Mapping[str, Any]) -> str:
        """The reveal shows the players' own ballots; in the 2-player game the Automatii's 5
        votes also count, and the table must see the totals the rules decided by."""
        result = (view.get("election") or {}).get("result") or {}
        if not result.get("automatii_to"):
            return ""
        totals = ", ".join(f"{name} {n}" for name, n in sorted(result["tally"].items(), key=lambda kv: -kv[1]))
        return tr("cicero.ui.reveal_automatii", to=result["automatii_to"], totals=totals)


UI = CiceroUI  # the app makes one per game attached (load_ui)
