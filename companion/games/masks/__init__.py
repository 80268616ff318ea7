"""The Royals-and-Martyr mask game (5 players, 8 Identities, 5 Masks): rules, referee, scripts."""
from .rules import RULES_VERSION, MasksRules  # noqa: F401

RULES = MasksRules()

# The game's public API beyond the rules: what the app and the phone may import (the layer
# contract in pyproject.toml, ``[tool.importlinter]``, holds them to it).
from .cues import Cue, closing_cues, cues as event_cues, queue as queue_cue  # noqa: E402
from .narration import HiddenPhase, hidden_phase_script, step_of  # noqa: E402
from .rules import CENTER, DISCUSSION_SECONDS, IDENTITIES, MASKS, royalist_warnings  # noqa: E402
