"""Seven Knights Bewitched (Kamomeno Jona, HEY!): rules, setup tables, referee, narration cues.

The package has the common shape (docs/architecture.md): state, setup, rules (decide), evolve,
view, commands, cues, referee, plus tables (setup data) and scoring (the deciding functions)."""
from .rules import RULES, RULES_VERSION, SevenKnightsRules  # noqa: F401
from .scoring import choose_captain  # noqa: F401
from .state import SevenKnightsState  # noqa: F401
# The game's public API beyond the rules: what the app and the phone may import (the layer
# contract in pyproject.toml, ``[tool.importlinter]``, holds them to it).
from .cues import cues as event_cues, script, start_cues  # noqa: E402
from .state import Phase  # noqa: E402
from .rules import NEEDS_N, NEEDS_OTHER, TEMPLATES, question_text  # noqa: E402
