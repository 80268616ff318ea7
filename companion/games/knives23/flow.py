"""When an eyes-closed Issue ends, decided without Kivy.

The rulebook's eyes-closed Issues are read aloud and end "finally, for everyone to reopen their
eyes": the phase ends when the narrator has said the whole script, and then the table's command
``eyes_open`` moves the game on. The app calls :meth:`EyesClosedIssue.tick` from its engine tick
with the game's events and its narrator (companion.core.narration, Kivy-free), so the tests drive
the same object with a fake clock.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from companion.core.events import Command, Event
from companion.core.narration import Script

from . import cues


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

    def tick(self, game_id: int, phase: str | None, events: Sequence[Event],
             narrator: _Narrator) -> Command | None:
        """``eyes_open`` once the script of the current eyes-closed Issue has been said in full.

        A game resumed with its eyes still closed (nobody is reading it now) has its script
        read again from the start first."""
        if phase != "eyes_closed":
            return None
        last = next((e for e in reversed(events) if e.kind == "eyes_closed"), None)
        key = (game_id, last.seq if last is not None else None)
        if self.narrating != key:
            self.narrating = key
            group = last.data["group"] if last is not None else ""
            narrator.cancel()
            narrator.enqueue_script(cues.load("eyes_closed"), cues.eyes_closed_context(group))
            return None
        if narrator.busy:
            return None
        return Command("eyes_open", {}, "tablet")
