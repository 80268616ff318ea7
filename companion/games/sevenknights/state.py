"""Seven Knights Bewitched: the state as frozen dataclasses, the phases as a type (a misspelt
phase in the rules or a screen table is a mypy error; ``PHASES`` is the same list, in the
round's order), and small pure queries on the state."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from companion.core import votes

from .tables import MODES, ROUND_POINTS, Mode

Phase = Literal["search", "questions", "recommendation", "order_question", "captain_reveal",
                "formation", "cleanup", "game_over"]

PHASES: tuple[Phase, ...] = get_args(Phase)

# What a handler returns: the events it decided, as (kind, data).
Events = list[tuple[str, dict[str, Any]]]

@dataclass(frozen=True)
class Arrow:
    looker: str
    at: str          # a player's name, "center", "center 1".. 3
    search: int      # which Search pass (1, or 2 for the center pass in Groping in the Dark)


@dataclass(frozen=True)
class Correction:
    """An Arrow the tablet had wrong, set to where the card on the table points."""
    looker: str
    search: int
    before: str
    after: str
    reason: str


@dataclass(frozen=True)
class Question:
    asker: str
    target: str
    template: str
    answer: str      # "yes" | "no"
    n: int | None = None
    other: str | None = None
    text: str = ""   # the free question's own words
    by_captain: bool = False


@dataclass(frozen=True)
class Result:
    winner: str                   # "knights" | "witch" | "none"
    why: str                      # "captain_witch" | "captain_toriko" | "in_order" | "out_of_order"
    witch: str | None             # where Witch Myrmamius was: a player, a center tile, set_aside, None
    toriko: tuple[str, ...]
    points: tuple[tuple[str, int], ...]
    in_order: bool | None = None


@dataclass(frozen=True)
class Round:
    number: int
    first: str
    arrows: tuple[Arrow, ...] = ()
    questions: tuple[Question, ...] = ()
    captain: str | None = None
    counts: tuple[tuple[str, int], ...] = ()
    tie: bool = False
    decided_by: str | None = None
    captain_tile: Any = None      # a Knight number, or "witch"
    result: Result | None = None
    next_first: str | None = None
    recommended: tuple[tuple[str, str], ...] = ()  # who recommended whom, once revealed
    corrections: tuple[Correction, ...] = ()       # Arrows corrected this round, with the reasons
    # Questions (1-based, this round) that a corrected Arrow shows were about tiles the asker had
    # seen: "You cannot ask questions to spread information you already know." (as recorded)
    forbidden: tuple[int, ...] = ()


@dataclass(frozen=True)
class SevenKnightsState:
    players: tuple[str, ...]
    mode: str
    round: Round
    phase: Phase = "search"
    search: int = 1               # the Search pass in progress (1-based)
    turn: int = 0                 # index into the clockwise order from the First player
    totals: tuple[int, ...] = ()
    past: tuple[Round, ...] = ()
    book: votes.VoteBook = votes.VoteBook()
    winners: tuple[str, ...] = ()  # the game's winners, as recorded by the last round's result
    house_rules: tuple[tuple[str, str], ...] = ()  # the readings chosen at setup (core.houserules)

    @property
    def rules_mode(self) -> Mode:
        return MODES[self.mode]

    @property
    def points_reading(self) -> str:
        """The house rule's reading of the scoring cards' "front 0/2 points, back 0/3 points"."""
        return dict(self.house_rules).get(ROUND_POINTS.name, ROUND_POINTS.default)

    @property
    def order(self) -> tuple[str, ...]:
        return clockwise_from(self.players, self.round.first)


def clockwise_from(players: Sequence[str], first: str) -> tuple[str, ...]:
    i = players.index(first)
    return tuple(players[i:]) + tuple(players[:i])



def winners(state: SevenKnightsState) -> list[str]:
    """The game's winners as recorded when its last round was scored."""
    return list(state.winners)


# -- event data <-> state ---------------------------------------------------------------------

def result_data(r: Result) -> dict:
    return {"winner": r.winner, "why": r.why, "witch": r.witch, "toriko": list(r.toriko),
            "points": dict(r.points), "in_order": r.in_order}


def result_from(d: Mapping[str, Any]) -> Result:
    return Result(d["winner"], d["why"], d.get("witch"), tuple(d.get("toriko", ())),
                  tuple(d.get("points", {}).items()), d.get("in_order"))

