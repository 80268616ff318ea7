"""The round's economy on the tablet (a table option, off by default): each Family's influence
tracks, cenacle, Action cards in hand, and the Legions on the map, kept within the rulebook's
limits. The board stays the truth; this is the table's bookkeeping of it, one tap per change,
each an event in the journal (undoable like any other).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from companion.core.events import BadInput, RuleError
from companion.core.i18n import keyed

from .tables import CASTES

R_INFLUENCE = "Influence limit: a Family's influence in a Caste can never exceed 10."
R_ACTIONS = "Action card limit: there is no limit to the number of Action cards a player may hold in hand."
R_CENACLE = ("At the start of the game, the cenacle of each player contains at most 4 Senators. This limit "
             "may be raised during the game.")
R_CENACLE_EXCEED = "Take care not to exceed the current limit of your cenacle."
R_LEGIONS = "15 Roman Legions (SPQR)"

INFLUENCE_MAX = 10
CENACLE_START_LIMIT = 4
LEGIONS = 15
ITEMS = ("influence", "cenacle", "cenacle_limit", "actions", "legions")


def start(players: Sequence[str]) -> dict:
    return {"families": {p: {"influence": {c: 0 for c in CASTES}, "cenacle": 0,
                             "cenacle_limit": CENACLE_START_LIMIT, "actions": 0} for p in players},
            "legions": 0}


def current(eco: Mapping[str, Any], player: str | None, item: str, caste: str | None) -> int:
    if item == "legions":
        return eco["legions"]
    fam = eco["families"][player]
    return fam["influence"][caste] if item == "influence" else fam[item]


def change(eco: Mapping[str, Any], players: Sequence[str], data: Mapping[str, Any]) -> dict:
    """Check one change against the limits; returns the event's data (before and after)."""
    item = data.get("item")
    if item not in ITEMS:
        raise BadInput(keyed("cicero.err.economy_item", item=repr(item), items=", ".join(ITEMS)))
    delta = data.get("delta")
    if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
        raise BadInput(keyed("cicero.err.economy_delta", delta=repr(delta)))
    player = data.get("player") if item != "legions" else None
    if item != "legions" and player not in players:
        raise BadInput(keyed("cicero.err.unknown_name", what=keyed("cicero.word.player"), name=repr(player),
                          players=", ".join(players)))
    caste = data.get("caste") if item == "influence" else None
    if item == "influence" and caste not in CASTES:
        raise BadInput(keyed("cicero.err.unknown_caste", name=repr(caste), castes=", ".join(CASTES)))
    before = current(eco, player, item, caste)
    after = before + delta
    who = player or keyed("cicero.word.the_map")
    if after < 0:
        raise RuleError(keyed("cicero.err.economy_below_zero", who=who, what=label(item, caste), n=before))
    if item == "influence" and after > INFLUENCE_MAX:
        raise RuleError(keyed("cicero.err.influence_limit", player=player, caste=caste, n=before), R_INFLUENCE)
    if item == "cenacle" and after > eco["families"][player]["cenacle_limit"]:
        raise RuleError(keyed("cicero.err.cenacle_full", player=player, limit=eco["families"][player]["cenacle_limit"]),
                        R_CENACLE_EXCEED)
    if item == "legions" and after > LEGIONS:
        raise RuleError(keyed("cicero.err.legions_box", n=LEGIONS), R_LEGIONS)
    return {"player": player, "item": item, "caste": caste, "delta": delta, "before": before, "after": after}


def apply(eco: Mapping[str, Any], d: Mapping[str, Any]) -> dict:
    out = {"families": {p: {**f, "influence": dict(f["influence"])} for p, f in eco["families"].items()},
           "legions": eco["legions"]}
    if d["item"] == "legions":
        out["legions"] = d["after"]
    elif d["item"] == "influence":
        out["families"][d["player"]]["influence"][d["caste"]] = d["after"]
    else:
        out["families"][d["player"]][d["item"]] = d["after"]
    return out


def label(item: str, caste: str | None = None) -> dict | str:
    return caste if item == "influence" and caste else keyed(f"cicero.economy.{item}")


def warnings(eco: Mapping[str, Any]) -> list[dict]:
    """"If the limit of your cenacle decreases during the game, you may be forced to discard one or
    more of your Senators": a cenacle above its limit is shown, not refused."""
    return [keyed("cicero.economy.over_limit", player=p, n=f["cenacle"] - f["cenacle_limit"])
            for p, f in eco["families"].items() if f["cenacle"] > f["cenacle_limit"]]
