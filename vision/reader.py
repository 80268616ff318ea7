"""Reading one camera frame: which seat shows which face, and what looks wrong.

A seat's reading is given only when exactly one of its markers is seen. Anything ambiguous — both
sides of one token, two copies of one marker (two tokens of one player), two pick cards — is a
warning and that seat is left out: reported, never guessed.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import cv2
import numpy as np

from companion.core.events import BadInput

from . import markers, recover, track
from .markers import Face


@dataclass(frozen=True)
class Sighting:
    face: Face
    corners: np.ndarray  # 4×2 float32, image pixels, clockwise from the marker's top-left

    # Cached: a video frame compares every sighting with every followed marker.
    @cached_property
    def centre(self) -> tuple[float, float]:
        pts = self.corners.tolist()
        return sum(p[0] for p in pts) / 4, sum(p[1] for p in pts) / 4

    @cached_property
    def side(self) -> float:
        """The longest side of the marker's outline, in pixels."""
        pts = self.corners.tolist()
        return max(math.dist(pts[k], pts[(k + 1) % 4]) for k in range(4))


@dataclass(frozen=True)
class TokenWarning:
    kind: str  # "both_sides", "two_tokens", "two_picks", "other_seat", "other_kind"
    seat: int
    detail: str  # names the faces: for the CLI and after the reveal
    public: str  # says nothing about which face: safe for the table before the reveal

    def __str__(self) -> str:
        return self.detail


@dataclass
class Reading:
    """One frame's result. ``tokens``: seat -> face, only the unambiguous seats."""

    tokens: dict[int, str] = field(default_factory=dict)
    seen: tuple[int, ...] = ()  # seats with any of their markers in view (ambiguous ones too)
    warnings: list[TokenWarning] = field(default_factory=list)
    sightings: list[Sighting] = field(default_factory=list)

    def to_json(self, image: str) -> dict:
        return {
            "image": image,
            "tokens": [{"player": seat, "side": side} for seat, side in sorted(self.tokens.items())],
            "warnings": [w.detail for w in self.warnings],
        }


def _face_words(face: str) -> str:
    if face in markers.TOKEN_SIDES:
        return face
    return "center" if face == markers.CENTER else f"player {face[6:]}"


# Video (tracking=True): every frame costs about the same, whatever the table shows. Each frame
# follows the markers already found, each in its own neighbourhood, then makes one more look: the
# whole frame at half size (quick, finds most cards), or — every other frame while a seat is still
# missing — the deep look (the last look, vision/recover.py) over one tile of the frame, a
# different tile each time.
DEEP_TILES = (4, 3)  # columns, rows
TILE_OVERLAP = 110  # px: the largest marker (about 100 px across, tilted) lies whole in some tile
HALF_SIZE_FROM = 1000  # px wide: smaller frames are searched at full size
# CPU a video frame may take (one core; a recording: the same counted in work, COST_* below) before
# the slow looks stop for this frame: at 30 frames a second a frame lasts 33 ms, so the reader never
# falls a frame behind and the app keeps a quarter of the core. What is left undone (a smeared
# marker's thorough reading, the rest of a tile) waits for a later frame. Most frames need far
# less (docs/tokens.md: the budget trims the slowest twentieth; on the hard videos 10 ms cost 5
# more missed ballots of 160, 25 ms none).
FRAME_BUDGET_MS = 25.0
DEEP_LOOK_MS = 4.0  # about what a tile's last look costs at least: not begun with less left
SLOW_FOLLOW_MS = 2.0  # about what a followed marker's thorough reading costs
ALIGNED_QUAD_MS = 6.0  # about what a quad costs at most in a thorough tile (read, aligned, read)
# While a seat has no marker followed, more tiles' deep looks follow in the same frame until the
# frame has taken this much CPU (the aim: 10 ms a 720p frame). A marker the thorough look
# finds in some frames only (a sliver, a smear) is found sooner when its tile comes round more
# often: the hard videos' ballots not cast after one second, 60 scenes (benchmarks/tokens_ab.py),
# 28 → 22 tuned-on and 26 → 20 held-out lens of 480 against one tile a frame (docs/tokens.md).
# Frames with every seat followed, and the table before the flip (nothing followed yet), are not
# affected.
DEEP_TARGET_MS = 10.0

# Recorded frames (a video file, a benchmark's clip) are read with the same budget counted in what
# each piece of work costs on average (CPU ms of one core of this machine, hard clips, measured
# 2026-12-07 with benchmarks/tokens_watch.py's clips), not in the CPU time it took: CPU time per
# piece moves with the machine's load (other processes share the caches and the memory bus), so a
# file read twice read differently (hard clip 15: seats 4 and 7 settled a frame apart from one run
# to the next, seat 1 four frames apart with the clock running 1.5 times slower). Counted, a file
# reads the same at any load; a live camera keeps the CPU clock (it must keep up with the frames).
COST_FOLLOW_MS = 0.3  # a followed marker's quick try, each
COST_DISCOVER_MS = 0.4  # the half-size look over half the frame
COST_CONFIRM_MS = 0.2  # a marker it found, read at full size
COST_SLOW_FOLLOW_MS = 0.55  # a followed marker's thorough reading
COST_REMEMBER_MS = 0.13  # a marker read, remembered (its quad fitted where it moved)
COST_TILE_MS = (0.45, 1.1)  # a deep-look tile's thresholds: quick, thorough
COST_QUAD_MS = (0.28, 0.31)  # each of its shapes read (and aligned, split, fitted): quick, thorough


# A followed marker whose neighbourhood has not changed since it was last decoded keeps its
# reading without decoding again (tokens lie still while a vote is read): at most CARRY_MAX frames
# in a row, then it is decoded again whatever. "Not changed": under CHANGED_SHARE of its pixels
# differ by more than a third of the marker's own contrast. A token turned over changes a third of
# its marker's cells by the whole contrast; noise and JPEG change almost none by that much.
CARRY_MAX = 4
CHANGED_SHARE = 0.03
# A followed marker's cells are also averaged over the frames (a frame's share: AVERAGE_NEW): tokens
# lie still, while noise, glare, blur and passing fingers differ from frame to frame, so the
# average is often readable when no single frame is. The average may only confirm the face last
# decoded there, in its own turn; it starts again when a frame reads another face there or when
# over TURNED_SHARE of the neighbourhood changed (a hand over the token, a token turned over).
AVERAGE_NEW = 0.3
TURNED_SHARE = 0.5
# A hand-held camera shakes (the hard clips: a few pixels and up to 0.8° a frame, 6 px and 9 px at
# a corner over a second), while the cards lie still: a followed marker's quad, left where it was
# last decoded, soon lies a cell off a small marker, whose cells then read as nothing. So before
# its cells are sampled, the marker's neighbourhood (MOVED_PAD of its side round it) is compared
# with the same neighbourhood as it was when last decoded (phase correlation, sub-pixel), and the
# quad moved by the shift found, if the match is clear (a peak of at least MOVED_RESPONSE) and the
# shift between MOVED_MIN px and MOVED_MAX of the side. What is read there passes the same guard as
# ever. The peak: on the hard clips' shaking camera a median of 1.05 (1 051 markers sought in 3
# clips: 935 at 0.8 or more); on still synthetic scenes whose fingers, glare and blur change from
# frame to frame (nothing moved: every shift found is false), 0.44–0.8, and 18 of 118 at 0.8 or
# more, 3 of them a pixel or more (at 0.15, 97 and 65).
MOVED_PAD = 0.6
MOVED_MAX = 0.5
MOVED_MIN = 0.5
MOVED_RESPONSE = 0.8


@lru_cache(maxsize=256)
def _hanning(w: int, h: int) -> np.ndarray:
    return cv2.createHanningWindow((w, h), cv2.CV_32F)


@dataclass
class _Track:
    """One marker being followed: where it was last read, in which frame, and how its
    neighbourhood looked when it was last decoded."""

    sighting: Sighting
    frame: int
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # x0, y0, x1, y1 of ``ref`` in the frame
    ref: np.ndarray | None = None
    step: float = 0.0  # grey levels that count as a change
    carried: int = 0
    average: np.ndarray | None = None  # the marker's cells averaged over frames, its own turn
    averaged: int = 0  # frames in the average
    wide_box: tuple[int, int, int, int] = (0, 0, 0, 0)  # x0, y0, x1, y1 of ``wide``
    wide: np.ndarray | None = None  # a wider neighbourhood as decoded, float32, to find a shift
    now: np.ndarray | None = None  # this frame's quad: where the marker is now (moved by the shift)

    def look_at(self, grey: np.ndarray) -> None:
        """Keeps the neighbourhood of the marker as decoded now, to compare later frames with."""
        h, w = grey.shape
        c = self.sighting.corners
        x0, y0 = (max(int(v) - 2, 0) for v in c.min(axis=0))
        x1, y1 = (int(min(v + 3, lim)) for v, lim in zip(c.max(axis=0), (w, h)))
        if x1 - x0 < 8 or y1 - y0 < 8:
            self.ref = None
            return
        self.box = (x0, y0, x1, y1)
        self.ref = grey[y0:y1, x0:x1].copy()
        # the marker's contrast, from a lightly blurred copy so that one noisy pixel does not count
        lo, hi = cv2.minMaxLoc(cv2.blur(self.ref, (3, 3)))[:2]
        self.step = max((hi - lo) / 3, 10.0)
        self.carried = 0
        pad = max(MOVED_PAD * self.sighting.side, 8.0)
        wx0, wy0 = (max(int(v - pad), 0) for v in c.min(axis=0))
        wx1, wy1 = (int(min(v + pad, lim)) for v, lim in zip(c.max(axis=0), (w, h)))
        self.wide_box = (wx0, wy0, wx1, wy1)
        self.wide = grey[wy0:wy1, wx0:wx1].astype(np.float32) if wx1 - wx0 >= 16 and wy1 - wy0 >= 16 else None

    def here(self) -> Sighting:
        """The marker's sighting where it lies this frame (:meth:`moved`; the same sighting where
        it did not move)."""
        if self.now is None or self.now is self.sighting.corners:
            return self.sighting
        return Sighting(self.sighting.face, self.now)

    def moved(self, grey: np.ndarray) -> np.ndarray:
        """The marker's quad where it lies in ``grey``: its last decoded quad moved by the shift of
        its neighbourhood since then (the camera shook), or not moved where no clear shift is found."""
        c = self.sighting.corners
        if self.wide is None:
            return c
        x0, y0, x1, y1 = self.wide_box
        (dx, dy), response = cv2.phaseCorrelate(self.wide, grey[y0:y1, x0:x1].astype(np.float32),
                                                _hanning(x1 - x0, y1 - y0))
        if response < MOVED_RESPONSE or not MOVED_MIN <= math.hypot(dx, dy) <= MOVED_MAX * self.sighting.side:
            return c
        return (c + np.array([dx, dy], np.float32)).astype(np.float32)

    def changed(self, grey: np.ndarray) -> float:
        """The share of the neighbourhood's pixels that changed since the marker was decoded
        (1.0 where there is nothing to compare with)."""
        if self.ref is None:
            return 1.0
        x0, y0, x1, y1 = self.box
        diff = cv2.absdiff(grey[y0:y1, x0:x1], self.ref)
        return cv2.countNonZero(cv2.threshold(diff, self.step, 255, cv2.THRESH_BINARY)[1]) / diff.size

    def add(self, cells: np.ndarray) -> None:
        if self.average is None:
            self.average, self.averaged = cells, 1
        else:
            self.average = self.average * (1 - AVERAGE_NEW) + cells * AVERAGE_NEW
            self.averaged += 1


class CpuMeter:
    """What a video frame has spent of its budget: the CPU time of the reading thread (a live
    camera, which must keep up with its frames)."""

    def __init__(self) -> None:
        self._started = 0.0

    def start(self) -> None:
        self._started = time.thread_time()

    def spent(self) -> float:
        return (time.thread_time() - self._started) * 1000

    def charge(self, ms: float) -> None:
        """Work done (its nominal cost): the clock measures it already."""


class WorkMeter(CpuMeter):
    """What a recorded frame has spent of its budget, counted in the nominal cost of each piece of
    work done (the COST_* above): the same frames are read the same at any load."""

    def __init__(self) -> None:
        self._spent = 0.0

    def start(self) -> None:
        self._spent = 0.0

    def spent(self) -> float:
        return self._spent

    def charge(self, ms: float) -> None:
        self._spent += ms


class TokenReader:
    """Finds the plan's markers in a frame. ``kind``: "token" (Exile/Remain and Issue votes),
    "pick" (pick-a-player votes) or "all" (the CLI, calibration)."""

    def __init__(self, players: int = markers.MAX_SEATS, kind: str = "all", tracking: bool = False,
                 forget_after: int = 30, budget_ms: float | None = FRAME_BUDGET_MS,
                 recorded: bool = False):
        """``tracking``: frames come from one camera in order (a vote's video), so a marker read
        before is followed where it lay (:mod:`vision.track`) and the full-frame looks are shared
        out over several frames; not for unrelated photos. A marker unread for ``forget_after``
        frames is forgotten. ``budget_ms`` (video only; None: no limit): the CPU time after which
        a frame's slow looks stop. ``recorded``: the frames are a recording (a video file), not a
        live camera: the budget is counted in each piece's nominal cost (:class:`WorkMeter`), so
        a file reads the same whatever the machine's load, instead of in CPU time."""
        self.players = markers.check_players(players)
        self.tracking = tracking
        self.budget_ms = budget_ms
        self.recorded = recorded
        self._meter = WorkMeter() if recorded else CpuMeter()
        self.forget_after = forget_after
        self._tracks: list[_Track] = []
        self._frame = 0
        self._deep = 0  # deep looks made: which tile is next
        self._discovered = 0  # discovery looks made: which half is next
        if kind not in ("token", "pick", "all"):
            raise ValueError(f"marker kind {kind!r} is not token, pick or all")
        self.kind = kind
        # Detect every marker of the plan, so a marker of the wrong seat or kind is reported
        # rather than unseen; the plan's 7-bit spacing holds over all of them.
        self._faces = markers.all_faces()
        self._ids = tuple(self._faces)
        params = cv2.aruco.DetectorParameters()
        # Measured on benchmarks/tokens_accuracy.py's scenes: wider threshold windows, corner
        # refinement, a 2× upscale and a lower constant on the first pass found no more tokens
        # and cost up to 3× the time (docs/tokens.md).
        params.errorCorrectionRate = 1.0  # = markers.CORRECTION_BITS of our own dictionary
        # Glare and fingers spoil border cells first; the id bits still have to decode.
        params.maxErroneousBitsInBorderRate = 0.5
        # The default (3 px) dropped whole cards lying near the frame's edge: the card's outline
        # and the marker are grouped as one candidate, and the outline is what touches the edge.
        params.minDistanceToBorder = 1
        # Threshold windows 3 and 13 px only (the default adds 23): our markers are 24–100 px, the
        # 23-px window found none that these two missed on the benchmark and cost a third of
        # the time. The second look below brings it back.
        params.adaptiveThreshWinSizeMax = 13
        self._detector = cv2.aruco.ArucoDetector(markers.detection_dictionary(self._ids), params)
        # Following one marker (_follow): the same, with its smallest outline set per marker.
        self._near_params = _copy(params)
        self._near_detector = cv2.aruco.ArucoDetector(markers.detection_dictionary(self._ids), self._near_params)
        # The second look (only for frames with a seat missing) thresholds closer to the local
        # mean: a card foreshortened to a sliver or in a dim corner keeps too little contrast
        # for the default constant (7). On the first pass it only costs time (more candidates).
        second = _copy(params)
        second.adaptiveThreshWinSizeMax = 23  # the default windows: 3, 13 and 23 px
        second.adaptiveThreshConstant = 4
        self._detector2 = cv2.aruco.ArucoDetector(markers.detection_dictionary(self._ids), second)
        self._clahe = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))
        self.second_pass = True
        self.recovery = True  # the last look, for broken borders (vision/recover.py)
        self._rejected: list[np.ndarray] = []  # this look's undecoded quads, for the last look

    def read(self, frame: np.ndarray) -> Reading:
        grey = as_grey(frame)
        try:
            if self.tracking:
                return self._read_video(frame, grey)
            return self._read_photo(frame, grey)
        except cv2.error as exc:
            # An OpenCV assertion on a shape nobody foresaw (a 3-point hull once) must cost one
            # frame with a message, not the camera's thread or the command line's other photos.
            where = exc.func if getattr(exc, "func", "") else "a vision call"
            raise BadInput(f"frame not read: OpenCV failed in {where} (code {getattr(exc, 'code', '?')}); "
                           "other frames are read as usual") from exc

    def _read_photo(self, frame: np.ndarray, grey: np.ndarray) -> Reading:
        self._rejected = []
        sightings = self._detect(grey)
        if self.second_pass and self._missing(sightings):
            # Someone is missing: look again with local contrast evened out (CLAHE), which
            # recovers cards washed out by glare or lying in shadow. Costs a second detection,
            # only on frames that need it.
            _merge(sightings, self._detect(self._clahe.apply(grey), self._detector2))
        if self.recovery and self._missing(sightings):
            self._recover(frame, grey, sightings)
        return self.judge(sightings)

    def _missing(self, sightings: list[Sighting]) -> bool:
        return len({s.face.seat for s in sightings}) < self.players

    # -- video ---------------------------------------------------------------------------------

    def _read_video(self, frame: np.ndarray, grey: np.ndarray) -> Reading:
        self._meter.start()
        self._frame += 1
        self._meter.charge(COST_FOLLOW_MS * len(self._tracks))
        sightings, lost = self._follow(frame, grey)
        # Odd frames look for new markers over half the frame (both halves while nothing is
        # followed yet: a vote's first frames), only every fourth frame while every seat has a
        # marker followed (then the look is for a token moved far or a second one: a marker
        # followed is read every frame); even frames give the deep look to a tile while some
        # seat has no marker followed at all. The markers followed but not read quickly come
        # after, in what is left, then more tiles' deep looks while a seat is still missing, until
        # the frame has taken DEEP_TARGET_MS.
        deep = self.recovery and bool(self._tracks)
        even = self._frame % 2 == 0
        look = not (deep and even) and not (self._every_seat_followed() and self._frame % 4 != 1)
        for _ in range(1 if self._tracks else 2):
            if look:
                _merge(sightings, self._discover(frame, grey))
        unfollowed = not self._every_seat_followed()
        # a thorough tile (after the first round) waits for the followed markers' slow reads
        early = even and self._deep < DEEP_TILES[0] * DEEP_TILES[1]
        if deep and early and unfollowed and self._time_left(DEEP_LOOK_MS):
            _merge(sightings, self._deep_tile(frame, grey, sightings))
        for tr, quick_failed in lost:
            if self._time_left(SLOW_FOLLOW_MS):
                self._follow_slowly(frame, grey, tr, sightings, quick_failed)
        # What time is left over: a tile's deep look within the budget, then more while a seat is
        # still missing and the frame is under DEEP_TARGET_MS (at most a round of tiles a frame;
        # without a budget, one tile as ever).
        tiles = len(_tiles(grey.shape)) if self.budget_ms is not None else 1
        for k in range(tiles if deep and not early else 0):
            if self._every_seat_followed() or not self._time_left(DEEP_LOOK_MS, DEEP_TARGET_MS if k else None):
                break
            _merge(sightings, self._deep_tile(frame, grey, sightings))
            self._remember(sightings, grey)  # a seat just found stops the tiles
        self._remember(sightings, grey)
        return self.judge(sightings)

    def _every_seat_followed(self) -> bool:
        """Whether each of the table's seats has a marker followed (a marker of a seat not at the
        table does not stand in for one that is)."""
        return len({t.sighting.face.seat for t in self._tracks} & set(range(1, self.players + 1))) >= self.players

    def _time_left(self, ms: float = 0.0, budget: float | None = None) -> bool:
        """Whether this frame's budget (or ``budget``, if smaller) still holds ``ms`` more of CPU time."""
        if self.budget_ms is None:
            return True
        limit = self.budget_ms if budget is None else min(budget, self.budget_ms)
        return self._meter.spent() + ms < limit

    def _follow(self, frame: np.ndarray, grey: np.ndarray) -> tuple[list[Sighting], list[tuple[_Track, bool]]]:
        """Every followed marker's quick try: its reading kept where its neighbourhood has not
        changed, else its cells sampled at its last quad and decided with the others'
        (:func:`vision.track.decide_many`: nothing erased, one threshold, the blur model). Returns
        the sightings and the markers not read that way (for :meth:`_follow_slowly`), each with
        whether its cells were decided and failed."""
        out: list[Sighting] = []
        lost: list[tuple[_Track, bool]] = []
        todo: list[tuple[_Track, np.ndarray]] = []
        for tr in self._tracks:
            tr.now = None
            changed = tr.changed(grey) if tr.frame == self._frame - 1 else 1.0
            if changed < CHANGED_SHARE and tr.carried < CARRY_MAX:
                tr.carried += 1
                _merge(out, [tr.sighting])
                continue
            if changed > TURNED_SHARE:
                tr.average = None
            cells = track.sample(grey, tr.sighting.corners)
            if cells is None:
                lost.append((tr, False))
            else:
                todo.append((tr, cells))
        # every followed marker's cells decided at once (track.decide_many: the same decisions)
        reads = track.decide_many(np.stack([c for _, c in todo]), self._ids) if todo else []
        # A marker not read where it lay: sought where the shaking camera moved it (_Track.moved),
        # its cells decided there, all at once again; from then on (the slow read, the average)
        # it is that quad's. A marker read where it lay costs nothing more.
        again: list[tuple[int, np.ndarray]] = []
        for k, ((tr, _), r) in enumerate(zip(todo, reads)):
            if r is not None and self._faces[self._ids[r[0]]].seat == tr.sighting.face.seat:
                continue
            moved = tr.moved(grey)
            cells = None if moved is tr.sighting.corners else track.sample(grey, moved)
            if cells is not None:
                tr.now = moved
                todo[k] = (tr, cells)
                again.append((k, cells))
        if again:
            for (k, _), r in zip(again, track.decide_many(np.stack([c for _, c in again]), self._ids)):
                reads[k] = r
        confirm: list[_Track] = []
        for (tr, cells), r in zip(todo, reads):
            corners = tr.sighting.corners if tr.now is None else tr.now
            got = None if r is None else self._same_seat(tr, (r[0], np.roll(corners, r[1], axis=0)))
            if got is not None and got.face != tr.sighting.face:
                tr.average = None  # turned over: the average held the other side
            tr.add(cells if got is None or r is None else np.rot90(cells, -r[1]))
            if got is not None:
                _merge(out, [got])
            elif tr.averaged >= 2:
                confirm.append(tr)
            else:
                lost.append((tr, True))
        averages = [t.average for t in confirm if t.average is not None]  # all: add() just ran
        checks = track.decide_many(np.stack(averages), self._ids) if averages else []
        for tr, r in zip(confirm, checks):
            # the average only confirms what was read here: the same face, in its own turn
            if r is not None and r[1] == 0 and self._faces[self._ids[r[0]]] == tr.sighting.face:
                _merge(out, [tr.here()])
            else:
                lost.append((tr, True))
        return out, lost

    def _same_seat(self, tr: _Track, read: tuple[int, np.ndarray]) -> Sighting | None:
        """The marker read where ``tr``'s lay, if it is the same seat's: a card that moved away
        and another that came there read as nothing here (the full-frame looks find them)."""
        face = self._faces[self._ids[read[0]]]
        return Sighting(face, read[1]) if face.seat == tr.sighting.face.seat else None

    def _follow_slowly(self, frame: np.ndarray, grey: np.ndarray, tr: _Track, out: list[Sighting],
                       quick_failed: bool = False) -> None:
        """A followed marker the quick try missed: its cells read thoroughly (fingers erased,
        blur modelled, light fitted; what the quick try did is not done again), then ArUco in its
        neighbourhood (a token that slid or was turned over)."""
        old = tr.here()
        self._meter.charge(COST_SLOW_FOLLOW_MS)
        r = track.reread(frame, grey, old.corners, self._ids, quick_failed)
        got = None if r is None else self._same_seat(tr, r)
        if got is not None:
            _merge(out, [got])
            return
        h, w = grey.shape
        side = old.side
        pad = max(side * 0.6, 12.0)
        x0, y0 = (max(int(v - pad), 0) for v in old.corners.min(axis=0))
        x1, y1 = (int(min(v + pad, lim)) for v, lim in zip(old.corners.max(axis=0), (w, h)))
        if x1 - x0 < 16 or y1 - y0 < 16:
            return
        # Only shapes at least half the marker's outline: on a small crop ArUco's default (3 %
        # of the crop) lets through specks that cost a millisecond each.
        self._near_params.minMarkerPerimeterRate = 2.0 * side / max(x1 - x0, y1 - y0)
        self._near_detector.setDetectorParameters(self._near_params)
        offset = np.array([x0, y0], np.float32)
        near = [s for s in self._detect(grey[y0:y1, x0:x1], self._near_detector, offset)
                if s.face.seat == old.face.seat and math.dist(s.centre, old.centre) < side]
        _merge(out, near[:1])

    def _discover(self, frame: np.ndarray, grey: np.ndarray) -> list[Sighting]:
        """The first pass over half the frame (the top and bottom halves in turn, overlapping by
        a marker), at half size where the frame is big enough (each marker found there not
        followed yet confirmed at full size: :meth:`_confirmed`)."""
        h = grey.shape[0]
        top = self._discovered % 2 == 0
        self._discovered += 1
        self._meter.charge(COST_DISCOVER_MS)
        y0, y1 = (0, min(h // 2 + TILE_OVERLAP, h)) if top else (max(h // 2 - TILE_OVERLAP, 0), h)
        band = grey[y0:y1]
        offset = np.array([0, y0], np.float32)
        if grey.shape[1] < HALF_SIZE_FROM:
            return self._detect(band, offset=offset)
        small = cv2.resize(band, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        # a half-size pixel's centre k is the full-size pixel 2k + 0.5
        found = [Sighting(s.face, s.corners * 2 + 0.5 + offset) for s in self._detect(small)]
        return [c for c in (self._confirmed(frame, grey, s) for s in found) if c is not None]

    def _confirmed(self, frame: np.ndarray, grey: np.ndarray, s: Sighting) -> Sighting | None:
        """A marker the half-size look found, if it is followed already or its cells at full size
        read as the same face (fitted onto its picture, then read as a followed marker is read
        thoroughly), else None. At half size a smeared marker's cells are a pixel or two across, and
        ArUco's correction of two bits turned a smeared marker not ours into seat 4's remain side
        in 2 frames of 1 800 (benchmarks/tokens_accuracy.py --levels strangers, held-out ranges
        videos); at full size its cells read as nothing."""
        if any(t.sighting.face == s.face and _near(t.sighting, s) for t in self._tracks):
            return s
        self._meter.charge(COST_CONFIRM_MS)
        fitted = self._fitted(grey, s)
        r = track.reread(frame, grey, fitted.corners, self._ids)
        if r is None or self._faces[self._ids[r[0]]] != s.face:
            return None
        return Sighting(s.face, r[1])

    def _deep_tile(self, frame: np.ndarray, grey: np.ndarray, known: list[Sighting]) -> list[Sighting]:
        """The single frame's last look (vision/recover.py), over this frame's tile only. The
        contrast-evened second look is left out of videos: on the benchmark's hard videos it
        cost a tenth more time and read fewer ballots (6 missed of 160 without it, 7 with it;
        docs/tokens.md). The first round of tiles is quick (no wide threshold, no alignment:
        most seats are found by then); a seat still missing after it gets thorough tiles, as a
        photo does: a card foreshortened to a sliver, lost at the half-size look, is found there
        (held-out lens videos: 12 → 10 ballots missed of 160 in one second, docs/tokens.md)."""
        tiles = _tiles(grey.shape)
        thorough = self._deep >= len(tiles)
        x0, y0, x1, y1 = tiles[self._deep % len(tiles)]
        self._deep += 1
        offset = np.array([x0, y0], np.float32)
        g, f = grey[y0:y1, x0:x1], frame[y0:y1, x0:x1]
        local = [Sighting(s.face, s.corners - offset) for s in known]
        before = len(local)
        self._rejected = []  # no ArUco pass over the tile: only the last look's own shapes
        self._meter.charge(COST_TILE_MS[thorough])
        quad, need = COST_QUAD_MS[thorough], ALIGNED_QUAD_MS if thorough else 0.0

        def go_on() -> bool:  # asked before each shape is read
            self._meter.charge(quad)
            return self._time_left(need)

        self._recover(f, g, local, go_on, thorough=thorough)
        found = [Sighting(s.face, s.corners + offset) for s in local[before:]]
        return found

    def _remember(self, sightings: list[Sighting], grey: np.ndarray) -> None:
        self._meter.charge(COST_REMEMBER_MS * len(sightings))
        for s in sightings:
            same = [t for t in self._tracks if t.sighting.face.seat == s.face.seat and _near(t.sighting, s)]
            if same and same[0].sighting is s:  # carried over unchanged
                same[0].frame = self._frame
                continue
            # a look's quad (half size, a hull) fitted onto the marker's whole picture; a follow's
            # read keeps the fitted quad it was read at
            read_there = same and np.abs(same[0].sighting.corners - s.corners).max() < 0.01
            fitted = s if read_there else self._fitted(grey, s)
            if same:
                same[0].sighting, same[0].frame = fitted, self._frame
            else:
                self._tracks.append(_Track(fitted, self._frame))
                same = [self._tracks[-1]]
            same[0].look_at(grey)
        kept: list[_Track] = []
        for t in sorted(self._tracks, key=lambda t: -t.frame):
            # two tracks that came onto one marker are one; a marker long unread is gone
            if self._frame - t.frame <= self.forget_after and not any(
                    k.sighting.face.seat == t.sighting.face.seat and _near(k.sighting, t.sighting) for k in kept):
                kept.append(t)
        self._tracks = kept

    def _fitted(self, grey: np.ndarray, s: Sighting) -> Sighting:
        """``s`` with its quad fitted onto its marker (:func:`vision.recover.fit_marker`): the
        track's cells are then sampled where the marker is (hard videos: a corner 1.8 → 0.45 px off
        the true one, median; frames missing a followed seat 14.2 → 12.7 % tuned-on, 15.9 → 14.5 %
        held-out lens; docs/tokens.md)."""
        quad = recover.fit_marker(grey, s.corners, s.face.marker_id)
        return s if quad is None else Sighting(s.face, quad)

    # -- single frames ---------------------------------------------------------------------------

    def _recover(self, frame: np.ndarray, grey: np.ndarray, sightings: list[Sighting],
                 go_on: Callable[[], bool] | None = None,
                 thorough: bool = True) -> None:
        """Still someone missing: read the markers a fingertip or a smear broke. Only a seat seen
        nowhere else is taken from there, so a doubtful read can never make a seat read by the
        detector ambiguous."""
        seen = {s.face.seat for s in sightings}
        table = set(range(1, self.players + 1))

        def done(found: list[tuple[int, np.ndarray]]) -> bool:
            # every seat of the table read: the rest of the look could only find a second marker
            return table <= seen | {self._faces[self._ids[i]].seat for i, _ in found}

        for i, corners in recover.recover(frame, grey, self._ids, [s.corners for s in sightings],
                                           self._rejected, go_on, thorough=thorough, done=done):
            face = self._faces[self._ids[i]]
            if face.seat not in seen:
                sightings.append(Sighting(face, corners))

    def _detect(self, grey: np.ndarray, detector: cv2.aruco.ArucoDetector | None = None,
                offset: np.ndarray | None = None) -> list[Sighting]:
        """ArUco over ``grey`` (a part of the frame starting at ``offset``: corners in frame
        pixels)."""
        corners, idx, rejected = (detector or self._detector).detectMarkers(np.ascontiguousarray(grey))
        shift = np.zeros(2, np.float32) if offset is None else offset
        # Quads whose bits ArUco could not decode (a smear, glare): the last look reads them
        # again with its own, erasure-aware decoding.
        self._rejected += [r.reshape(4, 2) + shift for r in rejected]
        if idx is None:
            return []
        return [Sighting(self._faces[self._ids[int(i)]], c.reshape(4, 2) + shift)
                for c, i in zip(corners, idx.ravel())]

    def judge(self, sightings: list[Sighting]) -> Reading:
        """Turns the markers seen into per-seat readings and warnings."""
        warnings: list[TokenWarning] = []
        by_seat: dict[int, list[Face]] = {}
        for s in sightings:
            f = s.face
            if f.seat > self.players:
                warnings.append(TokenWarning(
                    "other_seat", f.seat,
                    f"a marker of seat {f.seat} ({_face_words(f.face)}) is in view but this table has {self.players} players; ignored",
                    f"a marker of seat {f.seat} is in view but this table has {self.players} players; ignored"))
                continue
            if f.face.startswith("player") and int(f.face[6:]) > self.players:
                warnings.append(TokenWarning(
                    "other_seat", f.seat,
                    f"seat {f.seat}'s pick card for player {f.face[6:]} is in view but this table has {self.players} players; ignored",
                    f"a pick card of seat {f.seat} names a player not at this table; ignored"))
                continue
            if self.kind != "all" and f.kind != self.kind:
                what = "voting token" if f.kind == "token" else "pick card"
                warnings.append(TokenWarning(
                    "other_kind", f.seat,
                    f"seat {f.seat}'s {what} ({_face_words(f.face)}) is in view but this vote uses {self.kind} markers; ignored",
                    f"seat {f.seat}'s {what} is in view but this vote does not use it; ignored"))
                continue
            by_seat.setdefault(f.seat, []).append(f)
        tokens: dict[int, str] = {}
        for seat, faces in sorted(by_seat.items()):
            names = [f.face for f in faces]
            distinct = sorted(set(names), key=names.index)
            if len(faces) == 1:
                tokens[seat] = names[0]
            elif len(distinct) == 1:
                warnings.append(TokenWarning(
                    "two_tokens", seat,
                    f"seat {seat}: {len(faces)} markers '{_face_words(distinct[0])}' in view (two tokens of one player?); not counted",
                    f"seat {seat}: two tokens of one player in view; not counted"))
            elif set(distinct) == set(markers.TOKEN_SIDES) and len(faces) == 2:
                warnings.append(TokenWarning(
                    "both_sides", seat,
                    f"seat {seat}: both sides of the token in view (exile and remain); not counted",
                    f"seat {seat}: both sides of the token in view; not counted"))
            else:
                warnings.append(TokenWarning(
                    "two_picks", seat,
                    f"seat {seat}: more than one choice in view ({', '.join(_face_words(n) for n in distinct)}); not counted",
                    f"seat {seat}: more than one choice in view; not counted"))
        return Reading(tokens=tokens, seen=tuple(sorted(by_seat)), warnings=warnings, sightings=sightings)


def _copy(params: "cv2.aruco.DetectorParameters") -> "cv2.aruco.DetectorParameters":
    """A copy of the detector settings this reader changes from OpenCV's defaults."""
    out = cv2.aruco.DetectorParameters()
    for name in ("errorCorrectionRate", "maxErroneousBitsInBorderRate", "minDistanceToBorder",
                 "adaptiveThreshWinSizeMax", "adaptiveThreshConstant", "minMarkerPerimeterRate"):
        setattr(out, name, getattr(params, name))
    return out


def _near(a: Sighting, b: Sighting) -> bool:
    """The same marker found twice (by two looks), not two copies of it."""
    return math.dist(a.centre, b.centre) < max(a.side / 2, 4.0)


def _merge(sightings: list[Sighting], more: list[Sighting]) -> None:
    """Adds the sightings of ``more`` that are not a marker already in ``sightings``."""
    for extra in more:
        if not any(s.face == extra.face and _near(s, extra) for s in sightings):
            sightings.append(extra)


def _tiles(shape: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """The deep look's tiles (x0, y0, x1, y1): DEEP_TILES over the frame, each grown by
    TILE_OVERLAP / 2 on every side so that a marker on a seam lies whole in one of them."""
    h, w = shape[:2]
    cols, rows = DEEP_TILES
    half = TILE_OVERLAP // 2
    out = []
    for r in range(rows):
        for c in range(cols):
            out.append((max(c * w // cols - half, 0), max(r * h // rows - half, 0),
                        min((c + 1) * w // cols + half, w), min((r + 1) * h // rows + half, h)))
    return out


def as_grey(frame: object) -> np.ndarray:
    """A frame as 8-bit grey, or BadInput naming what is wrong with it."""
    if not isinstance(frame, np.ndarray):
        raise BadInput(f"camera frame is a {type(frame).__name__}, not an image array")
    if frame.size == 0 or frame.ndim not in (2, 3) or min(frame.shape[:2]) < 16:
        raise BadInput(f"camera frame has shape {frame.shape}; expected at least 16×16 pixels, grey or colour")
    if frame.dtype != np.uint8:
        raise BadInput(f"camera frame has pixel type {frame.dtype}; expected 8-bit (uint8)")
    if frame.ndim == 2:
        return frame
    channels = frame.shape[2]
    if channels == 1:
        return frame[:, :, 0]
    if channels == 3:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if channels == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    raise BadInput(f"camera frame has {channels} colour channels; expected 1, 3 or 4")
