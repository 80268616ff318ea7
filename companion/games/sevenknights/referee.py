"""Referee questions for Seven Knights Bewitched (``python -m companion.referee sevenknights Q``).

They call the same rule functions the tablet's game uses (scoring.choose_captain -> CaptainRule,
scoring.score_round, rules.round_flags, tables.MODES), never a second implementation.
"""
from __future__ import annotations

from itertools import permutations

from companion.core.events import BadInput, RuleError
from companion.core.houserules import chosen
from companion.core.i18n import keyed
from companion.core.schema import Bool, Either, Int, List, Map, Names, Null, Player, Text, obj, question

from .rules import R_CAPTAIN_REVEAL, R_GROPING_DEAL, R_NO_WITCH, R_TILES, round_flags, search_rule, search_targets
from .scoring import choose_captain, game_winners, score_round
from .setup import HOUSE_RULES, RESERVED_NAMES, check_setup
from .state import Arrow, Round
from .tables import MODES, ROUND_POINTS, ROUNDS, SET_ASIDE, WITCH, Mode
from .view import setup_view

PLAYERS = Names(3, 8, rule="Basic Rules (4-8 Players); Special Rules for 3 and 4 Players (3-4 Players)",
                reserved=tuple(sorted(RESERVED_NAMES)))
MODE = Text(tuple(MODES))
TILE = Either((Int(1, 7, why="the Knight Tiles 1 to 7"), Text((WITCH,))), 'a Knight number 1-7 or "witch"')
ROUND_FIELDS = dict(
    captain=Player(),
    arrows=List(obj(looker=Player(), at=Text()), hi=16, why="one or two Player Cards (Arrow) each"),
)
# the house rules as the setup records them (core.houserules): {"round_points": "by_round"}
HOUSE = {"house_rules": Map(Text(), keys=tuple(h.name for h in HOUSE_RULES))}
ROUND_OPTIONAL = {
    "first": Player(), "captain_tile": TILE, "witch": Null(Text()), "in_order": Null(Bool()),
    "recommendations": Map(Player()), "next_first": Player(),
}


@question(obj(players=PLAYERS, first=Player(), recommendations=Map(Player())))
def captain(data: dict) -> dict:
    """{"players": [clockwise], "first": name, "recommendations": {name: name}}
    -> {"captain": name, "tie": bool, "decided_by": ..., "recommendations": {name: count}}"""
    result = choose_captain(data["players"], data["first"], data["recommendations"])
    return {"captain": result.winner, "tie": result.tie, "decided_by": result.decided_by,
            "recommendations": {p: result.counts.get(p, 0) for p in data["players"]}}


@question(obj({"mode": MODE, "first": Player()}, players=PLAYERS))
def setup(data: dict) -> dict:
    """{"players": [clockwise], "mode": "basic"|"groping"|"advanced"|"unity"} -> what to prepare."""
    players, first, mode = check_setup(data)
    view = setup_view(mode, len(players))
    return {"mode": mode.key, "players": len(players), "first": first, "rounds": mode.rounds,
            "tiles": list(mode.tiles(len(players))), "center": len(view["center"]),
            "set_aside": view["set_aside"], "unused_knights": view["unused_knights"],
            "player_cards": view["player_cards"]}


def _reading(data: dict) -> str:
    """The house rule ``round_points`` the question's setup chose (checked as the game checks it)."""
    return chosen(data, HOUSE_RULES)[ROUND_POINTS.name]


def _round(players: tuple[str, ...], mode: Mode, number: int, r: dict, reading: str = ROUND_POINTS.default) -> dict:
    """One round's Cleanup: the same score_round and flags the tablet records."""
    n = len(players)
    centers = mode.centers(n)
    places = set(players) | set(centers)
    looked: dict[str, list[str]] = {}
    for a in r["arrows"]:
        if a["at"] not in places or a["at"] == a["looker"]:
            raise BadInput(keyed("refusals.sk.looked_at", round=number, looker=a["looker"], at=a["at"],
                                 places=", ".join(centers) or keyed("refusals.sk.no_center")))
        looked.setdefault(a["looker"], []).append(a["at"])
    for looker, ats in looked.items():
        # one arrow a Search pass, each where that pass allows (Basic: one look; Groping in the
        # Dark: a player's tile, then a center tile)
        passes = range(1, len(mode.searches) + 1)
        if not any(all(at in search_targets(mode, players, looker, p) for at, p in zip(ats, order))
                   for order in permutations(passes, len(ats))):
            raise RuleError(keyed("refusals.sk.arrows_searches", round=number, looker=looker,
                                  at=", ".join(ats), n=len(mode.searches)),
                            " ".join(dict.fromkeys(search_rule(mode, p) for p in passes)))
    tile = r.get("captain_tile")
    if tile is not None and tile != WITCH and tile not in mode.tiles(n):
        raise RuleError(keyed("refusals.sk.tile_not_prepared", round=number, tile=tile, n=n), R_TILES)
    captain_witch = tile == WITCH
    if captain_witch and not mode.witch_dealt:
        raise RuleError(keyed("refusals.sk.witch_not_dealt", round=number),
                        R_NO_WITCH if not mode.witch else R_GROPING_DEAL)
    if captain_witch and r.get("witch") not in (None, r["captain"]):
        # the Captain showed the Witch Tile: she is the Captain, wherever "witch" says
        raise BadInput(keyed("refusals.sk.witch_is_captain", round=number, captain=r["captain"], witch=str(r["witch"])))
    witch = r["captain"] if captain_witch else r.get("witch")
    witch_places = set()
    if mode.witch:
        witch_places = (set(players) if mode.witch_dealt else set()) | set(centers)
        if mode.set_aside(n) > 0:
            witch_places.add(SET_ASIDE)
    if not mode.witch and witch is not None:
        raise RuleError(keyed("refusals.sk.no_witch", round=number), R_NO_WITCH)
    if mode.witch and witch not in witch_places:
        raise BadInput(keyed("refusals.sk.round_witch_place", round=number, witch=str(witch), places=", ".join(sorted(witch_places))))
    if not captain_witch and witch == r["captain"]:
        raise RuleError(keyed("refusals.sk.captain_revealed_knight", round=number, name=witch), R_CAPTAIN_REVEAL)
    in_order = r.get("in_order")
    if not captain_witch and not isinstance(in_order, bool):
        raise BadInput(keyed("refusals.sk.in_order_needed", round=number))
    arrows = tuple(Arrow(a["looker"], a["at"], 1) for a in r["arrows"])
    result = score_round(players, mode, number, r["captain"], arrows, witch, in_order, captain_witch, reading)
    done = Round(number, r.get("first", players[0]), arrows=arrows, captain=r["captain"], captain_tile=tile,
                 result=result, next_first=r.get("next_first"),
                 recommended=tuple((r.get("recommendations") or {}).items()))
    return {"round": number, "winner": result.winner, "decided_by": result.why, "witch": result.witch,
            "toriko": list(result.toriko), "points": dict(result.points),
            "flags": [f.data() for f in round_flags(players, mode, done)]}


@question(obj({"mode": MODE, "round": Int(1, ROUNDS, why="the game ends after 3 rounds"), **ROUND_OPTIONAL, **HOUSE},
              players=PLAYERS, **ROUND_FIELDS))
def round_result(data: dict) -> dict:
    """One round's result: who won and why, TORIKO, each player's points, broken rules flagged."""
    players, _first, mode = check_setup({"players": data["players"], "mode": data.get("mode", "basic")})
    number = data.get("round", 1)
    if number > mode.rounds:
        raise BadInput(keyed("refusals.sk.no_such_round", round=number, rounds=mode.rounds))
    return _round(players, mode, number, data, _reading(data))


@question(obj({"mode": MODE, **HOUSE}, players=PLAYERS,
              rounds=List(obj(ROUND_OPTIONAL, **ROUND_FIELDS), 1, ROUNDS, why="the game ends after 3 rounds")))
def score(data: dict) -> dict:
    """The whole game's scoring: each round's result, the totals, and the winners after the last."""
    players, _first, mode = check_setup({"players": data["players"], "mode": data.get("mode", "basic")})
    if len(data["rounds"]) > mode.rounds:
        raise BadInput(keyed("refusals.sk.too_many_rounds", rounds=mode.rounds, given=len(data["rounds"])))
    reading = _reading(data)
    rounds = [_round(players, mode, i + 1, r, reading) for i, r in enumerate(data["rounds"])]
    totals = {p: sum(r["points"][p] for r in rounds) for p in players}
    complete = len(rounds) == mode.rounds
    winners = game_winners(players, mode, [totals[p] for p in players], rounds[-1]["winner"]) if complete else None
    return {"rounds": rounds, "totals": totals, "complete": complete, "winners": winners}


QUESTIONS = {"captain": captain, "setup": setup, "round": round_result, "score": score}

# A whole game from a list of commands, through the command table (docs/commands.md).
from companion.core.commands import play_question  # noqa: E402

from .rules import SevenKnightsRules  # noqa: E402

QUESTIONS["play"] = play_question(SevenKnightsRules)
