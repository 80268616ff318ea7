"""`python -m vision.tokens read` on rendered table photos, against an earlier commit's, in one run.

    .venv/bin/python benchmarks/tokens_read_cli.py --against main [--photos 40] [--level hard] [--rounds 2]
    .venv/bin/python benchmarks/tokens_read_cli.py --quick        # 4 photos, one round, against HEAD

Renders ``--photos`` 1280×720 JPEG photos of 8 tokens (vision/synth.py, seeded; the tuned-on scenes'
seeds), then runs the command line itself (a subprocess, as a person would) over all of them with the
earlier commit's ``vision`` package (``git archive`` into a temporary folder) and with the working
tree's, taking turns for ``--rounds`` rounds. Printed for each: wall seconds a photo (the whole
command, start-up included, divided by the photos: how the issue measured it), the median of the
rounds, tokens missed and wrong sides against the photos' truth, and the load average (this
machine is shared: the ratio of the two, measured in the same run, is the figure to compare).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision import synth  # noqa: E402

from _args import parse_quick  # noqa: E402

LEVEL_IDS = {"easy": 1, "moderate": 2, "hard": 3}  # as benchmarks/tokens_accuracy.py seeds them


def _earlier(rev: str, into: Path) -> Path:
    """A folder holding ``rev``'s vision package (and this tree's companion, which it imports)."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "vision"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    (into / "companion").symlink_to(ROOT / "companion")
    return into


def _run(pythonpath: Path, photos: list[Path]) -> tuple[float, list[dict]]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "vision.tokens", "read", "--json", *map(str, photos)],
                       capture_output=True, text=True, env=env, cwd=pythonpath)
    took = time.perf_counter() - t0
    return took, [json.loads(line) for line in p.stdout.splitlines()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="main", metavar="REV")
    ap.add_argument("--photos", type=int, default=40)
    ap.add_argument("--level", default="hard", choices=tuple(LEVEL_IDS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = parse_quick(ap, argv, help="4 photos, one round, against HEAD (seconds)",
                       photos=4, rounds=1, against="HEAD")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        photos, truth = [], {}
        for n in range(args.photos):
            scene = synth.make_scene(np.random.default_rng([args.seed, n, LEVEL_IDS[args.level]]), args.level, kind="token")
            path = folder / f"table{n:03d}.jpg"
            cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            photos.append(path)
            truth[str(path)] = scene.truth
        old = _earlier(args.against, folder / "old")
        names = {args.against: old, "now": ROOT}
        took: dict[str, list[float]] = {k: [] for k in names}
        counts = {}
        for r in range(args.rounds):
            for k in (list(names) if r % 2 == 0 else list(names)[::-1]):
                seconds, lines = _run(names[k], photos)
                took[k].append(seconds / len(photos))
                missed = wrong = 0
                for line in lines:
                    read = {t["player"]: t["side"] for t in line["tokens"]}
                    want = truth[line["image"]]
                    missed += sum(1 for s in want if s not in read)
                    wrong += sum(1 for s, side in read.items() if want.get(s) != side)
                missed += sum(len(truth[str(p)]) for p in photos if str(p) not in {ln["image"] for ln in lines})
                counts[k] = (missed, wrong)
    print(f"tokens_read_cli: `python -m vision.tokens read --json` over {args.photos} {args.level} photos "
          f"(1280×720, 8 tokens), {args.rounds} round(s) each in turn; load average {os.getloadavg()[0]:.2f}")
    print(f"{'reader':<12}{'s a photo (median of rounds)':>30}{'rounds':>24}{'missed':>8}{'wrong':>7}")
    for k in names:
        rounds = " ".join(f"{x * 1000:.0f}" for x in took[k])
        print(f"{k:<12}{np.median(took[k]) * 1000:>27.0f} ms{rounds:>24}{counts[k][0]:>8}{counts[k][1]:>7}")
    print(f"ratio now / {args.against}: {np.median(took['now']) / np.median(took[args.against]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
