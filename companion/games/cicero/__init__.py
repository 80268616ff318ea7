"""Cicero: the round guide, the weighted Princeps election, the 2-player Automatii, the majorities
and the Prestige track (rules only; no Kivy).

The names below are the game's public API: what the app and the phone may import (the layer
contract in pyproject.toml, ``[tool.importlinter]``, holds them to it)."""
from .logic import second_tribute_ways
from .narration import cues
from .phases import Phase
from .rules import RULES_VERSION, CiceroRules, CiceroState
from .seats import youngest_tie_break
from .tables import AUTOMATII, CASTES, GENERALS, GUILDS, TRIBUTE_WAYS, ZONES

__all__ = ["RULES_VERSION", "CiceroRules", "CiceroState", "Phase", "cues", "youngest_tie_break", "second_tribute_ways",
           "AUTOMATII", "CASTES", "GENERALS", "GUILDS", "TRIBUTE_WAYS", "ZONES"]
