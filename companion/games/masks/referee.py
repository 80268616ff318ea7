"""Referee questions for the mask game: the same rule functions the app folds its events with.

``vote``: the final table after all swaps and the votes -> who is eliminated and who wins.
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.core.events import BadInput

from . import rules

REQUIRED = ("players", "identities", "center", "votes")
OPTIONAL = ("royalist", "executioner_target")  # null when left out
FIELDS = REQUIRED + OPTIONAL


def vote(data: Mapping[str, Any]) -> dict:
    missing = [f for f in REQUIRED if f not in data]
    if missing:
        raise BadInput(f"input has no {missing[0]!r} (needs: {', '.join(REQUIRED)})")
    extra = sorted(set(data) - set(FIELDS))
    if extra:
        raise BadInput(f"input has an unknown field {extra[0]!r} (fields: {', '.join(FIELDS)})")
    players = rules.check_players(data["players"])
    identities, center = rules.check_identities(players, data["identities"], data["center"])
    royalist = rules.check_royalist(players, data.get("royalist"))
    ballots = rules.check_votes(players, data["votes"])
    target = data.get("executioner_target")
    if target is not None and target not in players:
        raise BadInput(f"executioner_target {target!r} is not a player")
    verdict = rules.judge(players, identities, center, royalist, ballots, target)
    return verdict.to_dict()


QUESTIONS = {"vote": vote}
