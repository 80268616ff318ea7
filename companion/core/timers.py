"""Countdowns on a monotonic clock, their spoken warnings, and the reveal count-in.

A ``Countdown`` never sums ticks: remaining time is always ``duration - (now - start)``
(plus time run before any pause), so however irregular the polling, nothing drifts. Polling
late only delays when a warning is *noticed*; ``next_event_in()`` tells the app exactly when
to poll next.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Iterable

from companion.core.clock import Clock

from companion.core.events import BadInput
from companion.core.i18n import keyed, ntr, tr
from companion.core.narration import Mark, Say, Script, shared_script

# mark -> (line id, catalogue key): the line id names a voice pack's clip in every language
WARNING_LINES = {
    300: ("timer_five_minutes", "timers.five_minutes_left"),
    120: ("timer_two_minutes", "timers.two_minutes_left"),
    60: ("timer_one_minute", "timers.one_minute_left"),
    30: ("timer_thirty_seconds", "timers.thirty_seconds_left"),
    10: ("timer_ten_seconds", "timers.ten_seconds"),
}
END_LINE = ("timer_time_up", "timers.time_up")


def spoken_end() -> tuple[str, str]:
    """``(line_id, text)`` to say when a countdown ends, in the language spoken now."""
    return END_LINE[0], tr(END_LINE[1])


def spoken_warning(seconds: float) -> tuple[str, str]:
    """``(line_id, text)`` to say when ``seconds`` remain, for ``Narrator.say``, in the
    language spoken now (made as it is said)."""
    s = int(round(seconds))
    if s in WARNING_LINES:
        line_id, key = WARNING_LINES[s]
        return line_id, tr(key)
    if s % 60 == 0:
        return f"timer_{s // 60}_minutes", ntr("narration.minutes_left", s // 60)
    return f"timer_{s}_seconds", ntr("narration.seconds_left", s)


# A warning may be said this late and still be true ("Ten seconds." with 9 s left), never later.
def timer_view(name: str, seconds: float, warnings: tuple[float, ...], started_by: str, key: object = 0,
               then: str | None = None, say_end: bool = True) -> dict:
    """The countdown a game's phase runs, as its view gives it to the app's one timer driver
    (``view["timer"]``): ``name`` (also its record in the journal), its length, the marks it
    speaks at, the event kind that starts it (its latest live one keys the record, ``key`` when
    there is none), the command the rules expect when time is up (``then``) and whether the
    countdown says "time is up" itself (``say_end``). No timer in the view: none runs."""
    return {"name": name, "seconds": seconds, "warnings": list(warnings), "started_by": started_by,
            "key": key, "then": then, "say_end": say_end}


WARNING_LATE_S = 1.0


def warning_still_true(countdown: "Countdown | None", mark: float) -> bool:
    """Whether "``mark`` seconds left" is still true of ``countdown`` (checked as it is spoken)."""
    if countdown is None or countdown.ended:
        return False
    return mark - WARNING_LATE_S <= countdown.remaining() <= mark + 0.5


def _positive(value: Any, what: dict, allow_zero: bool = False) -> float:
    """``value`` as seconds; ``what`` (keyed) names it in the refusal."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BadInput(keyed("timers.not_seconds", what=what, got=repr(value))) from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise BadInput(keyed("timers.not_zero_or_more" if allow_zero else "timers.not_more_than_0",
                             what=what, got=repr(value)))
    return v


class Countdown:
    """A countdown from ``duration_s``; ``poll()`` fires each warning once, then the end.

    ``on_warning(mark_seconds)`` and ``on_end()`` are called from ``poll()`` (the main thread).
    Warnings at or above the duration never fire (they are already behind at the start).
    """

    def __init__(self, duration_s: float, clock: Clock, warnings: Iterable[float] = (60, 10),
                 on_warning: Callable[[float], object] | None = None,
                 on_end: Callable[[], object] | None = None, start: bool = True, name: str = "timer"):
        self.clock, self.name = clock, name
        self.on_warning = on_warning or (lambda mark: None)
        self.on_end = on_end or (lambda: None)
        self._duration = _positive(duration_s, keyed("timers.what_duration"))
        self.warnings = tuple(sorted({_positive(w, keyed("timers.what_warning")) for w in warnings}, reverse=True))
        self._armed = [w for w in self.warnings if w < self._duration]
        self._run_before = 0.0          # seconds run before the last pause
        self._started_at: float | None = None
        self.ended = False
        # Called as ``on_change(action, self)`` after "paused", "resumed", "added" and "ended",
        # so the app can record the timer's state in the journal (a resumed game shows it again).
        self.on_change = None
        if start:
            self.resume()

    def _changed(self, action: str) -> None:
        if self.on_change is not None:
            self.on_change(action, self)

    # reading
    @property
    def duration(self) -> float:
        return self._duration

    @property
    def running(self) -> bool:
        return self._started_at is not None

    def elapsed(self) -> float:
        if self._started_at is None:
            return self._run_before
        return self._run_before + (self.clock.now() - self._started_at)

    def remaining(self) -> float:
        return max(0.0, self._duration - self.elapsed())

    def next_event_in(self) -> float | None:
        """Seconds until the next warning or the end; None when paused or ended."""
        if not self.running or self.ended:
            return None
        rem = self._duration - self.elapsed()
        target = self._armed[0] if self._armed else 0.0
        return max(0.0, rem - target)

    # control
    def start(self) -> None:
        self.resume()

    def resume(self) -> None:
        if self._started_at is None and not self.ended:
            self._started_at = self.clock.now()
            self._changed("resumed")

    def pause(self) -> None:
        if self._started_at is not None:
            self._run_before += self.clock.now() - self._started_at
            self._started_at = None
            self._changed("paused")

    def add(self, seconds: float) -> None:
        """Add time (negative takes it away, down to zero left). A warning whose mark is
        above the new remaining time fires again when crossed again; time added after the
        end restarts the countdown."""
        try:
            s = float(seconds)
        except (TypeError, ValueError):
            raise BadInput(keyed("timers.not_seconds", what=keyed("timers.what_added"), got=repr(seconds))) from None
        if not math.isfinite(s):
            raise BadInput(keyed("timers.not_seconds", what=keyed("timers.what_added"), got=repr(seconds)))
        elapsed = self.elapsed()
        self._duration = max(elapsed, self._duration + s)
        rem = self._duration - elapsed
        if self.ended and rem > 0:
            self.ended = False
            self._run_before, self._started_at = elapsed, self.clock.now()
        self._armed = sorted(set(self._armed) | {w for w in self.warnings if w < rem}, reverse=True)
        self._changed("added")

    def poll(self) -> list[tuple[str, float]]:
        """Fire what has been crossed since the last poll, in order: warnings from the
        largest mark down, then the end. Returns them as ("warning", mark) / ("end", 0)."""
        if self.ended:
            return []
        rem = self._duration - self.elapsed()
        fired = []
        while self._armed and rem <= self._armed[0]:
            mark = self._armed.pop(0)
            fired.append(("warning", mark))
            self.on_warning(mark)
        if rem <= 0:
            self.ended = True
            # freeze at exactly zero: a later add() restarts from here
            self._run_before, self._started_at = self._duration, None
            fired.append(("end", 0.0))
            self._changed("ended")
            self.on_end()
        return fired

    # journaling
    def to_dict(self) -> dict:
        return {"version": 1, "name": self.name, "duration_s": self._duration,
                "elapsed_s": self.elapsed(), "warnings": list(self.warnings),
                "armed": list(self._armed), "ended": self.ended, "running": self.running}

    @classmethod
    def from_dict(cls, data: Any, clock: Clock, on_warning: Callable[[float], object] | None = None,
                  on_end: Callable[[], object] | None = None) -> "Countdown":
        """Restore a journaled countdown, PAUSED (after a crash the table resumes it)."""
        if not isinstance(data, dict):
            raise BadInput(keyed("timers.record_not_object", got=type(data).__name__))
        if data.get("version") != 1:
            raise BadInput(keyed("timers.record_version", version=repr(data.get("version")), expected=1))
        for key in ("duration_s", "elapsed_s", "warnings", "armed", "ended"):
            if key not in data:
                raise BadInput(keyed("timers.record_missing", field=repr(key)))
        for key in ("warnings", "armed"):
            if not isinstance(data[key], list):
                raise BadInput(keyed("timers.record_not_list", field=repr(key), got=repr(data[key])))
        if not isinstance(data["ended"], bool):
            raise BadInput(keyed("timers.record_not_bool", field="'ended'", got=repr(data["ended"])))
        duration = _positive(data["duration_s"], keyed("timers.what_field", field="'duration_s'"))
        elapsed = _positive(data["elapsed_s"], keyed("timers.what_field", field="'elapsed_s'"), allow_zero=True)
        if elapsed > duration:
            raise BadInput(keyed("timers.record_elapsed", elapsed=elapsed, duration=duration))
        timer = cls(duration, clock, data["warnings"], on_warning, on_end, start=False,
                    name=str(data.get("name", "timer")))
        armed = {_positive(w, keyed("timers.what_armed")) for w in data["armed"]}
        if not armed <= set(timer.warnings):
            raise BadInput(keyed("timers.record_armed", marks=str(sorted(armed))))
        timer._armed = sorted(armed, reverse=True)
        timer._run_before = elapsed
        timer.ended = data["ended"]
        return timer

    @classmethod
    def restore(cls, data: Any, clock: Clock, *, away_s: float = 0.0, min_left_s: float = 10.0,
                on_warning: Callable[[float], object] | None = None,
                on_end: Callable[[], object] | None = None) -> "Countdown":
        """A journaled countdown as the table last saw it: a paused one paused at the time it
        showed; a running one running, less the ``away_s`` seconds since it was recorded (the
        table kept talking while the app was closed), but with at least ``min_left_s`` left so
        the table hears the end coming."""
        timer = cls.from_dict(data, clock, on_warning, on_end)
        if data.get("running") and not timer.ended:
            left = timer._duration - timer._run_before
            spent = max(0.0, min(float(away_s), left - min(min_left_s, left)))
            timer._run_before += spent
            timer._armed = [w for w in timer._armed if w < timer._duration - timer._run_before]
            timer.resume()
        return timer


class RevealCountdown:
    """The spoken count-in for a simultaneous reveal, as narration steps with even spacing.

    Styles are the shared scripts ``count_of_three`` ("On the count of three. One. Two.
    Three!") and ``ready_set_go`` ("Ready. Set. Go!"). Every line gets the slot ``spacing``
    (at pace 1), so the beats are even; the ``mark reveal`` step falls on the last word, when
    the app should reveal the votes (``Narrator(on_mark=...)``).
    """

    STYLES = ("count_of_three", "ready_set_go")

    def __init__(self, style: str = "count_of_three", spacing: float = 1.0):
        if style not in self.STYLES:
            raise BadInput(keyed("timers.unknown_reveal", style=repr(style), known=", ".join(self.STYLES)))
        self.style, self.spacing = style, _positive(spacing, keyed("timers.what_spacing"))

    def script(self) -> Script:
        base = shared_script(self.style)
        if not any(isinstance(s, Mark) and s.name == "reveal" for s in base.steps):
            raise BadInput(keyed("timers.no_reveal_mark", script=base.name))
        return Script(base.name, tuple(replace(s, slot=self.spacing) if isinstance(s, Say) else s
                                       for s in base.steps))

    def steps(self) -> list:
        return self.script().resolve({})
