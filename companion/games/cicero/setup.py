"""Cicero's setup: the players in seat order, their ages (the youngest starts the draft, the oldest
breaks the first Princeps' last tie), the table option "economy" and the house rules."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core import houserules
from companion.core.events import BadInput
from companion.core.houserules import HouseRule
from companion.core.i18n import keyed
from companion.core.rules import known_setup

from . import economy, logic
from .logic import check_players, numbers_for
from .state import CiceroState
from .tables import PRESTIGE_START

# The setup's keys ("colours": the app's seat colours, kept with the game).
SETUP_KEYS = ("players", "ages", "youngest", "options", "colours", houserules.SETUP_KEY)
OPTION_KEYS = ("economy",)

# The readings the rulebook leaves open, chosen by the table at setup (companion.core.houserules);
# the first reading of each is the one the app always applied.
HOUSE_RULES = (
    # "If one player has a strict majority, they become Princeps": the most votes, or more than half
    HouseRule("cicero", "first_princeps_majority", ("most_votes", "more_than_half")),
    # a Caste or Guild in which nobody has a vote at all: its cards stay, or go back to the supply
    HouseRule("cicero", "no_votes", ("kept", "supply")),
)


def initial_state(setup: Mapping[str, Any]) -> CiceroState:
    """``{"players": [names in seat order, the pack passing left], "ages": {name: years},
    "youngest": name (only when the youngest share an age)}``."""
    if not isinstance(setup, Mapping):
        raise BadInput(keyed("cicero.err.setup_shape"))
    known_setup(setup, SETUP_KEYS)
    players = check_players(setup.get("players"))
    ages = numbers_for(players, setup.get("ages"), keyed("cicero.word.age"))
    young = min(ages.values())
    youngest = [p for p in players if ages[p] == young]
    if len(youngest) > 1:
        chosen = setup.get("youngest")
        if chosen not in youngest:
            raise BadInput(keyed("cicero.err.youngest_tie", names=logic.and_list(youngest), age=young))
        youngest = [chosen]
    n = len(players)
    options = setup.get("options") or {}
    if not isinstance(options, Mapping) or not isinstance(options.get("economy", False), bool):
        raise BadInput(keyed("cicero.err.options_shape"))
    known_setup(options, OPTION_KEYS)
    tracked = economy.start(players) if options.get("economy") else None
    return CiceroState(players=players, ages=ages, youngest=youngest[0], servants=logic.servants_for(n),
                       rounds=logic.rounds_for(n), draft=logic.draft_turns(players, youngest[0]),
                       prestige={p: PRESTIGE_START for p in players}, economy=tracked,
                       house_rules=houserules.chosen(setup, HOUSE_RULES))


def youngest_tie_break(players: Sequence[str], ages: Mapping[str, object], first: str | None) -> str | None:
    """Who starts the Senator draft when several are the youngest, decided without Kivy.

    The rulebook: "The youngest player takes the 12 Senator cards" and names no one when two are
    equally young. The table's setup screen asks for ages only; ``initial_state`` refuses a tie
    without a ``youngest`` named, so the table's choice comes from here: the table's first player
    if among the youngest, else the first of them in seat order. None without a tie (or before
    every age is a whole number: the rules then say what is missing)."""
    known = {p: a for p, a in ages.items() if isinstance(a, int) and not isinstance(a, bool)}
    if not known:
        return None
    young = min(known.values())
    tied = [p for p in players if known.get(p) == young]
    if len(tied) < 2:
        return None
    return first if first in tied else tied[0]
