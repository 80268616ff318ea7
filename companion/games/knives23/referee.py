"""The 23 Knives referee questions (``python -m companion.referee knives23 QUESTION``).

Each function checks its input and calls the same rule functions the app uses (scoring.py).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.core import houserules
from companion.core.events import BadInput, NeedsTieBreak
from companion.core.i18n import keyed, message_of
from companion.core.schema import List, Obj, Raw, question

from . import scoring
from .rules import RULES
from .setup import HOUSE_RULES, TIE_BREAK
from .state import ForumCard, Turn, next_clockwise
from .tables import tables


def _only(data: Mapping[str, Any], allowed: set[str], required: set[str]) -> None:
    missing = sorted(required - set(data))
    if missing:
        raise BadInput(keyed("refusals.input.missing", names=", ".join(missing)))
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise BadInput(keyed("refusals.input.unknown", names=", ".join(unknown)))


def _cards(value: Any, what: str) -> list[dict]:
    if not isinstance(value, list):
        raise BadInput(keyed("refusals.k23.fate_list", what=what))
    return [scoring.fate_card(c, f"{what} card {i + 1}") for i, c in enumerate(value)]


def _tie(fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    try:
        return fn(*args)
    except NeedsTieBreak as exc:
        raise BadInput(keyed("refusals.input.tie", reason=message_of(exc), field="tribune_choice",
                             among=", ".join(exc.among))) from None


# The shared strictness (companion.core.schema): no unknown key in a player's row ("Sway" for
# "sway"), no more Fate cards than the box's 86; the rest is checked by scoring.py.
FATE_CARDS = 86
FATE = List(Raw(), hi=FATE_CARDS, why="the box holds 86 Fate cards")


@question(Obj({"players": List(Obj({}, {"name": Raw(), "citizen": Raw(), "sway": Raw(), "cicero": Raw()}), hi=8), "curia": FATE},
              {"opportunist_play": FATE, "variant": Raw(), "house_rules": Raw()}))
def final(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "curia", "opportunist_play", "variant", "house_rules"}, {"players", "curia"})
    house = houserules.chosen(data, HOUSE_RULES)   # {"tie_break": "net"}: the group's reading
    players = data["players"]
    if not isinstance(players, list) or not players:
        raise BadInput(keyed("refusals.k23.no_players"))
    tableaux = [scoring.tableau(p, f"player {i + 1}") for i, p in enumerate(players)]
    scoring.check_names([t.name for t in tableaux])
    together = len(data["curia"]) + len(data.get("opportunist_play", []))
    if together > FATE_CARDS:  # each list fits the box, the two together must too
        raise BadInput(keyed("refusals.k23.fate_cards_together", n=together, most=FATE_CARDS))
    return scoring.final_result(tableaux, _cards(data["curia"], "curia"),
                                _cards(data.get("opportunist_play", []), "opportunist_play"),
                                data.get("variant", "standard"), house[TIE_BREAK.name])


def exile(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "caller", "target", "votes", "tribune_choice"}, {"players", "caller", "target", "votes"})
    players = scoring.check_names(data["players"])
    return _tie(scoring.exile_outcome, players, data["caller"], data["target"], data["votes"],
                data.get("tribune_choice"))


def issue_vote(data: Mapping[str, Any]) -> dict:
    _only(data, {"players", "votes", "tribune_choice"}, {"players", "votes"})
    players = scoring.check_names(data["players"])
    return _tie(scoring.issue_vote_outcome, players, data["votes"], data.get("tribune_choice"))


def cicero(data: Mapping[str, Any]) -> dict:
    """The Cicero Citizen: the Citizen with each of the 2 Sway sets, the claimed set, and the
    Allegiance that counts (an Opportunist set "is simply ignored")."""
    _only(data, {"citizen", "sets", "claim"}, {"citizen", "sets", "claim"})
    t = scoring.tableau({"name": "Cicero", "citizen": data["citizen"],
                         "cicero": {"sets": data["sets"], "claim": data["claim"]}})
    values = t.set_values()
    counted = t.counted_set()
    return {"sets": [{"blood_value": v, "allegiance": scoring.side_of(v)} for v in values],
            "claimed": t.claim + 1, "counted": None if counted is None else counted + 1,
            "ignored": counted != t.claim, "allegiance": t.allegiance, "value": abs(t.blood_value)}


def _count(data: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    v = data.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
        raise BadInput(keyed("refusals.input.whole_number", what=key, low=low, high=high))
    return v


def end_of_turn(data: Mapping[str, Any]) -> dict:
    """What the end of a turn does to the board, by the same fold the tablet runs: the Tribune's
    Kalends icon (iv), the deck passed (v), then a Forum of 5 or more into the Curia and the
    Dagger one space per move; in Tria Ludio a new facedown card on the Forum's last space."""
    _only(data, {"players", "kalends", "dagger", "forum", "doves_on_knives", "curia", "tribune", "kalends_icon"},
          {"players", "kalends", "dagger", "forum"})
    names = data["players"]
    if isinstance(names, list):   # names clockwise, the player whose turn ends first
        players = list(scoring.check_names(names))
        if len(players) < 3:
            raise BadInput(keyed("refusals.k23.player_count", n=len(players)))
    else:
        players = [f"P{i + 1}" for i in range(_count(data, "players", 3, 8))]
    k = data["kalends"]
    if not isinstance(k, Mapping):
        raise BadInput(keyed("refusals.k23.kalends_shape"))
    if set(k) - {"spaces", "black_spaces"}:
        raise BadInput(keyed("refusals.k23.kalends_unknown", names=", ".join(sorted(set(k) - {"spaces", "black_spaces"}))))
    spaces = _count(k, "spaces", 2, 40)
    dagger = _count(data, "dagger", 1, spaces)
    setup = {"players": players, "kalends": {**k, "dagger_start": dagger}}
    state = RULES.initial_state(setup)
    filled = _count(data, "forum", 0, 86)
    curia = _count(data, "curia", 0, 86, 0)
    doves = _count(data, "doves_on_knives", 0, 86, 0)   # Sabinus' Doves: on Knife cards, filling no space
    if doves and not filled:
        raise BadInput(keyed("refusals.k23.doves_no_forum"))
    filled_all = filled + doves
    if filled_all + curia > tables()["fate_deck"]:
        raise BadInput(keyed("refusals.k23.over_box", forum=filled_all, curia=curia, box=tables()["fate_deck"]))
    tribune = data.get("tribune", False)
    icon = data.get("kalends_icon", False)
    for key, v in (("tribune", tribune), ("kalends_icon", icon)):
        if not isinstance(v, bool):
            raise BadInput(keyed("refusals.input.true_false", what=key))
    if icon and not tribune:
        raise BadInput(keyed("refusals.k23.icon_needs_tribune"))
    from dataclasses import replace
    forum = tuple(ForumCard(False, None, tuple(ForumCard(False) for _ in range(doves)) if i == 0 else ())
                  if i < filled else None for i in range(5))
    extra = tuple(ForumCard(False) for _ in range(max(0, filled - 5)))
    player = players[0]
    state = replace(state, phase="turn", dagger=dagger, forum=forum, forum_extra=extra, curia_count=curia,
                    tribune=player if tribune else players[-1], turn=Turn(player, "issue" if tribune else "discard"))
    from companion.core.events import Event
    if tribune:
        event = Event(0, "issue_resolved", {"colour": "red", "issue": "", "kalends": icon, "tribune": player,
                                            "next_tribune": next_clockwise(players, player, -1)})
    else:
        event = Event(0, "turn_ended", {"player": player})
    after = RULES.evolve(state, event)
    told = after.told[len(state.told):]
    return {"moves": [{"why": d["why"], "to": "curia" if d["curia"] else d["space"]} for key, d in told if key == "dagger"],
            "flushed": next((d["cards"] for key, d in told if key in ("flush", "final_flush")), 0),
            "refill": any(key == "refill" for key, _ in told),
            "deck_to": next((d["to"] for key, d in told if key == "pass_deck"), None),
            "dagger": min(after.dagger, after.kalends.curia), "curia": after.curia_count,
            "game_over": after.ended_by is not None, "ended_by": after.ended_by,
            "exile_allowed": not after.ended_by and not after.kalends.is_black(after.dagger),
            "steps": [key for key, _ in told]}


QUESTIONS: dict[str, Callable[[Mapping[str, Any]], dict]] = {"final": final, "exile": exile, "issue_vote": issue_vote, "cicero": cicero,
             "end_of_turn": end_of_turn}

# A whole game from a list of commands, through the command table (docs/commands.md).
from companion.core.commands import play_question  # noqa: E402

from .rules import Knives23Rules  # noqa: E402

QUESTIONS["play"] = play_question(Knives23Rules)
