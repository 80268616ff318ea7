"""What a screen needs to know comes from the game's view (issue 30), and the view agrees with
the rules: a panel the view keeps closed would hide nothing the rules accept."""
from __future__ import annotations

from companion.core.commands import legal_commands
from companion.core.events import Event
from companion.core.rules import fold_step
from companion.games.knives23 import DEMO_SETUP, RULES, demo_commands

EFFECTS = {"discard_forum", "sabinus_dove"}  # a card's effect, sent from the effects panel


def _demo_states():
    state, seq = RULES.initial_state(DEMO_SETUP), 0
    yield state
    for command in demo_commands():
        for kind, data in RULES.decide(state, command):
            seq += 1
            state = fold_step(RULES, state, Event(seq=seq, kind=kind, data=data, source=command.source, at=0.0))
        yield state


def test_knives23_corrections_and_effects_are_open_whenever_the_rules_take_them():
    seen = {"correct": 0, "effects": 0, "closed": 0}
    for state in _demo_states():
        view = RULES.view(state, "table")
        legal = {entry.name for entry in legal_commands(RULES, state)}
        if any(name.startswith("correct_") for name in legal):
            assert view["can_correct"], state.phase
            seen["correct"] += 1
        if legal & EFFECTS:
            assert view["can_apply_effects"], state.phase
            seen["effects"] += 1
        if not view["can_correct"]:
            seen["closed"] += 1
    assert all(seen.values()), seen  # the demo game reaches each case
