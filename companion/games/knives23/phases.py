"""23 Knives' phases and turn steps as types: a misspelt phase in the rules or a screen table
is a mypy error, and ``typing.get_args`` lists them for tests."""
from __future__ import annotations

from typing import Literal

Phase = Literal[
    "setup",                                  # the setup checklist
    "turn",                                   # a player's turn (see Step)
    "exile_called", "exile_vote", "exile_tie",  # a Vote to Exile: the call (and bribe), the vote, a tie
    "issue_vote", "issue_tie", "issue_resolve",  # the Tribune's Issue Vote and its resolution
    "eyes_closed",                            # an eyes-closed Issue being narrated
    "end_abilities", "curia_reveal",          # the end of the game: abilities, then the Curia
    "tableaux", "opportunists",               # the tableaux, then the Opportunists' play
    "over",
]
# A turn's steps in order: "MOVE", the Location's action, Sway, discard down to 6, the Issue.
Step = Literal["move", "action", "sway", "discard", "issue"]
