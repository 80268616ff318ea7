"""What a screen may show of a Cicero state, per viewer (JSON-safe).

Everything Cicero's tablet keeps is public at the table except the Princeps ballots before the
reveal: the table sees who has voted, a player sees only their own ballot.
"""
from __future__ import annotations

from typing import Any

from companion.core import votes
from companion.core.i18n import joined, keyed
from companion.core.rules import NARRATOR, TABLE, Outcome
from companion.core.timers import timer_view

from . import economy, logic
from .rules import election_correctable, first_princeps_correctable, space_name
from .state import CiceroState, card_points
from .tables import AUTOMATII_VOTES, CASTES, GUILDS, SPACES, ZONES

# The round summary's checklist; a phase points at the item the table is on.
CHECKLIST = ("elect", "cicero", "influences", "servants", "tribute", "triumvirate", "castes", "guilds",
             "cards_pp", "senators_pp", "recover")
PHASE_ITEM = {"automatii": -1, "automatii_actions": -1, "election": 0, "debate": 0, "ballot": 0,
              "election_tie": 0, "accusation": 1, "servants": 3, "tribute": 4, "triumvirate": 5,
              "second_tribute": 5, "castes": 6, "guilds": 7, "prestige": 8, "round_end": 10,
              "game_over": 11}


def view(s: CiceroState, viewer: str) -> dict:
    """Everything a screen shows of the game, for ``viewer`` (only a player's own ballot is theirs)."""
    out: dict[str, Any] = {
        "game": "cicero",
        "phase": s.phase,
        "phase_name": keyed(f"cicero.phase.{s.phase}"),
        "prompt": prompt(s),
        "round": s.round,
        "rounds": s.rounds,
        "players": list(s.players),
        "two_player": s.two_player,
        "servants": s.servants,
        "princeps": s.princeps,
        "prestige": dict(s.prestige),
        "prestige_log": [dict(e) for e in s.prestige_log],
        "checklist": checklist(s),
        "vote": votes.table_view(s.book.current),
        "vote_history": [votes.table_view(v) for v in s.book.history],
        "winners": list(s.winners),
        "house_rules": dict(s.house_rules),
    }
    turn = s.drafting()
    out["draft"] = {"order": [[p, n] for p, n in s.draft], "step": s.draft_step,
                     "player": turn[0] if turn else None, "cards": turn[1] if turn else 0,
                     "pack": 2 * len(s.players), "youngest": s.youngest}
    out["first_princeps"] = _jsonable(dict(s.first_princeps)) if s.first_princeps else None
    # the starting Senators' votes may be set right until the first Servant of round 1
    out["first_princeps_correctable"] = first_princeps_correctable(s)
    election = s.elections.get(s.round)
    out["election"] = {
        "senate_votes": dict(s.votes_this_round()),
        # what each player announced in the last round that had an election: where the steppers start
        "last_announced": _last_announced(s),
        "debate_seconds": s.debate_seconds,
        "outgoing": s.princeps if s.phase in ("election", "debate", "ballot", "election_tie") else
        (election or {}).get("outgoing"),
        "tied": list(s.tied),
        "result": _jsonable(election) if election else None,
        "automatii_to": logic.automatii_beneficiary(s.prestige, s.princeps)
        if s.two_player and s.princeps else None,
        "automatii_votes": AUTOMATII_VOTES if s.two_player else 0,
        # the announced totals may be set right from the reveal until the first Servant
        "correctable": election_correctable(s),
    }
    if s.phase == "debate" and s.debate_seconds:
        out["timer"] = timer_view("cicero.debate", s.debate_seconds, (60, 10), "debate_started", key=s.round)
    out["automatii"] = _jsonable(s.automatii) if s.automatii else None
    out["cicero"] = _jsonable(s.cicero) if s.cicero else None
    occupied = s.occupied()
    out["board"] = [{"space": sp, "name": space_name(sp), "holder": occupied.get(sp)} for sp in SPACES]
    out["placements"] = [[p, sp] for p, sp in s.placements]
    # "Placing a Servant immediately triggers an action for the player who placed it, and also an
    # action for each of the other players": the last placement's, and the three kinds of space.
    out["last_effect"] = (logic.space_effect_text(s.placements[-1][1], s.placements[-1][0])
                           if s.placements else None)
    out["space_kinds"] = logic.space_kind_texts()
    out["setup_checklist"] = [keyed(f"cicero.setup.{k}", **params) for k, params in logic.setup_checklist(len(s.players))]
    # Counts the table entered last, carried to the next count so only a change needs a tap.
    out["carried"] = {k: dict(v) for k, v in s.carried.items()}
    out["economy"] = _jsonable(s.economy) if s.economy is not None else None
    out["economy_warnings"] = economy.warnings(s.economy) if s.economy is not None else []
    out["next_to_place"] = s.next_to_place()
    out["servants_left"] = s.servants_left()
    out["tribute"] = dict(s.tribute)
    out["second_tribute"] = dict(s.second_tribute)
    out["triumvirate"] = dict(s.triumvirate) if s.triumvirate else None
    out["castes"] = [{"caste": c, "zone": ZONES[c], "primus": s.caste_cards.get(c, (None, None))[0],
                       "secundus": s.caste_cards.get(c, (None, None))[1],
                       "votes": dict(s.caste_counts[c]) if c in s.caste_counts else None} for c in CASTES]
    out["guilds"] = [{"guild": g, "holder": s.guild_cards.get(g), "use": s.guild_use.get(g),
                       "symbols": dict(s.guild_counts[g]) if g in s.guild_counts else None} for g in GUILDS]
    out["card_corrections"] = [_jsonable(dict(c)) for c in s.card_corrections]
    out["count_next"] = s.count_next()
    out["pending_guild"] = s.pending_guild
    out["card_points"] = card_points(s)
    out["last_score"] = _jsonable(s.last_score) if s.last_score else None
    if viewer not in (TABLE, NARRATOR) and viewer in s.players and s.book.current is not None:
        ballot = s.book.current.ballots.get(viewer)
        out["my_ballot"] = ballot.choice if ballot else None
    return out


def outcome(state: CiceroState) -> Outcome | None:
    if state.phase != "game_over":
        return None
    final = ", ".join(f"{p} {state.prestige[p]}" for p in state.players)
    return {"winners": list(state.winners),
            "summary": keyed("cicero.summary", winners=" & ".join(state.winners), final=final)}


def _last_announced(s: CiceroState) -> dict[str, int]:
    rounds = sorted(r for r in s.senate_votes if r < s.round)
    return dict(s.senate_votes[rounds[-1]]) if rounds else {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def checklist(s: CiceroState) -> list[dict]:
    """The round summary, each item "done", "now" or "todo" (the election is skipped in round 1)."""
    at = PHASE_ITEM.get(s.phase, -2)
    items = [("automatii", -1)] if s.two_player else []
    items += [(key, i) for i, key in enumerate(CHECKLIST)]
    out = []
    for key, i in items:
        if s.round < 1:
            status = "todo"
        elif key == "elect" and s.round == 1:
            status = "skipped"
        elif s.phase == "prestige" and key == "senators_pp":
            status = "now"
        elif key == "influences" and s.phase == "servants" and not s.placements:
            status = "now"
        else:
            status = "done" if i < at else "now" if i == at else "todo"
        out.append({"key": key, "text": keyed(f"cicero.check.{key}"), "short": keyed(f"cicero.check_short.{key}"),
                    "status": status})
    return out


def prompt(s: CiceroState) -> dict | str:
    p = s.phase
    if p == "draft":
        drafting = s.drafting()
        assert drafting is not None  # the draft goes on
        player, cards = drafting
        if s.draft_step == 0:
            return keyed("cicero.prompt.draft_first", player=player, pack=2 * len(s.players))
        key = "cicero.prompt.draft_two" if cards == 2 else "cicero.prompt.draft_one"
        return keyed(key, player=player)
    if p == "first_princeps":
        return keyed("cicero.prompt.first_princeps")
    if p == "automatii":
        return keyed("cicero.prompt.automatii", round=s.round)
    if p == "automatii_actions":
        a = s.automatii
        assert a is not None  # placed this round
        zones = ", ".join(ZONES[sp.rpartition("_")[0]] for sp in a["spaces"])
        return joined([keyed("cicero.prompt.automatii_actions", zones=zones),
                       keyed("cicero.prompt.automatii_doubled", zone=ZONES[a["doubled"]]) if a["doubled"] else None])
    if p == "election":
        missing = [x for x in s.players if x not in s.votes_this_round()]
        if missing:
            return keyed("cicero.prompt.election_announce", round=s.round, names=", ".join(missing))
        return keyed("cicero.prompt.election_debate")
    if p == "debate":
        return keyed("cicero.prompt.debate", minutes=_minutes(s.debate_seconds))
    if p == "ballot":
        waiting = s.book.current.waiting if s.book.current else ()
        return keyed("cicero.prompt.ballot", names=", ".join(waiting))
    if p == "election_tie":
        return keyed("cicero.prompt.election_tie", outgoing=s.princeps, names=" / ".join(s.tied))
    if p == "accusation":
        return keyed("cicero.prompt.accusation")
    if p == "servants":
        placer = s.next_to_place()
        assert placer is not None  # phase "servants" has one
        return joined([None if s.placements else keyed("cicero.prompt.origin_influences"),
                       keyed("cicero.prompt.servants", player=placer, left=s.servants_left()[placer])])
    if p in ("tribute", "second_tribute"):
        paid = s.second_tribute if p == "second_tribute" else s.tribute
        names = ", ".join(x for x in s.players if x not in paid)
        return keyed(f"cicero.prompt.{p}", names=names)
    if p == "triumvirate":
        return keyed("cicero.prompt.triumvirate", princeps=s.princeps)
    if p in ("castes", "guilds"):
        if s.pending_guild:
            return keyed("cicero.prompt.guild_use", holder=s.guild_cards[s.pending_guild], guild=s.pending_guild)
        return keyed(f"cicero.prompt.count_{p}", name=s.count_next(), princeps=s.princeps)
    if p == "prestige":
        return keyed("cicero.prompt.prestige")
    if p == "round_end":
        return keyed("cicero.prompt.round_end", round=s.round + 1)
    if p == "game_over":
        return keyed("cicero.prompt.game_over", winners=" & ".join(s.winners))
    return ""


def _minutes(seconds: int | None) -> str:
    if not seconds:
        return "0:00"
    return f"{seconds // 60}:{seconds % 60:02d}"


