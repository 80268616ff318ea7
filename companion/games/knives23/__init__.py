"""23 Knives: rules as data plus pure functions (no Kivy). ``RULES`` is the game's GameRules.

The names below are the game's public API: what the app and the phone may import (the layer
contract in pyproject.toml, ``[tool.importlinter]``, holds them to it). The modules behind them
are the game's own business and may change shape without the screens noticing.
"""
from .cues import load as load_script, said_after
from .demo import SETUP as DEMO_SETUP, commands as demo_commands
from .flow import EyesClosedIssue
from .rules import RULES, RULES_VERSION, Knives23Rules
from .state import Phase, running_total
from .view import group_words, issue_name
from .scoring import blood_of, fate_total, side_of
from .tables import default_board, load_group_board, save_group_board
from .tables import tables as table_data

__all__ = ["RULES", "RULES_VERSION", "Knives23Rules", "Phase", "EyesClosedIssue", "said_after", "load_script", "group_words",
           "issue_name", "running_total", "blood_of", "side_of", "fate_total", "table_data", "default_board", "load_group_board",
           "save_group_board", "DEMO_SETUP", "demo_commands"]
