"""The calibration step: every token of the table shown to the camera once, each side.

Players hold up (or lay down) each side of their token in turn; the check passes when every face
the table will use has been read stably. What is still missing is listed by seat and face, so the
screen can say "seat 4: show the Remain side".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from . import markers
from .reader import Reading, TokenReader
from .stabiliser import Stabiliser


@dataclass
class CalibrationReport:
    players: int
    kind: str
    checked: list[tuple[int, str]] = field(default_factory=list)  # (seat, face) read stably
    missing: list[tuple[int, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # distinct warnings met on the way

    @property
    def complete(self) -> bool:
        return not self.missing

    def seats_missing(self) -> list[int]:
        return sorted({s for s, _ in self.missing})

    def to_json(self) -> dict:
        return {"players": self.players, "kind": self.kind, "complete": self.complete,
                "checked": [[s, f] for s, f in self.checked], "missing": [[s, f] for s, f in self.missing],
                "warnings": list(self.warnings)}


class Calibration:
    """Accumulates stable readings until every face of ``kind`` for ``players`` seats is checked."""

    def __init__(self, players: int, kind: str = "token", frames: int = 3):
        self.players = markers.check_players(players)
        self.kind = kind
        self.expected = [(f.seat, f.face) for f in markers.faces_for(players, kind)]
        self._stabiliser = Stabiliser(frames=frames, max_gap=2)
        self._checked: set[tuple[int, str]] = set()
        self._warnings: list[str] = []

    def feed(self, reading: Reading) -> list[tuple[int, str]]:
        """Takes one frame's reading; returns faces newly checked."""
        for w in reading.warnings:
            if w.detail not in self._warnings:
                self._warnings.append(w.detail)
        new = []
        for change in self._stabiliser.feed(reading):
            key = (change.seat, change.face)
            if change.face is not None and key in self.expected and key not in self._checked:
                self._checked.add(key)
                new.append(key)
        return new

    def report(self) -> CalibrationReport:
        return CalibrationReport(
            self.players, self.kind,
            checked=[k for k in self.expected if k in self._checked],
            missing=[k for k in self.expected if k not in self._checked],
            warnings=list(self._warnings))


def calibrate(frames: Iterable[np.ndarray], players: int, kind: str = "token", stable_frames: int = 3) -> CalibrationReport:
    """Runs recorded or live frames through the reader; says which faces were seen and which not."""
    reader = TokenReader(players, "all")
    cal = Calibration(players, kind, stable_frames)
    for frame in frames:
        cal.feed(reader.read(frame))
        if not cal.report().missing:
            break
    return cal.report()
