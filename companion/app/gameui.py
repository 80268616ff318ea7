"""How a game plugs its screens into the app.

A game's UI package ``companion/app/games/<game>/`` exposes ``UI``, its :class:`GameUI`
subclass; the app makes one per game attached (``companion.app.games.load_ui``). The shell owns the picker, table setup, devices, settings, the shared
pass-and-play vote and reveal screens and the vote history; the game owns the screens of play.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from companion.app.phasetimer import PhaseTimer
from companion.core.events import Event
from companion.core.rules import GameRules


@dataclass(frozen=True)
class OptionField:
    """One game option on the table-setup screen."""

    key: str
    label: str                 # catalogue key
    kind: str = "bool"         # bool | choice | int
    default: Any = False
    choices: Sequence[str] = ()  # for "choice": values; their labels are catalogue keys "<label>.<value>"
    minimum: int = 0
    maximum: int = 99
    help: str = ""             # catalogue key of a one-line explanation, shown under the option


@dataclass
class GameUI:
    game_id: str
    rules: GameRules
    title: str                         # catalogue key
    blurb: str = ""                    # catalogue key: one line on the picker
    options: Sequence[OptionField] = field(default_factory=list)
    # Seats also need these per game (e.g. Cicero's ages): catalogue keys of extra per-seat fields.
    seat_fields: Sequence[OptionField] = field(default_factory=list)
    # the countdown the game's view asks for (the app's one timer driver; new for each game attached)
    timer: PhaseTimer = field(default_factory=PhaseTimer)

    @property
    def min_players(self) -> int:
        return self.rules.min_players

    @property
    def max_players(self) -> int:
        return self.rules.max_players

    def make_setup(self, table: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
        """The rules' setup dict from the shell's table setup:
        ``{"players": [names clockwise], "colours": [...], "first": name, "options": {...},
        "seats": {name: {field: value}}}``."""
        return {**table, "options": dict(options)}

    def build_screens(self, app) -> list:
        """The game's Kivy screens (named ``"<game_id>.<name>"``)."""
        raise NotImplementedError

    def screen_for(self, view: Mapping[str, Any]) -> str:
        """Which of the game's screens shows this table view."""
        raise NotImplementedError

    def reveal_outcome(self, view: Mapping[str, Any], vote: Mapping[str, Any]) -> str:
        """The reveal's headline: what the vote decided, in words ("Bo is exiled"). Default:
        none, and the reveal names the option with most votes."""
        return ""

    def reveal_note(self, view: Mapping[str, Any], vote: Mapping[str, Any]) -> str:
        """A line the reveal screen adds under the counts (e.g. votes given by no player at the
        table, like Cicero's Automatii). Default: none."""
        return ""

    def reveal_correction(self, view: Mapping[str, Any]) -> str:
        """The label of a button on the reveal screen that opens the game's correction of what
        was revealed, while its view allows one ("" = no button). Default: none."""
        return ""

    def open_correction(self, app) -> None:
        """Open the game's correction screen (the reveal's correction button). Default: nothing."""

    def on_events(self, app, events: Sequence[Event], view: Mapping[str, Any]) -> None:
        """Called after each recorded batch: start narration, timers, sounds. Default: nothing."""

    def tick(self, app) -> None:
        """The app's engine tick, 20 times a second at most. Default: the timer runs."""
        self.tick_timer(app)

    def tick_timer(self, app) -> None:
        """The countdown the view asks for runs (also right after each recorded batch: a timer
        starts with the event that starts its phase), and the game's screens show it."""
        countdown = self.timer.tick(app)
        if countdown is not None:
            self.show_timer(app, countdown)

    def show_timer(self, app, countdown) -> None:
        """Show the running countdown on the game's screens. Default: nothing."""

    def on_left(self, app) -> None:
        """The table left this game (to the picker, or for another game): let go of what the
        app shares between games (hooks on the one narrator). Default: nothing."""
