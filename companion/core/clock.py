"""Clocks the engines read time from.

Everything that measures time (timers, narration pauses, device heartbeats) takes a clock object
rather than calling ``time.monotonic`` itself, so tests can replace it with :class:`FakeClock`.
"""
from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What the engines read: monotonic seconds (MonotonicClock, or FakeClock in tests)."""

    def now(self) -> float: ...


class MonotonicClock:
    """The real clock: monotonic seconds (never jumps with the wall clock or NTP)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that only moves when a test says so."""

    def __init__(self, start: float = 1000.0):
        self._now = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go back")
        with self._lock:
            self._now += seconds

    # A fake sleep advances time at once, so code written for the real clock runs instantly.
    sleep = advance


SYSTEM_CLOCK = MonotonicClock()
