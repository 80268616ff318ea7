"""23 Knives' phases, turn steps, event kinds and the Vote to Exile in progress as types: a
misspelt phase in the rules or a screen table, or a missing Exile key, is a mypy error;
``typing.get_args`` lists them (tests check them against the rules' fold)."""
from __future__ import annotations

from typing import Literal, TypedDict

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

# The game's own events (the vote engine adds companion.core.votes.VoteEventKind): one fold
# method ``_on_<kind>`` each in rules.Knives23Rules.
EventKind = Literal[
    "setup_ticked", "play_began", "board_confirmed",
    "moved", "fate_played", "forum_card_discarded", "forum_swapped", "dove_on_knife", "board_corrected",
    "exile_called", "swayed", "ability_swayed", "step_done", "turn_ended",
    "issues_placed", "vote_result", "tie_broken", "eyes_closed", "eyes_opened", "issue_resolved",
    "abilities_done", "curia_card_revealed", "curia_card_tapped", "curia_card_claimed", "tableau_revealed", "game_over",
]


class Exile(TypedDict):
    """A Vote to Exile called and not yet decided (a TypedDict: the state keeps the event's data
    and the view shows it as it is)."""

    caller: str
    target: str
    bribe_seconds: int          # Quid Pro Quo's bribe timer; 0 without that option
