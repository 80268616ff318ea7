"""23 Knives' state: the phases, turn steps and event kinds as types (a misspelt phase in the
rules or a screen table is a mypy error; ``typing.get_args`` lists them), the state's frozen
dataclasses, and small pure queries on the state (the Forum's count, the running total, ...)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, get_args

from companion.core.votes import VoteBook

from . import scoring
from .tables import Kalends, tables

GAME_ID = "knives23"
# What a handler returns: the events it decides, (kind, data) each; data is JSON.
Events = list[tuple[str, dict[str, Any]]]

Phase = Literal[
    "setup",                                  # the setup checklist
    "turn",                                   # a player's turn (see Step)
    "exile_called", "exile_vote", "exile_tie",  # a Vote to Exile: the call (and bribe), the vote, a tie
    "issue_vote", "issue_tie", "issue_resolve",  # the Tribune's Issue Vote and its resolution
    "eyes_closed",                            # an eyes-closed Issue being narrated
    "end_abilities", "curia_reveal",          # the end of the game: abilities, then the Curia
    "tableaux", "opportunists",               # the tableaux, then the Opportunists' play
    "over",
]
# A turn's steps in order: "MOVE", the Location's action, Sway, discard down to 6, the Issue.
Step = Literal["move", "action", "sway", "discard", "issue"]

# The game's own events (the vote engine adds companion.core.votes.VoteEventKind): one fold
# function ``_on_<kind>`` each in evolve.py (``FOLDS``).
EventKind = Literal[
    "setup_ticked", "play_began", "board_confirmed",
    "moved", "fate_played", "forum_card_discarded", "forum_swapped", "dove_on_knife", "board_corrected",
    "exile_called", "swayed", "ability_swayed", "step_done", "turn_ended",
    "issues_placed", "vote_result", "tie_broken", "eyes_closed", "eyes_opened", "issue_resolved",
    "abilities_done", "curia_card_revealed", "curia_card_tapped", "curia_card_claimed", "tableau_revealed",
    "game_over",
]


class Exile(TypedDict):
    """A Vote to Exile called and not yet decided (a TypedDict: the state keeps the event's data
    and the view shows it as it is)."""

    caller: str
    target: str
    bribe_seconds: int          # Quid Pro Quo's bribe timer; 0 without that option


STEPS: tuple[Step, ...] = get_args(Step)
SETUP_STEPS = ("I", "II", "III", "IV", "V", "VI", "VII")
# When the table may put the board right (the Curia also after the game's end is called, until
# the first tableau), and when a card's effect (an Issue, a Citizen) may play or discard Fate:
# ``decide`` refuses outside them and the view tells the screens (``can_correct``, ``can_apply_effects``).
BOARD_CORRECTION_PHASES: tuple[Phase, ...] = ("turn", "exile_called", "issue_resolve")
CURIA_CORRECTION_PHASES: tuple[Phase, ...] = BOARD_CORRECTION_PHASES + ("end_abilities", "curia_reveal", "tableaux")
EFFECT_PHASES: tuple[Phase, ...] = ("turn", "issue_resolve")
# A Sway a Citizen's ability calls for may come whenever its trigger does: during a turn, an
# Issue's resolution, or a Vote to Exile's call (Quid Pro Quo's bribes offer cards).
ABILITY_SWAY_PHASES: tuple[Phase, ...] = ("turn", "exile_called", "issue_resolve")


@dataclass(frozen=True)
class Options:
    advanced_citizens: bool = True
    simplicitas: bool = False       # ignore Citizen abilities: no ability reminders
    quid_pro_quo: bool = False      # a bribe timer before each Vote to Exile
    bribe_seconds: int = 60
    variant: str = "standard"       # or "all-or-nothing" (Aut Omnia Aut Nihil)
    curia_knowledge: bool = False   # show what is public about the Curia's cards

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ForumCard:
    faceup: bool
    card: Mapping[str, int] | None = None  # known only when faceup
    doves: tuple[ForumCard, ...] = ()   # Sabinus' Doves played onto this (Knife) card: ForumCards of their own

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"faceup": self.faceup, "card": dict(self.card) if self.card else None}
        if self.doves:
            d["doves"] = [x.to_dict() for x in self.doves]
        return d

    def all_cards(self) -> list[ForumCard]:
        """This card and the Doves on it: what goes into the Curia."""
        return [self, *self.doves]

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any] | None) -> ForumCard | None:
        """A recorded Forum card (``to_dict``'s shape, checked when it was decided), or None."""
        if entry is None:
            return None
        card = entry.get("card") if entry["faceup"] else None
        doves = tuple(d for d in (cls.from_dict(x) for x in entry.get("doves") or []) if d is not None)
        return cls(entry["faceup"], dict(card) if card else None, doves)


@dataclass(frozen=True)
class Turn:
    player: str
    step: Step = "move"
    fate_played: int = 0          # by the Forum's action (effects do not count)
    exile_called: bool = False
    swayed_in: tuple[str, ...] = ()   # the steps in which this player has Swayed (once each)


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options
    kalends: Kalends
    dagger: int
    start_player: str
    tribune: str
    tria_ludio: bool
    phase: Phase = "setup"
    setup_done: frozenset[str] = frozenset()
    turn: Turn | None = None
    round: int = 0
    locations: Mapping[str, str] = field(default_factory=dict)
    forum: tuple[ForumCard | None, ...] = (None, None, None, None, None)
    forum_extra: tuple[ForumCard, ...] = ()   # cards played onto the 5th space of a full Forum
    curia_count: int = 0
    curia_known: tuple[Mapping[str, int], ...] = ()   # faceup cards seen going into the Curia (public)
    flushes: int = 0
    book: VoteBook = VoteBook()
    issues: Mapping[str, Any] | None = None   # {"red", "grey"} placed; then "colour" chosen
    exile: Exile | None = None
    exiles: tuple[Mapping[str, Any], ...] = ()   # past Votes to Exile: {"caller","target","exiled","tie"}
    shamed: tuple[str, ...] = ()
    eyes_closed: str | None = None
    ended_by: str | None = None
    curia_revealed: tuple[Mapping[str, Any], ...] = ()   # ({"card","serial"}, ...)
    curia_untapped: tuple[int, ...] = ()  # cards (1-based) a scan counted that no tap has named yet
    tableaux: Mapping[str, Any] = field(default_factory=dict)
    result: Mapping[str, Any] | None = None
    forum_kinds: tuple[str, ...] = ("either",) * 5   # the icons of the 5 Forum spaces, in the arrows' order
    forum_extra_kind: str = "either"       # the icon near the 5th space
    board_confirmed: bool = False          # the table checked the Kalends and Forum against its board
    # Physical steps the table must make, in order (keys and values; views translate):
    # ("flush", {...}), ("dagger", {...}), ("refill", {...}), ("pass_deck", {...}), ("exiled", {...}) …
    told: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    told_from: int = 0                     # where the steps of the latest table action begin
    notes: tuple[Mapping[str, Any], ...] = ()   # card effects and corrections, for the history
    house_rules: Mapping[str, str] = field(default_factory=dict)   # {name: reading} chosen at setup


# -- small queries on the state --------------------------------------------------------------

def next_clockwise(players: tuple[str, ...] | list[str], name: str, by: int = 1) -> str:
    return players[(players.index(name) + by) % len(players)]


def next_space(state: State) -> int:
    """The first empty space in the arrows' order ("filling in any possible empty spaces
    first"); 6 means on top of the 5th space of a full Forum."""
    for i, c in enumerate(state.forum):
        if c is None:
            return i + 1
    return 6


def forum_count(state: State) -> int:
    """The Fate cards that fill the Forum (Sabinus' Doves lie on Knife cards, filling no space)."""
    return sum(1 for c in state.forum if c is not None) + len(state.forum_extra)


def forum_full(state: State) -> bool:
    """"Once there are 5 or more Fate cards in the Forum after the end of your turn": the Forum
    goes into the Curia and the Dagger advances. Decided when a turn's end is recorded (its
    ``flush``), so a finished game keeps its turns' ends whatever a later version's tables say."""
    return forum_count(state) >= tables()["forum"]["flush_at"]


def forum_cards(state: State) -> list[ForumCard]:
    """Every card that goes into the Curia when the Forum resolves, Doves on Knives included."""
    return [x for c in state.forum if c is not None for x in c.all_cards()] + \
        [x for c in state.forum_extra for x in c.all_cards()]


def running_total(state: State) -> int:
    return scoring.fate_total(r["card"] for r in state.curia_revealed)


def untapped_scans(state: State, card: Mapping[str, int]) -> list[int]:
    """The Curia cards (1-based) of this value that a scan counted and no tap has named yet:
    the ones a tap of that value may name instead of counting a card again (issue 32, hole 4)."""
    return [i for i in state.curia_untapped if state.curia_revealed[i - 1]["card"] == card]


def exile_allowed(state: State) -> bool:
    return not state.kalends.is_black(state.dagger)


def seat_view_order(state: State, first: str) -> list[str]:
    i = state.players.index(first)
    return list(state.players[i:] + state.players[:i])
