"""Seven Knights Bewitched (Kamomeno Jona, HEY!): rules, setup tables, referee, narration."""
from .rules import RULES_VERSION, SevenKnightsRules, SevenKnightsState, choose_captain  # noqa: F401
