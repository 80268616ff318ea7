"""Accepting a seat's reading only when it holds over several consecutive frames.

A hand turning a token shows a blur, then maybe a glimpse of the wrong side, then the side the
player chose. Per seat we keep the last face read and how many frames in a row it was read. It is
*stable* once read in ``frames`` consecutive frames. A frame where the seat is not seen at all (a
finger over it, a blur) does not break the run unless more than ``max_gap`` such frames come in a
row; a frame where the seat shows something else — another face, or an ambiguity warning (both
sides, two tokens) — restarts the run.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .reader import Reading


@dataclass
class _Run:
    face: str | None  # None: the seat was ambiguous
    count: int = 0
    gap: int = 0


@dataclass(frozen=True)
class Change:
    """A seat whose stable face changed (``face`` None: no longer stable)."""

    seat: int
    face: str | None


@dataclass
class Stabiliser:
    frames: int = 5
    max_gap: int = 2
    _runs: dict[int, _Run] = field(default_factory=dict)
    _stable: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.frames < 1 or self.max_gap < 0:
            raise ValueError("frames must be at least 1 and max_gap at least 0")

    @property
    def stable(self) -> dict[int, str]:
        """seat -> face, for the seats whose reading has held long enough."""
        return dict(self._stable)

    @property
    def present(self) -> set[int]:
        """Seats read in one of the last ``max_gap`` + 1 frames (stable or not)."""
        return set(self._runs)

    def reset(self) -> None:
        self._runs.clear()
        self._stable.clear()

    def feed(self, reading: Reading) -> list[Change]:
        """Takes one frame's reading; returns the seats whose stable face changed."""
        ambiguous = {w.seat for w in reading.warnings if w.kind in ("both_sides", "two_tokens", "two_picks")}
        now: dict[int, str | None] = dict(reading.tokens)
        for seat in ambiguous:
            now[seat] = None
        changes: list[Change] = []
        for seat in set(self._runs) | set(now):
            run = self._runs.get(seat)
            if seat in now:
                face = now[seat]
                if run is None or run.face != face:
                    run = self._runs[seat] = _Run(face)
                run.count += 1
                run.gap = 0
            else:
                assert run is not None  # a seat not read this frame is one with a run
                run.gap += 1
                if run.gap > self.max_gap:
                    # Gone for good: the token was taken away (or covered) — no longer stable.
                    del self._runs[seat]
                    if seat in self._stable:
                        del self._stable[seat]
                        changes.append(Change(seat, None))
                continue
            if run.face is None:
                if seat in self._stable:
                    del self._stable[seat]
                    changes.append(Change(seat, None))
            elif run.count >= self.frames and self._stable.get(seat) != run.face:
                self._stable[seat] = run.face
                changes.append(Change(seat, run.face))
            elif run.count < self.frames and seat in self._stable and self._stable[seat] != run.face:
                # A new face is being read but has not held yet: the old one no longer holds.
                del self._stable[seat]
                changes.append(Change(seat, None))
        return sorted(changes, key=lambda c: c.seat)
