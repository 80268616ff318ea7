"""What the narrator says after each 23 Knives event: (script, context) pairs, pure data.

The app queues ``load(script)`` with the context on its Narrator; the golden transcript test
resolves the same cues to text. Scripts are the files in scripts/.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from companion.core.events import BadInput, Event
from companion.core.i18n import joined, keyed
from companion.core.narration import Script, load_script, slug
from companion.core.rules import fold_step

from . import scoring
from .rules import RULES
from .state import State
from .view import group_words, issue_name

SCRIPTS = Path(__file__).with_name("scripts")


def load(name: str) -> Script:
    return load_script(str(SCRIPTS / f"{name}.txt"))


def eyes_closed_context(group: str) -> dict:
    """The eyes-closed script's values for a group (a listed group's id, or words typed by the
    table). Its closing punctuation goes: the line goes on ("…Citizen cards, open your eyes").
    ``group_key`` names a voice pack's clips: a listed group's id, the same in every language."""
    words = group_words(group)
    if not isinstance(words, str):  # a listed group: its key, said in the narrator's language
        return {"group": words, "group_key": group}
    words = words.strip().rstrip(".!?,;:").strip() or words
    return {"group": words, "group_key": slug(words).lower()}


def check_spoken_group(group: str) -> None:
    """Refuse a typed group whose eyes-closed lines would not fit their fixed slots at every
    pace the settings allow: a longer line would lengthen the phase, and the phase's length
    must never depend on the group (``BadInput``, one line)."""
    from companion.core.narration import Say
    from companion.core.speakers import MAX_PACE, MIN_PACE, CaptionSpeaker
    estimate = CaptionSpeaker()  # an upper bound of espeak-ng's length (tests check it)
    for step in load("eyes_closed").resolve(eyes_closed_context(group)):
        if isinstance(step, Say) and step.slot and "{" not in step.text:
            for pace in (MIN_PACE, 1.0, MAX_PACE):
                if estimate.prepare(step.line_id, step.text, pace).duration_s > step.slot / pace:
                    raise BadInput(keyed("knives23.error.group_too_long", group=group))


def card_words(card: Mapping[str, int]) -> dict[str, Any]:
    (kind, value), = card.items()
    return keyed(f"knives23.card.{kind}_one") if value == 1 else keyed(f"knives23.card.{kind}", value=value)


def _result_words(before: State, after: State, d: Mapping[str, Any]) -> dict[str, Any]:
    c = d["counts"]
    if d["vote"] == "issue":
        counts = keyed("knives23.say.issue_counts", red=c["red"], grey=c["grey"])
    else:
        counts = keyed("knives23.say.exile_counts", exile=c["exile"], remain=c["remain"])
    if d["tie"]:
        return keyed("knives23.say.tie", counts=counts, tribune=after.tribune)
    return joined([counts, _decided_words(before, after, d['vote'], d['winner'])])


def _decided_words(before: State, after: State, vote: str, winner: str) -> dict:
    if vote == "issue":
        assert after.issues is not None  # the vote was on them
        return keyed("knives23.say.issue_chosen" if after.issues[winner] else "knives23.say.issue_chosen_unnamed",
                     colour=keyed(f"knives23.colour.{winner}"), issue=issue_name(after.issues, winner))
    ex = before.exile
    assert ex is not None  # the vote was on it
    if winner == scoring.EXILE:
        return keyed("knives23.say.exiled", target=ex["target"])
    return keyed("knives23.shamed", caller=ex["caller"])


def cues(before: State, event: Event, after: State) -> list[tuple[str, dict]]:
    k, d = event.kind, event.data
    out: list[tuple[str, dict]] = []
    if k == "vote_opened":
        out.append(("vote_open", {"question": d["question"]}))
    elif k == "exile_called" and d["bribe_seconds"]:
        out.append(("bribe", {"target": d["target"], "seconds": keyed("narration.seconds", n=d["bribe_seconds"])}))
    elif k == "vote_result":
        out.append(("vote_result", {"result": _result_words(before, after, d)}))
    elif k == "tie_broken":
        out.append(("decision", {"result": joined([keyed("knives23.say.tribune_decides", tribune=d["by"]),
                                                   _decided_words(before, after, d["vote"], d["choice"])])}))
    elif k == "eyes_closed":
        out.append(("eyes_closed", eyes_closed_context(d["group"])))
    elif k == "curia_card_revealed":
        out.append(("curia_card", {"card": card_words(d["card"]), "total": d["total"]}))
        if d["index"] == d["of"]:
            out.append(("curia_verdict", {"total": d["total"],
                                          "fate": keyed("knives23.caesar_dead" if scoring.caesar_dead(d["total"]) else "knives23.caesar_lives")}))
    elif k == "game_over":
        r = d["result"]
        if r["opportunists_win"]:
            words = keyed("knives23.say.opportunists_win", total=r["final_total"], winners=", ".join(r["winners"]))
        else:
            words = keyed("knives23.summary", total=r["final_total"],
                       fate=keyed("knives23.caesar_dead" if r["caesar_dead"] else "knives23.caesar_lives"),
                       winners=", ".join(r["winners"]) or keyed("knives23.no_one"))
        out.append(("winners", {"outcome": words}))
    for key, d in after.told[len(before.told):]:
        out.extend(told_cues(after, key, d))
    if after.ended_by and not before.ended_by:
        out.append(("curia_count", {"count": after.curia_count}))
    if after.turn is not None and after.phase == "turn" and (
            before.turn is None or before.turn.player != after.turn.player or k == "turn_ended"):
        out.append(("turn", {"player": after.turn.player}))
    return out


def said_after(setup: Mapping[str, Any], earlier: Sequence[Event], batch: Sequence[Event],
               before: State | None = None) -> list[tuple[Event, list[tuple[str, dict]]]]:
    """What is said after a batch of recorded events, event by event (``cues`` of each): the
    game folds its own states, from ``before`` (the state after ``earlier``, when the caller
    kept it) or from the setup and the ``earlier`` events. A screen never replays the rules."""
    state = before if before is not None else RULES.fold(setup, earlier)
    out = []
    for ev in batch:
        after = fold_step(RULES, state, ev)
        out.append((ev, cues(state, ev, after)))
        state = after
    return out


def told_cues(state: State, key: str, d: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The physical steps the fold recorded (rules.py ``told``), as narration cues. The shamed
    caller is already said in the vote's result."""
    if key == "dagger":
        if d["curia"]:
            return [("game_end", {})]
        return [("dagger", {"reason": keyed(f"knives23.say.dagger_{d['why']}"), "space": d["space"],
                            "spaces": state.kalends.spaces,
                            "black": keyed("knives23.say.dagger_black") if d["black"] else ""})]
    if key in ("flush", "final_flush", "refill"):
        return [(key, {})]
    if key == "pass_deck":
        return [("pass_deck", {"giver": d["from"], "taker": d["to"]})]
    if key == "exiled":
        return [("exiled", {"player": d["player"]})]
    return []


def lines(cue_list: Sequence[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    """The spoken lines of cues, as (line_id, text), pauses left out (for transcripts)."""
    from companion.core.narration import Say
    out = []
    for name, context in cue_list:
        for step in load(name).resolve(context):
            if isinstance(step, Say):
                out.append((step.line_id, step.text))
    return out
