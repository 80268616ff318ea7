"""Rendered video clips of a table voting, with ground truth: what ``watch`` and its benchmark read.

A clip is one table (wood, uneven light, the level's cards as :mod:`vision.synth` draws them) filmed
at 30 frames a second by a hand-held camera that shakes:

- the tokens are **raised one after another**: each player's hand brings their card in from the
  table's edge (it slides in over ``SLIDE_S``, the hand over it), lays it down and draws back;
- **a hand passes** over the table once, across several cards;
- **glare** moves across the table (a lamp's reflection as the camera moves);
- the camera **shakes** (a smooth random walk of a few pixels and a fraction of a degree), with
  motion blur along its movement on top of the level's blur, sensor noise and **JPEG** noise.

Ground truth, per seat: the side shown and ``in_view``, the time of the first frame in which the
card lies still and no hand covers any of its marker (from then on a ballot can be read). The
frames are made one by one (``frames()``), so a long clip never sits in memory.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import markers, synth

FPS = 30
SLIDE_S = 0.35  # a card slides in over this long, a hand on it
RETREAT_S = 0.25  # then the hand draws back over this long
HAND_PASS_S = 0.6  # the passing hand crosses the table in this long

CLIP_LEVELS = {
    # shake: px of the random walk's reach; tilt/side/light/glare/noise from synth.LEVELS
    "moderate": dict(shake=3.0, turn=0.4, jpeg=(70, 92)),
    "hard": dict(shake=6.0, turn=0.8, jpeg=(55, 85)),
}


@dataclass
class Clip:
    level: str
    seed: int
    truth: dict[int, str]  # seat -> side shown
    arrive: dict[int, float]  # seat -> when its card starts sliding in (s)
    in_view: dict[int, float] = field(default_factory=dict)  # filled as frames are made
    seconds: float = 4.0
    fps: int = FPS

    @property
    def count(self) -> int:
        return int(round(self.seconds * self.fps))


@dataclass
class _Card:
    seat: int
    warped: np.ndarray  # BGR float32, the card in its bounding box at rest
    alpha: np.ndarray  # float32 0..1, same box
    box: tuple[int, int]  # x0, y0 of the box
    quad: np.ndarray  # the marker's corners at rest (scene px)
    away: np.ndarray  # unit vector: where the card comes from (towards its player)
    side: float  # marker side, px


def make_clip(level: str = "moderate", seed: int = 1, players: int = 8, seconds: float = 4.0,
              first: float = 0.3, gap: tuple[float, float] = (0.15, 0.45)) -> tuple[Clip, Iterator[np.ndarray]]:
    """A clip's ground truth and its frames (a generator: BGR 1280×720, one per 1/30 s).

    Tokens arrive from ``first`` seconds on, one after another, ``gap`` seconds apart (drawn); the
    clip lasts ``seconds``, or longer where the last token would have less than 2 s in view."""
    if level not in CLIP_LEVELS:
        raise ValueError(f"clip level {level!r} is not one of {', '.join(CLIP_LEVELS)}")
    rng = np.random.default_rng([seed, 31, list(CLIP_LEVELS).index(level)])
    p = {**synth.LEVELS[level], **CLIP_LEVELS[level]}
    truth = {s: markers.TOKEN_SIDES[int(rng.integers(2))] for s in range(1, players + 1)}
    order = [int(s) for s in rng.permutation(np.arange(1, players + 1))]
    arrive, t = {}, first
    for s in order:
        arrive[s] = t
        t += float(rng.uniform(*gap))
    # every token gets at least 2 s in view before the clip ends (the benchmark's longest wait)
    seconds = max(seconds, max(arrive.values()) + SLIDE_S + RETREAT_S + 2.0)
    clip = Clip(level, seed, truth, arrive, seconds=seconds)
    return clip, _frames(clip, rng, p)


def _place(rng: np.random.Generator, level_p: dict, truth: dict[int, str]) -> list[_Card]:
    cards = []
    n = len(truth)
    cols = 4 if n > 4 else n
    rows = (n + cols - 1) // cols
    for i, (seat, side_name) in enumerate(sorted(truth.items())):
        face = next(f for f in markers.all_faces().values() if f.seat == seat and f.face == side_name)
        tex, tquad = synth.card_texture(face.marker_id)
        r, c = divmod(i, cols)
        cx = (c + 0.5) * synth.W / cols + rng.uniform(-0.12, 0.12) * synth.W / cols
        cy = (r + 0.5) * synth.H / rows + rng.uniform(-0.1, 0.1) * synth.H / rows
        side = float(rng.uniform(*level_p["side"]))
        M, quad = synth._card_homography(rng, tquad, tex.shape, (cx, cy), side, level_p["tilt"])
        got = synth.warp_card(tex, M)
        assert got is not None  # every card's centre lies in the frame
        warped, alpha, box = got
        centre = np.array([cx, cy])
        away = centre - np.array([synth.W / 2, synth.H / 2])
        away = away / max(float(np.linalg.norm(away)), 1e-6)
        cards.append(_Card(seat, warped.astype(np.float32), alpha, box, quad, away, side))
    return cards


def _paste(img: np.ndarray, card: _Card, shift: np.ndarray) -> None:
    """The card onto ``img`` moved by ``shift`` (px, whole pixels: a card sliding fast)."""
    dx, dy = int(round(shift[0])), int(round(shift[1]))
    h, w = card.alpha.shape
    x0, y0 = card.box[0] + dx, card.box[1] + dy
    ix0, iy0 = max(x0, 0), max(y0, 0)
    ix1, iy1 = min(x0 + w, synth.W), min(y0 + h, synth.H)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    a = card.alpha[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0, None]
    warped = card.warped[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
    img[iy0:iy1, ix0:ix1] = (img[iy0:iy1, ix0:ix1] * (1 - a) + warped * a).astype(np.uint8)


def _hand(img: np.ndarray, mask: np.ndarray, a: np.ndarray, b: np.ndarray, width: int,
          tone: Sequence[float]) -> None:
    """A hand (a thick round-ended skin-coloured stroke from ``a`` to ``b``), drawn and masked."""
    pa, pb = tuple(int(v) for v in a), tuple(int(v) for v in b)
    cv2.line(img, pa, pb, tone, width, cv2.LINE_AA)
    cv2.line(mask, pa, pb, 255, width + 2, cv2.LINE_8)


def _frames(clip: Clip, rng: np.random.Generator, p: dict) -> Iterator[np.ndarray]:
    table = synth.table_background(rng).astype(np.float32)
    cards = _place(rng, p, clip.truth)
    gx = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.7, 1.0), synth.W, dtype=np.float32)[None, :]
    gy = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), synth.H, dtype=np.float32)[:, None]
    light = (gx * gy * rng.uniform(*p["light"]))[:, :, None]
    # The light falls on the table and on each card where it lies (a card sliding in keeps the
    # light of its place: a few frames, a few per cent).
    table = np.clip(table * light, 0, 255).astype(np.uint8)
    for card in cards:
        h, w = card.alpha.shape
        x0, y0 = card.box
        card.warped = card.warped * light[y0:y0 + h, x0:x0 + w]
    tone = rng.uniform([90, 120, 170], [140, 170, 225]).tolist()
    # the passing hand: once, from one side of the table to the other, after the last card lands
    last = max(clip.arrive.values()) + SLIDE_S + RETREAT_S
    pass_at = float(rng.uniform(min(last, clip.seconds - HAND_PASS_S - 0.8), max(last, clip.seconds - HAND_PASS_S - 0.8)))
    pass_y = float(rng.uniform(0.25, 0.75)) * synth.H
    pass_w = int(rng.uniform(70, 110))
    # glare: a blob moving on a straight line over the clip
    g0 = rng.uniform([0, 0], [synth.W, synth.H])
    g1 = rng.uniform([0, 0], [synth.W, synth.H])
    g_rad = float(rng.uniform(30, 70))
    g_top = float(rng.uniform(*p["glare"])) if p["glare"][1] > 0 else 0.0
    # camera shake: a smooth random walk (sums of slow sines), a few pixels and a fraction of a degree
    freqs = rng.uniform(0.3, 2.5, (3, 3))
    phases = rng.uniform(0, 2 * np.pi, (3, 3))
    reach = np.array([p["shake"], p["shake"], p["turn"]])
    look = np.random.default_rng([clip.seed, 77])
    # sensor noise: a few fields drawn once, one picked a frame (drawing 2.7 M values a frame
    # would take most of a frame's making)
    noises = []
    for _ in range(6):
        field_ = np.empty((synth.H, synth.W, 3), np.float32)
        cv2.setRNGSeed(int(look.integers(2 ** 31)))
        cv2.randn(field_, 0.0, float(p["noise"]))  # type: ignore[call-overload]
        noises.append(np.round(field_).astype(np.int16))

    def shake(t: float) -> np.ndarray:
        return reach * (np.sin(2 * np.pi * freqs * t + phases).sum(axis=1) / 3)

    for k in range(clip.count):
        t = k / clip.fps
        img = table.copy()
        hands = np.zeros((synth.H, synth.W), np.uint8)
        hand_strokes = []
        still: dict[int, bool] = {}
        for card in cards:
            start = clip.arrive[card.seat]
            if t < start:
                continue
            travel = 2.5 * card.side + 40
            progress = min((t - start) / SLIDE_S, 1.0)
            shift = card.away * travel * (1 - progress) ** 2
            _paste(img, card, shift)
            still[card.seat] = progress >= 1.0
            centre = card.quad.mean(axis=0) + shift
            if t < start + SLIDE_S + RETREAT_S:  # the hand on the card's far edge, then drawing back
                back = 0.0 if progress < 1 else (t - start - SLIDE_S) / RETREAT_S * (1.8 * card.side + 30)
                tip = centre + card.away * (0.55 * card.side + back)
                hand_strokes.append((tip, tip + card.away * 400, max(12, int(card.side * 0.9))))
        if pass_at <= t <= pass_at + HAND_PASS_S:
            x = -150 + (synth.W + 300) * (t - pass_at) / HAND_PASS_S
            hand_strokes.append((np.array([x, pass_y]), np.array([x - 60, synth.H + 100]), pass_w))
        for a, b, width in hand_strokes:
            _hand(img, hands, a, b, width, tone)
        # the ground truth: the card lies still and no hand covers its marker
        for card in cards:
            if card.seat in clip.in_view or not still.get(card.seat):
                continue
            m = np.zeros_like(hands)
            cv2.fillConvexPoly(m, card.quad.astype(np.int32), 255)
            if not cv2.countNonZero(cv2.bitwise_and(m, hands)):
                clip.in_view[card.seat] = t
        if g_top > 0:
            synth.add_glare(img, g0 + (g1 - g0) * (t / clip.seconds), g_rad, lambda: g_top)
        # the camera moves: the whole picture shifted and turned, blurred along the movement
        now, before = shake(t), shake(t - 1 / clip.fps)
        rot = cv2.getRotationMatrix2D((synth.W / 2, synth.H / 2), float(now[2]), 1.0)
        rot[:, 2] += now[:2]
        img = cv2.warpAffine(img, rot, (synth.W, synth.H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        v = now[:2] - before[:2]
        length = int(min(p["blur"], max(1.0, float(np.hypot(*v)) * 2 + look.uniform(0, p["blur"] / 2))))
        if length > 1:
            angle = float(np.degrees(np.arctan2(v[1], v[0]))) if np.hypot(*v) > 0.1 else float(look.uniform(0, 180))
            img = cv2.filter2D(img, -1, synth.motion_kernel(length, angle))
        img = cv2.add(img, noises[int(look.integers(len(noises)))], dtype=cv2.CV_8U)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(look.integers(*p["jpeg"]))])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert frame is not None  # our own JPEG, just encoded
        yield frame
    for card in cards:  # a card never seen whole: no time to hold it to
        clip.in_view.setdefault(card.seat, float("inf"))
