"""The mask game's command table: what the table may ask of the round, each command's rule
quote, arguments, who may send it and the samplers that list and play it (companion.core.commands)."""
from __future__ import annotations

import random
from typing import Any

from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, PerPlayer, players_of)
from companion.core.schema import List, Null, Player, Text

from . import rules as r   # (rules.py imports this module last: see its bottom)
from .state import BYSTANDERS, CENTER, IDENTITIES, MasksState



_players = players_of


def _choices(state: MasksState) -> tuple[str, ...]:
    return state.players + (CENTER,)


COMMANDS = CommandTable("masks", [
    command("start_hidden_phase", r.MasksRules._do_start_hidden_phase, r.RULE_HIDDEN,
            doc="the deal is done: the narrator starts the Hidden Phase"),
    command("end_hidden_phase", r.MasksRules._do_end_hidden_phase, r.RULE_DISCUSSION,
            doc="everyone opens their eyes: the Discussion's 7 minutes start"),
    command("use_vanguard", r.MasksRules._do_use_vanguard, r.RULE_VANGUARD,
            Arg("player", Player(), values=_players, doc="who used the Mask of the Vanguard"),
            doc="the Vanguard revealed a Bystander and will abstain"),
    command("end_discussion", r.MasksRules._do_end_discussion, r.RULE_DISCUSSION_END,
            doc="the Discussion is over: the secret vote opens"),
    command("cast_ballot", r.MasksRules._do_cast_ballot, r.RULE_POINT, *ballot_args(_choices),
            who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one secret vote (it may be changed until the reveal)"),
    command("reveal_vote", r.MasksRules._do_reveal_vote, r.RULE_NO_ABSTAIN, force_arg(),
            doc="every vote is in: reveal them at once"),
    command("correct_pointing", r.MasksRules._do_correct_pointing, r.RULE_POINT,
            Arg("voter", Player(), values=_players, doc="whose pointing the tablet got wrong"),
            Arg("choice", Player(extra=(CENTER,)), values=_choices,
             doc="what they really pointed at: another player or \"center\""),
            Arg("reason", Text(), doc="why it is corrected (one line)",
             sample=lambda s, rng: "tapped the wrong name"),
            doc="a revealed pointing set to what the table saw (until the Executioner's check is answered)"),
    command("executioner_check", r.MasksRules._do_executioner_check, r.RULE_EXECUTIONER,
            Arg("player", Null(Player()), doc="the most-voted player who showed the Executioner, or null",
             values=lambda s: (None,) + (s.count.checkers if s.count else ())),
            doc="the most-voted players look at their own card"),
    command("executioner_chooses", r.MasksRules._do_executioner_chooses, r.RULE_EXECUTIONER,
            Arg("target", Player(), values=_players, doc="who is eliminated instead"),
            doc="the Executioner names another player"),
    command("enter_identities", r.MasksRules._do_enter_identities, r.RULE_REVEAL,
            Arg("identities", PerPlayer(Text()), doc="each player's final Identity (one of the 8 cards)",
),
            Arg("center", List(Text()), doc="the 3 Bystanders' Identities",
),
            Arg("royalist", Null(Player()), False, "the tapped Royalist, or null",
             values=lambda s: (None,) + s.players),
            doc="every Identity is turned over and entered", sample=lambda s, rng: _deal(s, rng)),
])


def _deal(state: MasksState, rng: random.Random) -> dict[str, Any]:
    """A deal consistent with what the table has already seen (for random play and listing):
    whoever showed the Executioner holds it; if nobody did, no most-voted player holds it."""
    others = [c for c in IDENTITIES if c != "Executioner"]
    rng.shuffle(others)
    top = state.count.checkers if state.count is not None else ()
    if state.executioner is not None:
        holder = state.executioner
    else:
        spots = [p for p in state.players if not (state.checked and p in top)] + [CENTER]
        holder = rng.choice(spots)
    ids: dict[str, str] = {}
    rest = iter(others)
    for p in state.players:
        ids[p] = "Executioner" if p == holder else next(rest)
    center = list(rest)
    if holder == CENTER:
        center.insert(rng.randrange(BYSTANDERS), "Executioner")
    return {"identities": ids, "center": center}
