"""The mask game's setup: its keys, the check of the players and the Discussion's length, and the
house rules (the readings the rulebook leaves open, chosen by the group and recorded in the setup)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.events import BadInput
from companion.core.houserules import HouseRule, chosen
from companion.core.i18n import keyed
from companion.core.rules import known_setup

from .state import CENTER, DISCUSSION_SECONDS, MAX_DISCUSSION, MIN_DISCUSSION, PLAYERS, MasksState

# colours, first, seats, options: the app's table setup, kept with the game
SETUP_KEYS = ("players", "discussion_seconds", "colours", "first", "seats", "options", "house_rules")

# The readings the rulebook leaves open, chosen by the group at setup (the first is the default:
# the app's reading before house rules). Catalogue keys: masks.house.<name>[.rule|.<reading>].
CENTER_TIE = HouseRule("masks", "center_tie", ("players_out", "nobody_out"))
EXECUTIONER_TIE = HouseRule("masks", "executioner_tie", ("chooses", "all_out"))
CENTER_MAJORITY = HouseRule("masks", "center_majority", ("votes_cast", "all_people"))
HOUSE_RULES: tuple[HouseRule, ...] = (CENTER_TIE, EXECUTIONER_TIE, CENTER_MAJORITY)
DEFAULT_HOUSE_RULES: Mapping[str, str] = {h.name: h.default for h in HOUSE_RULES}
# A verdict's reading (its recorded key) decided by a house rule: shown as that rule applied.
HOUSE_READINGS: Mapping[str, HouseRule] = {
    "masks.reading.center_tie": CENTER_TIE, "masks.reading.executioner_tie": EXECUTIONER_TIE,
    "masks.reading.center_majority": CENTER_MAJORITY,
}


def reading(house: Mapping[str, str], rule: HouseRule) -> str:
    """The reading of ``rule`` the group chose (its default where the setup names none)."""
    return house.get(rule.name, rule.default)


def check_players(players: Any) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)):
        raise BadInput(keyed("refusals.masks.players"))
    if len(players) != PLAYERS:
        raise BadInput(keyed("refusals.masks.player_count", n=len(players)))
    names = []
    for p in players:
        if not isinstance(p, str) or not p.strip():
            raise BadInput(keyed("refusals.players_not_names"))
        if p == CENTER:
            raise BadInput(keyed("refusals.masks.center_name", name=CENTER))
        names.append(p)
    if len(set(names)) != len(names):
        raise BadInput(keyed("refusals.players_twice"))
    return tuple(names)


def _seconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise BadInput(keyed("refusals.masks.discussion_seconds", least=MIN_DISCUSSION, most=MAX_DISCUSSION))
    if not MIN_DISCUSSION <= value <= MAX_DISCUSSION or value != int(value):  # whole seconds
        raise BadInput(keyed("refusals.masks.discussion_seconds", least=MIN_DISCUSSION, most=MAX_DISCUSSION))
    return int(value)


def initial_state(setup: Mapping[str, Any]) -> MasksState:
    if not isinstance(setup, Mapping):
        raise BadInput(keyed("refusals.setup_not_object"))
    known_setup(setup, SETUP_KEYS)
    players = check_players(setup.get("players"))
    seconds = _seconds(setup.get("discussion_seconds", DISCUSSION_SECONDS))
    return MasksState(players=players, discussion_seconds=seconds, house_rules=chosen(setup, HOUSE_RULES))
