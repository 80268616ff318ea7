"""What the narrator says after each Masks event: pure data, no Kivy (as 23 Knives' cues.py).

``cues(event, view)`` gives the lines for one recorded event and ``closing_cues(events, view)``
the line once a batch ends the game; ``view`` is the table's view after the batch (as the rules
give it, or already said in a language: a message is data either way). The app says each
:class:`Cue` on its Narrator; starting the Hidden Phase narration and the Discussion's timer are
the app's (they follow the phase the view shows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from companion.core.events import Event
from companion.core.i18n import joined, keyed
from companion.core.narration import Script

from . import narration
from .rules import EXECUTIONER_CHECK, OVER, choice_words

# Events after which the view's prompt (who chooses now, then "everyone reveals") is said as
# well as shown.
PROMPT_SAID = ("executioner_shown", "executioner_chose", "no_executioner_shown")
# Events that may end the game: its result is said once the batch has ended it.
ENDING = ("identities_revealed", "executioner_chose")


@dataclass(frozen=True)
class Cue:
    """One thing to say: a line (its id and its message as data) or a whole script."""

    line_id: str = ""
    message: Any = ""
    script: Script | None = None


def minutes(seconds: float) -> float:
    """Seconds as minutes for a sentence: whole when whole (7), else to a tenth (1.5)."""
    m = seconds / 60
    return int(m) if m == int(m) else round(m, 1)


def cues(event: Event, view: Mapping[str, Any]) -> list[Cue]:
    k, d = event.kind, event.data
    if k == "discussion_started":
        return [Cue("masks_discussion_start", keyed("masks.say.discussion_start", n=minutes(d["seconds"])))]
    if k == "vote_revealed" and view.get("phase") == EXECUTIONER_CHECK:
        return [Cue("masks_executioner_check",
                    keyed("masks.say.executioner_check", names=", ".join(view.get("top_players", []))))]
    if k == "pointing_corrected":
        # the correction, then what the corrected count asks of the table now
        return [Cue("masks_pointing_corrected", joined([
            keyed("masks.say.corrected", voter=d["voter"], choice=choice_words(d["choice"])),
            view.get("prompt", "")]))]
    if k in PROMPT_SAID:
        return [Cue(f"masks_{k}", view.get("prompt", ""))]
    if k == "discussion_ended":
        return [Cue(script=narration.voting_script())]  # "Time is up", the count, the pointing
    return []


def closing_cues(events: Sequence[Event], view: Mapping[str, Any]) -> list[Cue]:
    """The result, said once the batch has ended the game."""
    if view.get("phase") == OVER and any(e.kind in ENDING for e in events):
        return [Cue("masks_result", view.get("result_text", ""))]
    return []
