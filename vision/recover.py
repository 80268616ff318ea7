"""The last look at a single frame: markers whose border a fingertip or a smear has broken.

ArUco (like every square-fiducial reader) starts from a four-sided contour. A fingertip over a
marker's border joins the marker to the finger, or cuts a notch or a corner out of it, and that
contour is gone, though most of the marker is plain to see. Here the coloured pixels (a finger:
the print is black on white) are cut out of the dark shapes before their outlines are taken; each
outline's convex hull bridges a notch, and a corner the finger cut off is put back by meeting the
hull's longest sides that do not run along the finger. Each such quad is then read by
:func:`vision.track.reread`: coloured cells are erasures, the visible bits must match one marker
with at most one disagreement, and every other marker of the plan must disagree in five more.
That guard, not the quad, keeps wrong sides out: a quad that is not a marker reads as nothing.
A photo's look also aligns each quad onto a marker's edge nearby, takes the thresholds with the
fingers left out of their means, splits what is still unread at its neighbourhood's own level, and
fits what is still unread onto the whole picture of the marker its cells look likeliest to be.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import cv2
import numpy as np

from . import markers, sheet, track

# (window px, constant) of the adaptive thresholds: a 24–45 px marker's border and cells (15 px);
# the whole marker as one dark shape (45 px), where glare, dim light or a smear leave its border
# too faint for the narrow window, which then breaks the marker into pieces of its pattern. A shape
# that reads as nothing is then moved onto a marker's edge nearby (:func:`align`) and read again.
# benchmarks/tokens_accuracy.py's 60 hard scenes, single frames, tokens missed of 480: 118 with the
# narrow window alone; 91 with the wide one too; 94 with the narrow one aligned; 70 with both
# aligned. Aligning ArUco's rejected quads as well read none more. A photo's look (``thorough``)
# also takes each threshold with the fingers left out of its means (:func:`_fingers_out`): 70 → 64
# missed (held-out ranges 37 → 35, held-out lens 97 → 85), for about 1.5 times the time of a hard
# photo (benchmarks/tokens_ab.py --single); the same ballots in videos, CPU ratio 1.008.
THRESHOLDS = ((15, 7), (45, 5))
MIN_SIDE = 12  # px; smaller dark shapes are print, grain or noise
MAX_SIDE = 200
MIN_FILL = 0.75  # the hull must fill this share of its quad: a marker is a filled square


def colour_mask(frame: np.ndarray) -> np.ndarray | None:
    """Coloured pixels over the whole frame, found at half size (fingers are big), grown a pixel."""
    if frame.ndim != 3:
        return None
    small = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    mask = track._colour_mask(small)
    if mask is None:
        return None
    return cv2.resize(mask, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_NEAREST)


def _line(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """The line through points a and b, homogeneous (a × b; plain floats: numpy's cross costs
    tens of microseconds a call, and there are hundreds a frame)."""
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    return ay - by, bx - ax, ax * by - ay * bx


def _meet(lines: list[tuple[float, float, float]]) -> np.ndarray | None:
    """The corners where consecutive lines meet (corner k between line k-1 and line k)."""
    out = []
    for k in range(4):
        (a1, b1, c1), (a2, b2, c2) = lines[k - 1], lines[k]
        z = a1 * b2 - b1 * a2
        if abs(z) < 1e-9:
            return None
        out.append(((b1 * c2 - c1 * b2) / z, (c1 * a2 - a1 * c2) / z))
    return np.array(out, np.float32)


def _corner_back(hull: np.ndarray, colour: np.ndarray) -> np.ndarray | None:
    """The quad of a hull one of whose corners a finger cut off: the hull's sides that do not run
    along coloured pixels, the four longest kept and met. None where that gives no convex quad."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, max(1.0, 0.02 * peri), True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    if not 4 < n <= 10:
        return None
    h, w = colour.shape
    sides = []
    t = np.linspace(0.2, 0.8, 5)[:, None]
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        pts = np.round(a + (b - a) * t).astype(int)
        pts[:, 0] = np.clip(pts[:, 0], 0, w - 1)
        pts[:, 1] = np.clip(pts[:, 1], 0, h - 1)
        if (colour[pts[:, 1], pts[:, 0]] > 0).sum() < 2:  # a side of the marker, not the finger's
            sides.append((i, float(np.hypot(*(b - a))), a, b))
    if len(sides) < 4:
        return None
    keep = sorted(sorted(sides, key=lambda s: -s[1])[:4], key=lambda s: s[0])
    quad = _meet([_line(s[2], s[3]) for s in keep])
    if quad is None or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    if cv2.contourArea(quad) > 2.0 * cv2.contourArea(hull.astype(np.float32)):
        return None
    return quad


# The marker's outer edge as a template (cells of ALIGN_CELL px): a one-cell white margin round a
# one-cell black border; the 5×5 inner cells (a different pattern for every marker) are left out.
# 3 px cells and 10 steps: 4 px and 30 steps read one hard token more of 480 (78 against 79
# missed, measured with only the narrow window aligned) for twice the time.
ALIGN_CELL = 3
ALIGN_STEPS = 10
_TEMPLATE = np.full((9 * ALIGN_CELL, 9 * ALIGN_CELL), 255, np.float32)
_TEMPLATE[ALIGN_CELL:8 * ALIGN_CELL, ALIGN_CELL:8 * ALIGN_CELL] = 0
_TEMPLATE_MASK = np.full(_TEMPLATE.shape, 255, np.uint8)
_TEMPLATE_MASK[2 * ALIGN_CELL:7 * ALIGN_CELL, 2 * ALIGN_CELL:7 * ALIGN_CELL] = 0
# the black square's corners: pixel k's centre is at k, so the edge before pixel ALIGN_CELL is at -0.5
_TEMPLATE_CORNERS = np.array([[1, 1], [8, 1], [8, 8], [1, 8]], np.float32) * ALIGN_CELL - 0.5


def align(grey: np.ndarray, colour: np.ndarray | None, quad: np.ndarray) -> np.ndarray | None:
    """``quad`` moved onto the marker's outer edge nearby, or None where it does not settle.

    A quad from a broken or washed-out outline is often a cell or two off the marker (the wide
    threshold's shape grows or shrinks with the light; a hull takes in a smear), and the cells
    then read as nothing. OpenCV's ECC alignment (``findTransformECCWithMask``, a homography)
    fits the border-and-margin template to the image there, fingers left out (THRESHOLDS: what
    it reads on the hard scenes). The guard that reads the cells afterwards is unchanged, so a
    quad moved onto a dark square or a marker not ours reads as nothing.
    """
    return _ecc(grey, colour, quad, _TEMPLATE, _TEMPLATE_MASK, _TEMPLATE_CORNERS, ALIGN_STEPS, 1, 1 / 2)


def _ecc(grey: np.ndarray, colour: np.ndarray | None, quad: np.ndarray, template: np.ndarray,
         template_mask: np.ndarray, corners: np.ndarray, steps: int, smooth: int,
         reach: float) -> np.ndarray | None:
    """``quad`` moved by OpenCV's ECC (a homography) so that ``template`` (whose marker corners
    are ``corners``) fits the image round it, fingers left out; None where the fit fails or
    moves a corner more than ``reach`` of the marker's side (it slid onto something else)."""
    side = max(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4))
    pad = side * 2 / 7 + 3
    h, w = grey.shape
    x0, y0 = (max(int(v - pad), 0) for v in quad.min(axis=0))
    x1, y1 = (int(min(v + pad, lim)) for v, lim in zip(quad.max(axis=0), (w, h)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    crop = grey[y0:y1, x0:x1].astype(np.float32)
    usable = (np.full(crop.shape, 255, np.uint8) if colour is None
              else cv2.bitwise_not(colour[y0:y1, x0:x1]))
    offset = np.array([x0, y0], np.float32)
    warp = cv2.getPerspectiveTransform(corners, (quad - offset).astype(np.float32))
    try:
        _, warp = cv2.findTransformECCWithMask(
            template, crop, template_mask, usable, warp.astype(np.float32), cv2.MOTION_HOMOGRAPHY,
            (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, steps, 1e-4), smooth)
    except cv2.error:  # no contrast there, or the fit ran away (a singular step)
        return None
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), warp).reshape(4, 2) + offset
    if not np.isfinite(moved).all() or np.abs(moved - quad).max() > side * reach:
        return None
    return moved.astype(np.float32)


# A marker read: its whole picture (margin, border and its own 5×5 cells) as a template, cells of
# FIT_CELL px, for fitting its quad more closely than the border alone can (fit_marker).
FIT_CELL = 4
_FIT_CORNERS = np.array([[1, 1], [8, 1], [8, 8], [1, 8]], np.float32) * FIT_CELL - 0.5
_FIT_MASK = np.full((9 * FIT_CELL, 9 * FIT_CELL), 255, np.uint8)


@lru_cache(maxsize=None)
def _marker_template(marker_id: int) -> np.ndarray:
    cells = np.ones((9, 9), np.float32)
    cells[1:8, 1:8] = 0
    cells[2:7, 2:7] = markers.marker_bits(marker_id)
    return cv2.resize(cells * 255, (9 * FIT_CELL, 9 * FIT_CELL), interpolation=cv2.INTER_NEAREST)


def fit_marker(grey: np.ndarray, quad: np.ndarray, marker_id: int, steps: int = 15) -> np.ndarray | None:
    """``quad`` (corners from the marker's own top-left) fitted onto marker ``marker_id``'s whole
    picture by ECC, or None where it does not settle. A quad from the half-size look or from a
    hull is a pixel or two off, and a followed marker's cells read through it only in some frames
    (hard videos: 1.8 px median error at a corner); the marker's own cells give the fit edges in
    every direction."""
    return _ecc(grey, None, quad, _marker_template(marker_id), _FIT_MASK, _FIT_CORNERS, steps, 3, 1 / 4)


class _Quads:
    """Quads met so far, to tell a quad met again (every corner within ``px``, in any turn).
    Only nearly the same quad: the cells of quads 1–2 px apart do read differently (with 2 px,
    6 more of the 480 hard tokens were missed)."""

    def __init__(self, px: float = 0.5) -> None:
        self.px = px
        self.quads: list[np.ndarray] = []
        self.centres = np.empty((0, 2), np.float32)

    def __contains__(self, quad: np.ndarray) -> bool:
        near = np.flatnonzero(np.abs(self.centres - quad.mean(axis=0)).max(axis=1) < self.px)
        return any(np.abs(np.roll(quad, k, axis=0) - self.quads[i]).max() < self.px
                   for i in near for k in range(4))

    def add(self, quad: np.ndarray) -> None:
        self.quads.append(quad)
        self.centres = np.vstack([self.centres, quad.mean(axis=0)])


def _outlines(th: np.ndarray) -> list[np.ndarray]:
    contours, hier = cv2.findContours(th, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    # a hole's outline is left out: its shape's outer one is taken
    return [c for c, link in zip(contours, hier[0]) if link[3] < 0 and len(c) >= 4]


def _touches(mask: np.ndarray, contour: np.ndarray) -> bool:
    x, y, w, h = cv2.boundingRect(contour)
    return cv2.countNonZero(mask[y:y + h, x:x + w]) > 0


def _fingers_out(grey: np.ndarray, colour: np.ndarray, th: np.ndarray, window: int,
                 constant: int) -> np.ndarray:
    """``th`` (the adaptive threshold) again with the fingers' pixels left out of each window's
    mean, near them. A finger is bright: in the mean it makes the white margin next to it look
    dark, and that dark rim joins the marker's border to the finger's edge and the table, so the
    marker has no outline of its own (looked at: most hard misses with a finger at the marker's
    edge). Elsewhere the two thresholds are the same."""
    h, w = grey.shape
    x, y, bw, bh = cv2.boundingRect(colour)
    # the mean is taken over a crop a window wider than the fingers, and kept half a window
    # round them: farther out, no finger is in any window
    x0, y0, x1, y1 = max(x - window, 0), max(y - window, 0), min(x + bw + window, w), min(y + bh + window, h)
    keep = cv2.bitwise_not(colour[y0:y1, x0:x1])
    part = grey[y0:y1, x0:x1]
    size = (window, window)
    # 8-bit box means (rounded, as adaptiveThreshold's own): of the grey with fingers as 0, and
    # of the share of pixels that are not fingers; their ratio is the mean without the fingers
    total = cv2.blur(cv2.bitwise_and(part, keep), size, borderType=cv2.BORDER_REPLICATE)
    share = cv2.blur(keep, size, borderType=cv2.BORDER_REPLICATE)
    mean = cv2.divide(total, share, scale=255)
    dark = cv2.bitwise_and(cv2.compare(part, cv2.subtract(mean, np.full_like(mean, constant)), cv2.CMP_LE), keep)
    out = th.copy()
    m = window // 2 + 1
    ix0, iy0, ix1, iy1 = max(x - m, 0), max(y - m, 0), min(x + bw + m, w), min(y + bh + m, h)
    out[iy0:iy1, ix0:ix1] = dark[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
    return out


def candidates(grey: np.ndarray, colour: np.ndarray | None,
               thresholds: Sequence[tuple[int, int]] = THRESHOLDS,
               fingers_out: bool = True) -> list[np.ndarray]:
    """Quads (4×2 float32) of dark filled shapes of a marker's size, fingers cut out.
    ``fingers_out``: each threshold also with the fingers left out of its windows' means
    (:func:`_fingers_out`), where there are fingers."""
    grown = None if colour is None else cv2.dilate(colour, np.ones((3, 3), np.uint8))
    outlines = []
    fingers = fingers_out and colour is not None and cv2.countNonZero(colour) > 0
    for window, constant in thresholds:
        th = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                   window, constant)
        if colour is not None:
            th[colour > 0] = 0
        outlines += _outlines(th)
        if fingers and colour is not None:
            # only the shapes the fingers-out threshold changes: the rest are th's again
            other = _fingers_out(grey, colour, th, window, constant)
            changed = cv2.compare(th, other, cv2.CMP_NE)
            outlines += [c for c in _outlines(other) if _touches(changed, c)]
    out: list[np.ndarray] = []
    for c in outlines:
        x, y, w, h = cv2.boundingRect(c)
        if not MIN_SIDE <= max(w, h) <= MAX_SIDE:
            continue
        hull = cv2.convexHull(c)
        hull_area = cv2.contourArea(hull)
        if len(hull) < 4 or hull_area < MIN_SIDE * MIN_SIDE * 0.5:  # a triangle: approxPolyN asserts
            continue
        quads = []
        q = cv2.approxPolyN(hull, 4, ensure_convex=True)
        if q is not None and q.size == 8:
            quads.append(q.reshape(4, 2).astype(np.float32))
        if grown is not None and grown[y:y + h, x:x + w].any():
            back = _corner_back(hull, grown)
            if back is not None and not (quads and np.abs(back - quads[0]).max() < 1):
                quads.append(back)
        for q in quads:
            area = cv2.contourArea(q)
            if area > 0 and hull_area / area >= MIN_FILL:
                out.append(q)
    return out


# Otsu's split of a shape's own neighbourhood, and a fifth either side of it: a smear or glare
# shifts the level between black and white, so one of these keeps the marker one dark shape.
# Hard photos, tokens missed of 480: 64 without the split; 60 with Otsu's level alone; 55 with all
# three (held-out ranges 35 → 26, held-out lens 85 → 76; 0 wrong; docs/tokens.md).
LOCAL_SPLITS = (1.0, 0.85, 1.15)
MIN_PART = 30  # px; a dark part smaller than this is grain


def _local_quads(grey: np.ndarray, colour: np.ndarray | None, quad: np.ndarray) -> list[np.ndarray]:
    """Quads of the dark part at ``quad``'s place, split from white by Otsu's level of its own
    neighbourhood (fingers left out) rather than by an adaptive threshold's local mean.

    Under a heavy smear the adaptive windows cut a marker into its dark core or join it to the
    card's shadow, and the shapes found are 10–25 px off a 25–40 px marker: too far for
    :func:`align` to pull them in. One level for the whole neighbourhood keeps the smeared marker
    whole, and its hull is then near enough to align (looked at on the hard scenes' misses)."""
    h, w = grey.shape
    cx, cy = (float(v) for v in quad.mean(axis=0))
    side = max(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4))
    r = int(side * 1.1 + 4)
    x0, y0, x1, y1 = max(int(cx) - r, 0), max(int(cy) - r, 0), min(int(cx) + r, w), min(int(cy) + r, h)
    part = grey[y0:y1, x0:x1]
    keep = (np.full(part.shape, 255, np.uint8) if colour is None
            else cv2.bitwise_not(colour[y0:y1, x0:x1]))
    values = part[keep > 0]
    if values.size < MIN_PART * 4:
        return []
    level, _ = cv2.threshold(values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out = []
    for split in LOCAL_SPLITS:
        _, dark = cv2.threshold(part, level * split, 255, cv2.THRESH_BINARY_INV)  # at or below
        dark = cv2.bitwise_and(dark, keep)
        n, labels, stats, centres = cv2.connectedComponentsWithStats(dark)
        parts = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= MIN_PART]
        if not parts:
            continue
        # the part nearest the shape's centre
        k = min(parts, key=lambda k: float(np.hypot(centres[k][0] - (cx - x0), centres[k][1] - (cy - y0))))
        contours, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(max(contours, key=cv2.contourArea))
        if len(hull) < 4:  # a triangle: approxPolyN asserts
            continue
        q = cv2.approxPolyN(hull, 4, ensure_convex=True)
        if q is not None and q.size == 8:
            out.append(q.reshape(4, 2).astype(np.float32) + np.array([x0, y0], np.float32))
    return out


def recover(frame: np.ndarray, grey: np.ndarray, ids: tuple[int, ...],
            known: list[np.ndarray], rejected: Sequence[np.ndarray] = (),
            go_on: Callable[[], bool] | None = None, thorough: bool = True,
            done: Callable[[list[tuple[int, np.ndarray]]], bool] | None = None) -> list[tuple[int, np.ndarray]]:
    """(index into ids, corners from the marker's own top-left) of markers read from the broken
    shapes and from ``rejected`` (quads the detector could not decode), none inside a quad in
    ``known`` (markers already read). ``go_on``: asked before each quad is read; False stops
    (a video frame's time is up). ``done``: asked with what was found so far after each marker
    read; True stops (every seat of the table is read: nothing is left to look for).
    ``thorough``: the wide threshold, the thresholds with the
    fingers left out of their means, :func:`align`, the split at a shape's own level
    (:func:`_local_quads`) and the fit onto the likeliest marker (:func:`_read_fitted`) too: a
    photo's look. A video's first round of tiles leaves them out:
    on every tile they cost the hard videos 7 % more time a frame for the same ballots
    (TokenReader._deep_tile)."""
    found: list[tuple[int, np.ndarray]] = []
    colour = colour_mask(frame)
    # Quads read as nothing here, and quads aligned from: the two thresholds, ArUco's two passes
    # and a corner put back give several quads of one shape, each read (and aligned) once.
    unread, aligned_from = _Quads(), _Quads()
    shapes = candidates(grey, colour, THRESHOLDS if thorough else THRESHOLDS[:1], fingers_out=thorough)
    left: list[np.ndarray] = []  # shapes read as nothing, aligned or not
    guesses: list[np.ndarray] = []  # the same, aligned where that settled: for _read_fitted

    finished = False

    def keep(got: tuple[int, np.ndarray]) -> None:
        nonlocal known, finished
        # Two quads of one shape (its hull and its corner put back) read alike: keep one.
        if not any(i == got[0] and np.abs(c.mean(axis=0) - got[1].mean(axis=0)).max() < 4 for i, c in found):
            found.append(got)
            known = [*known, got[1]]
            finished = done is not None and done(found)

    # First the quick read of every quad as it was found; only then the careful looks, for the
    # quads that read as nothing and lie on no card read meanwhile (a marker's other shapes: the
    # other threshold's, a corner put back). Hard photos: the same tokens read, a fifth of the
    # alignments (docs/tokens.md).
    # (a quad, whether to align it): ArUco's rejected quads are not (it read none more)
    careful: list[np.ndarray] = []
    for q, aligned in [*((r, False) for r in rejected), *((s, thorough) for s in shapes)]:
        if finished or (go_on is not None and not go_on()):
            return found
        if _on_a_card(q, known):
            continue
        got = None
        if q not in unread:
            got = track.reread(frame, grey, q, ids)
            if got is None:
                unread.add(q)
        if got is not None:
            keep(got)
        elif aligned:
            careful.append(q)
    for q in careful:
        if finished or (go_on is not None and not go_on()):
            return found
        if _on_a_card(q, known):
            continue
        got, moved = None, None
        if q not in aligned_from:
            aligned_from.add(q)
            moved = align(grey, colour, q)
            if moved is not None and moved not in unread:
                got = track.reread(frame, grey, moved, ids)
                if got is None:
                    unread.add(moved)
        if got is not None:
            keep(got)
        else:
            left.append(q)
            guesses.append(q if moved is None else moved)
    # Then the shapes left, split by their own level: after every other read, so that it takes no
    # read from them (its quads are kept apart from theirs: a quad 0.5 px from one that read as
    # nothing may still read) and skips the markers they found.
    split_at: list[np.ndarray] = []
    tried, tried_unread = _Quads(), _Quads()
    for q in left:
        if finished:
            return found
        if _on_a_card(q, known):
            continue
        got = _read_local(frame, grey, colour, q, ids, known, tried, tried_unread, split_at, go_on)
        if got is not None:
            keep(got)
        elif go_on is not None and not go_on():
            return found
    # Last, each shape still unread fitted onto the likeliest markers' whole pictures.
    fitted = _Quads()
    for q in guesses:
        if finished or (go_on is not None and not go_on()):
            break
        if not _on_a_card(q, known):
            got = _read_fitted(frame, grey, q, ids, fitted)
            if got is not None:
                keep(got)
    return found


# Markers whose whole picture a shape still unread is fitted onto: the likeliest by its cells
# (track.likeliest). Hard photos, tokens read more of 480 (0 wrong): 1 tuned-on, 3 held-out
# ranges, 5 held-out lens with one guess (2, 3, 5 with two, for 1.4 rather than 1.2 times the time of
# a hard photo; docs/tokens.md).
GUESSES = 1


def _read_fitted(frame: np.ndarray, grey: np.ndarray, quad: np.ndarray, ids: tuple[int, ...],
                 fitted: _Quads) -> tuple[int, np.ndarray] | None:
    """A shape that read as nothing: its quad fitted by :func:`fit_marker` onto each of the
    GUESSES markers its cells look likeliest to be, and read again under the same guard.

    Under a heavy smear the border-and-margin template of :func:`align` has too few edges to
    settle within the pixel that a small marker's cells need (looked at: most shapes on markers the
    true corners read were 2–5 px off after aligning); a marker's own cells give edges inside it
    too. The fit only moves the quad: what it reads must still pass :func:`vision.track.reread`'s
    guard, so a quad fitted onto the wrong marker's picture reads as nothing."""
    for index, turn in track.likeliest(grey, quad, ids, GUESSES):
        moved = fit_marker(grey, np.roll(quad, turn, axis=0), ids[index])
        if moved is None or moved in fitted:
            continue
        fitted.add(moved)
        got = track.reread(frame, grey, moved, ids)
        if got is not None:
            return got
    return None


def _inside(quad: np.ndarray, known: list[np.ndarray]) -> bool:
    """Whether ``quad``'s centre lies in a marker already read."""
    centre = quad.mean(axis=0)
    pt = (float(centre[0]), float(centre[1]))
    return any(cv2.pointPolygonTest(k.reshape(-1, 1, 2).astype(np.float32), pt, False) >= 0 for k in known)


# A printed card round its marker, in the marker's own square (its top-left corner at 0, 0, its
# side 1): the sheet's card is 46 × 58 mm round a 32 mm marker, the band and the seat above it, the
# side's name below (vision/sheet.py). Another card's marker cannot lie there unless that card
# covers this marker. Taken 1 mm inside the card's edge.
_SIDE_MM = (sheet.CELL_W_MM - sheet.MARKER_MM) / 2 - 1
_TOP_MM = sheet.BAND_MM + sheet.QUIET_MM - 1
_BOTTOM_MM = sheet.CELL_H_MM - sheet.BAND_MM - sheet.QUIET_MM - sheet.MARKER_MM - 1
CARD_BOX = (-_SIDE_MM / sheet.MARKER_MM, -_TOP_MM / sheet.MARKER_MM,   # u0, v0, u1, v1
            1 + _SIDE_MM / sheet.MARKER_MM, 1 + _BOTTOM_MM / sheet.MARKER_MM)
_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


def _on_a_card(quad: np.ndarray, known: list[np.ndarray]) -> bool:
    """Whether ``quad``'s centre lies on the card of a marker already read (``known``: corners
    from each marker's own top-left). What a threshold finds there is that card's print (its seat
    number, its side's name, its band) or the marker itself: no marker of another seat, so the
    careful looks are not spent on it (hard photos: about two fifths of the dark shapes)."""
    if not known:
        return False
    centre = quad.mean(axis=0).reshape(1, 1, 2).astype(np.float32)
    u0, v0, u1, v1 = CARD_BOX
    for k in known:
        m = cv2.getPerspectiveTransform(k.reshape(4, 2).astype(np.float32), _UNIT)
        u, v = cv2.perspectiveTransform(centre, m).ravel()
        if u0 <= u <= u1 and v0 <= v <= v1:
            return True
    return False


def _read_local(frame: np.ndarray, grey: np.ndarray, colour: np.ndarray | None, quad: np.ndarray,
                ids: tuple[int, ...], known: list[np.ndarray], aligned_from: _Quads, unread: _Quads,
                split_at: list[np.ndarray], go_on: Callable[[], bool] | None) -> tuple[int, np.ndarray] | None:
    """A shape that read as nothing, aligned or not: the quads of its neighbourhood split by its
    own level (:func:`_local_quads`), each aligned and read. Once per neighbourhood. Read without
    aligning first, they read no token more (hard scenes: 55 missed either way) for more time."""
    centre = quad.mean(axis=0)
    if any(np.abs(centre - c).max() < 6 for c in split_at):
        return None
    split_at.append(centre)
    for q in _local_quads(grey, colour, quad):
        if go_on is not None and not go_on():
            return None
        if q in aligned_from or _on_a_card(q, known):  # a card already read, next to the shape
            continue
        aligned_from.add(q)
        moved = align(grey, colour, q)
        if moved is not None and moved not in unread:
            got = track.reread(frame, grey, moved, ids)
            if got is not None:
                return got
            unread.add(moved)
    return None
