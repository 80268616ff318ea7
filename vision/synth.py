"""Synthetic table scenes with ground truth, for the benchmark and the tests.

Each scene: a wooden table at 1280×720, and a printed token card per seat (the sheet's own card
image) placed in 3-D — turned, tilted towards or away from the camera, at a distance — then seen
through a pinhole camera, with uneven or dim light, glare, a finger over a card, motion blur,
sensor noise and JPEG compression. A seeded ``numpy.random.Generator`` makes every scene
reproducible.

Levels (what "moderate" means in the benchmark's aim):
- ``easy``:     marker 60–100 px a side, tilt ≤ 25°, no blur, light noise.
- ``moderate``: marker 34–70 px, tilt ≤ 50°, motion blur ≤ 5 px, light 45–100 %, glare,
                a finger over the card's edge reaching into the white margin but not the marker.
- ``hard``:     marker 24–45 px, tilt ≤ 62°, blur ≤ 9 px, light 20–100 %, strong glare,
                a finger covering up to a sixth of the marker.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from PIL import Image

from . import markers, sheet
from .markers import Face

W, H = 1280, 720
FOCAL_PX = 1000.0  # a webcam at 1280 wide with a ~65° field of view

LEVELS = {
    "easy": dict(side=(60, 100), tilt=25, blur=0, light=(0.8, 1.0), glare=(0, 0), noise=2.0, finger="none"),
    "moderate": dict(side=(34, 70), tilt=50, blur=5, light=(0.45, 1.0), glare=(40, 120), noise=4.0, finger="margin"),
    "hard": dict(side=(24, 45), tilt=62, blur=9, light=(0.2, 1.0), glare=(120, 230), noise=7.0, finger="marker"),
}


@dataclass
class Placed:
    face: Face
    quad: np.ndarray  # 4×2, the marker's corners in the scene (for occluders and checks)


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    truth: dict[int, str]  # seat -> face shown
    placed: list[Placed] = field(default_factory=list)


@lru_cache(maxsize=None)
def card_texture(marker_id: int) -> tuple[np.ndarray, np.ndarray]:
    """The printed card of a marker (BGR, 150 dpi) and its marker's corners in card pixels."""
    face = next(f for f in markers.all_faces().values() if f.marker_id == marker_id)
    w, h = sheet.mm(sheet.CELL_W_MM), sheet.mm(sheet.CELL_H_MM)
    img = Image.new("RGB", (w + 1, h + 1), (250, 250, 246))
    sheet.draw_card(img, face, 0, 0)
    side = sheet.mm(sheet.MARKER_MM)
    mx = (w - side) // 2
    my = sheet.mm(sheet.BAND_MM) + sheet.mm(sheet.QUIET_MM)
    quad = np.array([[mx, my], [mx + side, my], [mx + side, my + side], [mx, my + side]], np.float32)
    # Downscale once: the scene never shows a card bigger than ~200 px.
    small = cv2.resize(cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return small, quad * 0.5


def _with_stranger(tex: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The card with a DICT_5X5_1000 marker outside the plan printed over its own (another game's
    card, say): whatever the reader makes of it is wrong."""
    plan = markers.all_faces()
    others = [i for i in range(1000) if i not in plan]
    x0, y0 = (int(round(float(v))) for v in quad[0])
    side = int(round(float(quad[1, 0] - quad[0, 0])))
    out = tex.copy()
    picture = markers.marker_image(others[int(rng.integers(len(others)))], side)
    out[y0:y0 + side, x0:x0 + side] = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR)
    return out


def table_background(rng: np.random.Generator, w: int = W, h: int = H) -> np.ndarray:
    """Wood: a brown base, grain stripes and low-frequency blotches."""
    base = np.array(rng.uniform([40, 70, 110], [80, 120, 170]), np.float32)  # BGR
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    freq = rng.uniform(0.02, 0.06)
    grain = np.sin(y * freq + 3 * np.sin(x * 0.004 + rng.uniform(0, 6)) + rng.uniform(0, 6))
    blotch = cv2.resize(rng.normal(0, 1, (9, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    shade = 1.0 + 0.12 * grain + 0.10 * blotch
    return np.clip(base[None, None, :] * shade[:, :, None], 0, 255).astype(np.uint8)


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    rvec = (axis / np.linalg.norm(axis) * angle).reshape(3, 1)
    return cv2.Rodrigues(rvec)[0]


def _card_homography(rng: np.random.Generator, texture_quad: np.ndarray, card_shape: tuple[int, ...],
                     centre: tuple[float, float], side_px: float, tilt_deg: float,
                     spin_deg: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Maps card pixels to scene pixels: the card turned, tilted and put at a distance."""
    ch, cw = card_shape[:2]
    marker_tex = float(texture_quad[1][0] - texture_quad[0][0])
    mm_per_tex = sheet.MARKER_MM / marker_tex
    markers_mm = sheet.MARKER_MM
    corners_tex = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    pts_tex = np.vstack([corners_tex, texture_quad])
    centre_tex = texture_quad.mean(axis=0)
    pts = np.hstack([(pts_tex - centre_tex) * mm_per_tex, np.zeros((len(pts_tex), 1))])  # mm, z=0
    turn = rng.uniform(0, 2 * np.pi) if spin_deg is None else np.radians(spin_deg)
    spin = _rotation(np.array([0, 0, 1.0]), turn)  # upside down, any turn
    phi = rng.uniform(0, 2 * np.pi)
    tilt = _rotation(np.array([np.cos(phi), np.sin(phi), 0.0]), np.radians(rng.uniform(0, tilt_deg)))
    z = FOCAL_PX * markers_mm / side_px
    cam = (tilt @ spin @ pts.T).T
    u, v = centre
    cam += np.array([(u - W / 2) * z / FOCAL_PX, (v - H / 2) * z / FOCAL_PX, z])
    proj = cam[:, :2] / cam[:, 2:3] * FOCAL_PX + np.array([W / 2, H / 2])
    proj = proj.astype(np.float32)
    M = cv2.getPerspectiveTransform(corners_tex, proj[:4])
    return M, proj[4:]


def warp_card(tex: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]] | None:
    """The card ``tex`` seen through ``M``, warped only into its bounding box in the frame (most of
    the frame is table): (the warped card, its coverage 0..1 as float32, the box's top-left), or
    None when the card lies wholly outside the frame."""
    th, tw = tex.shape[:2]
    box = cv2.perspectiveTransform(np.array([[[0, 0]], [[tw, 0]], [[tw, th]], [[0, th]]], np.float32), M).reshape(4, 2)
    x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 2, [W, H])
    if not (x1 > x0 and y1 > y0):
        return None
    Mr = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ M
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(tex, Mr, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    mask = cv2.warpPerspective(np.full(tex.shape[:2], 255, np.uint8), Mr, size, flags=cv2.INTER_LINEAR)
    return warped, mask.astype(np.float32) / 255.0, (int(x0), int(y0))


def add_glare(img: np.ndarray, centre: Sequence[float] | np.ndarray, rad: float, strength: Callable[[], float]) -> None:
    """A round glare spot (a Gaussian of radius ``rad``) added to ``img`` in place; ``strength``
    (a callable, drawn only when the spot is in the frame) its peak. ``img`` float32 is added to;
    uint8 is added to with saturation."""
    # The blob is negligible beyond 4 radii: add it in that window only.
    h, w = img.shape[:2]
    bx0, by0 = (max(int(centre[0] - 4 * rad), 0), max(int(centre[1] - 4 * rad), 0))
    bx1, by1 = (min(int(centre[0] + 4 * rad), w), min(int(centre[1] + 4 * rad), h))
    if bx1 > bx0 and by1 > by0:
        yy, xx = np.mgrid[by0:by1, bx0:bx1].astype(np.float32)
        blob = np.exp(-(((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * rad * rad)))
        spot = (strength() * blob)[:, :, None]
        if img.dtype == np.uint8:
            img[by0:by1, bx0:bx1] = np.clip(img[by0:by1, bx0:bx1] + spot, 0, 255).astype(np.uint8)
        else:
            img[by0:by1, bx0:bx1] += spot


def motion_kernel(length: int, angle: float) -> np.ndarray:
    """A straight motion blur ``length`` px long at ``angle`` degrees, summing to 1."""
    k: np.ndarray = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1.0 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    k = cv2.warpAffine(k, rot, (length, length))
    return k / max(k.sum(), 1e-6)


def _finger(img: np.ndarray, rng: np.random.Generator, quad: np.ndarray, mode: str) -> None:
    """A skin-coloured finger (a thick round-ended stroke) coming from outside over the card.

    ``margin``: the fingertip reaches into the white margin but touches no marker pixel.
    ``marker``: it covers 3–17 % of the marker (usually a corner or an edge)."""
    c = quad.mean(axis=0)
    side = max(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4))
    ang = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(ang), np.sin(ang)])
    width = max(6, int(side * rng.uniform(0.35, 0.5)))
    # Coverage is measured in a small window round the marker (the finger's far end is irrelevant).
    half = int(side * 1.2) + 2
    origin = c - half
    marker = np.zeros((2 * half, 2 * half), np.uint8)
    cv2.fillConvexPoly(marker, (quad - origin).astype(np.int32), 255)
    area = max(int(np.count_nonzero(marker)), 1)
    lo, hi = (0.0, 0.0) if mode == "margin" else (rng.uniform(0.03, 0.08), 0.17)
    best = None
    for reach in np.linspace(side * 1.6, 0, 40):  # from far out, moving the tip inwards
        tip = c + d * reach
        tail = c + d * (reach + side * 3)
        finger = np.zeros_like(marker)
        cv2.line(finger, tuple(int(t) for t in tip - origin), tuple(int(t) for t in tail - origin), 255, width, cv2.LINE_8)
        covered = np.count_nonzero(finger & marker) / area
        if covered > hi or (mode == "margin" and covered > 0):
            break
        best = (tip, tail)
        if covered >= lo and mode != "margin":
            break
    if best is None:
        return
    tone = np.array(rng.uniform([90, 120, 170], [140, 170, 225]))
    tip, tail = best
    cv2.line(img, tuple(int(t) for t in tip), tuple(int(t) for t in tail), tone.tolist(), width, cv2.LINE_AA)


def make_scene(rng: np.random.Generator, level: str = "moderate", players: int = 8,
               faces: dict[int, str] | None = None, kind: str = "token", spin: float | None = None,
               extra: tuple[tuple[int, str], ...] = (),
               look: np.random.Generator | None = None, **overrides: Any) -> Scene:
    """One table scene. ``faces`` fixes what each seat shows (seats left out are not on the
    table); otherwise random sides. ``extra``: more cards (seat, face) — a second token, the
    other side — for the warnings; ``truth`` keeps the first card of a seat. ``spin`` fixes every
    card's turn in degrees; ``overrides`` replace the level's settings (side, tilt, blur, light,
    glare, noise, finger; blur_kind "lens" for a round out-of-focus blur instead of motion;
    strangers=True for cards whose markers are not in the plan (``truth`` then names what the
    cards would have been: nothing on such a table is to be read),
    jpeg=(lo, hi) for the JPEG quality range). ``look``, if given, draws what changes from one video frame to the
    next (fingers, glare, blur, noise, JPEG) while ``rng`` draws the table, cards and light: one
    ``rng`` seed with several ``look`` seeds is one table filmed over several frames."""
    p = {**LEVELS[level], **overrides}
    look = rng if look is None else look
    img = table_background(rng).astype(np.float32)
    truth: dict[int, str] = {}
    placed: list[Placed] = []
    items: list[tuple[int, str]] = []
    for seat in range(1, players + 1):
        if faces is not None:
            if seat in faces:
                items.append((seat, faces[seat]))
            continue
        pool = markers.TOKEN_SIDES if kind == "token" else tuple(
            f.face for f in markers.faces_for(players, "pick") if f.seat == seat)
        items.append((seat, pool[int(rng.integers(len(pool)))]))
    items += list(extra)
    n = max(len(items), 1)
    cols = 4 if n > 4 else n
    rows = (n + cols - 1) // cols
    for i, (seat, name) in enumerate(items):
        face = next(f for f in markers.all_faces().values() if f.seat == seat and f.face == name)
        tex, tquad = card_texture(face.marker_id)
        if p.get("strangers"):
            tex = _with_stranger(tex, tquad, rng)
        r, c = divmod(i, cols)
        cx = (c + 0.5) * W / cols + rng.uniform(-0.18, 0.18) * W / cols
        cy = (r + 0.5) * H / rows + rng.uniform(-0.15, 0.15) * H / rows
        side = rng.uniform(*p["side"])
        M, quad = _card_homography(rng, tquad, tex.shape, (cx, cy), side, p["tilt"], spin)
        got = warp_card(tex, M)
        if got is not None:
            warped, alpha, (x0, y0) = got
            a = alpha[:, :, None]
            y1, x1 = y0 + a.shape[0], x0 + a.shape[1]
            roi = img[y0:y1, x0:x1]
            img[y0:y1, x0:x1] = roi * (1 - a) + warped.astype(np.float32) * a
        truth.setdefault(seat, name)
        placed.append(Placed(face, quad))
    # Light: a gradient across the table times an overall level.
    gx = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.7, 1.0), W, dtype=np.float32)[None, :]
    gy = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.8, 1.0), H, dtype=np.float32)[:, None]
    img *= (gx * gy * rng.uniform(*p["light"]))[:, :, None]
    out: np.ndarray = np.clip(img, 0, 255).astype(np.uint8)
    if p["finger"] != "none":
        for pl in placed:
            if look.random() < p.get("finger_p", 0.4):
                _finger(out, look, pl.quad, p["finger"])
    out = out.astype(np.float32)
    lo, hi = p["glare"]
    if hi > 0:
        for _ in range(int(look.integers(1, 3))):
            target = placed[int(look.integers(len(placed)))].quad.mean(axis=0) if placed else (W / 2, H / 2)
            gxy = np.array(target) + look.normal(0, 30, 2)
            rad = look.uniform(20, 60)
            add_glare(out, gxy, rad, lambda: look.uniform(lo, hi))
    if p["blur"] and p.get("blur_kind", "motion") == "lens":
        # Out of focus instead of moving: a round (Gaussian) blur up to a third of "blur" in sigma.
        sigma = float(look.uniform(0.3, p["blur"] / 3))
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    elif p["blur"]:
        length = int(look.integers(1, p["blur"] + 1))
        if length > 1:
            out = cv2.filter2D(out, -1, motion_kernel(length, look.uniform(0, 180)))
    noise: np.ndarray = np.empty(out.shape, np.float32)
    cv2.setRNGSeed(int(look.integers(2 ** 31)))  # cv2.randn is ~10× quicker than numpy here
    # OpenCV's stubs type mean and stddev as arrays; its C++ API takes the Scalar given here.
    cv2.randn(noise, 0.0, float(p["noise"]))  # type: ignore[call-overload]
    out += noise
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(look.integers(*p.get("jpeg", (70, 95))))])
    photo = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert photo is not None  # the JPEG it just encoded
    return Scene(photo, truth, placed)


def warp_page(page_rgb: np.ndarray, rng: np.random.Generator, width_px: float = 1100, tilt_deg: float = 30) -> np.ndarray:
    """A printed page lying on the table, seen at an angle: the page warped into a 1280×720 frame."""
    # Shrink the 300-dpi page first (area averaging, like a lens would) to about twice the size
    # it will have in the frame; warping the full page would cost ten times more for nothing.
    pre = min(1.0, 2.0 * width_px / page_rgb.shape[0])
    page = cv2.resize(cv2.cvtColor(page_rgb, cv2.COLOR_RGB2BGR), None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
    ph, pw = page.shape[:2]
    src = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    scale = width_px / ph  # the long side lies across the frame after the quarter turn
    # Landscape view of a portrait page: turn it a quarter and squeeze it with perspective.
    c = np.array([W / 2, H / 2])
    pts = (src - src.mean(axis=0)) * scale
    pts = pts @ np.array([[0, 1], [-1, 0]], np.float32)  # a quarter turn
    squeeze = np.cos(np.radians(tilt_deg))
    pts[:, 1] *= squeeze
    # The far edge (top) looks narrower than the near one.
    far = pts[:, 1] < 0
    pts[far, 0] *= 1 - 0.25 * np.sin(np.radians(tilt_deg))
    pts += c + rng.uniform(-10, 10, 2)
    M = cv2.getPerspectiveTransform(src, pts.astype(np.float32))
    bg = table_background(rng)
    warped = cv2.warpPerspective(page, M, (W, H), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((ph, pw), 255, np.uint8), M, (W, H)) > 127
    bg[mask] = warped[mask]
    return bg


def vote_frames(faces: dict[int, str], players: int, hidden: int = 6, shown: int = 14, seed: int = 42,
                level: str = "moderate") -> list[np.ndarray]:
    """The frames of one simultaneous vote: the table while the tokens are held hidden, one
    blurred frame as everyone flips, then the tokens lying still (each frame with its own noise)."""
    noise_rng = np.random.default_rng(seed + 1)

    def jitter(img: np.ndarray) -> np.ndarray:
        return np.clip(img.astype(np.float32) + noise_rng.normal(0, 3.0, img.shape), 0, 255).astype(np.uint8)

    # The same seed draws the same table first, so both scenes share the background.
    table = make_scene(np.random.default_rng(seed), "easy", players=players, faces={}).image
    scene = make_scene(np.random.default_rng(seed), level, players=players, faces=faces, finger="none").image
    return [jitter(table) for _ in range(hidden)] + [cv2.blur(scene, (15, 1))] + [jitter(scene) for _ in range(shown)]
