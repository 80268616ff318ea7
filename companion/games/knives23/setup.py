"""23 Knives' setup: the setup keys, the house rules, and ``initial_state`` (checks the setup;
one-line BadInput)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core import houserules
from companion.core.events import BadInput
from companion.core.i18n import keyed
from companion.core.rules import known_setup

from . import scoring
from .state import ForumCard, Options, State, next_clockwise
from .tables import SPACE_KINDS, kalends_for, tables

MIN_PLAYERS, MAX_PLAYERS = 3, 8
VARIANTS = ("standard", "all-or-nothing")
SETUP_KEYS = {"players", "start_player", "advanced_citizens", "simplicitas", "quid_pro_quo",
              "bribe_seconds", "variant", "curia_knowledge", "kalends", "forum", houserules.SETUP_KEY}
# The readings the rulebook leaves open, chosen by the group at setup (issue 33): End of Game VI's
# tie-break, "the fewest Laurels/Blood ... on their Citizen card" — the icons of the winning kind
# (the app's reading so far) or that kind less the other ("net").
TIE_BREAK = houserules.HouseRule("knives23", "tie_break", scoring.TIE_BREAKS)
HOUSE_RULES: tuple[houserules.HouseRule, ...] = (TIE_BREAK,)


def _flag(setup: Mapping[str, Any], key: str, default: bool) -> bool:
    v = setup.get(key, default)
    if not isinstance(v, bool):
        raise BadInput(keyed("refusals.k23.setup_flag", option=key))
    return v


def forum_icons(value: Any) -> tuple[tuple[str, ...], str]:
    """The Forum's icons from a setup or a confirmation: {"spaces": [5 of either/faceup],
    "extra": either/faceup}; None: the table data's."""
    data = tables()["forum"]
    if value is None:
        return tuple(data["spaces"]), data["extra"]
    if not isinstance(value, Mapping) or not set(value) <= {"spaces", "extra"}:
        raise BadInput(keyed("refusals.k23.forum_icons"))
    spaces = value.get("spaces", data["spaces"])
    extra = value.get("extra", data["extra"])
    if not isinstance(spaces, (list, tuple)) or len(spaces) != 5 or any(k not in SPACE_KINDS for k in spaces) \
            or extra not in SPACE_KINDS:
        raise BadInput(keyed("refusals.k23.forum_icons"))
    return tuple(spaces), extra


def initial_state(setup: Mapping[str, Any]) -> State:
    if not isinstance(setup, Mapping):
        raise BadInput(keyed("refusals.setup_not_object"))
    known_setup(setup, SETUP_KEYS)
    players = setup.get("players")
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
        raise BadInput(keyed("refusals.players_not_names"))
    if len(set(players)) != len(players):
        raise BadInput(keyed("refusals.players_twice"))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadInput(keyed("refusals.k23.player_count", n=len(players)))
    seats = tuple(players)
    start = setup.get("start_player", seats[0])
    if start not in seats:
        raise BadInput(keyed("refusals.k23.start_player", name=start))
    variant = setup.get("variant", "standard")
    if variant not in VARIANTS:
        raise BadInput(keyed("refusals.k23.variant"))
    bribe = setup.get("bribe_seconds", tables()["bribe_seconds"])
    if not isinstance(bribe, int) or isinstance(bribe, bool) or not 5 <= bribe <= 600:
        raise BadInput(keyed("refusals.k23.bribe_seconds"))
    options = Options(_flag(setup, "advanced_citizens", True), _flag(setup, "simplicitas", False),
                      _flag(setup, "quid_pro_quo", False), bribe, variant,
                      _flag(setup, "curia_knowledge", False))
    override = setup.get("kalends")
    if override is not None and not isinstance(override, Mapping):
        raise BadInput(keyed("refusals.k23.kalends_setup"))
    kalends = kalends_for(len(seats), override)
    kinds, extra_kind = forum_icons(setup.get("forum"))
    house = houserules.chosen(setup, HOUSE_RULES)
    tria = len(seats) == 3
    forum = (None, None, None, None, ForumCard(False)) if tria else (None,) * 5
    return State(players=seats, options=options, kalends=kalends, dagger=kalends.dagger_start,
                 start_player=start, forum_kinds=kinds, forum_extra_kind=extra_kind,
                 # "give the deck ... to the player sitting to the right of the starting player"
                 tribune=next_clockwise(seats, start, -1),
                 tria_ludio=tria, forum=forum, house_rules=house,
                 locations={p: tables()["start_location"] for p in seats})
