"""Seven Knights Bewitched's command table (companion.core.commands): each command's handler, the
rulebook's sentence it answers to, its arguments and who may send it, with the samplers the
random-play tests and docs/commands.md use."""
from __future__ import annotations


from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, players_of)
from companion.core.schema import Bool, Either, Int, Null, Player, Text

from . import rules as r
from .state import SevenKnightsState
from .tables import WITCH



_players = players_of


def _look_at(state: SevenKnightsState) -> tuple[str, ...]:
    if state.phase != "search":
        return state.players
    return r.look_targets(state, state.order[state.turn])


def _lookers(state: SevenKnightsState) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a.looker for a in state.round.arrows)) or state.players


def _places(state: SevenKnightsState) -> tuple[str, ...]:
    mode, n = state.rules_mode, len(state.players)
    return state.players + mode.centers(n)


KNIGHTS = tuple(range(1, 8))

COMMANDS = CommandTable("sevenknights", [
    command("look", r.SevenKnightsRules._do_look, r.R_SEARCH,
            Arg("at", Text(), doc="the player (or center tile) whose tile is looked at", values=_look_at),
            Arg("looker", Text(), False, "who looks (the player whose turn it is)"),
            doc="the player whose turn it is looks at one tile"),
    command("correct_arrow", r.SevenKnightsRules._do_correct_arrow, r.R_ARROW,
            Arg("looker", Player(), doc="whose Arrow the tablet has wrong", values=_lookers),
            Arg("at", Text(), doc="the player (or center tile) the Arrow on the table points at", values=_places),
            Arg("search", Int(1, 2), False, "which Arrow: the Search pass (default 1; 2 is the center pass of "
             "Groping in the Dark)", values=lambda s: tuple(range(1, len(s.rules_mode.searches) + 1))),
            Arg("reason", Text(), doc="why the Arrow is corrected", sample=lambda s, rng: "tapped the wrong tile"),
            doc="an Arrow of this round is set to where the card on the table points (until the result is entered)"),
    command("ask_question", r.SevenKnightsRules._do_ask_question, r.R_QUESTION,
            Arg("target", Player(), doc="the player asked", values=_players),
            Arg("template", Text(choices=r.TEMPLATES), False, "the kind of question (default free)", values=lambda s: r.TEMPLATES),
            Arg("n", Int(1, 7), False, "the Knight number the question names", values=lambda s: KNIGHTS),
            Arg("other", Player(), False, "the other player the question names", values=_players),
            Arg("text", Text(), False, "a free question's words",
             sample=lambda s, rng: rng.choice(["Is your number larger than mine?", "Did you see the Witch?"])),
            Arg("answer", Text(choices=("yes", "no")), doc="the answer given", values=lambda s: ("yes", "no")),
            Arg("asker", Text(), False, "who asks (the player whose turn it is, or the Captain)"),
            doc="a yes/no question and its answer"),
    command("skip_captain_question", r.SevenKnightsRules._do_skip_captain_question, r.R_CAPTAIN_QUESTION,
            doc="the Captain does not ask the additional question"),
    command("open_recommendation", r.SevenKnightsRules._do_open_recommendation, r.R_RECOMMEND,
            doc="the secret recommendation of the Captain opens"),
    command("cast_ballot", r.SevenKnightsRules._do_cast_ballot, r.R_RECOMMEND, *ballot_args(_players),
            who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one player's secret recommendation"),
    command("reveal_vote", r.SevenKnightsRules._do_reveal_vote, r.R_RECOMMEND, force_arg(),
            doc="every token is placed: reveal them at once"),
    command("reveal_captain_tile", r.SevenKnightsRules._do_reveal_captain_tile, r.R_CAPTAIN_REVEAL,
            Arg("tile", Either((Int(1, 7), Text(choices=(WITCH,))), f"a Knight number 1 to 7 or {WITCH!r}"),
             doc="the Captain's own tile", values=lambda s: KNIGHTS + (WITCH,)),
            doc="the Captain turns over their own tile"),
    command("enter_result", r.SevenKnightsRules._do_enter_result, r.R_CAPTAIN_REVEAL,
            Arg("in_order", Bool(), doc="the Knights lined up in order", values=lambda s: (True, False)),
            Arg("witch", Null(Text()), False, "where Witch Myrmamius was (null: not in play)",
             values=lambda s: (None,) + r.witch_places(s)),
            doc="the formation is revealed: the round's result"),
    command("reveal_toriko", r.SevenKnightsRules._do_reveal_toriko, r.R_FAQ_TORIKO,
            Arg("witch", Text(), False, "where the Captain saw Witch Myrmamius (default: where the Captain's "
             "Arrow points)", values=r.toriko_places),
            doc="the Captain, TORIKO, reveals it instead of arranging the formation: the Witch Team wins"),
    command("start_next_round", r.SevenKnightsRules._do_start_next_round, r.R_NEXT_FIRST,
            Arg("first", Player(), doc="the next First player", values=_players),
            doc="the next round starts with its First player"),
])

