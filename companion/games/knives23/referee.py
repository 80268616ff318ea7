"""The 23 Knives referee questions (``python -m companion.referee knives23 QUESTION``).

Each function checks its input and calls the same rule functions the app uses (scoring.py).
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.core.events import BadInput, NeedsTieBreak
from companion.core.schema import List, Obj, Raw, question

from . import scoring


def _only(data: Mapping[str, Any], allowed: set[str], required: set[str]) -> None:
    missing = sorted(required - set(data))
    if missing:
        raise BadInput(f"input has no {', '.join(missing)}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise BadInput(f"input has unknown entries: {', '.join(unknown)}")


def _cards(value: Any, what: str) -> list[dict]:
    if not isinstance(value, list):
        raise BadInput(f"{what} must be a list of Fate cards")
    return [scoring.fate_card(c, f"{what} card {i + 1}") for i, c in enumerate(value)]


def _tie(fn, *args):
    try:
        return fn(*args)
    except NeedsTieBreak as exc:
        raise BadInput(f"{exc.args[0]}: give tribune_choice ({' or '.join(exc.among)})") from None


# The shared strictness (companion.core.schema): no unknown key in a player's row ("Sway" for
# "sway"), no more Fate cards than the box's 86; the rest is checked by scoring.py.
FATE = List(Raw(), hi=86, why="the box holds 86 Fate cards")


@question(Obj({"players": List(Obj({}, {"name": Raw(), "citizen": Raw(), "sway": Raw()}), hi=8), "curia": FATE},
              {"opportunist_play": FATE, "variant": Raw()}))
def final(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "curia", "opportunist_play", "variant"}, {"players", "curia"})
    players = data["players"]
    if not isinstance(players, list) or not players:
        raise BadInput("players must be a non-empty list")
    tableaux = [scoring.tableau(p, f"player {i + 1}") for i, p in enumerate(players)]
    scoring.check_names([t.name for t in tableaux])
    return scoring.final_result(tableaux, _cards(data["curia"], "curia"),
                                _cards(data.get("opportunist_play", []), "opportunist_play"),
                                data.get("variant", "standard"))


def exile(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "caller", "target", "votes", "tribune_choice"}, {"players", "caller", "target", "votes"})
    players = scoring.check_names(data["players"])
    return _tie(scoring.exile_outcome, players, data["caller"], data["target"], data["votes"],
                data.get("tribune_choice"))


def issue_vote(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "votes", "tribune_choice"}, {"players", "votes"})
    players = scoring.check_names(data["players"])
    return _tie(scoring.issue_vote_outcome, players, data["votes"], data.get("tribune_choice"))


QUESTIONS = {"final": final, "exile": exile, "issue_vote": issue_vote}
