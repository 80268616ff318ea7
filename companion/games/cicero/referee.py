"""Cicero's referee questions: the same rule functions the tablet uses (logic.py), as JSON.

    python -m companion.referee cicero princeps < in.json
    python -m companion.referee cicero first_princeps < in.json
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.core.events import BadInput, NeedsTieBreak

from . import logic
from .logic import check_players, known, whole


def _players(data: Mapping[str, Any], fields: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, dict]]:
    rows = data.get("players")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise BadInput("players must be a list of objects like {\"name\": ..., \"votes\": ...}")
    names = check_players([r.get("name") for r in rows])
    table = {}
    for name, row in zip(names, rows):
        table[name] = {}
        for f in fields:
            if f not in row:
                raise BadInput(f"player {name} has no {f!r}")
            table[name][f] = whole(row[f], f"{f} of {name}")
    return names, table


def princeps(data: Mapping[str, Any]) -> dict:
    automatii = data.get("automatii", False)
    if not isinstance(automatii, bool):
        raise BadInput(f"automatii must be true or false, got {automatii!r}")
    names, table = _players(data, ("votes",))
    prestige = None
    if automatii:
        if len(names) != 2:
            raise BadInput(f"the Automatii play only in the 2-player game, not with {len(names)} players")
        prestige = {}
        for row in data["players"]:
            if not isinstance(row.get("prestige"), int) or isinstance(row.get("prestige"), bool):
                raise BadInput(f"player {row['name']} needs a whole-number 'prestige' when the Automatii vote")
            prestige[row["name"].strip()] = row["prestige"]
    ballots = data.get("ballots")
    if not isinstance(ballots, dict):
        raise BadInput("ballots must be an object of voter name to the player they give their votes to")
    outgoing = known(data.get("outgoing"), names, "outgoing Princeps")
    choice = data.get("outgoing_choice")
    if choice is not None:
        known(choice, names, "outgoing_choice")
    try:
        result = logic.elect_princeps(names, {n: table[n]["votes"] for n in names}, ballots, outgoing, choice,
                                      prestige)
    except NeedsTieBreak as tie:
        raise BadInput(f"{tie.args[0]}: give outgoing_choice, one of {', '.join(tie.among)}") from None
    return {"princeps": result.princeps, "tally": dict(result.tally), "tie": result.tie}


def first_princeps(data: Mapping[str, Any]) -> dict:
    names, table = _players(data, ("votes", "oratores_votes", "age"))
    oldest = data.get("oldest")
    if oldest is not None:
        known(oldest, names, "oldest")
    try:
        result = logic.first_princeps(names, {n: table[n]["votes"] for n in names},
                                      {n: table[n]["oratores_votes"] for n in names},
                                      {n: table[n]["age"] for n in names}, oldest)
    except NeedsTieBreak as tie:
        raise BadInput(f"{tie.args[0]}: give oldest, one of {', '.join(tie.among)}") from None
    return {"princeps": result.princeps}


QUESTIONS = {"princeps": princeps, "first_princeps": first_princeps}
