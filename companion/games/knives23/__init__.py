"""23 Knives: rules as data plus pure functions (no Kivy). ``RULES`` is the game's GameRules."""
from .rules import RULES, RULES_VERSION, Knives23Rules  # noqa: F401
