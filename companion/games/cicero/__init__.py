"""Cicero: the round guide, the weighted Princeps election, the 2-player Automatii, the majorities
and the Prestige track (rules only; no Kivy)."""
from .rules import RULES_VERSION, CiceroRules, CiceroState

__all__ = ["RULES_VERSION", "CiceroRules", "CiceroState"]
