"""Reading one camera frame: which seat shows which face, and what looks wrong.

A seat's reading is given only when exactly one of its markers is seen. Anything ambiguous — both
sides of one token, two copies of one marker (two tokens of one player), two pick cards — is a
warning and that seat is left out: reported, never guessed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.core.events import BadInput

from . import markers, recover, track
from .markers import Face


@dataclass(frozen=True)
class Sighting:
    face: Face
    corners: np.ndarray  # 4×2 float32, image pixels, clockwise from the marker's top-left

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])


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


SECOND_LOOK_EVERY = 3  # with tracking: the full-frame second look on every third frame


class TokenReader:
    """Finds the plan's markers in a frame. ``kind``: "token" (Exile/Remain and Issue votes),
    "pick" (pick-a-player votes) or "all" (the CLI, calibration)."""

    def __init__(self, players: int = markers.MAX_SEATS, kind: str = "all", tracking: bool = False,
                 forget_after: int = 30):
        """``tracking``: frames come from one camera in order (a vote's video), so a seat read
        before and missed now is re-read where its marker lay (:mod:`vision.track`); not for
        unrelated photos. A seat unread for ``forget_after`` frames is forgotten."""
        self.players = markers.check_players(players)
        self.tracking = tracking
        self.forget_after = forget_after
        self._last: dict[int, tuple[Sighting, int]] = {}  # seat -> (last sighting, frame number)
        self._frame = 0
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
        # The second look (only for frames with a seat missing) thresholds closer to the local
        # mean: a card foreshortened to a sliver or in a dim corner keeps too little contrast
        # for the default constant (7). On the first pass it only costs time (more candidates).
        second = cv2.aruco.DetectorParameters()  # default windows: 3, 13 and 23 px
        for name in ("errorCorrectionRate", "maxErroneousBitsInBorderRate", "minDistanceToBorder"):
            setattr(second, name, getattr(params, name))
        second.adaptiveThreshConstant = 4
        self._detector2 = cv2.aruco.ArucoDetector(markers.detection_dictionary(self._ids), second)
        self._clahe = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))
        self.second_pass = True
        self.recovery = True  # the last look, for broken borders (vision/recover.py)
        self._rejected: list[np.ndarray] = []  # this frame's undecoded quads, for the last look

    def read(self, frame) -> Reading:
        grey = as_grey(frame)
        self._rejected = []
        sightings = self._detect(grey)
        if self.tracking:
            self._frame += 1
            self._reread(frame, grey, sightings)
        # With tracking, the full-frame looks below run on every third frame only (a seat they
        # find is then re-read by tracking on the frames between).
        look_again = not self.tracking or self._frame % SECOND_LOOK_EVERY == 1
        if self.second_pass and look_again and len({s.face.seat for s in sightings}) < self.players:
            # Someone is missing: look again with local contrast evened out (CLAHE), which
            # recovers cards washed out by glare or lying in shadow. Costs a second detection,
            # only on frames that need it.
            for extra in self._detect(self._clahe.apply(grey), self._detector2):
                if not any(s.face == extra.face and _near(s, extra) for s in sightings):
                    sightings.append(extra)
        if self.recovery and look_again and len({s.face.seat for s in sightings}) < self.players:
            self._recover(frame, grey, sightings)
        if self.tracking:
            self._remember(sightings)
        return self.judge(sightings)

    def _reread(self, frame, grey: np.ndarray, sightings: list[Sighting]) -> None:
        """Re-reads remembered seats missing from this frame where their marker lay."""
        read = {s.face.seat for s in sightings}
        for seat, (old, _) in list(self._last.items()):
            if seat in read:
                continue
            got = track.reread(frame, grey, old.corners, self._ids)
            if got is not None and self._faces[self._ids[got[0]]].seat == seat:
                sightings.append(Sighting(self._faces[self._ids[got[0]]], got[1]))

    def _recover(self, frame, grey: np.ndarray, sightings: list[Sighting]) -> None:
        """Still someone missing: read the markers a fingertip or a smear broke. Only a seat seen
        nowhere else is taken from there, so a doubtful read can never make a seat read by the
        detector ambiguous."""
        seen = {s.face.seat for s in sightings}
        for i, corners in recover.recover(frame, grey, self._ids, [s.corners for s in sightings],
                                           self._rejected):
            face = self._faces[self._ids[i]]
            if face.seat not in seen:
                sightings.append(Sighting(face, corners))

    def _remember(self, sightings: list[Sighting]) -> None:
        counts: dict[int, int] = {}
        for s in sightings:
            counts[s.face.seat] = counts.get(s.face.seat, 0) + 1
        for s in sightings:
            if counts[s.face.seat] == 1:  # an ambiguous seat is not a place to look again
                self._last[s.face.seat] = (s, self._frame)
        for seat in [k for k, (_, n) in self._last.items() if self._frame - n > self.forget_after]:
            del self._last[seat]

    def _detect(self, grey: np.ndarray, detector=None) -> list[Sighting]:
        corners, idx, rejected = (detector or self._detector).detectMarkers(grey)
        # Quads whose bits ArUco could not decode (a smear, glare): the last look reads them
        # again with its own, erasure-aware decoding.
        self._rejected += [r.reshape(4, 2) for r in rejected]
        if idx is None:
            return []
        return [Sighting(self._faces[self._ids[int(i)]], c.reshape(4, 2)) for c, i in zip(corners, idx.ravel())]

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


def _near(a: Sighting, b: Sighting) -> bool:
    """The same marker found twice (by the two passes), not two copies of it."""
    side = float(np.linalg.norm(a.corners[1] - a.corners[0]))
    return float(np.hypot(*(np.subtract(a.centre, b.centre)))) < max(side / 2, 4.0)


def as_grey(frame) -> np.ndarray:
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
