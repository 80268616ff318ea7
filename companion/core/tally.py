"""Tally rules: how a revealed vote becomes a result, each in its rulebook's words.

Every tally takes the ballots ``{voter: choice}`` and returns a :class:`TallyResult`. A tie that a
person must break raises :class:`NeedsTieBreak` unless that person's choice is given.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .events import BadInput, NeedsTieBreak, RuleError
from .i18n import keyed


@dataclass(frozen=True)
class TallyResult:
    counts: Mapping[str, int]      # votes (or weighted votes) per choice
    leaders: tuple[str, ...]       # the choices with the most votes
    winner: str | None             # the decided choice (None when several are out together)
    tie: bool
    decided_by: str | None = None  # who broke the tie, when someone did


def _counts(ballots: Mapping[str, str | None], weights: Mapping[str, int] | None = None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for voter, choice in ballots.items():
        if choice is None:
            continue
        counts[choice] = counts.get(choice, 0) + (weights[voter] if weights is not None else 1)
    return counts


def most_votes(counts: Mapping[str, int], order: Sequence[str]) -> tuple[str, ...]:
    """The choices with the most votes (``order`` first, then the others alphabetically); none
    when nobody voted. The one reckoning of "most votes", for the rules' tallies and for a vote's
    view (``votes.table_view``), so a screen never counts again."""
    if not counts:
        return ()
    top = max(counts.values())
    ranked = [c for c in order if counts.get(c) == top] + sorted(c for c in counts if counts[c] == top and c not in order)
    return tuple(ranked)


@dataclass(frozen=True)
class BinaryMajority:
    """Two choices; the one with more votes carries; a tie goes to a named person's choice.

    23 Knives: "If there is a tie, you—the Tribune—make the final decision (you may choose either
    red or grey, regardless of your original Vote)." and "Ties are determined by the current Tribune."
    """

    choices: tuple[str, str]
    tie_breaker: str  # who breaks ties, in the game's words ("the Tribune")
    rule: str = ""

    def decide(self, ballots: Mapping[str, str | None], tie_choice: str | None = None) -> TallyResult:
        for voter, choice in ballots.items():
            if choice not in self.choices:
                raise BadInput(keyed("refusals.tally.not_a_choice", voter=voter, choice=str(choice), a=self.choices[0], b=self.choices[1]))
        counts = {c: 0 for c in self.choices}
        counts.update(_counts(ballots))
        a, b = self.choices
        if counts[a] != counts[b]:
            winner = a if counts[a] > counts[b] else b
            return TallyResult(counts, (winner,), winner, False)
        if tie_choice is None:
            raise NeedsTieBreak(keyed("refusals.tally.tied", a=counts[a], b=counts[b], who=self.tie_breaker),
                                self.tie_breaker, self.choices, self.rule)
        if tie_choice not in self.choices:
            raise BadInput(keyed("refusals.tally.tie_choice", choice=str(tie_choice), a=a, b=b))
        return TallyResult(counts, self.choices, tie_choice, True, self.tie_breaker)


@dataclass(frozen=True)
class PluralityAllTiedOut:
    """The choice with the most votes is out; "If multiple people tie for the most votes, they all
    are eliminated." (the Royals-and-Martyr mask game)."""

    rule: str = "If multiple people tie for the most votes, they all are eliminated."

    def decide(self, ballots: Mapping[str, str | None], order: Sequence[str] = ()) -> TallyResult:
        counts = _counts(ballots)
        leaders = most_votes(counts, order)
        return TallyResult(counts, leaders, leaders[0] if len(leaders) == 1 else None, len(leaders) > 1)


@dataclass(frozen=True)
class WeightedPlurality:
    """Each voter gives all their votes to one candidate; the most votes wins; a tie is decided
    by a named person "from among the tied players" (Cicero: the outgoing Princeps)."""

    tie_breaker: str
    rule: str = "In case of a tie, the outgoing Princeps decides the winner from among the tied players."

    def decide(self, ballots: Mapping[str, str | None], weights: Mapping[str, int],
               tie_choice: str | None = None, order: Sequence[str] = ()) -> TallyResult:
        for voter in ballots:
            if voter not in weights:
                raise BadInput(keyed("refusals.tally.no_weight", voter=voter))
        for voter, w in weights.items():
            if not isinstance(w, int) or isinstance(w, bool) or w < 0:
                raise BadInput(keyed("refusals.tally.bad_weight", voter=voter))
        counts = _counts(ballots, weights)
        leaders = most_votes(counts, order)
        if not leaders:
            raise RuleError(keyed("refusals.tally.no_votes"))
        if len(leaders) == 1:
            return TallyResult(counts, leaders, leaders[0], False)
        if tie_choice is None:
            raise NeedsTieBreak(keyed("refusals.tally.leaders_tied", names=", ".join(leaders), n=counts[leaders[0]],
                                      who=self.tie_breaker), self.tie_breaker, leaders, self.rule)
        if tie_choice not in leaders:
            raise BadInput(keyed("refusals.tally.tie_choice_among", choice=str(tie_choice), names=", ".join(leaders)))
        return TallyResult(counts, leaders, tie_choice, True, self.tie_breaker)


@dataclass(frozen=True)
class CaptainRule:
    """Seven Knights Bewitched: "The person with the most recommendations becomes the Captain. In
    case of a tie for most recommendations, the person who did not recommend themselves becomes
    Captain. If everyone is still tied (either everyone recommended themselves or no one did), then
    the person farthest from the First player, counting clockwise, becomes the Captain."

    Reading chosen where the text is open: when several tied players did not recommend themselves,
    they are "still tied", and the farthest of *them* clockwise from the First player is Captain.
    The First player counts as distance 0, so the farthest is the last of them in seat order
    starting from the First player.
    """

    def decide(self, seats: Sequence[str], first: str, recommendations: Mapping[str, str]) -> TallyResult:
        if first not in seats:
            raise BadInput(keyed("refusals.tally.first_absent", name=str(first)))
        for who, whom in recommendations.items():
            if who not in seats:
                raise BadInput(keyed("refusals.tally.absent", name=str(who)))
            if whom not in seats:
                raise BadInput(keyed("refusals.tally.recommends_absent", name=who, whom=str(whom)))
        missing = [p for p in seats if p not in recommendations]
        if missing:
            raise BadInput(keyed("refusals.tally.no_recommendation", names=", ".join(missing)))
        counts = _counts(recommendations)
        leaders = most_votes(counts, seats)
        if len(leaders) == 1:
            return TallyResult(counts, leaders, leaders[0], False)
        humble = [p for p in leaders if recommendations.get(p) != p]
        if len(humble) == 1:
            return TallyResult(counts, leaders, humble[0], True, "did not recommend themself")
        still = humble or list(leaders)
        start = seats.index(first)
        distance = {p: (seats.index(p) - start) % len(seats) for p in still}
        captain = max(still, key=lambda p: distance[p])
        return TallyResult(counts, leaders, captain, True, "farthest clockwise from the First player")
