"""What the narrator says after each Masks event: pure data, no Kivy (as 23 Knives' cues.py).

``cues(event, view)`` gives the lines for one recorded event and ``closing_cues(events, view)``
the line once a batch ends the game; ``view`` is the table's view after the batch (as the rules
give it, or already said in a language: a message is data either way). The app says each
:class:`Cue` on its Narrator; starting the Hidden Phase narration and the Discussion's timer are
the app's (they follow the phase the view shows).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from companion.core.events import Event
from companion.core.i18n import joined, keyed, text_of
from companion.core.narration import Narrator, Script, load_script

from .narration import SCRIPTS
from .state import EXECUTIONER_CHECK, OVER
from .view import choice_words

# Events after which the view's prompt (who chooses now, then "everyone reveals") is said as
# well as shown.
PROMPT_SAID = ("executioner_shown", "executioner_chose", "no_executioner_shown")
# Events that may end the game: its result is said once the batch has ended it.
ENDING = ("identities_revealed", "executioner_chose")


# The facts said as reports (keyed: a newer report of the same fact overtakes one still waiting).
EXECUTIONER_FACT = "masks_executioner"   # who looks for the Executioner, who chooses, who is out
RESULT_FACT = "masks_result"


@dataclass(frozen=True)
class Cue:
    """One thing to say: a line (its id and its message as data) or a whole script.

    A line with a ``report`` key is a report of a fact, not a line to be heard whole: a newer
    report of the same fact replaces it while it waits, and it is dropped (or cut short) once the
    table's view no longer shows the values in ``holds`` (the state moved on)."""

    line_id: str = ""
    message: Any = ""
    script: Script | None = None
    report: str = ""
    holds: Mapping[str, Any] = field(default_factory=dict)


def _holding(view: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """The view's values a report stays true with."""
    return {k: view.get(k) for k in keys}


def queue(narrator: Narrator, cue: Cue, current_view: Callable[[], Mapping[str, Any] | None]) -> None:
    """Queue ``cue`` on the narrator: a script, a line said whole, or a report that stays true
    while ``current_view()`` (the table's view when its turn comes) still shows ``cue.holds``."""
    if cue.script is not None:
        narrator.enqueue_script(cue.script, {})
        return
    text = text_of(cue.message)
    if not cue.report:
        narrator.say(cue.line_id, text)
        return
    holds = dict(cue.holds)

    def still_true() -> bool:
        view = current_view() or {}
        return all(view.get(k) == v for k, v in holds.items())
    narrator.report(cue.report, cue.line_id, text, still_true=still_true)


def voting_script() -> Script:
    """Said when the Discussion ends: "Time is up", the count, the pointing."""
    return load_script(os.path.join(SCRIPTS, "voting.txt"))


def minutes(seconds: float) -> float:
    """Seconds as minutes for a sentence: whole when whole (7), else to a tenth (1.5)."""
    m = seconds / 60
    return int(m) if m == int(m) else round(m, 1)


def cues(event: Event, view: Mapping[str, Any]) -> list[Cue]:
    k, d = event.kind, event.data
    if k == "discussion_started":
        return [Cue("masks_discussion_start", keyed("masks.say.discussion_start", n=minutes(d["seconds"])))]
    # Who looks for the Executioner, who chooses, whom they chose: reports of one fact, true while
    # the view still shows the phase (and the names) they speak of.
    if k == "vote_revealed" and view.get("phase") == EXECUTIONER_CHECK:
        return [Cue("masks_executioner_check",
                    keyed("masks.say.executioner_check", names=", ".join(view.get("top_players", []))),
                    report=EXECUTIONER_FACT, holds=_holding(view, "phase", "top_players"))]
    if k == "pointing_corrected":
        # the correction, then what the corrected count asks of the table now
        return [Cue("masks_pointing_corrected", joined([
            keyed("masks.say.corrected", voter=d["voter"], choice=choice_words(d["choice"])),
            view.get("prompt", "")]), report=EXECUTIONER_FACT, holds=_holding(view, "phase", "top_players"))]
    if k in PROMPT_SAID:
        return [Cue(f"masks_{k}", view.get("prompt", ""), report=EXECUTIONER_FACT,
                    holds=_holding(view, "phase", "executioner", "executioner_target"))]
    if k == "discussion_ended":
        return [Cue(script=voting_script())]  # "Time is up", the count, the pointing
    return []


def closing_cues(events: Sequence[Event], view: Mapping[str, Any]) -> list[Cue]:
    """The result, said once the batch has ended the game."""
    if view.get("phase") == OVER and any(e.kind in ENDING for e in events):
        return [Cue("masks_result", view.get("result_text", ""), report=RESULT_FACT,
                    holds=_holding(view, "phase", "eliminated", "result"))]
    return []
