"""How many hard tokens the reader's cell decoding could read at best: each marker's cells read
at its *true* corners (the scene generator's), not where a detector found them.

    .venv/bin/python benchmarks/tokens_true_corners.py [--scenes 60] [--level hard] [--montage FILE]

Prints, of the level's tokens: read by the reader (single frames), read from the true corners
(``vision.track.reread``: the same guards), wrong either way, and the misses by the marker's
shortest side and by the share a finger covers. ``--montage`` writes the markers not even the true
corners read (100 px around each, twice enlarged) to look at what is left.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import synth, track  # noqa: E402
from vision.reader import TokenReader, as_grey  # noqa: E402

from _args import parse_quick  # noqa: E402

LEVEL_IDS = {"easy": 1, "moderate": 2, "hard": 3}  # as benchmarks/tokens_accuracy.py


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--level", choices=tuple(LEVEL_IDS), default="hard")
    ap.add_argument("--montage", type=Path)
    args = parse_quick(ap, argv, scenes=1)
    cv2.setNumThreads(1)
    reader = TokenReader(8, "token")
    ids = reader._ids
    rows, tiles = [], []
    for n in range(args.scenes):
        scene = synth.make_scene(np.random.default_rng([1, n, LEVEL_IDS[args.level]]), args.level, kind="token")
        reading = reader.read(scene.image)
        grey = as_grey(scene.image)
        fingers = track._colour_mask(scene.image)
        for pl in scene.placed:
            quad = pl.quad.astype(np.float32)
            got = reading.tokens.get(pl.face.seat)
            best = track.reread(scene.image, grey, quad, ids)
            best_face = None if best is None else reader._faces[ids[best[0]]].face
            mask = np.zeros(grey.shape, np.uint8)
            cv2.fillConvexPoly(mask, quad.astype(np.int32), 255)
            covered = float((fingers[mask > 0] > 0).mean()) if fingers is not None else 0.0
            side = min(float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4))
            rows.append((got == pl.face.face, got not in (None, pl.face.face),
                         best_face == pl.face.face, best_face not in (None, pl.face.face), side, covered))
            if best_face is None and args.montage is not None:
                cx, cy = quad.mean(axis=0).astype(int)
                x0, y0 = max(cx - 50, 0), max(cy - 50, 0)
                crop = scene.image[y0:y0 + 100, x0:x0 + 100]
                crop = cv2.copyMakeBorder(crop, 0, 100 - crop.shape[0], 0, 100 - crop.shape[1], cv2.BORDER_CONSTANT)
                tiles.append(cv2.resize(crop, (200, 200), interpolation=cv2.INTER_NEAREST))
    a = np.array(rows, float)
    total = len(a)
    print(f"{args.level}: {total} tokens in {args.scenes} scenes; reader reads {int(a[:, 0].sum())} "
          f"({int(a[:, 1].sum())} wrong); the true corners read {int(a[:, 2].sum())} "
          f"({int(a[:, 3].sum())} wrong): at best {100 * (1 - a[:, 2].mean()):.1f} % missed")
    unread = a[:, 2] == 0
    lost = int(((a[:, 0] == 0) & ~unread).sum())
    readable = int((~unread).sum())
    print(f"  missed by the reader though the true corners read them: {lost} of those {readable} "
          f"({100 * lost / max(readable, 1):.1f} %)")
    for lo, hi in ((0, 14), (14, 18), (18, 24), (24, 1e9)):
        sel = (a[:, 4] >= lo) & (a[:, 4] < hi)
        print(f"  shortest side {lo:>2}-{'' if hi > 1e8 else int(hi)} px: {int(sel.sum()):>4} tokens, "
              f"{int((sel & (a[:, 0] == 0)).sum()):>3} missed by the reader, {int((sel & unread).sum()):>3} by the true corners")
    for lo, hi in ((0, 0.001), (0.001, 0.1), (0.1, 0.2), (0.2, 1.01)):
        sel = (a[:, 5] >= lo) & (a[:, 5] < hi)
        print(f"  finger over {100 * lo:>4.1f}-{100 * min(hi, 1):.1f} % of the marker: {int(sel.sum()):>4} tokens, "
              f"{int((sel & (a[:, 0] == 0)).sum()):>3} missed by the reader, {int((sel & unread).sum()):>3} by the true corners")
    if args.montage is not None and tiles:
        while len(tiles) % 6:
            tiles.append(np.zeros_like(tiles[0]))
        args.montage.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(args.montage), np.vstack([np.hstack(tiles[i:i + 6]) for i in range(0, len(tiles), 6)]))
        print(f"montage of the {int(unread.sum())} unread: {args.montage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
