"""The app's one timer driver: it runs the countdown a game's view asks for.

A game's view names the countdown its phase runs (``view["timer"]``, made by
``companion.core.timers.timer_view``: 23 Knives' bribe, the Masks Discussion, Cicero's debate);
the driver starts it (journaled, so a resumed game shows it as it was), polls it on the app's
engine tick, and drops it when the view no longer names it (the phase ended, an undo stepped
back). No game keeps a timer of its own; a game's screens show ``GameUI.timer.countdown``.
"""
from __future__ import annotations

from typing import Any, Mapping

from companion.core.timers import Countdown


class PhaseTimer:
    def __init__(self) -> None:
        self.countdown: Countdown | None = None
        self._key: tuple | None = None

    def tick(self, app) -> Countdown | None:
        """Start, poll or stop the countdown the table's view asks for; the one running (or None)."""
        spec: Mapping[str, Any] = (app.view or {}).get("timer") or {}
        session = app.session
        if not spec or session is None:
            self.countdown, self._key = None, None
            return None
        started = app.live_event(spec["started_by"])
        key = (session.game_id, spec["name"], started.seq if started else spec.get("key", 0))
        if self.countdown is None or self._key != key:
            self._key = key
            then = spec.get("then")
            on_end = (lambda: _time_up(app, spec["name"], then)) if then else None
            self.countdown = app.journaled_countdown(spec["name"], key[2], float(spec["seconds"]),
                                                     tuple(spec["warnings"]), on_end=on_end,
                                                     say_end=bool(spec.get("say_end", True)))
        self.countdown.poll()
        return self.countdown

    def remaining(self) -> float | None:
        return self.countdown.remaining() if self.countdown is not None else None

    def add(self, seconds: float) -> None:
        if self.countdown is not None:
            self.countdown.add(seconds)

    def toggle(self) -> None:
        """Pause a running countdown, or let a paused one run on."""
        if self.countdown is not None:
            (self.countdown.pause if self.countdown.running else self.countdown.resume)()


def _time_up(app, name: str, then: str) -> None:
    """Time is up: the command the rules expect, unless the table already moved on."""
    if ((app.view or {}).get("timer") or {}).get("name") == name:
        app.send(then)
