"""A game being played: the journal, the rules and the current state, in one direction.

command -> rules.decide -> events appended to the journal (committed) -> state folded -> listeners
"""
from __future__ import annotations

import importlib
import logging
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import i18n
from .events import BadInput, Command, Event, RuleError
from .journal import Journal, JournalDamaged
from .rules import BOOKKEEPING, NOTES, GameRules, fold_step, undo_target, undone_seqs

log = logging.getLogger(__name__)

# Bookkeeping a game's screens record (a timer paused, resumed, given more time): kept in the
# journal so a resumed game shows what it showed, but no table action (undo steps over them).
TIMER = "timer"
NARRATION_STEP = "narration_step"


class GameSession:
    def __init__(self, journal: Journal, game_id: int, rules: GameRules, *,
                 _events: Iterable[Event] | None = None):
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
        # The game row and its first event in one transaction: a kill never leaves an empty game.
        # ... recording the rules version the game is played under (rules.rules_version_of).
        first = [("game_started", {"game": rules.game_id, "rules_version": rules.rules_version}, "system")]
        game_id = journal.new_game(rules.game_id, setup, first)
        return cls(journal, game_id, rules)

    @classmethod
    def resume(cls, journal: Journal, game_id: int, rules: GameRules) -> "GameSession":
        """Replay a game. A journal that does not replay (a damaged row, events the rules cannot
        fold) raises a one-line BadInput naming the game, never a raw error."""
        try:
            return cls(journal, game_id, rules)
        except (BadInput, RuleError):
            raise
        except Exception as exc:  # recorded events this version's rules cannot fold
            log.exception("game %s does not replay", game_id)
            # the table is told which game and why (the fold's own words, e.g. "an Exile decided
            # with no Exile called" when two copies wrote one journal); the trace is in the log
            cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise BadInput(i18n.keyed("refusals.session.no_replay", game=game_id, cause=cause)) from None

    # -- commands -------------------------------------------------------------------------
    def execute(self, command: Command) -> list[Event]:
        """Validate and record a command. A refused command raises and records nothing."""
        if command.kind == "undo":
            return self.undo(command.source)
        if command.kind == "redo":
            return self.redo(command.source)
        items = self.rules.decide(self.state, command)
        return self._record([(kind, data, command.source) for kind, data in items])

    def check(self, command: Command) -> None:
        """Ask the rules about a command without recording anything: raises what ``execute``
        would (a ``NeedsTieBreak`` a screen asks the table to settle first, a refusal)."""
        self.rules.decide(self.state, command)

    def undo(self, source: str = "tablet") -> list[Event]:
        target = undo_target(self.rules, self.events)
        return self._record([("undo", {"undoes": target.seq, "kind": target.kind}, source)], refold=True)

    def redo(self, source: str = "tablet") -> list[Event]:
        """Take back the last undo (an undo of that undo), as long as nothing was done since."""
        target = redo_target(self.events)
        kind = target.data.get("kind", "")
        return self._record([("undo", {"undoes": target.seq, "kind": "undo", "redoes": kind}, source)],
                            refold=True)

    def can_undo(self) -> bool:
        try:
            undo_target(self.rules, self.events)
            return True
        except RuleError:
            return False

    def can_redo(self) -> bool:
        try:
            redo_target(self.events)
            return True
        except RuleError:
            return False

    def event(self, seq: int) -> Event | None:
        return next((e for e in self.events if e.seq == seq), None)

    def live_event(self, kind: str) -> Event | None:
        """The latest event of ``kind`` that is not undone (or None): what started the phase
        the table is in (a timer's record is keyed by it)."""
        undone = undone_seqs(self.events)
        return next((e for e in reversed(self.events) if e.kind == kind and e.seq not in undone), None)

    def view(self, viewer: str) -> Mapping[str, Any]:
        return self.rules.view(self.state, viewer)

    def subscribe(self, callback: Callable[[list[Event], Any], None]) -> None:
        self._listeners.append(callback)

    def note(self, kind: str, data: Mapping[str, Any]) -> Event:
        """Record bookkeeping that changes no state (``timer``, ``narration_step``): no rules,
        no listeners."""
        if kind not in BOOKKEEPING:
            raise ValueError(f"{kind} is not bookkeeping")
        (event,) = self.journal.append(self.game_id, [(kind, dict(data), "system")])
        self.events.append(event)
        return event

    # -- internals ------------------------------------------------------------------------
    def _record(self, items: Sequence[tuple[str, Mapping[str, Any], str]], refold: bool = False) -> list[Event]:
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
        # The game's end (or its undoing) goes in the same transaction as the events deciding it:
        # a kill in between can no longer leave a finished game "playing".
        outcome = self.rules.outcome(state)
        record = self.journal.game(self.game_id)
        finish = reopen = None
        if outcome is not None:
            # the games table's summary is a log line: English, whatever the table speaks
            result = (list(outcome.get("winners", [])), i18n.text_of(outcome.get("summary", ""), "en"))
            # A game just won, or a finished game whose result a correction changed (Seven Knights'
            # Arrow corrected after the last round): the record says the result the events now say.
            if record.status == "playing" or (record.status == "finished"
                                              and (list(record.winners), record.summary) != result):
                finish = result
        elif record.status == "finished":  # the winning action was undone
            reopen = True
        new = self.journal.append(self.game_id, items, finish=finish, reopen=bool(reopen))
        self.events.extend(new)
        self.state = state
        for cb in list(self._listeners):
            cb(new, self.state)
        return new


def redo_target(events: list[Event]) -> Event:
    """The undo a redo now would take back: the latest live undo of a table action, with only
    bookkeeping and other redos after it. Raises RuleError when there is none."""
    undone = undone_seqs(events)
    by_seq = {e.seq: e for e in events}
    for ev in reversed(events):
        if ev.kind in NOTES or ev.kind == "game_started":
            continue
        if ev.kind != "undo":
            break  # something was done after the undo: redo would rewrite history
        target = by_seq.get(int(ev.data["undoes"]))
        if ev.seq in undone or (target is not None and target.kind == "undo"):
            continue  # an undo already taken back, or a redo: look further back
        return ev
    raise RuleError(i18n.keyed("refusals.session.nothing_to_redo"))


def rules_for(game: str) -> GameRules:
    """The rules of a game by its id, from ``companion.games.<game>.rules`` (no Kivy)."""
    try:
        module = importlib.import_module(f"companion.games.{game}.rules")
    except ModuleNotFoundError:
        raise BadInput(i18n.keyed("refusals.session.unknown_game", game=game)) from None
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, GameRules) and value.game_id == game:
            return value()
    raise BadInput(i18n.keyed("refusals.session.no_rules", game=game))


def repair(journal: Journal, rules_of: Callable[[str], GameRules] = rules_for) -> list[str]:
    """Mend what an older version (or a kill before the ends and starts were atomic) left:
    a game whose events say it finished but whose row says "playing" is marked finished, and a
    game row without a single event is removed. Returns one line per repair."""
    notes = []
    for record in journal.unfinished():
        try:
            events = journal.events(record.id)
        except JournalDamaged as exc:  # one damaged game must not stop the others' repairs
            log.warning("game %s not repaired: %s", record.id, exc)
            continue
        if not events:
            if journal.remove_empty_game(record.id):
                notes.append(f"game {record.id} ({record.game}) had no events: removed")
            continue
        try:
            rules = rules_of(record.game)
            outcome = rules.outcome(rules.fold(record.setup, events))
        except Exception as exc:  # a game that does not replay is reported by check, not mended
            log.warning("game %s not repaired: %s", record.id, exc)
            continue
        if outcome is not None:
            journal.finish(record.id, outcome.get("winners", []), i18n.text_of(outcome.get("summary", ""), "en"))
            notes.append(f"game {record.id} ({record.game}) had finished: marked finished")
    return notes
