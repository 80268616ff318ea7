"""Seeded, generated "phone photos" of stickered cards: for the decode tests and benchmark.

These are not real photos. Each one puts one or more real rendered stickers on cards on a
textured table, then applies what a phone photo does to them: a tilted view (perspective), any
in-plane rotation, a small code far away, defocus or motion blur, glare, uneven light, sensor
noise and JPEG compression. The same seed always gives the same image.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .payload import Card, encode
from .stickers import draw_sticker, mm

CONDITIONS = ("plain", "rotated", "angle", "small", "blur", "glare", "several", "mixed")
PHOTO_SIZE = (1280, 960)


@dataclass
class Photo:
    image: np.ndarray        # BGR
    texts: list[str]         # the payloads in it
    condition: str


def _table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    base = rng.uniform(60, 160, size=3)
    low = cv2.resize(rng.normal(0, 18, size=(6, 8, 3)).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    grain = rng.standard_normal((h, w, 3), dtype=np.float32) * 6
    return np.clip(base + low + grain, 0, 255).astype(np.float32)


def _card_face(rng: np.random.Generator, card: Card,
               key: bytes) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
    """A playing card (63 x 88 mm at ~12 px/mm) with the sticker near its top."""
    scale = 12 / (300 / 25.4)  # sticker drawn at 300 dpi, card face at 12 px/mm
    sticker = np.array(draw_sticker(card, key, mm(50), mm(25)))
    sticker = cv2.resize(sticker, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    w, h = 63 * 12, 88 * 12
    tint = rng.uniform(170, 235, size=3)
    face = np.ones((h, w, 3), np.float32) * tint
    # some printed art on the card below the sticker
    for _ in range(12):
        c = tuple(float(v) for v in rng.uniform(40, 200, size=3))
        p = (int(rng.uniform(0, w)), int(rng.uniform(h * 0.4, h)))
        cv2.circle(face, p, int(rng.uniform(15, 90)), c, -1)
    sh, sw = sticker.shape
    y0, x0 = int(h * 0.06), (w - sw) // 2
    face[y0:y0 + sh, x0:x0 + sw] = sticker[..., None]
    # the sticker's code spans about this many card pixels (for scaling to a target size)
    code_px = sh * 0.85
    return face, code_px, (x0, y0, sw, sh)


def _place(rng: np.random.Generator, canvas: np.ndarray, face: np.ndarray, code_px: float,
           target_code_px: float, tilt_deg: float, rot_deg: float, center: Sequence[float]) -> np.ndarray:
    h, w = face.shape[:2]
    s = target_code_px / code_px
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - [w / 2, h / 2]
    pts = src * s
    # tilt: rotate the card plane about a random axis, then project with a pinhole camera
    t = np.deg2rad(tilt_deg)
    axis = rng.uniform(0, np.pi)
    ax, ay = np.cos(axis), np.sin(axis)
    f = 1.6 * max(canvas.shape[:2])
    out = []
    for x, y in pts:
        d = x * ax + y * ay                      # distance along the tilt axis' normal
        along = np.array([x, y]) - d * np.array([ax, ay])
        z = d * np.sin(t)
        flat = along + d * np.cos(t) * np.array([ax, ay])
        out.append(flat * f / (f + z))
    r = np.deg2rad(rot_deg)
    rm = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]], np.float32)
    dst = np.array(out, np.float32) @ rm.T + np.array(center, np.float32)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), dst)
    ch, cw = canvas.shape[:2]
    warped = cv2.warpPerspective(face, m, (cw, ch), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((h, w), np.float32), m, (cw, ch), flags=cv2.INTER_LINEAR)
    canvas[:] = canvas * (1 - mask[..., None]) + warped * mask[..., None]
    return dst


def _glare(rng: np.random.Generator, img: np.ndarray, center: Sequence[float], radius: float) -> np.ndarray:
    h, w = img.shape[:2]
    cx, cy = center
    gx = np.exp(-((np.arange(w, dtype=np.float32) - cx) ** 2) / (2 * radius ** 2))
    gy = np.exp(-((np.arange(h, dtype=np.float32) - cy) ** 2) / (2 * (radius * 0.6) ** 2))
    g = np.outer(gy, gx)  # separable: the same ellipse of light, at a fraction of the cost
    strength = rng.uniform(140, 230)
    return img + g[..., None] * strength


def _blur(rng: np.random.Generator, img: np.ndarray, amount: float) -> np.ndarray:
    if rng.random() < 0.5:
        return cv2.GaussianBlur(img, (0, 0), amount)
    n = max(3, int(amount * 4) | 1)
    k: np.ndarray = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0 / n
    rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
    k = cv2.warpAffine(k, rot, (n, n))
    return cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))


def make_photo(seed: int, condition: str, cards: list[Card], key: bytes) -> Photo:
    """One generated photo of ``condition`` showing cards picked (by seed) from ``cards``."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}")
    rng = np.random.default_rng(seed)
    w, h = PHOTO_SIZE
    img = _table(rng, w, h)
    n = int(rng.integers(2, 5)) if condition in ("several", "mixed") and (
        condition == "several" or rng.random() < 0.3) else 1
    chosen = [cards[int(i)] for i in rng.choice(len(cards), size=n, replace=False)]
    code_px = {"small": rng.uniform(42, 70)}.get(condition, rng.uniform(110, 220))
    if n > 1:
        code_px = rng.uniform(80, 130)
    tilt = {"angle": rng.uniform(35, 60)}.get(condition, rng.uniform(0, 15))
    mixed = condition == "mixed"
    if mixed:
        code_px, tilt = rng.uniform(60, 180), rng.uniform(0, 50)
    rot_any = condition in ("rotated", "mixed", "several") or rng.random() < 0.5
    centers = []
    for i, card in enumerate(chosen):
        face, face_code_px, _ = _card_face(rng, card, key)
        if n == 1:
            center = (w / 2 + rng.uniform(-200, 200), h / 2 + rng.uniform(-120, 120))
        else:  # spread several cards over a grid so they do not cover each other
            cols = 2
            cx = (i % cols + 0.5) * w / cols + rng.uniform(-60, 60)
            cy = (i // cols + 0.5) * h / 2 + rng.uniform(-40, 40)
            center = (cx, cy)
        rot = rng.uniform(0, 360) if rot_any else rng.uniform(-10, 10)
        quad = _place(rng, img, face, face_code_px, code_px, tilt, rot, center)
        centers.append(quad)
    # light falling off across the table
    gx = np.linspace(rng.uniform(0.6, 1.0), rng.uniform(0.9, 1.2), w, dtype=np.float32)
    img = img * gx[None, :, None]
    if condition == "glare" or (mixed and rng.random() < 0.5):
        q = centers[0]
        # the hot spot sits on the card's upper part, where the sticker is
        c = q[0] * 0.6 + q[1] * 0.2 + q[3] * 0.1 + q[2] * 0.1
        img = _glare(rng, img, c + rng.uniform(-30, 30, size=2), code_px * rng.uniform(0.3, 0.6))
    blur = {"blur": rng.uniform(1.8, 3.2)}.get(condition, rng.uniform(0.0, 0.8))
    if mixed:
        blur = rng.uniform(0.5, 2.5)
    if blur > 0.3:
        img = _blur(rng, img, blur)
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * rng.uniform(2, 7)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 90))])
    photo = cv2.imdecode(jpg, cv2.IMREAD_COLOR)
    assert photo is not None  # the JPEG it just encoded
    return Photo(photo, [encode(c, key) for c in chosen], condition)


def photo_set(seed: int, per_condition: int, cards: list[Card], key: bytes,
              conditions: Sequence[str] = CONDITIONS) -> Iterator[Photo]:
    """``per_condition`` photos of each condition; photo i of a condition always has one seed."""
    for ci, cond in enumerate(conditions):
        for i in range(per_condition):
            yield make_photo(seed * 1_000_003 + ci * 10_007 + i, cond, cards, key)
