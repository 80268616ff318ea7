"""Seven Knights Bewitched: ``evolve(state, event)``, one function per event kind. They only apply
what the event recorded (the Captain, a round's result, the winners are decided in ``decide``);
the legacy paths replay older journals that did not record them, as those versions played."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion.core import votes
from companion.core.events import Event

from .scoring import TIE_FROM_RECORD, captain_data, game_winners
from .state import Arrow, Correction, Question, Round, SevenKnightsState, result_from


def evolve(state: SevenKnightsState, event: Event) -> SevenKnightsState:
    k, d = event.kind, event.data
    if k in votes.VOTE_EVENTS:
        state = replace(state, book=votes.apply_vote_event(state.book, event))
        return _on_vote_revealed(state, d) if k == "vote_revealed" else state
    on = _ON.get(k)
    return on(state, d) if on is not None else state


def _on_vote_revealed(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    rnd = state.round
    last = state.book.last()
    assert last is not None  # the vote just revealed
    # Legacy: a reveal recorded before the Captain was (an older version's journal)
    # has the Captain worked out here, as that version did. New reveals carry it.
    r = d["result"] if "result" in d else captain_data(state.players, rnd.first, last.choices())
    rnd = replace(rnd, captain=r["captain"], counts=tuple(sorted(r["counts"].items())),
                  tie=bool(r["tie"]), decided_by=TIE_FROM_RECORD.get(r["decided_by"] or ""),
                  recommended=tuple((p, c) for p, c in last.choices().items()
                                    if c is not None))
    return replace(state, round=rnd, phase="order_question")


def _on_tile_looked(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    rnd = state.round
    rnd = replace(rnd, arrows=rnd.arrows + (Arrow(d["looker"], d["at"], d["search"]),))
    turn, search, phase = state.turn + 1, state.search, state.phase
    if turn == len(state.players):
        turn = 0
        if search < len(state.rules_mode.searches):
            search += 1
        else:
            phase = "questions"
    return replace(state, round=rnd, turn=turn, search=search, phase=phase)


def _on_arrow_corrected(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    rnd = state.round
    arrows = tuple(replace(a, at=d["after"]) if (a.looker, a.search) == (d["looker"], d["search"]) else a
                   for a in rnd.arrows)
    fix = Correction(d["looker"], d["search"], d["before"], d["after"], d["reason"])
    rnd = replace(rnd, arrows=arrows, corrections=rnd.corrections + (fix,),
                  forbidden=tuple(d["forbidden"]) if "forbidden" in d else rnd.forbidden)
    if rnd.result is None or not ("result" in d or d.get("reopened")):
        return replace(state, round=rnd)
    # the round's result is in: the recorded one replaces it (or the formation reopens)
    old = dict(rnd.result.points)
    state = replace(state, totals=tuple(t - old.get(p, 0) for p, t in zip(state.players, state.totals)),
                    winners=())
    if "result" in d:
        return _scored(state, replace(rnd, result=result_from(d["result"])), d)
    return replace(state, round=replace(rnd, result=None), phase="formation")


def _on_captain_question_skipped(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    return replace(state, phase="captain_reveal")


def _on_toriko_revealed(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    return _scored(state, replace(state.round, result=result_from(d["result"])), d)


def _on_question_asked(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    rnd = state.round
    q = Question(d["asker"], d["target"], d["template"], d["answer"], d.get("n"), d.get("other"),
                 d.get("text", ""), bool(d.get("by_captain")))
    rnd = replace(rnd, questions=rnd.questions + (q,))
    if q.by_captain:
        return replace(state, round=rnd, phase="captain_reveal")
    turn = state.turn + 1
    if turn == len(state.players):
        return replace(state, round=rnd, turn=0, phase="recommendation")
    return replace(state, round=rnd, turn=turn)


def _on_captain_tile_revealed(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    rnd = replace(state.round, captain_tile=d["tile"])
    if "result" in d:
        return _scored(state, replace(rnd, result=result_from(d["result"])), d)
    return replace(state, round=rnd, phase="formation")


def _on_formation_revealed(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    return _scored(state, replace(state.round, result=result_from(d["result"])), d)


def _on_round_started(state: SevenKnightsState, d: Mapping[str, Any]) -> SevenKnightsState:
    done = replace(state.round, next_first=d["first"])
    return replace(state, round=Round(d["round"], d["first"]), past=state.past + (done,),
                   phase="search", search=1, turn=0)


def _scored(state: SevenKnightsState, rnd: Round, d: Mapping[str, Any]) -> SevenKnightsState:
    assert rnd.result is not None  # the event recorded the round's result
    pts = dict(rnd.result.points)
    totals = tuple(t + pts.get(p, 0) for p, t in zip(state.players, state.totals))
    # Legacy: a round scored before these were recorded is decided here, as then.
    last = d["last"] if "last" in d else rnd.number >= state.rules_mode.rounds
    if not last:
        return replace(state, round=rnd, totals=totals, phase="cleanup")
    won = d["winners"] if "winners" in d else game_winners(state.players, state.rules_mode, totals,
                                                           rnd.result.winner)
    return replace(state, round=rnd, totals=totals, phase="game_over", winners=tuple(won))


# event kind -> what it does to the state
_ON: dict[str, Callable[[SevenKnightsState, Mapping[str, Any]], SevenKnightsState]] = {
    "tile_looked": _on_tile_looked,
    "arrow_corrected": _on_arrow_corrected,
    "captain_question_skipped": _on_captain_question_skipped,
    "toriko_revealed": _on_toriko_revealed,
    "question_asked": _on_question_asked,
    "captain_tile_revealed": _on_captain_tile_revealed,
    "formation_revealed": _on_formation_revealed,
    "round_started": _on_round_started,
}
