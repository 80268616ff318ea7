"""Cicero's state: the round guide's record as frozen data, its phases, and small pure queries.

The tablet does not simulate the board: influences, Action cards and cenacles stay on the table.
It keeps what the table must agree on and remember: the draft order, the Princeps (with the secret
weighted election), the Automatii of the 2-player game, whose turn it is to place a Servant and
which spaces are taken, Cicero's demand and who paid how, the Triumvirate, the majority cards and
their holders, and the Prestige track.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from companion.core import votes

from . import logic
from .tables import AUTOMATII, CASTES, GUILDS

# Cicero's phases as a type: a misspelt phase in the rules or a screen table is a mypy error.
Phase = Literal[
    "draft", "first_princeps",                                  # before the first round
    "automatii", "automatii_actions",                           # the 2-player game's Automatii
    "election", "debate", "ballot", "election_tie",             # the Princeps election
    "accusation", "servants",                                   # Cicero's pleading, the Servants
    "tribute", "triumvirate", "second_tribute",
    "castes", "guilds",                                         # the majorities
    "prestige", "round_end", "game_over",
]

# What a command handler returns: the events it decided, each a kind and its JSON data.
Events = list[tuple[str, dict[str, Any]]]

# The phases of the Princeps election.
ELECTION_PHASES = ("election", "debate", "ballot", "election_tie")


@dataclass(frozen=True)
class CiceroState:
    players: tuple[str, ...]
    ages: Mapping[str, int]
    youngest: str
    servants: int
    rounds: int
    phase: Phase = "draft"
    round: int = 0
    draft: tuple[tuple[str, int], ...] = ()
    draft_step: int = 0
    princeps: str | None = None
    first_princeps: Mapping[str, Any] | None = None
    prestige: Mapping[str, int] = field(default_factory=dict)
    prestige_log: tuple[Mapping[str, Any], ...] = ()
    senate_votes: Mapping[int, Mapping[str, int]] = field(default_factory=dict)  # per round
    debate_seconds: int | None = None
    book: votes.VoteBook = votes.VoteBook()
    elections: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)      # per round
    tied: tuple[str, ...] = ()
    automatii: Mapping[str, Any] | None = None   # this round's placement (2-player game)
    cicero: Mapping[str, Any] | None = None      # this round's Cicero card
    placements: tuple[tuple[str, str], ...] = ()  # (player, space) this round, in order
    tribute: Mapping[str, str] = field(default_factory=dict)
    second_tribute: Mapping[str, str] = field(default_factory=dict)
    triumvirate: Mapping[str, Any] | None = None
    caste_cards: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)
    guild_cards: Mapping[str, str | None] = field(default_factory=dict)
    guild_use: Mapping[str, str] = field(default_factory=dict)
    caste_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # this round
    guild_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # this round
    pending_guild: str | None = None             # a Guild card whose holder must choose
    last_score: Mapping[str, Any] | None = None
    winners: tuple[str, ...] = ()
    # The counts last entered (per Caste, per Guild, and "senators"), kept across rounds: the
    # screens start from them so a round needs a tap per change, not per count.
    carried: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # The table option "economy" (off by default): influence, cenacle, Action cards, Legions.
    economy: Mapping[str, Any] | None = None
    # Majority cards set right by hand (each with its reason), for the screens' record.
    card_corrections: tuple[Mapping[str, Any], ...] = ()
    # The house rules' readings chosen at setup (every one named: setup.initial_state; core.houserules).
    house_rules: Mapping[str, str] = field(default_factory=dict)

    @property
    def two_player(self) -> bool:
        return len(self.players) == 2

    # -- derived facts the rules and views share -------------------------------------------
    def placing_order(self) -> tuple[str, ...]:
        """From the Princeps, in seat order."""
        if self.princeps is None:
            return self.players
        i = self.players.index(self.princeps)
        return self.players[i:] + self.players[:i]

    def next_to_place(self) -> str | None:
        total = len(self.players) * self.servants
        if self.phase != "servants" or len(self.placements) >= total:
            return None
        order = self.placing_order()
        return order[len(self.placements) % len(order)]

    def occupied(self) -> dict[str, str]:
        """Space -> who holds it (the Automatii too)."""
        out = {space: AUTOMATII for space in (self.automatii or {}).get("spaces", ())}
        out.update({space: player for player, space in self.placements})
        return out

    def servants_left(self) -> dict[str, int]:
        used = {p: 0 for p in self.players}
        for player, _space in self.placements:
            used[player] += 1
        return {p: self.servants - used[p] for p in self.players}

    def drafting(self) -> tuple[str, int] | None:
        return self.draft[self.draft_step] if self.draft_step < len(self.draft) else None

    def count_next(self) -> str | None:
        if self.phase == "castes":
            return next((c for c in CASTES if c not in self.caste_counts), None)
        if self.phase == "guilds" and self.pending_guild is None:
            return next((g for g in GUILDS if g not in self.guild_counts), None)
        return None

    def votes_this_round(self) -> Mapping[str, int]:
        return self.senate_votes.get(self.round, {})

    def outgoing(self) -> str:
        assert self.princeps is not None  # chosen before the first election
        return self.princeps  # until the election ends, the Princeps is the outgoing one


def card_points(state: CiceroState) -> dict[str, dict[str, int]]:
    """PP each player's majority cards bring this Prestige phase (logic.card_points)."""
    return logic.card_points(state.players, state.caste_cards, state.guild_cards, state.guild_use)
