"""Cicero: the round guide, the weighted Princeps election, the 2-player Automatii, the majorities
and the Prestige track (rules only; no Kivy).

The names below are the game's public API: what the app and the phone may import (the layer
contract in pyproject.toml, ``[tool.importlinter]``, holds them to it)."""
from .cues import cues as event_cues
from .logic import second_tribute_ways
from .rules import RULES, RULES_VERSION, CiceroRules
from .setup import HOUSE_RULES, youngest_tie_break
from .state import CiceroState, Phase
from .tables import AUTOMATII, CASTES, GENERALS, GUILDS, TRIBUTE_WAYS, ZONES

__all__ = ["RULES", "RULES_VERSION", "CiceroRules", "CiceroState", "Phase", "HOUSE_RULES", "event_cues",
           "youngest_tie_break", "second_tribute_ways", "AUTOMATII", "CASTES", "GENERALS", "GUILDS",
           "TRIBUTE_WAYS", "ZONES"]
