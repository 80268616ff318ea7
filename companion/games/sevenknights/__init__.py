"""Seven Knights Bewitched (Kamomeno Jona, HEY!): rules, setup tables, referee, narration."""
from .rules import SevenKnightsRules, SevenKnightsState, choose_captain  # noqa: F401
