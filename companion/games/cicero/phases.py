"""Cicero's phases as a type: a misspelt phase in the rules or a screen table is a mypy error."""
from __future__ import annotations

from typing import Literal

Phase = Literal[
    "draft", "first_princeps",                                  # before the first round
    "automatii", "automatii_actions",                           # the 2-player game's Automatii
    "election", "debate", "ballot", "election_tie",             # the Princeps election
    "accusation", "servants",                                   # Cicero's pleading, the Servants
    "tribute", "triumvirate", "second_tribute",
    "castes", "guilds",                                         # the majorities
    "prestige", "round_end", "game_over",
]
