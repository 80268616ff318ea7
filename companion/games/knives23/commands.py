"""23 Knives' command table (companion.core.commands): each row a command's name, its handler in
rules.py, the rulebook's words, its arguments with their types, who may send it, and the samplers
the random walk and ``legal_commands`` use.

Types only: which names, spaces and cards are allowed the rule functions say in the rules' words;
the ``values`` list them for legal_commands.
"""
from __future__ import annotations

import random
from typing import Any

from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, players_of)
from companion.core.schema import Bool, Int, List, Null, Raw, Text

from . import rules as r   # rules.py imports this module last, once its class exists
from . import scoring
from .state import SETUP_STEPS, State
from .tables import tables



_players = players_of


def _fate(rng: random.Random, kinds: tuple[str, ...] = ("knives", "doves")) -> dict[str, int]:
    kind = rng.choice(kinds)
    return {kind: rng.choice(tables()["fate"][kind])}


def _forum_sample(state: State, rng: random.Random) -> list[dict[str, Any] | None]:
    return [None if rng.random() < 0.4 else ({"faceup": False} if rng.random() < 0.3 else
                                             {"faceup": True, "card": _fate(rng)}) for _ in range(5)]


def _ballot_choices(state: State) -> tuple[str, ...]:
    vote = state.book.current
    return vote.spec.options if vote is not None else (scoring.EXILE, scoring.REMAIN, scoring.RED, scoring.GREY)


def _tableau_sample(state: State, rng: random.Random) -> dict[str, Any]:
    laurels, blood = rng.choice([(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)])
    sway = [{rng.choice(("laurels", "blood")): rng.choice(tables()["sway"])} for _ in range(rng.randint(0, 3))]
    waiting = [p for p in state.players if p not in state.tableaux] or list(state.players)
    return {"player": rng.choice(waiting), "citizen": {"laurels": laurels, "blood": blood}, "sway": sway}


def _tapped_card(state: State, rng: random.Random) -> dict[str, int]:
    """A card tapped in without a serial, the one a scan may claim (else any card)."""
    tapped = [r["card"] for r in state.curia_revealed if r["serial"] is None]
    return dict(rng.choice(tapped)) if tapped else _fate(rng)


def _fresh_serial(state: State, rng: random.Random) -> str:
    """A sticker serial no Curia card has shown yet (a used one is refused as a duplicate)."""
    used = {r["serial"] for r in state.curia_revealed}
    return rng.choice([f"s{i}" for i in range(1, tables()["fate_deck"] + 2) if f"s{i}" not in used])


SPACES = tuple(range(1, 6))
NOTE = Text()
BY = Arg("by", NOTE, False, "what made it happen (the Issue or Citizen)",
            sample=lambda s, rng: rng.choice(["Issue", "Brutus"]))
REASON = Arg("reason", NOTE, doc="why the board is corrected", sample=lambda s, rng: "miscounted")
PLAYER = Arg("player", Text(), False, "who plays it (the current player)", values=_players)

COMMANDS = CommandTable("knives23", [
    command("tick_setup", r.Knives23Rules._do_tick_setup, r.R_SETUP,
            Arg("step", Text(), doc="the setup step done (I to VII)", values=lambda s: SETUP_STEPS),
            doc="one step of the setup checklist is done"),
    command("confirm_board", r.Knives23Rules._do_confirm_board, r.R_BLACK,
            Arg("spaces", Int(None, None), False, "the Kalends track's spaces"),
            Arg("black_spaces", Raw(), False, "its black spaces"),
            Arg("dagger_start", Int(None, None), False, "where the Dagger starts"),
            Arg("forum", Raw(), False, "the Forum's icons {spaces, extra}"),
            doc="the table checks the Kalends and the Forum against its own board"),
    command("begin_play", r.Knives23Rules._do_begin_play, r.R_TURN, doc="the setup is done: the first turn starts"),
    command("move", r.Knives23Rules._do_move, r.R_MOVE,
            Arg("location", Text(), doc="the new Location", values=lambda s: tuple(tables()["locations"])),
            doc="the current player moves"),
    command("play_fate", r.Knives23Rules._do_play_fate, r.R_FORUM,
            Arg("card", Raw(), False, "the faceup Fate card {\"knives\": n} or {\"doves\": n}",
             sample=lambda s, rng: _fate(rng)),
            Arg("facedown", Bool(), False, "played facedown", values=lambda s: (True,)),
            Arg("effect", Bool(), False, "played by an Issue or a Citizen's ability", values=lambda s: (False, True)),
            BY, PLAYER,
            doc="a Fate card goes into the Forum"),
    command("discard_forum", r.Knives23Rules._do_discard_forum, r.R_FORUM,
            Arg("space", Int(None, None), doc="the Forum space (1 to 5)", values=lambda s: SPACES),
            BY, doc="an effect discards a Forum card"),
    command("servilia_swap", r.Knives23Rules._do_servilia_swap, r.R_SERVILIA,
            Arg("spaces", List(Int(None, None)), doc="1 or 2 faceup Forum spaces",
             sample=lambda s, rng: rng.sample(SPACES, rng.randint(1, 2))),
            doc="Servilia swaps faceup Forum cards for facedown ones"),
    command("sabinus_dove", r.Knives23Rules._do_sabinus_dove, r.R_SABINUS,
            Arg("space", Int(None, None), doc="the Forum space of the Knife card", values=lambda s: SPACES),
            Arg("card", Raw(), False, "the faceup Dove card", sample=lambda s, rng: _fate(rng, ("doves",))),
            Arg("facedown", Bool(), False, "played facedown", values=lambda s: (True,)),
            PLAYER, doc="Sabinus plays a Dove onto a Knife card"),
    command("correct_forum", r.Knives23Rules._do_correct_forum, r.R_CORRECT,
            Arg("spaces", Raw(), doc="all 5 spaces (null for an empty one)", sample=_forum_sample),
            Arg("extra", Raw(), False, "the cards on top of the 5th space"),
            REASON, doc="the Forum is set to what the table sees"),
    command("correct_dagger", r.Knives23Rules._do_correct_dagger, r.R_CORRECT,
            Arg("space", Int(None, None), doc="the Dagger's space", values=lambda s: tuple(range(1, s.kalends.spaces + 1))),
            REASON, doc="the Dagger is set to where the table sees it"),
    command("correct_curia", r.Knives23Rules._do_correct_curia, r.R_CORRECT,
            Arg("count", Int(None, None), doc="the Curia's count", sample=lambda s, rng: rng.randint(0, 20)),
            REASON, doc="the Curia's count is set to what the table counted"),
    command("correct_location", r.Knives23Rules._do_correct_location, r.R_PAWN,
            Arg("player", Text(), doc="whose pawn", values=_players),
            Arg("location", Text(), doc="the Location where the pawn really is",
             values=lambda s: tuple(tables()["locations"])),
            REASON, doc="a pawn's Location is set to where the table sees it"),
    command("correct_turn", r.Knives23Rules._do_correct_turn, r.R_TURNS,
            Arg("player", Text(), doc="whose turn it really is (from its Move)", values=_players),
            REASON, doc="the turn is set to the player whose turn it really is"),
    command("correct_tribune", r.Knives23Rules._do_correct_tribune, r.R_TRIBUNE,
            Arg("player", Text(), doc="who really holds the Issue deck", values=_players),
            REASON, doc="the Tribune is set to who holds the Issue deck"),
    command("call_exile", r.Knives23Rules._do_call_exile, r.R_FORUM,
            Arg("target", Text(), doc="the Citizen to exile", values=_players),
            Arg("caller", Text(), False, "who calls it (the current player)"),
            doc="the current player calls a Vote to Exile"),
    command("start_exile_vote", r.Knives23Rules._do_start_exile_vote, r.R_FORUM,
            doc="the bribe timer is over: the Vote to Exile opens"),
    command("sway", r.Knives23Rules._do_sway, r.R_SWAY_STEP,
            Arg("target", Text(), doc="the Swayed Citizen", values=_players),
            doc="the current player Sways someone"),
    command("ability_sway", r.Knives23Rules._do_ability_sway, r.R_SEMPRONIA,
            Arg("target", Text(), doc="the Swayed Citizen", values=_players),
            Arg("by", NOTE, doc="the Citizen whose ability calls for it",
             sample=lambda s, rng: rng.choice(["Sempronia", "Issue"])),
            Arg("player", Text(), False, "who Sways (the current player)", values=_players),
            doc="a Citizen's ability makes someone Sway outside the Gardens and the Sway step"),
    command("next_step", r.Knives23Rules._do_next_step, r.R_DISCARD, doc="the current step is done"),
    command("place_issues", r.Knives23Rules._do_place_issues, r.R_TRIBUNE,
            Arg("red", NOTE, False, doc="the red Issue's name (none: \"the red Issue\")", sample=lambda s, rng: rng.choice(["Bread", "Games"])),
            Arg("grey", NOTE, False, doc="the grey Issue's name (none: \"the grey Issue\")", sample=lambda s, rng: rng.choice(["Roads", "Walls"])),
            doc="the Tribune places 2 Issues on the Voting board"),
    command("hold_issue_vote", r.Knives23Rules._do_hold_issue_vote, r.R_TRIA_TRIBUNE,
            doc="the Tribune holds the Vote on the Issues placed last time (Tria Ludio)"),
    command("cast_ballot", r.Knives23Rules._do_cast_ballot, r.R_REVEAL, *ballot_args(_ballot_choices),
            who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one secret vote"),
    command("reveal_vote", r.Knives23Rules._do_reveal_vote, r.R_REVEAL, force_arg(),
            doc="every vote is in: all reveal at once"),
    command("tie_break", r.Knives23Rules._do_tie_break, scoring.RULE_EXILE_TIE,
            Arg("choice", Text(), doc="the Tribune's choice",
             values=lambda s: (scoring.RED, scoring.GREY, scoring.EXILE, scoring.REMAIN)),
            doc="the Tribune breaks a tied vote"),
    command("eyes_closed", r.Knives23Rules._do_eyes_closed, r.R_EYES,
            Arg("group", Text(), doc="who opens their eyes (a listed group, or the Issue's words)",
             values=lambda s: tuple(tables()["eyes_closed_groups"])),
            doc="the Issue asks a group to open their eyes while the others close them"),
    command("eyes_open", r.Knives23Rules._do_eyes_open, r.R_EYES, doc="everyone opens their eyes"),
    command("issue_resolved", r.Knives23Rules._do_issue_resolved, r.R_ISSUE_RESOLVE,
            Arg("kalends", Bool(), doc="the resolved Issue shows the Kalends icon", values=lambda s: (True, False)),
            doc="the chosen Issue is resolved"),
    command("abilities_done", r.Knives23Rules._do_abilities_done, r.R_ABILITIES, doc="the end-of-game abilities are done"),
    command("curia_card", r.Knives23Rules._do_curia_card, r.R_CURIA,
            Arg("card", Raw(), doc="the revealed Fate card", sample=lambda s, rng: _fate(rng)),
            Arg("serial", Null(Text()), False, "the card's sticker serial (a phone or the camera)"),
            Arg("another", Bool(), False, "a tap: a second card of the value of a scanned card no tap "
             "named yet (else the tap names that card)", values=lambda s: (True,)),
            who=(TABLE, DEVICE), doc="one Curia card is revealed (a tap names a scanned card of its value)"),
    command("curia_claim", r.Knives23Rules._do_curia_claim, r.R_CURIA,
            Arg("card", Raw(), doc="the scanned Fate card", sample=_tapped_card),
            Arg("serial", Text(), doc="its sticker serial", sample=_fresh_serial),
            who=(DEVICE,), doc="a scan names the serial of a card already tapped in"),
    command("tableau", r.Knives23Rules._do_tableau, r.R_TABLEAU,
            Arg("player", Text(), doc="whose tableau", values=_players),
            Arg("citizen", Raw(), doc="the Citizen card {laurels, blood}"),
            Arg("sway", Raw(), False, "the Sway cards"),
            Arg("cicero", Raw(), False, "the Cicero Citizen's 2 Sway sets and the claimed one"),
            doc="one player's tableau is revealed", sample=_tableau_sample),
    command("opportunist_play", r.Knives23Rules._do_opportunist_play, r.R_OPPORTUNISTS,
            Arg("cards", Raw(), False, "the Fate cards the Opportunists play",
             sample=lambda s, rng: [_fate(rng) for _ in range(rng.randint(0, 2))]),
            doc="the Opportunists' play: the game's result"),
])