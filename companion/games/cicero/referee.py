"""Cicero's referee questions: the same rule functions the tablet uses (logic.py), as JSON.

    python -m companion.referee cicero princeps|first_princeps|caste_majority|guild_majority|tribute|prestige

Every question's input is checked by its schema first (companion.core.schema): 2 to 5 players,
no unknown key, counts within the box and the rulebook's limits.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from companion.core import houserules
from companion.core.events import BadInput, NeedsTieBreak, RuleError
from companion.core.i18n import keyed, message_of
from companion.core.schema import Bool, Int, Map, Null, Obj, Player, Rows, Text, obj, question

from . import logic
from .logic import R_AUTOMATII_VOTES, R_PLAYERS
from .setup import HOUSE_RULES
from .tables import AUTOMATII_VOTES, CASTES, GUILD_USES, GUILDS, TRIBUTE_WAYS

# The box: 120 Senator cards; the rulebook prints no Senator's votes, so a Family's votes are
# bounded by the cards (at most 120 Senators) times a generous 9 votes each.
MAX_VOTES = 120 * 9
MAX_PRESTIGE = 1000  # the score track is finite; a tribute may take it below zero
VOTES = Int(0, MAX_VOTES, why="120 Senator cards in the box")
PRESTIGE = Int(-MAX_PRESTIGE, MAX_PRESTIGE, why="Prestige on the score track")


def players(row: Mapping[str, Any] | None = None, optional: Mapping[str, Any] | None = None) -> Rows:
    return Rows(Obj({"name": Text(), **(row or {})}, optional or {}), 2, 5, rule=R_PLAYERS)


# The house rules (companion.core.houserules), as in a game's setup: {"house_rules": {name: reading}}.
HOUSE = Map(Text(), keys=tuple(h.name for h in HOUSE_RULES))


def _reading(data: Mapping[str, Any], name: str) -> str:
    """The reading of one house rule the question asks under (the default when not named)."""
    return houserules.chosen(data, HOUSE_RULES)[name]


# The rule functions name the app's command field; the referee's input names it so.
FIELDS = {"primus": "primus_choice", "secundus": "secundus_choice"}


def _tie(exc: NeedsTieBreak) -> BadInput:
    field = getattr(exc, "field", "a choice")
    return BadInput(keyed("refusals.input.tie", reason=message_of(exc), field=FIELDS.get(field, field),
                          among=", ".join(exc.among)))


def _by_name(rows: Sequence[Mapping[str, Any]], field: str) -> dict[str, Any]:
    return {r["name"]: r[field] for r in rows}


@question(obj({"outgoing_choice": Player(), "automatii": Bool()},
              players=players({"votes": VOTES}, {"prestige": PRESTIGE}),
              ballots=Map(Null(Player())), outgoing=Player()))
def princeps(data: Mapping[str, Any]) -> dict:
    """The Princeps election; in the 2-player game the Automatii always vote ("When the Princeps is
    elected, the Automatii Family systematically gives 5 votes ...")."""
    rows = data["players"]
    names = logic.check_players([r["name"] for r in rows])
    two = len(names) == 2
    if "automatii" in data and data["automatii"] != two:
        raise RuleError(keyed("refusals.cicero.automatii", given=str(data["automatii"]).lower(), n=len(names)),
                        R_AUTOMATII_VOTES)
    prestige = None
    if two:
        missing = [r["name"] for r in rows if "prestige" not in r]
        if missing:
            raise BadInput(keyed("refusals.cicero.prestige_needed", name=missing[0]))
        prestige = _by_name(rows, "prestige")
    try:
        result = logic.elect_princeps(names, _by_name(rows, "votes"), data["ballots"], data["outgoing"],
                                      data.get("outgoing_choice"), prestige)
    except NeedsTieBreak as tie:
        raise _tie(tie) from None
    out = {"princeps": result.princeps, "tally": dict(result.tally), "tie": result.tie,
           "tied": list(result.tied), "decided_by": "outgoing_choice" if result.tie else "most_votes"}
    if two:
        out["automatii_to"] = result.automatii_to
        out["automatii_votes"] = AUTOMATII_VOTES
    return out


@question(obj({"oldest": Player(), "house_rules": HOUSE}, players=players({"votes": VOTES, "oratores_votes": VOTES,
                                                      "age": Int(0, 150, why="a person's age")})))
def first_princeps(data: Mapping[str, Any]) -> dict:
    rows = data["players"]
    names = logic.check_players([r["name"] for r in rows])
    try:
        result = logic.first_princeps(names, _by_name(rows, "votes"), _by_name(rows, "oratores_votes"),
                                      _by_name(rows, "age"), data.get("oldest"),
                                      _reading(data, "first_princeps_majority"))
    except NeedsTieBreak as tie:
        raise _tie(tie) from None
    return {"princeps": result.princeps, "decided_by": result.decided_by}


HELD = obj({"primus": Null(Player()), "secundus": Null(Player())})


@question(obj({"held": HELD, "primus_choice": Player(), "secundus_choice": Player(), "house_rules": HOUSE},
              players=Rows(Obj({"name": Text()}), 2, 5, rule=R_PLAYERS), princeps=Player(), caste=Text(CASTES),
              votes=Map(VOTES, all_keys=True)))
def caste_majority(data: Mapping[str, Any]) -> dict:
    """"The player who is most influential in a Caste takes the Primus card of that Caste; the second
    player takes the Secundus card. In case of a tie, the Princeps breaks the tie"."""
    names = logic.check_players([r["name"] for r in data["players"]])
    held = data.get("held") or {}
    try:
        result = logic.caste_majority(names, data["votes"], data["princeps"],
                                      (held.get("primus"), held.get("secundus")), data.get("primus_choice"),
                                      data.get("secundus_choice"), data["caste"], _reading(data, "no_votes"))
    except NeedsTieBreak as tie:
        raise _tie(tie) from None
    return {"caste": data["caste"], "primus": result.primus, "secundus": result.secundus,
            "taken": list(result.taken), "decided_by": _ties(data["votes"], result.primus, result.secundus)}


def _ties(scores: Mapping[str, int], *winners: str | None) -> dict:
    """For each card taken: "most" or "princeps" (a tie the Princeps broke)."""
    out, rest = {}, dict(scores)
    for key, who in zip(("primus", "secundus"), winners):
        if who is None or who not in rest or rest[who] == 0:
            continue
        top = [p for p, n in rest.items() if n == rest[who]]
        out[key] = "princeps" if len(top) > 1 else "most"
        rest.pop(who)
    return out


@question(obj({"held": Null(Player()), "choice": Player(), "house_rules": HOUSE},
              players=Rows(Obj({"name": Text()}), 2, 5, rule=R_PLAYERS), princeps=Player(), guild=Text(GUILDS),
              symbols=Map(Int(0, MAX_VOTES, why="120 Senator cards in the box"), all_keys=True)))
def guild_majority(data: Mapping[str, Any]) -> dict:
    """"The most influential player takes the card of that Guild (there is no second place ...)"."""
    names = logic.check_players([r["name"] for r in data["players"]])
    try:
        holder, taken = logic.guild_majority(names, data["symbols"], data["princeps"], data.get("held"),
                                             data.get("choice"), data["guild"], _reading(data, "no_votes"))
    except NeedsTieBreak as tie:
        raise _tie(tie) from None
    why = _ties(data["symbols"], holder if taken else None).get("primus")
    return {"guild": data["guild"], "holder": holder, "taken": taken, "decided_by": why or "kept"}


WAY = Text(TRIBUTE_WAYS)


@question(obj(players=players({"prestige": PRESTIGE, "first": WAY}, {"second": WAY}),
              triumvirate_satisfied=Bool()))
def tribute(data: Mapping[str, Any]) -> dict:
    """Phase IV and, when the general is not satisfied, the second payment "in a different way
    from the first time" -> each player's Prestige after the tribute."""
    names = logic.check_players([r["name"] for r in data["players"]])
    satisfied = data["triumvirate_satisfied"]
    out = {}
    for r in data["players"]:
        second = r.get("second")
        if satisfied and second is not None:
            raise RuleError(keyed("refusals.cicero.second_paid", name=r["name"]),
                            logic.R_SECOND_TRIBUTE)
        if not satisfied:
            if second is None:
                raise BadInput(keyed("refusals.cicero.second_missing", name=r["name"]))
            logic.check_second_tribute(r["name"], r["first"], second)
        change = logic.tribute_prestige(r["first"], second)
        out[r["name"]] = {"prestige_change": change, "prestige": r["prestige"] + change}
    return {"players": {n: out[n] for n in names}, "second_needed": not satisfied}


CARDS = Map(obj({"primus": Null(Player()), "secundus": Null(Player())}), keys=CASTES)
GUILD_CARDS = Map(obj({"holder": Null(Player())}, use=Text(GUILD_USES)), keys=GUILDS)


@question(obj({"castes": CARDS, "guilds": GUILD_CARDS, "last": Bool()},
              players=players({"prestige": PRESTIGE}, {"senators": Int(0, 120 * 9, why="Senators' PP")})))
def prestige(data: Mapping[str, Any]) -> dict:
    """Phase VII: the PP from Primus (6), Secundus (3), Guild cards kept for PP (3) and the Senators;
    after the last round, the most prestigious Family wins."""
    names = logic.check_players([r["name"] for r in data["players"]])
    castes = {c: (v.get("primus"), v.get("secundus")) for c, v in (data.get("castes") or {}).items()}
    for caste, (p, s) in castes.items():
        if p is not None and p == s:
            raise BadInput(keyed("refusals.cicero.both_cards", name=p, caste=caste))
    guilds = data.get("guilds") or {}
    cards = logic.card_points(names, castes, {g: v.get("holder") for g, v in guilds.items()},
                              {g: v["use"] for g, v in guilds.items()})
    senators = {r["name"]: r.get("senators", 0) for r in data["players"]}
    final = {r["name"]: r["prestige"] + cards[r["name"]]["total"] + senators[r["name"]] for r in data["players"]}
    out: dict[str, Any] = {"cards": cards, "senators": senators, "prestige": final}
    if data.get("last", False):
        out["winners"] = logic.most_prestigious(final)
    return out


QUESTIONS = {"princeps": princeps, "first_princeps": first_princeps, "caste_majority": caste_majority,
             "guild_majority": guild_majority, "tribute": tribute, "prestige": prestige}

# A whole game from a list of commands, through the command table (docs/commands.md).
from companion.core.commands import play_question  # noqa: E402

from .rules import CiceroRules  # noqa: E402

QUESTIONS["play"] = play_question(CiceroRules)
