"""The Royals-and-Martyr mask game (5 players, 8 Identities, 5 Masks): rules, referee, scripts.

The package's modules (the common game shape): state (material, phases, state types), setup
(setup checks, house rules), rules (decide: the handlers and the rulebook's words), scoring (the
count and the verdict, decided once), evolve (the fold), view (what the table sees), commands (the
command table), cues (what the narrator says after events), narration (the Hidden Phase),
referee (the referee's questions)."""
from .rules import RULES, RULES_VERSION, MasksRules  # noqa: F401

# The game's public API beyond the rules: what the app and the phone may import (the layer
# contract in pyproject.toml, ``[tool.importlinter]``, holds them to it).
from .cues import Cue, closing_cues, cues as event_cues, queue as queue_cue  # noqa: E402,F401
from .narration import HiddenPhase, hidden_phase_script, step_of  # noqa: E402,F401
from .scoring import royalist_warnings  # noqa: E402,F401
from .state import CENTER, DISCUSSION_SECONDS, IDENTITIES, MASKS  # noqa: E402,F401
