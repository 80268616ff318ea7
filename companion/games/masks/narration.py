"""The mask game's narration: the Hidden Phase script (the count before the vote is a cue: cues.py).

Scripts are data (scripts/*.txt). This module only loads them, offers the "varied pauses"
setting and lets the table repeat a step. Nothing here reads the game state: the narrator
cannot know the Bystanders, so no narration may depend on them.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from companion.core.events import BadInput
from companion.core.i18n import keyed
from companion.core.narration import Mark, Narrator, Pause, Script, Step, load_script

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")
STEPS = 10  # the rulebook's "Script for the Hidden Phase" has ten steps
DONE_MARK = "hidden_phase_over"
# With "varied pauses" on, each action pause is drawn between these fractions of its fixed
# length, by the narrator's own RNG (never by the cards), so the table cannot time a step to
# learn whether a role is in play.
VARY_LOW, VARY_HIGH = 0.75, 1.5


def step_mark(n: int) -> str:
    return f"step_{n}"


def hidden_phase_script(varied: bool = False) -> Script:
    script = load_script(os.path.join(SCRIPTS, "hidden_phase.txt"))
    if not varied:
        return script
    steps = tuple(replace(s, low=s.low * VARY_LOW, high=s.high * VARY_HIGH)
                  if isinstance(s, Pause) and s.low == s.high else s for s in script.steps)
    return Script(script.name + " (varied)", steps)


def steps_from(script: Script, step: int) -> Script:
    """The script from the mark of ``step`` to its end (to say a step again and go on)."""
    if not 1 <= step <= STEPS:
        raise BadInput(keyed("masks.no_such_step", steps=STEPS, step=repr(step)))
    return script.from_mark(step_mark(step))


def step_of(script: Script) -> dict[int, list[Step]]:
    """The steps of the script grouped by Hidden Phase step number (1..10)."""
    out: dict[int, list[Step]] = {}
    current = 0
    for s in script.steps:
        if isinstance(s, Mark) and s.name.startswith("step_"):
            current = int(s.name[5:])
        out.setdefault(current, []).append(s)
    return out


class HiddenPhase:
    """Plays the Hidden Phase on a Narrator and knows which step it is at, so the table can
    ask for a step again. ``on_step(n)`` on each new step, ``on_done()`` at the end."""

    def __init__(self, narrator: Narrator, varied: bool = False, on_step: Callable[[int], None] | None = None,
                 on_done: Callable[[], None] | None = None) -> None:
        self.narrator, self.varied = narrator, varied
        self.script = hidden_phase_script(varied)
        self.step = 0
        self.done = False
        self.on_step = on_step or (lambda n: None)
        self.on_done = on_done or (lambda: None)
        self._chained = narrator.on_mark
        narrator.on_mark = self._mark

    def _mark(self, name: str) -> None:
        if name.startswith("step_"):
            self.step = int(name[5:])
            self.on_step(self.step)
        elif name == DONE_MARK:
            self.done = True
            self.on_done()
        self._chained(name)

    def detach(self) -> None:
        """Stop listening to the narrator (a new game, or a new narrator after a settings change)."""
        if self.narrator.on_mark == self._mark:
            self.narrator.on_mark = self._chained

    def start(self, from_step: int | None = None) -> None:
        """From step 1, or from ``from_step`` (a phase cut short: it goes on where it was)."""
        self.narrator.cancel()
        self.step, self.done = 0, False
        if from_step and from_step > 1:
            self.narrator.enqueue_script(steps_from(self.script, from_step), {})
        else:
            self.narrator.enqueue_script(self.script, {})

    def repeat_step(self) -> int:
        """Say the current step again from its start, then go on. Returns the step."""
        step = max(1, self.step)
        self.narrator.cancel()
        self.done = False
        self.narrator.enqueue_script(steps_from(self.script, step), {})
        return step
