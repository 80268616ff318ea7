"""Seven Knights Bewitched (Kamomeno Jona, HEY!): rules, setup tables, referee, narration."""
from .rules import RULES_VERSION, SevenKnightsRules, SevenKnightsState, choose_captain  # noqa: F401
# The game's public API beyond the rules: what the app and the phone may import (the layer
# contract in pyproject.toml, ``[tool.importlinter]``, holds them to it).
from .narration import cues, script, start_cues  # noqa: E402
from .phases import Phase  # noqa: E402
from .rules import NEEDS_N, NEEDS_OTHER, TEMPLATES, question_text  # noqa: E402
