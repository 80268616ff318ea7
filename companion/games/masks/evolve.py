"""The mask game's fold: each recorded event applied to the state, one function per kind.

Only what the events record is applied: the count comes with the reveal or the correction, the
verdict with the Identities or the Executioner's choice. A journal written before results were
recorded (an event without its ``count`` or ``verdict``) has them worked out here, as the version
that wrote it did (the legacy paths, through scoring.py).
"""
from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable, Mapping
from typing import Any

from companion.core import votes
from companion.core.events import Event

from . import scoring
from .state import (DISCUSSION, EXECUTIONER, EXECUTIONER_CHECK, HIDDEN, IDENTITIES_PHASE, OVER, VOTE_ID, VOTING,
                    MasksState, Verdict, VoteCount)


def _decided(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    """The revealed vote (as revealed, or as corrected since) and its recorded count: who is
    on top; a player on top may hold the Executioner: they check before anyone reveals."""
    vote = state.book.find(VOTE_ID)
    if vote is None or not vote.revealed:
        return state  # a correction of a vote this journal never revealed: nothing to fold
    ballots = vote.choices()
    # Legacy: an event recorded before its count was has it worked out here, as then.
    count = (VoteCount.recorded(state.players, d["count"]) if "count" in d
             else scoring.count_of(state.players, ballots, state.house_rules))
    check = bool(count.checkers)
    return replace(state, ballots=ballots, count=count, checked=not check, correctable=True,
                   phase=EXECUTIONER_CHECK if check else IDENTITIES_PHASE)


def _judged(state: MasksState, d: Mapping[str, Any], target: str | None = None) -> MasksState:
    """The verdict the event records; legacy (an event recorded before verdicts were): judged
    here with ``target``, as the version that recorded it did."""
    if "verdict" in d:
        return replace(state, phase=OVER, verdict=Verdict.recorded(state.players, d["verdict"]))
    assert state.identities is not None and state.ballots is not None  # judged after both
    verdict = scoring.judge(state.players, state.identities, state.center, state.royalist,
                            state.ballots, target, state.house_rules)
    return replace(state, phase=OVER, verdict=verdict)


def _on_vote_revealed(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    if state.book.current is None and state.book.history:
        return _decided(state, d)
    return state


def _on_pointing_corrected(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    # (the book already holds the corrected pointing: evolve amended it with the event's source)
    note = {k: d.get(k) for k in ("voter", "before", "choice", "reason")}
    # the count decided again (in decide), by the very code the reveal ran
    return _decided(replace(state, corrections=state.corrections + (note,)), d)


def _on_hidden_phase_started(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, phase=HIDDEN)


def _on_discussion_started(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, phase=DISCUSSION)


def _on_vanguard_used(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, vanguard=d["player"])


def _on_discussion_ended(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, phase=VOTING)


def _on_no_executioner_shown(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, phase=IDENTITIES_PHASE, checked=True, correctable=False)


def _on_executioner_shown(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    return replace(state, phase=EXECUTIONER, checked=True, executioner=d["player"], correctable=False)


def _on_identities_revealed(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    state = replace(state, identities=dict(d["identities"]), center=tuple(d["center"]),
                    royalist=d.get("royalist"), correctable=False)
    if "verdict" in d:
        return _judged(state, d)
    assert state.identities is not None and state.ballots is not None  # revealed after the vote
    if state.checked:  # legacy: judged here, as the version that recorded it did
        return _judged(state, d, state.executioner_target)
    # A journal from before the check: the Executioner chose after the reveal.
    holder = scoring.executioner_to_choose(state.players, state.identities, state.ballots, state.house_rules)
    if holder:
        return replace(state, phase=EXECUTIONER, executioner=holder)
    return _judged(state, d, None)


def _on_executioner_chose(state: MasksState, d: Mapping[str, Any]) -> MasksState:
    if state.identities is None:
        return replace(state, phase=IDENTITIES_PHASE, executioner_target=d["target"])
    return _judged(state, d, d["target"])


_ON: Mapping[str, Callable[[MasksState, Mapping[str, Any]], MasksState]] = {
    "pointing_corrected": _on_pointing_corrected,
    "hidden_phase_started": _on_hidden_phase_started,
    "discussion_started": _on_discussion_started,
    "vanguard_used": _on_vanguard_used,
    "discussion_ended": _on_discussion_ended,
    "no_executioner_shown": _on_no_executioner_shown,
    "executioner_shown": _on_executioner_shown,
    "identities_revealed": _on_identities_revealed,
    "executioner_chose": _on_executioner_chose,
}


def evolve(state: MasksState, event: Event) -> MasksState:
    k, d = event.kind, event.data
    if k in votes.VOTE_EVENTS:
        state = replace(state, book=votes.apply_vote_event(state.book, event))
        return _on_vote_revealed(state, d) if k == "vote_revealed" else state
    if k == "pointing_corrected":   # the book keeps who entered each pointing: the event's source
        state = replace(state, book=votes.amend_revealed(state.book, d["vote_id"], d["voter"], d["choice"],
                                                         event.source))
    on = _ON.get(k)
    return on(state, d) if on is not None else state  # a kind this version does not know: nothing to fold
