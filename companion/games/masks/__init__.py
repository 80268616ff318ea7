"""The Royals-and-Martyr mask game (5 players, 8 Identities, 5 Masks): rules, referee, scripts."""
from .rules import RULES_VERSION, MasksRules  # noqa: F401

RULES = MasksRules()
