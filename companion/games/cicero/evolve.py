"""Cicero's fold: each recorded event applied to the state, one function per event kind.

Only applies what the events carry: every result (the first Princeps, an election, a majority,
the Prestige scored, the winners) was decided in ``rules.decide`` and recorded with its event.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion.core import votes
from companion.core.events import Event

from . import economy
from .state import CiceroState, Phase
from .tables import CASTES, GUILDS, TRIBUTE_PP


def evolve(state: CiceroState, event: Event) -> CiceroState:
    if event.kind in votes.VOTE_EVENTS:
        state = replace(state, book=votes.apply_vote_event(state.book, event))
        if event.kind == "vote_opened":
            state = replace(state, phase="ballot")
        elif event.kind == "vote_cancelled":
            state = replace(state, phase="election")
        return state
    fold = FOLDS.get(event.kind)
    return fold(state, event.data) if fold else state


def _on_economy_changed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, economy=economy.apply(s.economy, d)) if s.economy is not None else s


def _on_senators_drafted(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    if s.economy is not None:  # the drafted Senators join the cenacle
        fam = s.economy["families"][d["player"]]
        s = replace(s, economy=economy.apply(s.economy, {"player": d["player"], "item": "cenacle",
                                                         "after": fam["cenacle"] + int(d["cards"])}))
    step = s.draft_step + 1
    return replace(s, draft_step=step, phase="draft" if step < len(s.draft) else "first_princeps")


def _on_first_princeps_elected(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    s = replace(s, princeps=d["princeps"], first_princeps=dict(d))
    return _on_round_started(s, {"round": 1})


def _on_first_princeps_corrected(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    held = s.first_princeps or {}
    corrections = tuple(held.get("corrections", ())) + ({"before": d["before"], "reason": d["reason"]},)
    first = {k: d[k] for k in ("princeps", "decided_by", "votes", "oratores")}
    return replace(s, princeps=d["princeps"], first_princeps={**first, "corrections": corrections})


def _on_round_started(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    r = int(d["round"])
    phase: Phase = "automatii" if s.two_player else ("election" if r > 1 else "accusation")
    return replace(s, round=r, phase=phase, automatii=None, cicero=None, placements=(), tribute={},
                   second_tribute={}, triumvirate=None, caste_counts={}, guild_counts={}, guild_use={},
                   pending_guild=None, debate_seconds=None, tied=(), last_score=None)


def _on_automatii_placed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, phase="automatii_actions",
                   automatii={"castes": tuple(d["castes"]), "spaces": tuple(d["spaces"]), "doubled": d["doubled"]})


def _on_automatii_actions_done(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, phase="election" if s.round > 1 else "accusation")


def _on_senate_votes_announced(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    r = int(d["round"])
    merged = dict(s.senate_votes.get(r, {}))
    merged.update({p: int(n) for p, n in d["votes"].items()})
    table = dict(s.senate_votes)
    table[r] = {p: merged[p] for p in s.players if p in merged}
    return replace(s, senate_votes=table)


def _on_debate_started(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, phase="debate", debate_seconds=int(d["seconds"]))


def _on_princeps_tied(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, phase="election_tie", tied=tuple(d["tied"]))


def _on_princeps_elected(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    elections = dict(s.elections)
    elections[int(d["round"])] = {"princeps": d["princeps"], "tally": dict(d["tally"]), "tie": d["tie"],
                                  "tied": tuple(d["tied"]), "outgoing": d["outgoing"],
                                  "automatii_to": d["automatii_to"]}
    return replace(s, princeps=d["princeps"], elections=elections, phase="accusation", tied=())


def _on_senate_votes_corrected(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    r = int(d["round"])
    table = dict(s.senate_votes)
    table[r] = {p: int(d["votes"][p]) for p in s.players}
    corrections = tuple(s.elections[r].get("corrections", ())) + (
        {"player": d["player"], "before": d["before"], "after": d["after"], "reason": d["reason"]},)
    elections = dict(s.elections)
    elections[r] = {"princeps": d["princeps"], "tally": dict(d["tally"]), "tie": d["tie"], "tied": tuple(d["tied"]),
                    "outgoing": d["outgoing"], "automatii_to": d["automatii_to"], "corrections": corrections}
    # The revealed vote's weights follow, so the vote history counts what the table announced.
    book = s.book
    last = book.last()
    if last is not None and last.spec.vote_id == f"princeps-{r}":
        fixed = replace(last, spec=replace(last.spec, weights=dict(table[r])))
        book = replace(book, history=book.history[:-1] + (fixed,))
    return replace(s, senate_votes=table, elections=elections, princeps=d["princeps"], book=book)


def _on_majority_cards_corrected(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    note = {"round": s.round, **{k: d[k] for k in ("what", "name", "before", "after", "reason")}}
    s = replace(s, card_corrections=s.card_corrections + (note,))
    if d["what"] == "caste":
        cards = dict(s.caste_cards)
        cards[d["name"]] = (d["after"][0], d["after"][1])
        return replace(s, caste_cards=cards)
    guilds = dict(s.guild_cards)
    guilds[d["name"]] = d["after"]
    s = replace(s, guild_cards=guilds)
    if d["name"] in s.guild_use and s.phase in ("guilds", "prestige"):
        # "The winner reads their card and must immediately choose whether to use the power
        # of the Guild for the next round, or to score the Prestige Points": the choice was
        # the wrong holder's. Before the Prestige is scored, the real winner chooses now.
        use = {g: u for g, u in s.guild_use.items() if g != d["name"]}
        pending = d["name"] if d["after"] is not None else None
        s = _after_guild(replace(s, guild_use=use, pending_guild=pending, phase="guilds"))
    return s


def _on_cicero_revealed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, cicero={"influences": tuple(d["influences"]), "senator_castes": tuple(d["senator_castes"])},
                   phase="servants")


def _on_servant_placed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    placements = s.placements + ((d["player"], d["space"]),)
    done = len(placements) >= len(s.players) * s.servants
    return replace(s, placements=placements, phase="tribute" if done else "servants")


def _on_tribute_paid(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    key = "second_tribute" if d["second"] else "tribute"
    paid = {**(s.second_tribute if d["second"] else s.tribute), d["player"]: d["how"]}
    s = replace(s, second_tribute=paid) if d["second"] else replace(s, tribute=paid)
    if d["how"] == "prestige":  # (legacy: a journal from before the cost was recorded)
        s = _on_prestige_changed(s, {"player": d["player"], "delta": d.get("delta", TRIBUTE_PP),
                                          "reason": key})
    if len(paid) == len(s.players):
        s = replace(s, phase="castes" if d["second"] else "triumvirate")
    return s


def _on_prestige_changed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    prestige = dict(s.prestige)
    prestige[d["player"]] += int(d["delta"])
    entry = {"round": s.round, "player": d["player"], "delta": int(d["delta"]), "reason": d["reason"],
             "note": d.get("note", "")}
    return replace(s, prestige=prestige, prestige_log=s.prestige_log + (entry,))


def _on_triumvirate_revealed(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    return replace(s, triumvirate={"general": d["general"], "satisfied": d["satisfied"]},
                   phase="castes" if d["satisfied"] else "second_tribute")


def _on_caste_counted(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    cards = dict(s.caste_cards)
    cards[d["caste"]] = (d["primus"], d["secundus"])
    counts = dict(s.caste_counts)
    counts[d["caste"]] = dict(d["votes"])
    s = replace(s, carried={**s.carried, d["caste"]: dict(d["votes"])})
    return replace(s, caste_cards=cards, caste_counts=counts,
                   phase="guilds" if len(counts) == len(CASTES) else "castes")


def _on_guild_counted(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    cards = dict(s.guild_cards)
    cards[d["guild"]] = d["holder"]
    counts = dict(s.guild_counts)
    counts[d["guild"]] = dict(d["symbols"])
    s = replace(s, carried={**s.carried, d["guild"]: dict(d["symbols"])})
    s = replace(s, guild_cards=cards, guild_counts=counts, pending_guild=d["guild"] if d["holder"] else None)
    return _after_guild(s)


def _on_guild_used(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    use = dict(s.guild_use)
    use[d["guild"]] = d["use"]
    return _after_guild(replace(s, guild_use=use, pending_guild=None))


def _on_prestige_scored(s: CiceroState, d: Mapping[str, Any]) -> CiceroState:
    prestige = dict(s.prestige)
    log = s.prestige_log
    for p in s.players:
        for reason, points in (("cards", int(d["cards"][p]["total"])), ("senators", int(d["senators"][p]))):
            if points:
                prestige[p] += points
                log += ({"round": s.round, "player": p, "delta": points, "reason": reason, "note": ""},)
    s = replace(s, carried={**s.carried, "senators": dict(d["senators"])})
    s = replace(s, prestige=prestige, prestige_log=log, phase="round_end",
                last_score={"cards": d["cards"], "senators": dict(d["senators"])})
    if d.get("last"):
        s = replace(s, phase="game_over", winners=tuple(d["winners"]))
    return s


def _after_guild(s: CiceroState) -> CiceroState:
    if s.pending_guild is None and len(s.guild_counts) == len(GUILDS):
        return replace(s, phase="prestige")
    return s


# Event kind -> the function that applies it (the vote events go through core.votes).
FOLDS: dict[str, Callable[[CiceroState, Mapping[str, Any]], CiceroState]] = {
    "economy_changed": _on_economy_changed,
    "senators_drafted": _on_senators_drafted,
    "first_princeps_elected": _on_first_princeps_elected,
    "first_princeps_corrected": _on_first_princeps_corrected,
    "round_started": _on_round_started,
    "automatii_placed": _on_automatii_placed,
    "automatii_actions_done": _on_automatii_actions_done,
    "senate_votes_announced": _on_senate_votes_announced,
    "debate_started": _on_debate_started,
    "princeps_tied": _on_princeps_tied,
    "princeps_elected": _on_princeps_elected,
    "princeps_chosen": _on_princeps_elected,  # a tie broken: the same result
    "senate_votes_corrected": _on_senate_votes_corrected,
    "majority_cards_corrected": _on_majority_cards_corrected,
    "cicero_revealed": _on_cicero_revealed,
    "servant_placed": _on_servant_placed,
    "tribute_paid": _on_tribute_paid,
    "prestige_changed": _on_prestige_changed,
    "triumvirate_revealed": _on_triumvirate_revealed,
    "caste_counted": _on_caste_counted,
    "guild_counted": _on_guild_counted,
    "guild_used": _on_guild_used,
    "prestige_scored": _on_prestige_scored,
}
