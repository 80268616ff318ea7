"""When an eyes-closed Issue ends, decided without Kivy.

The rulebook's eyes-closed Issues are read aloud and end "finally, for everyone to reopen their
eyes": the phase ends when the narrator has said the whole script, and then the table's command
``eyes_open`` moves the game on. The app calls :meth:`EyesClosedIssue.tick` from its engine tick
with the game's events and its narrator (companion.core.narration, Kivy-free), so the tests drive
the same object with a fake clock. The script's marks ``eyes_step_1`` … ``eyes_step_5`` are kept
in the journal as the narrator reaches them (the app's ``NarrationProgress``), so a game resumed
with eyes closed goes on from the step it reached, not from "everyone, close your eyes".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from companion.core.events import Command, Event
from companion.core.narration import Script

from . import cues


EYES_STEP = "eyes_step_"  # the eyes-closed script's marks: eyes_step_1 ... eyes_step_5


def script_name(seq: int | None) -> str:
    """The name the journal keeps an eyes-closed narration's step under: one per Issue."""
    return f"knives23.eyes_closed.{seq}"


class _Progress(Protocol):
    def step(self, game_id: int, script: str) -> int | None: ...


class _Narrator(Protocol):
    @property
    def busy(self) -> bool: ...

    def cancel(self) -> None: ...

    def enqueue_script(self, script: Script, context: dict | None = ...) -> object: ...


@dataclass
class EyesClosedIssue:
    """Which eyes-closed Issue the narrator is reading: ``(game id, seq of its event)``."""

    narrating: tuple[int, int | None] | None = None

    def started(self, game_id: int, seq: int) -> None:
        """The live game's eyes-closed cue was just queued (by the game's cues)."""
        self.narrating = (game_id, seq)

    def step_reached(self, game_id: int, mark: str) -> tuple[str, int] | None:
        """``(script name, step)`` to keep in the journal when the narrator says ``mark``;
        None when the mark is not an eyes-closed step of the Issue this game is reading."""
        if not mark.startswith(EYES_STEP) or self.narrating is None or self.narrating[0] != game_id:
            return None
        step = mark[len(EYES_STEP):]
        return (script_name(self.narrating[1]), int(step)) if step.isdigit() else None

    def tick(self, game_id: int, phase: str | None, events: Sequence[Event],
             narrator: _Narrator, progress: _Progress | None = None) -> Command | None:
        """``eyes_open`` once the script of the current eyes-closed Issue has been said in full.

        A game resumed with its eyes still closed (nobody is reading it now) has its script
        read again first: from the step ``progress`` says the journal reached, else from the
        start."""
        if phase != "eyes_closed":
            return None
        last = next((e for e in reversed(events) if e.kind == "eyes_closed"), None)
        key = (game_id, last.seq if last is not None else None)
        if self.narrating != key:
            self.narrating = key
            group = last.data["group"] if last is not None else ""
            script = cues.load("eyes_closed")
            reached = progress.step(game_id, script_name(key[1])) if progress is not None else None
            if reached:
                script = script.from_mark(f"{EYES_STEP}{reached}")
            narrator.cancel()
            narrator.enqueue_script(script, cues.eyes_closed_context(group))
            return None
        if narrator.busy:
            return None
        return Command("eyes_open", {}, "tablet")
