"""Seven Knights Bewitched's phases as a type: a misspelt phase in the rules or a screen table is
a mypy error (``rules.PHASES`` is the same list, in the round's order)."""
from __future__ import annotations

from typing import Literal

Phase = Literal["search", "questions", "recommendation", "order_question", "captain_reveal",
                "formation", "cleanup", "game_over"]
