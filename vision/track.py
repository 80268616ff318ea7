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


_WEIGHTS = (1 << np.arange((N - 2) ** 2, dtype=np.int64))


@lru_cache(maxsize=None)
def _plan_codes(ids: tuple[int, ...]) -> np.ndarray:
    """(markers, 4 turns) the 25 bits packed in one integer each (bit k = cell k is white), so
    that the bits two readings disagree in are one XOR and a count (np.bitwise_count)."""
    return (_plan_bits(ids).astype(np.int64) @ _WEIGHTS).astype(np.uint32)


def _pack(bits: np.ndarray) -> np.ndarray:
    """Rows of 25 bits (any leading shape) packed as :func:`_plan_codes` packs them."""
    return (bits.astype(np.int64) @ _WEIGHTS).astype(np.uint32)


def _colour_mask(patch: np.ndarray) -> np.ndarray | None:
    """Coloured pixels (a finger, a sleeve), grown by a pixel for their soft edge."""
    if patch.ndim != 3 or patch.shape[2] not in (3, 4):
        return None
    hsv = cv2.cvtColor(np.ascontiguousarray(patch[:, :, :3]), cv2.COLOR_BGR2HSV)
    return cv2.dilate(cv2.inRange(hsv, (0, 80, 30), (180, 255, 255)), np.ones((3, 3), np.uint8))


@lru_cache(maxsize=None)
def _otsu_weights(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For Otsu over n sorted values split after k = 1 … n-1: 1/k, 1/(n-k) and k(n-k)."""
    k = np.arange(1, n, dtype=np.float64)
    return 1 / k, 1 / (n - k), k * (n - k)


def _split(values: np.ndarray) -> tuple[float, float]:
    """Otsu's threshold over a few dozen values, and the gap between the two groups' means."""
    v = np.sort(values, axis=None).astype(np.float64)
    inv_low, inv_high, weight = _otsu_weights(v.size)
    csum = np.cumsum(v)
    low = csum[:-1]
    gap = (csum[-1] - low) * inv_high - low * inv_low  # the two groups' means apart
    i = int((weight * gap * gap).argmax())
    return float(v[i] + v[i + 1]) / 2, float(gap[i])


_SQUARE = np.array([[0, 0], [N * CELL, 0], [N * CELL, N * CELL], [0, N * CELL]], np.float32)
_ALL = np.ones((N, N), bool)


def sample(grey: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """The marker's 7×7 cells (the middle half of each, as :func:`reread` samples them) through
    ``quad``, or None where the quad is too small to sample."""
    h, w = grey.shape[:2]
    x, y, bw, bh = cv2.boundingRect(quad.astype(np.float32))
    x0, y0, x1, y1 = max(x - 2, 0), max(y - 2, 0), min(x + bw + 3, w), min(y + bh + 3, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    box = (quad - np.array([x0, y0], np.float32)).astype(np.float32)
    view = cv2.warpPerspective(grey[y0:y1, x0:x1], cv2.getPerspectiveTransform(box, _SQUARE),
                               (N * CELL, N * CELL), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lo, hi = CELL // 4, CELL - CELL // 4
    return view.reshape(N, CELL, N, CELL)[:, lo:hi, :, lo:hi].mean(axis=(1, 3), dtype=np.float32)


_RING = np.array([i for i in range(N * N) if i // N in (0, N - 1) or i % N in (0, N - 1)])
_INNER = np.array([i for i in range(N * N) if 0 < i // N < N - 1 and 0 < i % N < N - 1])


def decide_many(cells: np.ndarray, ids: tuple[int, ...]) -> list[tuple[int, int] | None]:
    """(index into ids, quarter turns) or None for each of a stack of cells (T × 7 × 7, nothing
    erased): :func:`_decide` with one threshold, then :func:`_decide_blurred`, with the same
    guards, in a few array operations for all rather than a few dozen per marker (a video frame
    reads every followed marker this way)."""
    t = len(cells)
    if t == 0:
        return []
    rows = np.arange(t)
    flat = cells.reshape(t, N * N).astype(np.float64)
    # Otsu's threshold per row, as _split
    v = np.sort(flat, axis=1)
    n = N * N
    csum = np.cumsum(v, axis=1)
    k = np.arange(1, n)
    m0 = csum[:, :-1] / k
    m1 = (csum[:, -1:] - csum[:, :-1]) / (n - k)
    i = np.argmax(k * (n - k) * (m1 - m0) ** 2, axis=1)
    thr = (v[rows, i] + v[rows, i + 1]) / 2
    gap = m1[rows, i] - m0[rows, i]
    white = flat > thr[:, None]
    ok = (gap >= MIN_GAP) & (white[:, _RING].sum(axis=1) <= MAX_LIGHT_BORDER)
    dist = np.bitwise_count(_plan_codes(ids)[None] ^ _pack(white[:, _INNER])[:, None, None])  # T × markers × 4
    per_marker = dist.min(axis=2)
    best = per_marker.argmin(axis=1)
    second = np.partition(per_marker, 1, axis=1)[:, 1]
    ok &= (per_marker[rows, best] <= MAX_WRONG) & (second >= per_marker[rows, best] + MARGIN)
    turn = dist[rows, best].argmin(axis=1)
    out: list[tuple[int, int] | None] = [(int(b), int(r)) if g else None for b, r, g in zip(best, turn, ok)]
    left = [j for j in range(t) if out[j] is None]
    if left:
        for j, got in zip(left, _blurred_many(flat[left], ids)):
            out[j] = got
    return out


def _blurred_many(y: np.ndarray, ids: tuple[int, ...]) -> list[tuple[int, int] | None]:
    """:func:`_decide_blurred` for rows of 49 cells with nothing erased: the misfit of every
    marker and turn is |y|² − |Qᵀy|², one product for all rows."""
    proj = (_blur_bases(ids) @ y.T).reshape(-1, 6, len(y))
    misfit = (y * y).sum(axis=1)[None, :] - (proj ** 2).sum(axis=1)  # (markers · 4) × rows
    # _blur_guard's first two tests for all rows at once; only the rows they pass go on to it
    per_marker = np.maximum(misfit, 1e-9).reshape(len(ids), 4, len(y)).min(axis=1)
    two = np.partition(per_marker, 1, axis=0)
    spread = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        hopeful = (spread > 0) & (1 - two[0] / spread >= SOFT_MIN_FIT) & (two[1] >= SOFT_MARGIN * two[0])
    out: list[tuple[int, int] | None] = [None] * len(y)
    for j in np.flatnonzero(hopeful):
        out[j] = _blur_guard(misfit[:, j], y[j], ids)
    return out


def likeliest(grey: np.ndarray, quad: np.ndarray, ids: tuple[int, ...], count: int) -> list[tuple[int, int]]:
    """The ``count`` (index into ids, quarter turns) whose blurred picture (the blur model's)
    fits the cells at ``quad`` best, best first: guesses, not readings (no guard)."""
    cells = sample(grey, quad)
    if cells is None:
        return []
    y = cells.ravel().astype(np.float64)
    proj = (_blur_bases(ids) @ y).reshape(-1, 6)
    misfit = (y @ y) - (proj ** 2).sum(axis=1)
    return [(int(k) // 4, int(k) % 4) for k in np.argsort(misfit)[:count]]


def reread(frame: np.ndarray, grey: np.ndarray, quad: np.ndarray, ids: tuple[int, ...],
           quick_failed: bool = False) -> tuple[int, np.ndarray] | None:
    """(index into ids, corners from the marker's own top-left) or None. Only the quad's
    bounding box of the frame is looked at. ``quick_failed``: :func:`decide_many` already failed
    on these cells (a followed marker), so where nothing is erased its two decisions are not
    made again."""
    h, w = grey.shape[:2]
    # the marker and the white margin round it (a cell, :func:`_margin_light`)
    pad = int(max(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4)) / (N - 1)) + 3
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - pad, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + pad + 1, [w, h])
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    grey = grey[y0:y1, x0:x1]
    colour = _colour_mask(frame[y0:y1, x0:x1])
    corner = np.array([x0, y0], np.float32)
    box = quad.astype(np.float32) - corner
    got = _read(grey, colour, box, ids, quick_failed)
    return None if got is None else (got[0], got[1] + corner)


def _read(grey: np.ndarray, colour: np.ndarray | None, quad: np.ndarray, ids: tuple[int, ...],
          quick_failed: bool = False) -> tuple[int, np.ndarray] | None:
    # the marker's 7×7 cells and the ring of margin cells round them: 9×9
    side, n = (N + 2) * CELL, N + 2
    dst = np.array([[CELL, CELL], [side - CELL, CELL], [side - CELL, side - CELL], [CELL, side - CELL]],
                   np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    view = cv2.warpPerspective(grey, m, (side, side), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    lo, hi = CELL // 4, CELL - CELL // 4  # the middle half of each cell
    around = view.reshape(n, CELL, n, CELL)[:, lo:hi, :, lo:hi].mean(axis=(1, 3))
    erased_around = np.zeros((n, n), bool)
    if colour is not None:
        occ = cv2.warpPerspective(colour, m, (side, side), flags=cv2.INTER_NEAREST)
        erased_around = occ.reshape(n, CELL, n, CELL).mean(axis=(1, 3)) > 40
    cells, erased = around[1:-1, 1:-1], erased_around[1:-1, 1:-1]
    visible = ~erased
    if visible.sum() < 30:
        return None
    again = not (quick_failed and visible.all())  # decide_many's two tries, made again?
    got = _decide(cells, visible, _split(cells[visible]), ids) if again else None
    if got is None and again:
        # Smear or a soft focus: neighbouring cells bleed into each other and no threshold
        # separates them. Compare the cells with every marker as the blur would show it (first:
        # it reads the most of these three, and costs the least where nothing is erased).
        got = _decide_blurred(cells, visible, ids)
    if got is None:
        # Glare or a shadow across the marker: its light changes from one side to the other,
        # and one threshold makes a bright corner's black cells white. Take out the plane the
        # light makes (fitted with the bits) and decide again; the guard is the same.
        got = _decide(*_flatten(cells, visible), ids)
    if got is None and _shortest_side(quad) >= CURVED_MIN_SIDE:
        # A glare spot on it: the light rises and falls across the marker; a curved surface.
        got = _decide(*_flatten(cells, visible, curved=True), ids)
    if got is None or not _margin_light(around, erased_around, ids[got[0]], got[1]):
        return None
    best, turn = got
    # the sampled grid is the marker turned ``turn`` quarter turns anticlockwise (np.rot90):
    # its own top-left corner is the quad's corner ``-turn``
    return best, np.roll(quad.astype(np.float32), turn, axis=0)


# A marker foreshortened to a sliver has cells a pixel or two across, each a blend of its
# neighbours: a curved light fitted to them (six terms for 49 cells) can turn them into a marker
# they are not. Measured on the strangers level (cards carrying markers not ours, held-out lens):
# a 10-px sliver of a stranger read as seat 4's remain side that way; with this floor, none,
# and the three sets' hard photos read the same tokens (docs/tokens.md).
CURVED_MIN_SIDE = 14.0  # px, the quad's shortest side


def _shortest_side(quad: np.ndarray) -> float:
    return min(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4))


_OUTER = np.ones((N + 2, N + 2), bool)
_OUTER[1:-1, 1:-1] = False
# Share of the margin cells seen that must be lighter than halfway. Measured: hard photos read the
# same tokens (tuned-on, held-out ranges; 1 fewer of 480 held-out lens), and 240 scenes whose cards
# carry markers not ours read nothing (before: one, a quad on glare and brown table, the table's
# cells erased as coloured and the rest spelling seat 8's remain side; docs/tokens.md).
MARGIN_LIGHT = 0.5


def _margin_light(around: np.ndarray, erased: np.ndarray, marker_id: int, turn: int) -> bool:
    """Whether the ring of cells round a marker read there is the white margin every printed
    marker has: at least MARGIN_LIGHT of the cells seen lighter than halfway between the border's
    black and the marker's own white cells. A quad that is not on a marker (a dark patch of table
    beside glare, say) whose cells happen to spell one of ours has table round it."""
    seen = _OUTER & ~erased
    if np.count_nonzero(seen) < 8:
        return False  # too little of it seen (table the colour mask took for a finger, say): not a read
    inner = around[1:-1, 1:-1]
    shown = ~erased[1:-1, 1:-1]
    white = np.rot90(markers.marker_bits(marker_id), turn).astype(bool) & shown[1:-1, 1:-1]
    dark = _BORDER & shown
    if not white.any() or not dark.any():
        return True
    level = (float(np.median(inner[1:-1, 1:-1][white])) + float(np.median(inner[dark]))) / 2
    return float((around[seen] > level).mean()) >= MARGIN_LIGHT


_YY, _XX = np.mgrid[0:N, 0:N].astype(np.float32) / (N - 1)
_BORDER = np.ones((N, N), bool)
_BORDER[1:-1, 1:-1] = False


def _fit(design: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Least squares by the normal equations (a few unknowns: ten times quicker than lstsq;
    OpenCV's Cholesky three times quicker than numpy's solve); the small ridge settles a column
    that repeats another, as lstsq's minimum norm would."""
    a = design.astype(np.float64)
    gram = a.T @ a
    gram.flat[::a.shape[1] + 1] += 1e-6
    rhs = (a.T @ values.astype(np.float64))[:, None]
    ok, x = cv2.solve(gram, rhs, flags=cv2.DECOMP_CHOLESKY)
    return (x if ok else np.linalg.solve(gram, rhs)).ravel()


# the light's terms over the cells: a plane, and a quadratic surface (a glare spot)
_PLANE = np.stack([np.ones_like(_XX), _XX, _YY], axis=-1).astype(np.float64)
_CURVED = np.stack([np.ones_like(_XX), _XX, _YY, _XX * _XX, _YY * _YY, _XX * _YY], axis=-1).astype(np.float64)


def _flatten(cells: np.ndarray, visible: np.ndarray, rounds: int = 3,
             curved: bool = False) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """The cells with the light's slope removed: cells ≈ light(x, y) + d·white, light a plane
    (or, ``curved``, a quadratic surface: a glare spot), fitted over the visible cells with the
    bits refined a few times."""
    light = _CURVED if curved else _PLANE
    # First guess of the light from the border alone: its cells are all black.
    ring = visible & _BORDER
    if np.count_nonzero(ring) < 2 * light.shape[-1]:
        return cells, visible, (0.0, 0.0)
    coef = _fit(light[ring], cells[ring])
    flat = cells - light[..., 1:] @ coef[1:]
    seen, light_seen = cells[visible].astype(np.float64), light[visible]
    thr, gap = _split(flat[visible])
    last = None
    for _ in range(rounds):
        white = flat[visible] > thr
        if last is not None and np.array_equal(white, last):
            break  # the same bits fit the same light again
        last = white
        coef = _fit(np.column_stack([light_seen, white]), seen)
        if coef[-1] <= 0:
            break
        flat = cells - light[..., 1:] @ coef[1:-1]
        thr, gap = _split(flat[visible])
    return flat, visible, (thr, gap)


def _decide(cells: np.ndarray, visible: np.ndarray, split: tuple[float, float],
            ids: tuple[int, ...]) -> tuple[int, int] | None:
    """(index into ids, quarter turns) when the cells read as one marker of the plan beyond
    doubt, else None."""
    thr, gap = split
    if gap < MIN_GAP:
        return None
    white = cells > thr
    ring = _BORDER & visible
    if np.count_nonzero(white & ring) > MAX_LIGHT_BORDER or np.count_nonzero(ring) < 14:
        return None
    seen = visible[1:-1, 1:-1].ravel()
    if (~seen).sum() > MAX_ERASED:
        return None
    # bits that disagree, among the cells seen: XOR of the packed bits, erased cells masked off
    dist = np.bitwise_count((_plan_codes(ids) ^ _pack(white[1:-1, 1:-1].ravel())) & _pack(seen))
    per_marker = dist.min(axis=1)
    best = int(per_marker.argmin())
    if per_marker[best] > MAX_WRONG or np.partition(per_marker, 1)[1] < per_marker[best] + MARGIN:
        return None
    return best, int(dist[best].argmin())


# The blurred decision's guard (benchmarks/tokens_accuracy.py, hard scenes with the true quads:
# at 2× the second marker's misfit one marker in 240 was read wrong; at 3× none, on any level,
# held-out sets and empty tables included).
SOFT_MIN_FIT = 0.6  # share of the cells' variance the marker explains
SOFT_MARGIN = 3.0  # the next marker (any turn) must fit this many times worse


@lru_cache(maxsize=None)
def _blur_designs(ids: tuple[int, ...]) -> np.ndarray:
    """(markers × 4 turns, 49 cells, 6) regressors: a constant, the cell's own bit, and the sums
    of its four pairs of opposite neighbours (the white margin outside) — a symmetric blur (motion
    or focus) of any direction and length up to a cell, whose weights are fitted per marker."""
    bits = _plan_bits(ids)
    m = bits.shape[0]
    full = np.zeros((m * 4, N, N), np.float32)
    full[:, 1:-1, 1:-1] = bits.reshape(m * 4, N - 2, N - 2)
    pad = np.pad(full, ((0, 0), (1, 1), (1, 1)), constant_values=1.0)

    def shift(dy: int, dx: int) -> np.ndarray:
        return pad[:, 1 + dy:1 + dy + N, 1 + dx:1 + dx + N]

    cols = [np.ones_like(full), full, shift(0, -1) + shift(0, 1), shift(-1, 0) + shift(1, 0),
            shift(-1, -1) + shift(1, 1), shift(-1, 1) + shift(1, -1)]
    return np.stack([c.reshape(m * 4, N * N) for c in cols], axis=-1).astype(np.float64)


@lru_cache(maxsize=None)
def _blur_bases(ids: tuple[int, ...]) -> np.ndarray:
    """Orthonormal bases of the regressors, for cells with nothing erased (most quads): the misfit
    is then |y|² − |Qᵀy|², one product for every marker and turn at once. Stored as Qᵀ stacked:
    (markers × 4 turns × 6, 49)."""
    q = np.linalg.qr(_blur_designs(ids))[0]
    return np.ascontiguousarray(q.transpose(0, 2, 1).reshape(-1, N * N))


_PAIRS = [(i, j) for i in range(6) for j in range(i, 6)]  # the Gram matrix's entries, i ≤ j
_PAIR_ROWS, _PAIR_COLS = np.array(_PAIRS).T


@lru_cache(maxsize=None)
def _blur_grams(ids: tuple[int, ...]) -> np.ndarray:
    """(21 entries × markers × 4 turns, 49 cells): each cell's products of two regressors, so that
    every marker's and turn's Gram matrix over any set of visible cells is one product with the
    visibility mask. Small integers: float32 holds them exactly, at half the memory to read."""
    x = _blur_designs(ids)
    return np.ascontiguousarray((x[:, :, _PAIR_ROWS] * x[:, :, _PAIR_COLS]).transpose(2, 0, 1).reshape(-1, N * N), np.float32)


@lru_cache(maxsize=None)
def _blur_regressors(ids: tuple[int, ...]) -> np.ndarray:
    """The regressors stacked, (6 × markers × 4 turns, 49 cells)."""
    x = _blur_designs(ids)
    return np.ascontiguousarray(x.transpose(2, 0, 1).reshape(-1, N * N))


def _misfits_erased(visible: np.ndarray, y: np.ndarray, ids: tuple[int, ...]) -> np.ndarray:
    """Every marker's and turn's least-squares misfit over the visible cells (``visible``: 49
    flags, ``y``: the visible cells' values): |y|² − |L⁻¹Xᵀy|², L the Cholesky factor of XᵀX,
    a column at a time over all markers at once (numpy's batched solve calls LAPACK once per
    marker and turn: several times slower for 352 systems of 6)."""
    k = _blur_designs(ids).shape[2]
    grams = (_blur_grams(ids) @ visible.astype(np.float32)).astype(np.float64).reshape(len(_PAIRS), -1)
    gram = np.empty((k, k, grams.shape[1]))
    gram[_PAIR_ROWS, _PAIR_COLS] = grams
    gram[_PAIR_COLS, _PAIR_ROWS] = grams
    full = np.zeros(N * N)
    full[visible] = y
    rhs = (_blur_regressors(ids) @ full).reshape(k, -1)
    low = np.zeros_like(gram)
    z = np.zeros_like(rhs)
    for j in range(k):
        col = gram[j:, j] - (low[j:, :j] * low[j, :j]).sum(axis=1)
        # the ridge (1e-6) settles a column that repeats another, as in _fit
        d = np.sqrt(np.maximum(col[0] + 1e-6, 1e-12))
        low[j:, j] = col / d
        z[j] = (rhs[j] - (low[j, :j] * z[:j]).sum(axis=0)) / d
    return float(y @ y) - (z * z).sum(axis=0)


def _decide_blurred(cells: np.ndarray, visible: np.ndarray, ids: tuple[int, ...]) -> tuple[int, int] | None:
    """(index into ids, quarter turns) of the one marker whose blurred picture explains the cells
    far better than any other's, else None (soft decision: the cells' grey levels, not bits)."""
    v = visible.ravel()
    y = cells.ravel()[v].astype(np.float64)
    if v.all():
        return _blurred_many(y[None], ids)[0]
    return _blur_guard(_misfits_erased(v, y, ids), y, ids, v)


def _blur_guard(misfit: np.ndarray, y: np.ndarray, ids: tuple[int, ...],
                visible: np.ndarray | None = None) -> tuple[int, int] | None:
    """The blurred decision from every marker's and turn's misfit (markers · 4) over the visible
    cells ``y`` (``visible``: which of the 49 they are, None for all): (index into ids, quarter
    turns) or None."""
    spread = float(((y - y.mean()) ** 2).sum())
    if spread <= 0:
        return None
    misfit = np.maximum(misfit, 1e-9).reshape(len(ids), 4)
    per_marker = misfit.min(axis=1)
    best = int(per_marker.argmin())
    if 1 - per_marker[best] / spread < SOFT_MIN_FIT or np.partition(per_marker, 1)[1] < SOFT_MARGIN * per_marker[best]:
        return None
    turn = int(misfit[best].argmin())
    design = _blur_designs(ids)[best * 4 + turn]
    w = _fit(design if visible is None else design[visible], y)
    # White cells must look lighter than black ones, and the blur must keep most of the contrast
    # at the cell itself (a negative weight would be a picture of another marker's edges).
    if w[1] <= 0 or w[1] + 2 * w[2:].sum() < MIN_GAP:
        return None
    return best, turn
