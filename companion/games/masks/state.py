"""The Royals-and-Martyr mask game's state: its material, its phases, and the state types the
journal folds into (frozen dataclasses). Nothing here decides anything: a count and a verdict are
read back as ``decide`` recorded them (``VoteCount.recorded``, ``Verdict.recorded``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from companion.core import votes
from companion.core.i18n import keyed

# One handler's answer: the events to record, as (kind, data).
Events = list[tuple[str, dict[str, Any]]]

CENTER = votes.CENTER  # the Bystanders, as a vote option

PEOPLE, ROYALS, MARTYR, DRAW = "people", "royals", "martyr", "draw"

# The Identity cards in the rulebook's order of play, with their faction: (P), (R), (M).
IDENTITIES: tuple[str, ...] = (
    "Pamphleteer", "Spy", "Fugitive", "Harlot", "Martyr", "Queen", "King", "Executioner",
)
FACTION: Mapping[str, str] = {
    "Pamphleteer": PEOPLE, "Spy": PEOPLE, "Fugitive": PEOPLE, "Harlot": PEOPLE,
    "Martyr": MARTYR, "Queen": ROYALS, "King": ROYALS, "Executioner": PEOPLE,
}
ROYAL_CARDS = ("Queen", "King")
MASKS: tuple[str, ...] = ("Mendicant", "Confessor", "Vanguard", "Gambler", "Monger")

PLAYERS = 5
BYSTANDERS = 3
DISCUSSION_SECONDS = 7 * 60
DISCUSSION_WARNINGS = (120, 60, 30, 10)  # the Discussion's time left, spoken near its end
MIN_DISCUSSION, MAX_DISCUSSION = 60, 30 * 60
VOTE_ID = "masks-vote"
# The longest reason the table may give for a correction (one line under the vote).
MAX_REASON = 80

# The round's phases: a misspelt phase is a mypy error.
Phase = Literal["deal", "hidden", "discussion", "voting", "executioner_check", "executioner", "identities",
                "over"]
DEAL: Phase = "deal"
HIDDEN: Phase = "hidden"
DISCUSSION: Phase = "discussion"
VOTING: Phase = "voting"
EXECUTIONER_CHECK: Phase = "executioner_check"
EXECUTIONER: Phase = "executioner"
IDENTITIES_PHASE: Phase = "identities"
OVER: Phase = "over"

# The rulebook's words a recorded Royalist warning is read back with (rules.py quotes the rest;
# these live here because a recorded verdict needs them, and the state imports no rules).
RULE_ROYALIST_ONE = "If there is only 1 Royal in play"
RULE_ROYALIST_NEIGHBOUR = ("that Royal will tap the shoulder of an adjacent player to their left or "
                           "right. That person is now a Royalist")
RULE_ROYALIST_MARTYR = "The Martyr cannot be selected as a Royalist."


@dataclass(frozen=True)
class RoyalistWarning:
    """A Royalist the Royalist rule would not allow, given the final Identities."""
    key: str                    # catalogue key under masks.warn.
    params: Mapping[str, Any]
    rule: str                   # the rulebook's words

    def text(self) -> dict[str, Any]:
        return keyed("rule.quoted", text=keyed(f"masks.warn.{self.key}", **self.params), rule=self.rule)


# Each warning's rulebook words, by its key (a recorded verdict holds the key, never the words).
WARNING_RULES: Mapping[str, str] = {
    "both_royals": RULE_ROYALIST_ONE, "royal_self": RULE_ROYALIST_NEIGHBOUR, "martyr": RULE_ROYALIST_MARTYR,
    "not_neighbour": RULE_ROYALIST_NEIGHBOUR, "no_royal": RULE_ROYALIST_ONE,
}


def _seat_counts(players: Sequence[str], counts: Mapping[str, Any]) -> dict[str, int]:
    """Votes per player and the center in seat order (the journal keeps no key order)."""
    return {o: int(counts.get(o, 0)) for o in list(players) + [CENTER]}


@dataclass(frozen=True)
class VoteCount:
    """The revealed vote's count as the journal records it (decided once, with the reveal or
    a correction: ``scoring.count_of``): votes per player and the center in seat order, the top of
    the count, the players on top, and who of them looks for the Executioner."""
    counts: Mapping[str, int]
    most_voted: tuple[str, ...]
    top_players: tuple[str, ...]
    checkers: tuple[str, ...] = ()   # who looks for the Executioner (``scoring.who_checks``)

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"counts": dict(self.counts), "most_voted": list(self.most_voted),
                               "top_players": list(self.top_players)}
        if self.checkers != self.top_players:   # only a house rule makes them differ
            out["checkers"] = list(self.checkers)
        return out

    @classmethod
    def recorded(cls, players: Sequence[str], d: Mapping[str, Any]) -> VoteCount:
        """The count as recorded (the journal keeps no key order: seat order again)."""
        top = tuple(d["top_players"])
        return cls(_seat_counts(players, d["counts"]), tuple(d["most_voted"]), top, tuple(d.get("checkers", top)))


@dataclass(frozen=True)
class Verdict:
    counts: Mapping[str, int]          # votes per player and "center"
    most_voted: tuple[str, ...]        # the top of the count (may include "center")
    eliminated: tuple[str, ...]        # in seat order
    result: str                        # people | royals | martyr | draw
    winners: tuple[str, ...]           # players at the table who win, in seat order
    readings: tuple[str, ...] = ()     # catalogue keys of the readings applied, for the table
    executioner: str | None = None
    executioner_target: str | None = None
    decided_by: str = ""               # which of the rulebook's win conditions decided it
    warnings: tuple[RoyalistWarning, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"eliminated": list(self.eliminated), "result": self.result,
                "winners": list(self.winners)}

    def reasons(self) -> dict[str, Any]:
        """What the engine computed on the way (the referee's full answer)."""
        return {"counts": dict(self.counts), "most_voted": list(self.most_voted),
                "executioner": self.executioner, "executioner_target": self.executioner_target,
                "decided_by": self.decided_by, "readings": list(self.readings),
                "warnings": [w.key for w in self.warnings]}

    def record(self) -> dict[str, Any]:
        """The whole verdict as the journal records it (keys and values: the warnings' rulebook
        words are found again by their keys)."""
        return {**self.to_dict(), **self.reasons(),
                "warnings": [{"key": w.key, "params": dict(w.params)} for w in self.warnings]}

    @classmethod
    def recorded(cls, players: Sequence[str], d: Mapping[str, Any]) -> Verdict:
        return cls(counts=_seat_counts(players, d["counts"]),
                   most_voted=tuple(d["most_voted"]), eliminated=tuple(d["eliminated"]), result=d["result"],
                   winners=tuple(d["winners"]), readings=tuple(d["readings"]), executioner=d["executioner"],
                   executioner_target=d["executioner_target"], decided_by=d["decided_by"],
                   warnings=tuple(RoyalistWarning(w["key"], dict(w["params"]), WARNING_RULES[w["key"]])
                                  for w in d["warnings"]))


@dataclass(frozen=True)
class MasksState:
    players: tuple[str, ...]
    discussion_seconds: int = DISCUSSION_SECONDS
    phase: Phase = DEAL
    vanguard: str | None = None                 # who used the Mask of the Vanguard
    book: votes.VoteBook = field(default_factory=votes.VoteBook)
    ballots: Mapping[str, str | None] | None = None  # the revealed vote
    identities: Mapping[str, str] | None = None      # the final Identities, once entered
    center: tuple[str, ...] = ()
    royalist: str | None = None
    verdict: Verdict | None = None
    count: VoteCount | None = None              # the revealed vote's count, as recorded
    # The Executioner's check, before the general reveal: done (True), who showed the card, and
    # whom they chose. (A journal written before the check existed has it False throughout.)
    checked: bool = False
    executioner: str | None = None
    executioner_target: str | None = None
    # A revealed pointing may still be corrected (from the reveal until the Executioner's check
    # is answered or the Identities are entered), and the corrections made, for the table.
    correctable: bool = False
    corrections: tuple[Mapping[str, Any], ...] = ()
    # The readings the group chose where the rulebook is open (setup.HOUSE_RULES; a name left
    # out takes its default: setup.reading).
    house_rules: Mapping[str, str] = field(default_factory=dict)
