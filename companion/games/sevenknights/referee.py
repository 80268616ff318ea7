"""Referee questions for Seven Knights Bewitched (``python -m companion.referee sevenknights Q``).

They call the same rule functions the tablet's game uses (rules.choose_captain -> CaptainRule,
setup.MODES), never a second implementation.
"""
from __future__ import annotations

from companion.core.events import BadInput

from .rules import check_setup, choose_captain, setup_view


def _names(value, what: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(p, str) and p for p in value):
        raise BadInput(f"{what} must be a non-empty list of names")
    if len(set(value)) != len(value):
        raise BadInput(f"{what} names a player twice")
    return value


def captain(data: dict) -> dict:
    """{"players": [clockwise], "first": name, "recommendations": {name: name}}
    -> {"captain": name, "tie": bool}"""
    for key in ("players", "first", "recommendations"):
        if key not in data:
            raise BadInput(f"missing {key!r}")
    players = _names(data["players"], "players")
    first = data["first"]
    if not isinstance(first, str) or first not in players:
        raise BadInput(f"first player {first!r} is not at the table")
    recs = data["recommendations"]
    if not isinstance(recs, dict):
        raise BadInput("recommendations must be an object {player: recommended player}")
    for who, whom in recs.items():
        if not isinstance(whom, str):
            raise BadInput(f"{who} recommends {whom!r}: a recommendation is a player's name")
    result = choose_captain(players, first, recs)
    return {"captain": result.winner, "tie": result.tie}


def setup(data: dict) -> dict:
    """{"players": [clockwise], "mode": "basic"|"groping"|"advanced"|"unity"} -> what to prepare."""
    players, first, mode = check_setup(data)
    view = setup_view(mode, len(players))
    return {"mode": mode.key, "players": len(players), "first": first, "rounds": mode.rounds,
            "tiles": view["tiles"], "center": len(view["center"]), "set_aside": view["set_aside"],
            "unused_knights": view["unused_knights"], "player_cards": view["player_cards"]}


QUESTIONS = {"captain": captain, "setup": setup}
