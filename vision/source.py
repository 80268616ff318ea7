"""The camera as an input source of the vote engine.

A thread reads frames (a webcam, or recorded frames through the same ``FrameSource`` path), reads
the tokens, waits until each seat's reading holds over several frames, then posts
``Command("cast_ballot", {"seat": s, "option": i}, source="camera")``. It never touches the game
state or a widget. For the preview it posts ``Command("tokens_seen", {"seats": [...]})`` when the
set of seats in view changes — seats only, never a side — and keeps a preview frame in which every
marker it reads is painted over, so a screen cannot show a side before the reveal.

Mapping faces to ballots (the vote engine maps option index -> choice):
- a voting token: "exile" -> option 0, "remain" -> option 1. 23 Knives' votes list their options in
  that order: (Exile, Remain) for a Vote to Exile and (red, grey) for an Issue Vote (the sheet
  prints "EXILE side (red Issue)", "REMAIN side (grey Issue)").
- a pick card: "player k" -> the choice ``spec.voters[k-1]`` (seat k's name), "center" ->
  ``"center"``; given as ``{"seat": s, "choice": name}``.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from companion.core.clock import Clock, MonotonicClock
from companion.core.events import BadInput, Command, Event
from companion.core.inputs import DeviceInfo, InputSource
from companion.core.votes import VoteSpec

from . import markers
from .calibration import Calibration, CalibrationReport
from .capture import FrameSource
from .reader import Reading, TokenReader
from .stabiliser import Stabiliser

log = logging.getLogger(__name__)

SILENT_S = 3.0  # a camera with no frame for this long is said to be silent (a stream gone quiet)


def ballot_data(seat: int, face: str, spec: VoteSpec | Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The cast_ballot data for what seat ``seat`` shows, or None when ``face`` is no ballot of
    this vote. ``spec`` is the vote's VoteSpec (or its dict); None means a binary token vote."""
    if face in markers.TOKEN_SIDES:
        return {"seat": seat, "option": markers.TOKEN_SIDES.index(face)}
    voters = _spec_field(spec, "voters")
    if face == markers.CENTER:
        return {"seat": seat, "choice": markers.CENTER}
    k = int(face[6:])
    if voters is None or k > len(voters):
        return None
    return {"seat": seat, "choice": voters[k - 1]}


def _spec_field(spec: VoteSpec | Mapping[str, Any] | None, name: str) -> Any:
    if spec is None:
        return None
    return spec.get(name) if isinstance(spec, Mapping) else getattr(spec, name, None)


def mask_markers(frame: np.ndarray, reading: Reading, scale: float = 2.1) -> np.ndarray:
    """A copy of ``frame`` with every read card painted over in its seat colour and numbered.

    The square painted is the marker's quad grown ``scale`` times about its centre, which covers
    the whole printed card (46×58 mm round a 32 mm marker) and so its printed side name too."""
    out = frame.copy()
    for s in reading.sightings:
        c = s.corners.mean(axis=0)
        quad = ((s.corners - c) * scale + c).astype(np.int32)
        r, g, b = markers.SEAT_RGB[markers.SEAT_COLOURS[s.face.seat - 1]]
        cv2.fillConvexPoly(out, quad, (b, g, r), cv2.LINE_AA)
        side = float(np.linalg.norm(s.corners[1] - s.corners[0]))
        size = max(0.5, side / 40.0)
        text = str(s.face.seat)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, size, 2)
        ink = (0, 0, 0) if r + g + b > 380 else (255, 255, 255)
        cv2.putText(out, text, (int(c[0] - tw / 2), int(c[1] + th / 2)), cv2.FONT_HERSHEY_DUPLEX, size, ink, 2, cv2.LINE_AA)
    return out


def _bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2 or frame.shape[2] == 1:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


class CameraSource(InputSource):
    """Frames -> TokenReader -> Stabiliser -> commands on the queue.

    ``frames``: a FrameSource (CameraCapture for a webcam, FileFrames for recordings).
    ``stable_frames``: how many consecutive frames a seat's reading must hold before it counts.
    """

    name = "camera"

    def __init__(self, frames: FrameSource, players: int, stable_frames: int = 5, max_gap: int = 2,
                 clock: Clock | None = None, preview_width: int = 640, timed: bool = False,
                 recorded: bool = False) -> None:
        """``timed``: keep each frame's reading time (CPU ms of the reading thread) in
        ``read_ms`` (``python -m vision.tokens watch`` prints their median). ``recorded``: the
        frames are a recording (a video file): the reader's budget a frame is counted in work,
        not CPU time, so the file reads the same at any load (``TokenReader``'s ``recorded``)."""
        self.recorded = recorded
        self.frames = frames
        self.players = markers.check_players(players)
        self.clock = clock or MonotonicClock()
        self.preview_width = preview_width
        self._lock = threading.Lock()
        self._spec: VoteSpec | Mapping[str, Any] | None = None
        self._reader = TokenReader(players, "token", tracking=True, recorded=recorded)
        self._stabiliser = Stabiliser(stable_frames, max_gap)
        self._armed = True  # casting ballots; the app calls expect() as each vote opens
        self._posted: dict[int, dict] = {}  # seat -> ballot data last posted, so each is posted once
        self._seen: tuple[int, ...] = ()
        self._preview: np.ndarray | None = None
        self._warnings: list[str] = []
        self._calibration: Calibration | None = None
        self._post: Callable[[Command], None] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.frames_read = 0
        self.bad_frames = 0
        self.read_ms: list[float] | None = [] if timed else None
        self.last_error: str | None = None
        self.last_seen: float | None = None
        self.started_at: float | None = None
        self.ended = False

    # -- what the app calls -----------------------------------------------------------------

    def expect(self, spec: VoteSpec | Mapping[str, Any] | None = None) -> None:
        """A vote opened (``spec``: its VoteSpec or dict; None: a binary token vote). Forgets
        earlier readings, so a token already lying in view is read afresh for this vote."""
        kind = _spec_field(spec, "kind") or "binary"
        with self._lock:
            self._spec = spec
            self._armed = True
            self._reader = TokenReader(self.players, "token" if kind == "binary" else "pick",
                                       tracking=True, recorded=self.recorded)
            self._stabiliser.reset()
            self._posted.clear()

    def idle(self) -> None:
        """The vote was revealed or cancelled: cast nothing until the next ``expect()`` (the
        preview and the seen list go on)."""
        with self._lock:
            self._armed = False

    def start_calibration(self, kind: str = "token") -> None:
        """Enter the calibration step: nothing is posted as a ballot until it ends."""
        with self._lock:
            self._calibration = Calibration(self.players, kind)
            self._reader = TokenReader(self.players, "all")

    def calibration_status(self) -> CalibrationReport | None:
        with self._lock:
            return self._calibration.report() if self._calibration else None

    def end_calibration(self) -> CalibrationReport | None:
        with self._lock:
            cal, self._calibration = self._calibration, None
            armed = self._armed
        self.expect(self._spec)  # back to reading the markers of the vote, afresh
        with self._lock:
            self._armed = armed  # an idle camera stays idle
        return cal.report() if cal else None

    def latest_preview(self) -> tuple[np.ndarray | None, tuple[int, ...]]:
        """(the last frame, BGR, at most ``preview_width`` wide, with every read card painted
        over; the seats whose markers are in view). Safe to call from the UI thread."""
        with self._lock:
            return self._preview, self._seen

    def warnings(self) -> list[str]:
        """The last frame's warnings, worded without sides (safe for the table)."""
        with self._lock:
            return list(self._warnings)

    # -- InputSource --------------------------------------------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        """The app's feedback after each recorded batch (main thread): a vote opening arms the
        camera for it; a reveal, a cancel or an undone opening makes it cast nothing more."""
        for event in events:
            if event.kind == "vote_opened":
                with self._lock:
                    # A vote outranks a calibration left running: ballots must not be lost to it.
                    self._calibration = None
                self.expect(VoteSpec.from_dict(event.data))
            elif event.kind in ("vote_revealed", "vote_cancelled"):
                self.idle()
            elif event.kind == "undo" and event.data.get("kind") == "vote_opened":
                self.idle()

    def calibrating(self) -> bool:
        with self._lock:
            return self._calibration is not None

    def start(self, post: Callable[[Command], None]) -> None:
        if self._thread is not None:
            return
        self._post = post
        self._stop.clear()
        self.started_at = self.clock.now()
        self._thread = threading.Thread(target=self._run, name="camera-tokens", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stops reading (``InputSource.stop``); see ``halt``, which says whether the thread ended."""
        self.halt()

    def halt(self) -> bool:
        """Stops reading; returns at once (the app calls it on its UI thread). Closing the frames
        wakes a read() that waits for a frame (PushedFrames waits for the app's next push); a
        camera stream gone silent keeps its read blocked inside OpenCV, and that thread is left
        to finish on its own: it releases the capture and ends when the read returns. Returns
        whether the reading thread has ended (False: it was left to finish on its own)."""
        self._stop.set()
        self.frames.close()
        t, self._thread = self._thread, None
        if t is None or t is threading.current_thread():
            return True
        if self.frames.blocked_in_read:
            log.info("camera: left %s to finish its blocked read", self.frames.name)
            return False
        # Any read from now on returns None at once: the thread ends after its current frame.
        t.join(timeout=5)
        return not t.is_alive()

    def silent_for(self) -> float | None:
        """Seconds since the last frame read (since the start when none came yet); None when
        the source is not running or its frames ended."""
        if self._thread is None or self.ended:
            return None
        since = self.last_seen if self.last_seen is not None else self.started_at
        return None if since is None else max(0.0, self.clock.now() - since)

    def join(self, timeout: float | None = None) -> None:
        """Waits for the frames to run out (recorded frames end; a camera does not)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def devices(self) -> list[DeviceInfo]:
        silent = self.silent_for()
        if silent is not None and silent >= SILENT_S:
            detail = f"no picture from the camera for {int(silent)} s"
        else:
            detail = self.last_error or f"{len(self._seen)} of {self.players} seats in view"
        return [DeviceInfo("camera", str(getattr(self.frames, "where", self.frames.name)), self.frames.name,
                           connected=not self.ended, last_seen=self.last_seen, detail=detail)]

    # -- the loop -----------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.frames.read()
            if frame is None:
                self.ended = True
                break
            self.step(frame)

    def step(self, frame: np.ndarray) -> list[Command]:
        """Processes one frame (the thread calls this; so may a test). Returns what it posted."""
        posted: list[Command] = []
        with self._lock:
            reader = self._reader
        started = time.thread_time()
        try:
            # Read outside the lock: the UI thread's latest_preview() must never wait ~20 ms.
            reading = reader.read(frame)
        except BadInput as exc:
            self.bad_frames += 1
            self.last_error = str(exc)
            log.warning("camera: %s", exc)
            return posted
        if self.read_ms is not None:
            self.read_ms.append((time.thread_time() - started) * 1000)
        preview = self._small(mask_markers(_bgr(frame), reading))
        self.frames_read += 1
        self.last_seen = self.clock.now()
        self.last_error = None
        with self._lock:
            if reader is not self._reader:
                return posted  # a vote opened or calibration began meanwhile: this frame is stale
            if self._calibration is not None:
                if self._calibration.feed(reading):
                    posted.append(Command("tokens_calibration", self._calibration.report().to_json(), source="camera"))
            else:
                for change in self._stabiliser.feed(reading):
                    if change.face is None or not self._armed:
                        continue  # a ballot cannot be withdrawn; a new stable face replaces it
                    data = ballot_data(change.seat, change.face, self._spec)
                    if data is None or self._posted.get(change.seat) == data:
                        continue
                    self._posted[change.seat] = data
                    vote_id = _spec_field(self._spec, "vote_id")
                    if vote_id is not None:
                        data = {**data, "vote_id": vote_id}
                    posted.append(Command("cast_ballot", data, source="camera"))
            seen = tuple(sorted(set(reading.seen) | self._stabiliser.present))
            if seen != self._seen:
                posted.append(Command("tokens_seen", {"seats": list(seen)}, source="camera"))
            self._seen = seen
            self._warnings = [w.public for w in reading.warnings]
            self._preview = preview
        if self._post is not None:
            for cmd in posted:
                self._post(cmd)
        return posted

    def _small(self, img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        if w <= self.preview_width:
            return img
        return cv2.resize(img, (self.preview_width, int(h * self.preview_width / w)), interpolation=cv2.INTER_AREA)
