"""What the table sees of the mask game: one view for every viewer (the tablet holds no secret
before the reveal: the Identities are entered only once they are face up), the prompt, the
outcome, and the words for a correction, a reading and the result."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core import votes
from companion.core.houserules import applies
from companion.core.i18n import joined, keyed
from companion.core.rules import Outcome
from companion.core.timers import timer_view

from .setup import CENTER_TIE, EXECUTIONER_TIE, HOUSE_READINGS, reading
from .state import (CENTER, DISCUSSION, DISCUSSION_WARNINGS, EXECUTIONER, EXECUTIONER_CHECK, IDENTITIES_PHASE,
                    OVER, MasksState, Verdict)

GAME_ID = "masks"


def view(state: MasksState, viewer: str) -> dict[str, Any]:
    # The tablet never holds a secret before the reveal: the Identities are entered only
    # once they are face up, so every viewer sees the same thing.
    v: dict[str, Any] = {
        "game": GAME_ID, "phase": state.phase, "prompt": prompt(state),
        "players": list(state.players), "discussion_seconds": state.discussion_seconds,
        "vanguard": state.vanguard,
        "vote": _vote_view(state.book.current),
        "vote_history": [votes.table_view(x) for x in state.book.history],
    }
    if state.count is not None:
        v["counts"] = dict(state.count.counts)
        v["most_voted"] = list(state.count.most_voted)
        v["top_players"] = list(state.count.top_players)
    v["can_correct"] = state.correctable
    v["house_rules"] = dict(state.house_rules)
    if state.count is not None and state.verdict is None:
        v["house_notes"] = house_notes(state)
    if state.phase == DISCUSSION:
        # "Once the 7 minutes are up, proceed immediately to the Voting Phase": the vote's
        # script opens with "Time is up", so the countdown's end says nothing itself
        v["timer"] = timer_view("masks.discussion", state.discussion_seconds, DISCUSSION_WARNINGS,
                                "discussion_started", then="end_discussion", say_end=False)
    if state.corrections:
        v["corrections"] = [correction_text(c) for c in state.corrections]
    if state.executioner_target is not None and state.verdict is None:
        v["executioner_target"] = state.executioner_target
    if state.identities is not None:
        v["identities"] = dict(state.identities)
        v["center"] = list(state.center)
        v["royalist"] = state.royalist
    if state.phase == EXECUTIONER or state.phase == IDENTITIES_PHASE and state.checked:
        v["executioner"] = state.executioner  # (a journal from before the check: found when folded)
    if state.verdict is not None:
        vd = state.verdict
        v.update(vd.to_dict())
        v["executioner"] = vd.executioner
        v["executioner_target"] = vd.executioner_target
        v["readings"] = [reading_text(k, state.house_rules) for k in vd.readings]
        v["warnings"] = [w.text() for w in vd.warnings]
        v["decided_by"] = vd.decided_by
        v["result_text"] = result_text(vd)
    return v


def prompt(state: MasksState) -> dict[str, Any]:
    if state.phase == EXECUTIONER_CHECK:
        assert state.count is not None  # the vote was revealed
        top = state.count.checkers
        return keyed("masks.prompt.executioner_check_one" if len(top) == 1
                  else "masks.prompt.executioner_check", names=", ".join(top))
    if state.phase == EXECUTIONER:
        # known from the check, or (a journal from before the check) from the identities
        return keyed("masks.prompt.executioner", name=state.executioner)
    if state.phase == IDENTITIES_PHASE and state.executioner_target is not None:
        return keyed("masks.prompt.identities_after_choice", name=state.executioner,
                  target=state.executioner_target)
    if state.phase == OVER:
        assert state.verdict is not None  # the game is judged
        return result_text(state.verdict)
    return keyed(f"masks.prompt.{state.phase}")


def outcome(state: MasksState) -> Outcome | None:
    if state.verdict is None:
        return None
    return {"winners": list(state.verdict.winners), "summary": result_text(state.verdict)}


def _vote_view(vote: votes.VoteState | None) -> dict[str, Any] | None:
    """The core's table view, plus what the shared vote screen needs to offer the right
    choices: never oneself, and no abstaining (the Vanguard's is already recorded)."""
    view = votes.table_view(vote)
    if view is not None:
        view["allow_self"] = False
        view["allow_abstain"] = False
    return view


def reading_text(key: str, house: Mapping[str, str]) -> dict[str, Any]:
    """A verdict's reading for the table: a house rule's as the reading that applied (with the
    rulebook's words), any other as its catalogue text."""
    rule = HOUSE_READINGS.get(key)
    return applies(rule, reading(house, rule)) if rule is not None else keyed(key)


def house_notes(state: MasksState) -> list[dict[str, Any]]:
    """The house rules deciding the revealed count (before the result): a tie with the center,
    players tied (where an Executioner among them may or may not choose)."""
    assert state.count is not None  # the vote was revealed
    top, most = state.count.top_players, state.count.most_voted
    notes = []
    if top and CENTER in most:
        notes.append(applies(CENTER_TIE, reading(state.house_rules, CENTER_TIE)))
    if len(top) > 1 and not (CENTER in most and reading(state.house_rules, CENTER_TIE) == "nobody_out"):
        notes.append(applies(EXECUTIONER_TIE, reading(state.house_rules, EXECUTIONER_TIE)))
    return notes


def choice_words(choice: str | None) -> Any:
    """A pointing in words: a player's name, or the Bystanders in the center."""
    return keyed("masks.correction.center") if choice == CENTER else choice


def correction_text(note: Mapping[str, Any]) -> dict[str, Any]:
    """One corrected pointing, for the table: who, what the tablet had, what it is now, why."""
    return keyed("masks.correction.note", voter=note["voter"], choice=choice_words(note["choice"]),
                 before=choice_words(note["before"]), reason=note["reason"])


def result_text(verdict: Verdict) -> dict[str, Any]:
    """One sentence for the table: who was eliminated and which faction won (said when shown)."""
    winners = ", ".join(verdict.winners) or keyed("masks.result.no_one")
    return joined([keyed("masks.result.eliminated", names=", ".join(verdict.eliminated))
                   if verdict.eliminated else keyed("masks.result.nobody_eliminated"),
                   keyed("masks.result.executioner", executioner=verdict.executioner,
                         target=verdict.executioner_target) if verdict.executioner else None,
                   keyed(f"masks.result.{verdict.result}", winners=winners)])
