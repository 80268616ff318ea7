"""Is there more in the hard tokens' pixels than the reader's cell decoder takes out? Each marker
is read at its *true* corners (the scene generator's) by two decoders:

- the reader's own (``vision.track.reread``: cells thresholded, at most one wrong bit, every other
  marker of the plan five bits further);
- a *soft* decoder: the 7×7 cells (fingers left out) fitted by least squares as a plane of light
  plus a contrast times each marker's pattern, in each of its turns; the marker whose fit leaves
  the least misfit (per unit of contrast) wins if the runner-up's is GUARD times worse.

The soft decoder is run against the plan only (the 16 token sides, as a token vote reads) and
against the plan and every other marker of DICT_5X5_1000 (a marker not ours that fits about as
well refuses it). Its safety is measured by reading each marker again with its own true marker
left out: whatever is read then is a marker not ours read as ours (the table's other cards, another
game's). Prints, per guard: tokens read, wrong, and read with the true marker left out.

    .venv/bin/python benchmarks/tokens_soft_bound.py [--set tuned|ranges|lens] [--scenes 60] [--guards 1.5 2 3]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tokens_accuracy as bench  # noqa: E402
from vision import markers, synth, track  # noqa: E402
from vision.reader import TokenReader, as_grey  # noqa: E402

from _args import parse_quick  # noqa: E402

N = track.N
FAMILY = 1000


def _patterns() -> np.ndarray:
    """(1000 × 4 turns, 49) the 7×7 cells of every family marker, 1 = white, border 0."""
    out = np.zeros((FAMILY, 4, N, N))
    for i in range(FAMILY):
        bits = markers.marker_bits(i)
        for k in range(4):
            out[i, k, 1:-1, 1:-1] = np.rot90(bits, k)
    return out.reshape(FAMILY * 4, N * N)


_YY, _XX = np.mgrid[0:N, 0:N] / N - 0.5
_PLANE = np.stack([np.ones(N * N), _XX.ravel(), _YY.ravel()], axis=1)


def _cells(image: np.ndarray, grey: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 7×7 cells through the quad (middle half of each, as the reader samples) and which are
    not under a finger (the reader's colour mask)."""
    side = N * track.CELL
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), track._SQUARE)
    view = cv2.warpPerspective(grey, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lo, hi = track.CELL // 4, track.CELL - track.CELL // 4
    cells = view.reshape(N, track.CELL, N, track.CELL)[:, lo:hi, :, lo:hi].mean(axis=(1, 3))
    colour = track._colour_mask(image)
    seen = np.ones((N, N), bool)
    if colour is not None:
        occ = cv2.warpPerspective(colour, m, (side, side), flags=cv2.INTER_NEAREST)
        seen = occ.reshape(N, track.CELL, N, track.CELL).mean(axis=(1, 3)) <= 40
    return cells.ravel(), seen.ravel()


def misfits(cells: np.ndarray, seen: np.ndarray, patterns: np.ndarray) -> np.ndarray:
    """Per family marker (best turn): the least-squares misfit of plane + contrast × pattern over
    the cells seen, divided by the contrast squared; inf where the contrast is not positive."""
    y = cells[seen]
    q, _ = np.linalg.qr(_PLANE[seen])
    ry = y - q @ (q.T @ y)
    p = patterns[:, seen]
    rp = p - (p @ q) @ q.T
    pp = np.maximum((rp * rp).sum(axis=1), 1e-9)
    yp = rp @ ry
    contrast = yp / pp
    left = ry @ ry - yp * yp / pp
    out = np.where(contrast > 5, left / np.maximum(contrast * contrast, 1e-9), np.inf)
    return out.reshape(FAMILY, 4).min(axis=1)


def choose(misfit: np.ndarray, plan: np.ndarray, guard: float, family: bool, left_out: int | None) -> int | None:
    m = misfit.copy()
    if not family:
        keep = np.zeros(FAMILY, bool)
        keep[plan] = True
        m[~keep] = np.inf
    if left_out is not None:
        m[left_out] = np.inf
    order = np.argsort(m)
    best, second = int(order[0]), int(order[1])
    if best not in plan or not np.isfinite(m[best]):
        return None
    return best if m[best] * guard < m[second] else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("tuned", "ranges", "lens"), default="tuned")
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--guards", type=float, nargs="+", default=[1.5, 2.0, 3.0])
    args = parse_quick(ap, argv, scenes=1, guards=[2.0])
    cv2.setNumThreads(1)
    over, seed = bench._variant("hard", 1, None if args.set == "tuned" else args.set)
    reader = TokenReader(8, "token")
    ids = reader._ids
    plan = np.array(ids)
    patterns = _patterns()
    # per guard and comparison: read right, wrong, read with the true marker left out
    counts = {(g, fam): [0, 0, 0] for g in args.guards for fam in (False, True)}
    cell = [0, 0, 0]
    total = 0
    for n in range(args.scenes):
        scene = synth.make_scene(np.random.default_rng([seed, n, bench.LEVEL_IDS["hard"]]), "hard",
                                 kind="token", **over)
        grey = as_grey(scene.image)
        for pl in scene.placed:
            total += 1
            quad = pl.quad.astype(np.float32)
            true = pl.face.marker_id
            got = track.reread(scene.image, grey, quad, ids)
            got_id = None if got is None else ids[got[0]]
            cell[0] += got_id == true
            cell[1] += got_id not in (None, true)
            others = tuple(i for i in ids if i != true)
            cell[2] += track.reread(scene.image, grey, quad, others) is not None
            cells, seen = _cells(scene.image, grey, quad)
            if seen.sum() < 10:
                continue
            misfit = misfits(cells, seen, patterns)
            for (g, fam), c in counts.items():
                read = choose(misfit, plan, g, fam, None)
                c[0] += read == true
                c[1] += read not in (None, true)
                c[2] += choose(misfit, plan, g, fam, true) is not None
    print(f"hard tokens, set {args.set}: {total} in {args.scenes} scenes, read at their true corners")
    print(f"  the reader's cell decoder: read {cell[0]} ({100 * (1 - cell[0] / total):.1f} % missed), "
          f"wrong {cell[1]}, read with the true marker left out {cell[2]}")
    for (g, fam), (right, wrong, stranger) in counts.items():
        against = "the plan and the whole family" if fam else "the plan only"
        print(f"  soft, guard {g:g}, against {against}: read {right} ({100 * (1 - right / total):.1f} % missed), "
              f"wrong {wrong}, read with the true marker left out {stranger}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
