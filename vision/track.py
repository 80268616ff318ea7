"""Tracking between frames: a seat read in an earlier frame is re-read where its marker lay.

During a vote the tokens lie still; what hides one for a frame is a hand passing over it, a
fingertip on its border, a smear of motion. ArUco then finds no four-sided contour and gives up,
though most of the marker is plain to see. Knowing where the marker was, its 7×7 cells are
sampled through the remembered quad; cells under something coloured (a finger: the print is
black on white) are *erasures*, not guesses. The visible bits must match one marker of the plan
in one of its turns with at most one disagreement, every other marker must disagree in at least
five more (the plan's markers are 7–9 bits apart, so an erasure never decides between two of
them), and the marker must be the same seat's: a card that moved reads as nothing here, and is
found again by the detector.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from . import markers

N = markers.MARKER_BITS + 2  # cells across, the black border included
CELL = 6
MAX_ERASED = 6
MAX_WRONG = 1
MARGIN = 5
MIN_GAP = 12.0  # grey levels between the dark and the light cells
MAX_LIGHT_BORDER = 6  # of the 24 border cells: glare and a pale fingertip lighten some


@lru_cache(maxsize=None)
def _plan_bits(ids: tuple[int, ...]) -> np.ndarray:
    """(markers, 4 turns, 25) bits, 1 = white."""
    return np.stack([np.stack([np.rot90(markers.marker_bits(i), k).ravel() for k in range(4)])
                     for i in ids]).astype(np.int8)


def _colour_mask(patch: np.ndarray) -> np.ndarray | None:
    """Coloured pixels (a finger, a sleeve), grown by a pixel for their soft edge."""
    if patch.ndim != 3 or patch.shape[2] not in (3, 4):
        return None
    hsv = cv2.cvtColor(np.ascontiguousarray(patch[:, :, :3]), cv2.COLOR_BGR2HSV)
    return cv2.dilate(cv2.inRange(hsv, (0, 80, 30), (180, 255, 255)), np.ones((3, 3), np.uint8))


def _split(values: np.ndarray) -> tuple[float, float]:
    """Otsu's threshold over a few dozen values, and the gap between the two groups' means."""
    v = np.sort(values)
    n = len(v)
    csum = np.cumsum(v)
    k = np.arange(1, n)
    m0 = csum[:-1] / k
    m1 = (csum[-1] - csum[:-1]) / (n - k)
    i = int(np.argmax(k * (n - k) * (m1 - m0) ** 2))
    return float((v[i] + v[i + 1]) / 2), float(m1[i] - m0[i])


def reread(frame: np.ndarray, grey: np.ndarray, quad: np.ndarray, ids: tuple[int, ...]):
    """(index into ids, corners from the marker's own top-left) or None. Only the quad's
    bounding box of the frame is looked at."""
    h, w = grey.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 3, [w, h])
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    grey = grey[y0:y1, x0:x1]
    colour = _colour_mask(frame[y0:y1, x0:x1])
    corner = np.array([x0, y0], np.float32)
    box = quad.astype(np.float32) - corner
    got = _read(grey, colour, box, ids)
    return None if got is None else (got[0], got[1] + corner)


def _read(grey, colour, quad, ids):
    side = N * CELL
    dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    view = cv2.warpPerspective(grey, m, (side, side), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    lo, hi = CELL // 4, CELL - CELL // 4  # the middle half of each cell
    cells = view.reshape(N, CELL, N, CELL)[:, lo:hi, :, lo:hi].mean(axis=(1, 3))
    erased = np.zeros((N, N), bool)
    if colour is not None:
        occ = cv2.warpPerspective(colour, m, (side, side), flags=cv2.INTER_NEAREST)
        erased = occ.reshape(N, CELL, N, CELL).mean(axis=(1, 3)) > 40
    visible = ~erased
    if visible.sum() < 30:
        return None
    got = _decide(cells, visible, _split(cells[visible]), ids)
    if got is None:
        # Glare or a shadow across the marker: its light changes from one side to the other,
        # and one threshold makes a bright corner's black cells white. Take out the plane the
        # light makes (fitted with the bits) and decide again; the guard is the same.
        got = _decide(*_flatten(cells, visible), ids)
    if got is None:
        # A glare spot on it: the light rises and falls across the marker; a curved surface.
        got = _decide(*_flatten(cells, visible, curved=True), ids)
    if got is None:
        return None
    best, turn = got
    # the sampled grid is the marker turned ``turn`` quarter turns anticlockwise (np.rot90):
    # its own top-left corner is the quad's corner ``-turn``
    return best, np.roll(quad.astype(np.float32), turn, axis=0)


_YY, _XX = np.mgrid[0:N, 0:N].astype(np.float32) / (N - 1)
_BORDER = np.ones((N, N), bool)
_BORDER[1:-1, 1:-1] = False


def _flatten(cells: np.ndarray, visible: np.ndarray, rounds: int = 3, curved: bool = False):
    """The cells with the light's slope removed: cells ≈ light(x, y) + d·white, light a plane
    (or, ``curved``, a quadratic surface: a glare spot), fitted over the visible cells with the
    bits refined a few times."""
    light = [_XX, _YY] + ([_XX * _XX, _YY * _YY, _XX * _YY] if curved else [])
    # First guess of the light from the border alone: its cells are all black.
    ring = visible & _BORDER
    if ring.sum() < 2 * (len(light) + 1):
        return cells, visible, (0.0, 0.0)
    design = np.stack([np.ones_like(_XX), *light], axis=-1)
    coef = np.linalg.lstsq(design[ring], cells[ring], rcond=None)[0]
    flat = cells - design[..., 1:] @ coef[1:]
    thr, gap = _split(flat[visible])
    for _ in range(rounds):
        white = (flat > thr).astype(np.float32)
        design = np.stack([np.ones_like(_XX), *light, white], axis=-1)[visible]
        coef = np.linalg.lstsq(design, cells[visible], rcond=None)[0]
        if coef[-1] <= 0:
            break
        flat = cells - sum(c * t for c, t in zip(coef[1:-1], light))
        thr, gap = _split(flat[visible])
    return flat, visible, (thr, gap)


def _decide(cells, visible, split, ids):
    """(index into ids, quarter turns) when the cells read as one marker of the plan beyond
    doubt, else None."""
    thr, gap = split
    if gap < MIN_GAP:
        return None
    white = cells > thr
    border = np.ones((N, N), bool)
    border[1:-1, 1:-1] = False
    if (white & border & visible).sum() > MAX_LIGHT_BORDER or (border & visible).sum() < 14:
        return None
    seen = visible[1:-1, 1:-1].ravel()
    if (~seen).sum() > MAX_ERASED:
        return None
    bits = white[1:-1, 1:-1].ravel().astype(np.int8)
    dist = ((_plan_bits(ids) != bits) & seen).sum(axis=2)
    per_marker = dist.min(axis=1)
    order = np.argsort(per_marker)
    best = int(order[0])
    if per_marker[best] > MAX_WRONG or per_marker[order[1]] < per_marker[best] + MARGIN:
        return None
    return best, int(dist[best].argmin())
