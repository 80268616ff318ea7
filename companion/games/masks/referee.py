"""Referee questions for the mask game: the same rule functions the app folds its events with.

``vote``: the final table after all swaps and the votes (and the house rules the group chose, as
the setup records them) -> who is eliminated, who wins, and why.
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.core.houserules import chosen
from companion.core.schema import List, Map, Names, Null, Player, Raw, Text, obj, question

from . import rules, scoring, setup
from .state import BYSTANDERS, CENTER, IDENTITIES, PLAYERS

IDENTITY = Text(IDENTITIES)

VOTE = obj(
    # house_rules: the readings the group chose, as the game's setup records them (setup.HOUSE_RULES)
    {"royalist": Null(Player()), "executioner_target": Null(Player()), "house_rules": Raw()},
    players=Names(PLAYERS, PLAYERS, rule=rules.RULE_PLAYERS, reserved=(CENTER,)),
    identities=Map(IDENTITY, all_keys=True),
    center=List(IDENTITY, BYSTANDERS, BYSTANDERS, why="the 3 Bystanders"),
    votes=Map(Null(Player(extra=(CENTER,))), all_keys=True),
)


@question(VOTE)
def vote(data: Mapping[str, Any]) -> dict[str, Any]:
    players = setup.check_players(data["players"])
    identities, center = rules.check_identities(players, data["identities"], data["center"])
    royalist = rules.check_royalist(players, data.get("royalist"))
    ballots = rules.check_votes(players, data["votes"])
    house = chosen(data, setup.HOUSE_RULES)
    verdict = scoring.judge(players, identities, center, royalist, ballots, data.get("executioner_target"), house)
    return {**verdict.to_dict(), **verdict.reasons()}


QUESTIONS = {"vote": vote}

# A whole game from a list of commands, through the command table (docs/commands.md).
from companion.core.commands import play_question  # noqa: E402

from .rules import MasksRules  # noqa: E402

QUESTIONS["play"] = play_question(MasksRules)
