"""Cicero's command table (companion.core.commands): each command's name, handler, rule quote,
arguments, who may send it, and the samplers random play and docs/commands.md use."""
from __future__ import annotations

import random
from collections.abc import Callable

from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, Numbers, players_of)
from companion.core.schema import Bool, Int, List, Null, Text

from . import economy, logic
from . import rules as r
from .state import CiceroState
from .tables import CASTES, GENERALS, GUILD_USES, GUILDS, SPACES, TRIBUTE_WAYS



_players = players_of


def _or_nobody(state: CiceroState) -> tuple[str | None, ...]:
    return (None,) + state.players


def _numbers(lo: int, hi: int) -> Callable[[CiceroState, random.Random], dict[str, int]]:
    """A sample of numbers, one per player (for random play and listing)."""
    return lambda state, rng: {p: rng.randint(lo, hi) for p in state.players}


def _castes(k: int, distinct: bool = False) -> Callable[[CiceroState, random.Random], list[str]]:
    return lambda state, rng: (rng.sample(CASTES, k) if distinct else [rng.choice(CASTES) for _ in range(k)])


# Types only: which names, Castes, spaces and ranges are allowed the rule functions say in
# the game's words (translated); the tables' ``values`` list them for legal_commands.
NUMBERS = Numbers()
CASTE = Text()
REASON = Arg("reason", Text(), doc="why the record is corrected", sample=lambda s, rng: "misheard")

COMMANDS = CommandTable("cicero", [
    command("draft_pick", r.CiceroRules._do_draft_pick, r.R_DRAFT,
            Arg("player", Text(), False, "who picks (the player whose turn it is)", values=_players),
            doc="the drafting player keeps a Senator card"),
    command("first_princeps", r.CiceroRules._do_first_princeps, logic.R_FIRST_PRINCEPS,
            Arg("votes", NUMBERS, doc="each player's votes in the Senate", sample=_numbers(1, 12)),
            Arg("oratores", NUMBERS, doc="each player's Oratores votes", sample=_numbers(0, 6)),
            Arg("oldest", Text(), False, "the oldest player, when the count ties", values=_players),
            doc="the first Princeps, from the Senators' votes"),
    command("correct_first_princeps", r.CiceroRules._do_correct_first_princeps, r.R_FIRST_PLAYER,
            Arg("votes", NUMBERS, doc="each player's votes in the Senate, as the table counts them now",
             sample=_numbers(1, 12)),
            Arg("oratores", NUMBERS, doc="each player's Oratores votes, as the table counts them now",
             sample=_numbers(0, 6)),
            Arg("oldest", Text(), False, "the oldest player, when the count ties", values=_players),
            REASON,
            doc="in round 1, until the first Servant: the starting Senators' votes set right; "
             "the first Princeps is decided again"),
    command("automatii_reveal", r.CiceroRules._do_automatii_reveal, logic.R_AUTOMATII_SAME_TWO,
            Arg("castes", List(CASTE), doc="the Castes of the 3 revealed Senators", sample=_castes(3)),
            doc="the Automatii's Senators are revealed (2 players)"),
    command("next_step", r.CiceroRules._do_next_step, r.R_ROUND, doc="the Automatii acted, or the next round starts"),
    command("senate_votes", r.CiceroRules._do_senate_votes, r.R_ANNOUNCE,
            Arg("votes", NUMBERS, doc="the votes each player announced", sample=_numbers(1, 12)),
            doc="players announce their votes in the Senate"),
    command("start_debate", r.CiceroRules._do_start_debate, r.R_ANNOUNCE,
            Arg("seconds", Int(None, None), doc="the debate's length", sample=lambda s, rng: rng.choice([60, 120])),
            doc="the debate's timer starts"),
    command("open_ballot", r.CiceroRules._do_open_ballot, r.R_VOTE, doc="the secret election opens"),
    command("cast_ballot", r.CiceroRules._do_cast_ballot, r.R_VOTE, *ballot_args(_players),
            who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one Family's secret vote for Princeps"),
    command("reveal_vote", r.CiceroRules._do_reveal_vote, r.R_VOTE, force_arg(), doc="the votes are shown at once"),
    command("tie_break", r.CiceroRules._do_tie_break, logic.R_ELECTION_TIE,
            Arg("choice", Text(), doc="whom the outgoing Princeps chooses", values=_players),
            doc="the outgoing Princeps breaks a tie"),
    command("correct_senate_votes", r.CiceroRules._do_correct_senate_votes, r.R_CORRECT_VOTES,
            Arg("player", Text(), doc="whose announced total was entered wrong", values=_players),
            Arg("votes", Int(None, None), doc="the total they announced", sample=lambda s, rng: rng.randint(0, 15)),
            REASON,
            Arg("choice", Null(Text()), False, "the outgoing Princeps' choice when the corrected totals tie",
             values=_or_nobody),
            doc="after the election's reveal, until the first Servant: an announced total set right; "
             "the Princeps is decided again"),
    command("correct_caste_cards", r.CiceroRules._do_correct_caste_cards, logic.R_KEEP_CARDS,
            Arg("caste", CASTE, doc="the Caste", values=lambda s: CASTES),
            Arg("primus", Null(Text()), False, "who holds its Primus card (none: in the supply)", values=_or_nobody),
            Arg("secundus", Null(Text()), False, "who holds its Secundus card (none: in the supply)", values=_or_nobody),
            REASON, doc="a Caste's Primus and Secundus holders set to what the table sees"),
    command("correct_guild_card", r.CiceroRules._do_correct_guild_card, logic.R_KEEP_CARDS,
            Arg("guild", Text(), doc="the Guild", values=lambda s: GUILDS),
            Arg("holder", Null(Text()), False, "who holds its card (none: in the supply)", values=_or_nobody),
            REASON, doc="a Guild card's holder set to what the table sees"),
    command("cicero_card", r.CiceroRules._do_cicero_card, r.R_TRIBUTE,
            Arg("influences", List(CASTE), doc="the 4 influences on the Cicero card", sample=_castes(4)),
            Arg("senator_castes", List(CASTE), doc="the 2 Senator Castes on it", sample=_castes(2, True)),
            doc="the Cicero card is revealed"),
    command("place_servant", r.CiceroRules._do_place_servant, r.R_PLACE_ORDER,
            Arg("player", Text(), False, "who places (the player whose turn it is)", values=_players),
            Arg("space", Text(), doc="the space", values=lambda s: SPACES),
            doc="a Servant goes to a space"),
    command("pay_tribute", r.CiceroRules._do_pay_tribute, r.R_TRIBUTE,
            Arg("player", Text(), doc="who pays", values=_players),
            Arg("how", Text(), doc="the way of paying", values=lambda s: TRIBUTE_WAYS),
            doc="a Family pays its tribute to Cicero"),
    command("triumvirate", r.CiceroRules._do_triumvirate, r.R_TRIUMVIRATE,
            Arg("satisfied", Bool(), doc="the Triumvirate is satisfied", values=lambda s: (True, False)),
            Arg("general", Null(Text()), False, "the General revealed",
             values=lambda s: (None,) + GENERALS),
            doc="the Triumvirate card is revealed"),
    command("count_caste", r.CiceroRules._do_count_caste, r.R_MAJORITIES,
            Arg("caste", CASTE, False, "the Caste counted (the next one)", values=lambda s: CASTES),
            Arg("votes", NUMBERS, doc="each player's influence in it", sample=_numbers(0, 5)),
            Arg("primus", Null(Text()), False, "the Princeps' choice in a tie for first", values=_or_nobody),
            Arg("secundus", Null(Text()), False, "the Princeps' choice in a tie for second", values=_or_nobody),
            doc="one Caste's majority"),
    command("count_guild", r.CiceroRules._do_count_guild, r.R_MAJORITIES,
            Arg("guild", Text(), False, "the Guild counted (the next one)", values=lambda s: GUILDS),
            Arg("symbols", NUMBERS, doc="each player's symbols of it", sample=_numbers(0, 4)),
            Arg("choice", Null(Text()), False, "the Princeps' choice in a tie", values=_or_nobody),
            doc="one Guild's majority"),
    command("guild_use", r.CiceroRules._do_guild_use, r.R_GUILD_CHOICE,
            Arg("use", Text(), doc="the Guild's power or its Prestige", values=lambda s: GUILD_USES),
            doc="the Guild's winner chooses"),
    command("score_prestige", r.CiceroRules._do_score_prestige, r.R_END,
            Arg("senators", NUMBERS, False, "Prestige from each player's Senators", sample=_numbers(0, 3)),
            doc="the Prestige phase"),
    command("adjust_prestige", r.CiceroRules._do_adjust_prestige, r.R_ROUND,
            Arg("player", Text(), doc="whose Prestige changes", values=_players),
            Arg("delta", Int(None, None), doc="the change (not 0)", sample=lambda s, rng: rng.choice([-2, -1, 1, 3])),
            Arg("note", Text(), False, "why"),
            doc="a change of Prestige by hand"),
    command("economy", r.CiceroRules._do_economy, economy.R_INFLUENCE,
            Arg("item", Text(), doc="what changes", values=lambda s: economy.ITEMS),
            Arg("player", Null(Text()), False, "whose (none for the Legions)", values=_or_nobody),
            Arg("caste", Null(CASTE), False, "the Caste (for influence)", values=lambda s: CASTES),
            Arg("delta", Int(None, None), doc="the change (not 0)", sample=lambda s, rng: rng.choice([-1, 1, 2])),
            doc="one change to the tracked economy (optional)"),
])
