"""Watching a vote on video, as the app's camera screen does: ``python -m vision.tokens watch``.

The frames come through :class:`vision.capture.CameraCapture` (a video file, a camera number or a
stream URL: the one ``cv2.VideoCapture`` path the camera screen opens), and are read by
:class:`vision.source.CameraSource` (the tracking reader and the stabiliser that decides when a
seat's reading holds) on its own thread, exactly as in the app: a seat's side is reported when the
camera source would cast it as a ballot (a face held over 5 frames), and again when it changes.

Each change is a :class:`Settled` with the frame's time in the source: its index / the file's
frame rate for a video file, seconds since the start for a camera or a stream. A video file that
ends early (fewer frames than it says it holds), a camera or stream that ends, or one that sends
no frame for ``silence`` seconds, is a :class:`~companion.core.events.BadInput` after what was read.
"""
from __future__ import annotations

import os
import queue
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from companion.core.clock import Clock, MonotonicClock
from companion.core.events import BadInput, Command

from . import markers
from .capture import CameraCapture, FrameSource, camera_where
from .source import CameraSource

SILENCE_S = 5.0  # a camera or stream with no frame for this long has stopped
MISSING_FRAMES_OK = 2  # a file may hold this many fewer frames than its header says (rounding)


@dataclass(frozen=True)
class Settled:
    """Seat ``seat``'s reading settled on ``side`` at ``t`` seconds into the source."""

    t: float
    seat: int
    side: str

    def to_json(self) -> dict:
        return {"t": round(self.t, 3), "seat": self.seat, "side": self.side}


@dataclass(frozen=True)
class Summary:
    final: dict[int, str]  # seat -> the side it last settled on
    frames: int  # frames given to the reader
    ms_per_frame: float | None  # median CPU ms of the reading thread a frame (None: no frame)

    def to_json(self) -> dict:
        return {"final": {str(k): v for k, v in sorted(self.final.items())}, "frames": self.frames,
                "ms_per_frame": None if self.ms_per_frame is None else round(self.ms_per_frame, 2)}


class _Timed(FrameSource):
    """The frames, with the index and arrival time of the last one handed out."""

    def __init__(self, frames: CameraCapture, clock: Clock) -> None:
        self.frames = frames
        self.name = frames.name
        self.where = frames.where
        self.clock = clock
        self.index = -1
        self.arrived = 0.0

    @property
    def blocked_in_read(self) -> bool:
        return self.frames.blocked_in_read

    def read(self) -> np.ndarray | None:
        frame = self.frames.read()
        if frame is not None:
            self.index += 1
            self.arrived = self.clock.now()
        return frame

    def close(self) -> None:
        self.frames.close()


def open_source(where: str) -> tuple[CameraCapture, bool]:
    """(the capture, whether it is a video file) for a video file, a camera number or a stream
    URL, or BadInput in one line."""
    value = camera_where(where)
    is_file = isinstance(value, str) and os.path.isfile(value)
    if isinstance(value, str) and not is_file and "://" not in value:
        if os.path.isdir(value):
            raise BadInput(f"{value!r} is a folder, not a video file, a camera number or a stream URL")
        if not os.path.exists(value):
            raise BadInput(f"{value!r} does not exist (give a video file, a camera number or a stream URL)")
    try:
        cap = CameraCapture(value)
    except BadInput:
        if is_file:
            raise BadInput(f"video {value!r} is not a video OpenCV can read") from None
        raise
    return cap, is_file


class Watch:
    """One source watched: ``run(emit)`` calls ``emit`` with each :class:`Settled` as it comes
    (on the caller's thread) and returns the :class:`Summary`, or raises BadInput (after every
    change read so far was emitted) when the source fails."""

    def __init__(self, where: str, players: int = markers.MAX_SEATS, silence: float = SILENCE_S,
                 clock: Clock | None = None) -> None:
        self.clock = clock or MonotonicClock()
        self.silence = silence
        cap, self.is_file = open_source(where)
        self.where = where
        self.expected = cap.frame_count if self.is_file else 0
        fps = cap.fps if self.is_file else 0.0
        self.fps = fps if 0 < fps <= 1000 else 30.0  # a file that names no rate: 30 a second
        self.frames = _Timed(cap, self.clock)
        # The app's camera source, as the camera screen makes it (a binary token vote open).
        # A file is read with the budget counted in work: the same at any load (a camera keeps up).
        self.source = CameraSource(self.frames, players, clock=self.clock, timed=True, recorded=self.is_file)
        self.source.expect(None)
        self.final: dict[int, str] = {}
        # False once the reading thread was left blocked in a read that closing cannot wake (a
        # stream gone silent): such a thread must not outlive the command into Python's exit.
        self.ended = True

    def _time(self) -> float:
        if self.is_file:
            return self.frames.index / self.fps
        return self.frames.arrived - (self.source.started_at or self.frames.arrived)

    def summary(self) -> Summary:
        """What was read so far."""
        times = self.source.read_ms or []
        return Summary(dict(self.final), self.source.frames_read + self.source.bad_frames,
                       float(np.median(times)) if times else None)

    def stop(self) -> None:
        self.ended = self.source.halt() and self.ended

    def run(self, emit: Callable[[Settled], None]) -> Summary:
        changes: "queue.Queue[Settled]" = queue.Queue()

        def post(cmd: Command) -> None:  # the reading thread, inside CameraSource.step
            if cmd.kind == "cast_ballot":
                side = markers.TOKEN_SIDES[cmd.data["option"]]
                changes.put(Settled(self._time(), cmd.data["seat"], side))

        self.source.start(post)
        failure: str | None = None
        try:
            while True:
                try:
                    change = changes.get(timeout=0.1)
                except queue.Empty:
                    if self.source.ended:
                        break
                    silent = self.source.silent_for()
                    if not self.is_file and silent is not None and silent >= self.silence:
                        failure = f"no frame for {self.silence:g} s"
                        break
                    continue
                self.final[change.seat] = change.side
                emit(change)
        finally:
            self.stop()
        frames = self.source.frames_read + self.source.bad_frames
        if failure is None:
            if frames == 0:
                failure = "no frame could be read"
            elif not self.is_file:
                failure = "the picture ended"
            elif self.expected and frames < self.expected - MISSING_FRAMES_OK:
                failure = f"the video ended early ({self.expected} frames announced; cut short or damaged?)"
        summary = self.summary()
        if failure is not None:
            what = "video" if self.is_file else ("stream" if "://" in str(self.where) else "camera")
            raise WatchFailed(f"{what} {self.where!r}: {failure} (after {frames} frames)", summary)
        return summary


class WatchFailed(BadInput):
    """The source failed after ``summary`` was read."""

    def __init__(self, message: str, summary: Summary):
        super().__init__(message)
        self.summary = summary
