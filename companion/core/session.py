"""A game being played: the journal, the rules and the current state, in one direction.

command -> rules.decide -> events appended to the journal (committed) -> state folded -> listeners
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from . import i18n
from .events import Command, Event, RuleError
from .journal import Journal
from .rules import GameRules, fold_step, undo_target


class GameSession:
    def __init__(self, journal: Journal, game_id: int, rules: GameRules, *, _events=None):
        self.journal = journal
        self.game_id = game_id
        self.rules = rules
        self.setup = journal.game(game_id).setup
        self.events: list[Event] = list(_events) if _events is not None else journal.events(game_id)
        self.state = rules.fold(self.setup, self.events)
        self._listeners: list[Callable[[list[Event], Any], None]] = []

    @classmethod
    def start(cls, journal: Journal, rules: GameRules, setup: Mapping[str, Any]) -> "GameSession":
        rules.initial_state(setup)  # validates the setup before anything is written
        game_id = journal.new_game(rules.game_id, setup)
        session = cls(journal, game_id, rules, _events=[])
        session._record([("game_started", {"game": rules.game_id}, "system")])
        return session

    @classmethod
    def resume(cls, journal: Journal, game_id: int, rules: GameRules) -> "GameSession":
        return cls(journal, game_id, rules)

    # -- commands -------------------------------------------------------------------------
    def execute(self, command: Command) -> list[Event]:
        """Validate and record a command. A refused command raises and records nothing."""
        if command.kind == "undo":
            return self.undo(command.source)
        items = self.rules.decide(self.state, command)
        return self._record([(kind, data, command.source) for kind, data in items])

    def undo(self, source: str = "tablet") -> list[Event]:
        target = undo_target(self.rules, self.events)
        events = self._record([("undo", {"undoes": target.seq, "kind": target.kind}, source)], refold=True)
        return events

    def can_undo(self) -> bool:
        try:
            undo_target(self.rules, self.events)
            return True
        except RuleError:
            return False

    def view(self, viewer: str) -> Mapping[str, Any]:
        return self.rules.view(self.state, viewer)

    def subscribe(self, callback: Callable[[list[Event], Any], None]) -> None:
        self._listeners.append(callback)

    # -- internals ------------------------------------------------------------------------
    def _record(self, items, refold: bool = False) -> list[Event]:
        # Fold the would-be events before writing them, so a rules bug raises here and never
        # leaves an event in the journal that the state cannot fold.
        first = (self.events[-1].seq if self.events else 0) + 1
        provisional = [Event(first + i, kind, data, source) for i, (kind, data, source) in enumerate(items)]
        if refold:
            state = self.rules.fold(self.setup, self.events + provisional)
        else:
            state = self.state
            for ev in provisional:
                state = fold_step(self.rules, state, ev)
        new = self.journal.append(self.game_id, items)
        self.events.extend(new)
        self.state = state
        with i18n.speaking("en"):  # the games table's summary is a log line: English, whatever the table speaks
            outcome = self.rules.outcome(self.state)
        status = self.journal.game(self.game_id).status
        if outcome is not None and status == "playing":
            self.journal.finish(self.game_id, outcome.get("winners", []), outcome.get("summary", ""))
        elif outcome is None and status == "finished":  # the winning action was undone
            self.journal.reopen(self.game_id)
        for cb in list(self._listeners):
            cb(new, self.state)
        return new
