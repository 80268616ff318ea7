"""The shape every game's rules take (like boardgame.io: setup, moves, a fold, a player view).

A game subclasses :class:`GameRules`. Everything here is pure: ``decide`` reads a state and a
command and returns the events to record (or raises :class:`RuleError` with the rule's words);
``evolve`` folds one recorded event into a new state. Nothing else changes state.

Results are recorded once. Every outcome (a tally's winner, a tie broken, a Captain, a Princeps,
an elimination, points, a game's winners) is worked out in ``decide`` and carried by the event's
data as keys and values; ``evolve`` only applies what the event says and never calls a tally or
a scoring function. A finished game so keeps its result when a later version fixes a rule: its
journal holds the answer, not the question. A game may keep one *legacy* path in ``evolve`` for
events recorded before their result was (a journal of an older version): it works the result out
as that version did, only for an event without the recorded result; new games never take it.

Each game's rules carry ``rules_version`` (its package's ``RULES_VERSION``), recorded in the
journal's first event when a game starts (``GameSession.start``), so a journal says which rules
a game was played under (:func:`rules_version_of`; ``python -m companion export`` shows it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, TypedDict

from .events import BadInput, Command, Event, RuleError
from .houserules import HouseRule
from .i18n import keyed

if TYPE_CHECKING:  # commands.py is imported by the games' rules, not here
    from .commands import CommandTable

# Viewers a ``view`` is built for. A player's name is also a viewer.
TABLE = "table"        # the screen everyone can see
NARRATOR = "narrator"  # the narrator's own eyes: still no secrets while the narrator plays


class Outcome(TypedDict):
    """How a game ended, as the journal records it (``Journal.finish``)."""

    winners: list[str]
    summary: Any  # a message as data (i18n.keyed), said in the language of whoever shows it


class GameRules:
    game_id: str = ""
    title: str = ""  # catalogue key
    min_players: int = 1
    max_players: int = 99
    # Event kinds undo may not cross: once a secret is revealed it never becomes secret again.
    irreversible: frozenset[str] = frozenset({"vote_revealed"})
    # Event kinds that are bookkeeping, not a table action: undo skips over them.
    not_undoable: frozenset[str] = frozenset({"undo", "game_started"})
    # The game's command table (companion.core.commands), set beside each game's class.
    commands: ClassVar[CommandTable]
    # The version of the rules the game is played under (the game package's RULES_VERSION),
    # raised when a rule changes what a game decides; recorded when a game starts.
    rules_version: ClassVar[int] = 1
    # The readings the rulebook leaves open that the table chooses at setup (companion.core.houserules),
    # recorded in the setup as ``house_rules``; the first reading of each is the default.
    house_rules: ClassVar[tuple[HouseRule, ...]] = ()

    def initial_state(self, setup: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def decide(self, state: Any, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        raise NotImplementedError

    def evolve(self, state: Any, event: Event) -> Any:
        raise NotImplementedError

    def view(self, state: Any, viewer: str) -> Mapping[str, Any]:
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        return None

    # -- the fold ---------------------------------------------------------------------------
    def fold(self, setup: Mapping[str, Any], events: Iterable[Event]) -> Any:
        """State = fold of the events that are not undone."""
        events = list(events)
        undone = undone_seqs(events)
        state = self.initial_state(setup)
        for ev in events:
            if ev.seq not in undone:
                state = fold_step(self, state, ev)
        return state


# Notes the app keeps in the journal so that a resumed game shows and says what it did:
# ``timer`` (a countdown's state) and ``narration_step`` (how far a long script got).
NOTES = frozenset({"timer", "narration_step"})
# Journal bookkeeping that no game's ``evolve`` sees.
BOOKKEEPING = frozenset({"game_started", "undo"}) | NOTES


def fold_step(rules: GameRules, state: Any, event: Event) -> Any:
    return state if event.kind in BOOKKEEPING else rules.evolve(state, event)


def rules_version_of(events: Iterable[Event]) -> int | None:
    """The rules version a game was played under, as its first event recorded it; None for a
    journal written before versions were recorded."""
    for ev in events:
        if ev.kind == "game_started":
            version = ev.data.get("rules_version")
            return version if isinstance(version, int) and not isinstance(version, bool) else None
    return None


def undone_seqs(events: Iterable[Event]) -> set[int]:
    """Seqs cancelled by an undo. An undo may itself be undone (that is a redo): latest first,
    an undo that is undone cancels nothing. A ballot undone takes the voter's earlier ballots in
    the same vote with it (:func:`votes.withdrawn_ballots`)."""
    from .votes import withdrawn_ballots
    events = list(events)
    undos = {ev.seq: int(ev.data["undoes"]) for ev in events if ev.kind == "undo"}
    undone: set[int] = set()
    for seq in sorted(undos, reverse=True):
        if seq not in undone:
            undone.add(undos[seq])
    return undone | withdrawn_ballots(events, undone)


def undo_target(rules: GameRules, events: list[Event]) -> Event:
    """The event an undo now would cancel: the latest live table action after the last
    irreversible event. Raises RuleError when there is none."""
    undone = undone_seqs(events)
    for ev in reversed(events):
        if ev.seq in undone or ev.kind in rules.not_undoable or ev.kind in BOOKKEEPING:
            continue
        if ev.kind in rules.irreversible:
            raise RuleError(keyed("undo.nothing_after_reveal"))
        return ev
    raise RuleError(keyed("undo.nothing"))


def known_setup(setup: Mapping[str, Any], keys: Iterable[str]) -> None:
    """Refuses a setup entry the game does not know: a misspelt option ("Mode", "optoins") would
    otherwise be played without, silently."""
    unknown = set(setup) - set(keys)
    if unknown:
        raise BadInput(keyed("refusals.setup_unknown", names=", ".join(sorted(str(k) for k in unknown))))


def require(condition: bool, message: str | Mapping[str, Any], rule: str | None = None) -> None:
    """Refuse an action unless ``condition`` holds, quoting the rule (``message``: English, or
    ``keyed(...)`` for a view to translate)."""
    if not condition:
        raise RuleError(message, rule)
