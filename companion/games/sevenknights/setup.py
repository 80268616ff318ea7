"""Seven Knights Bewitched's setup: the keys a setup holds, its checks (one-line BadInput), the
house rules a group may choose (companion.core.houserules), and the first state."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.events import BadInput
from companion.core.houserules import HouseRule, chosen
from companion.core.i18n import joined, keyed
from companion.core.rules import known_setup

from .state import Round, SevenKnightsState
from .tables import MODES, ROUND_POINTS, SET_ASIDE, WITCH, Mode

# "colours": the app's seat colours, kept with the game; "house_rules": core.houserules.
SETUP_KEYS = ("players", "first", "mode", "colours", "house_rules")
# The readings the rulebook leaves open, the app's reading first (tables.ROUND_POINTS: the points
# of the Scoring Cards "front 0/2 points, back 0/3 points").
HOUSE_RULES: tuple[HouseRule, ...] = (ROUND_POINTS,)
RESERVED_NAMES = frozenset({"center", "center 1", "center 2", "center 3", SET_ASIDE, WITCH, "table", "narrator"})


def check_setup(setup: Mapping[str, Any]) -> tuple[tuple[str, ...], str, Mode]:
    if not isinstance(setup, Mapping):
        raise BadInput(keyed("refusals.setup_not_object"))
    mode_key = setup.get("mode", "basic")
    if not isinstance(mode_key, str) or mode_key not in MODES:
        raise BadInput(keyed("refusals.sk.mode", mode=mode_key, modes=joined([keyed(f"sevenknights.mode.{m}") for m in MODES], ", ")))
    mode = MODES[mode_key]
    players = setup.get("players")
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
        raise BadInput(keyed("refusals.sk.players_clockwise"))
    players = tuple(players)
    if len(set(players)) != len(players):
        raise BadInput(keyed("refusals.players_twice"))
    bad = [p for p in players if p.lower() in RESERVED_NAMES]
    if bad:
        raise BadInput(keyed("refusals.sk.reserved_name", name=bad[0]))
    if not mode.min_players <= len(players) <= mode.max_players:
        raise BadInput(keyed("sevenknights.err.player_count", mode=keyed(f"sevenknights.mode.{mode_key}"),
                             low=mode.min_players, high=mode.max_players, n=len(players)))
    first = setup.get("first", players[0])
    if first not in players:
        raise BadInput(keyed("refusals.sk.first_player", name=first))
    return players, first, mode



def initial_state(setup: Mapping[str, Any]) -> SevenKnightsState:
    if isinstance(setup, Mapping):
        known_setup(setup, SETUP_KEYS)
    players, first, mode = check_setup(setup)
    readings = chosen(setup, HOUSE_RULES)
    return SevenKnightsState(players, mode.key, Round(1, first), totals=(0,) * len(players),
                             house_rules=tuple(readings.items()))
