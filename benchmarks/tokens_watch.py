"""Reading votes from rendered table clips, as ``python -m vision.tokens watch`` and the app do.

    .venv/bin/python benchmarks/tokens_watch.py [--clips 10] [--levels moderate,hard] [--seconds 4] [--seed 1] [--live]
    .venv/bin/python benchmarks/tokens_watch.py --quick        # a tiny run, a few seconds

Each clip (vision/clips.py, seeded) films one table at 30 frames a second with a shaking camera:
the eight tokens are brought in one after another by a hand (each then has at least 2 s in view), a hand passes over the table, glare
moves, and the frames get motion blur, noise and JPEG. Every frame goes through the camera source
the app and ``watch`` use (``CameraSource.step``: the tracking reader, then the stabiliser that
casts a seat's side once it holds over 5 frames), read as ``watch`` reads a video file: the
reader's frame budget counted in work, so a clip reads the same at any load (the digest printed is
the same from run to run); ``--live`` reads as a live camera does, the budget in CPU time, which
the machine's load moves.

Printed per level: ballots (seats), WRONG ballots (a side cast that the seat does not show, at any
time), ballots settled within 0.5, 1 and 2 s of their token being fully in view (the card lying
still, no hand over its marker) and never, and the reader's CPU ms a frame on one core (median,
p95: ``CameraSource.read_ms``, the figure ``watch`` prints); the load average, as the machine is shared.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import clips, markers  # noqa: E402
from vision.capture import FrameSource  # noqa: E402
from vision.source import CameraSource  # noqa: E402

WITHIN = (0.5, 1.0, 2.0)


def run_clip(level: str, seed: int, players: int, seconds: float, recorded: bool = True) -> dict:
    """One clip through the camera source: per seat the delay from in view to its first ballot
    (inf: never cast), wrong ballots, the reader's ms a frame, the clip's making ms a frame.
    ``recorded``: read as ``watch`` reads a file (the budget counted in work); False: as a live
    camera (the budget in CPU time, which moves with the machine's load)."""
    clip, frames = clips.make_clip(level, seed=seed, players=players, seconds=seconds)
    source = CameraSource(FrameSource(), players, timed=True, recorded=recorded)
    source.expect(None)
    cast: dict[int, float] = {}
    wrong = 0
    make_ms = []
    k = 0
    while True:
        t0 = time.perf_counter()
        frame = next(frames, None)
        make_ms.append((time.perf_counter() - t0) * 1000)
        if frame is None:
            break
        for cmd in source.step(frame):
            if cmd.kind != "cast_ballot":
                continue
            seat, side = cmd.data["seat"], markers.TOKEN_SIDES[cmd.data["option"]]
            if clip.truth.get(seat) != side:
                wrong += 1
            else:
                cast.setdefault(seat, k / clip.fps)
        k += 1
    delays = {s: cast.get(s, float("inf")) - clip.in_view[s] for s in clip.truth}
    late = [f"clip {seed} seat {s} ({'never' if np.isinf(d) else f'{d:.2f} s'}, in view at {clip.in_view[s]:.2f} "
            f"of {clip.seconds:.2f} s)" for s, d in sorted(delays.items()) if d > 1.0]
    return {"late": late, "delays": delays, "wrong": wrong, "ms": list(source.read_ms or []), "make_ms": make_ms[:-1],
            "cast": sorted(cast.items())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=10, help="clips per level")
    ap.add_argument("--levels", default="moderate,hard")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--live", action="store_true",
                    help="read as a live camera (the budget in CPU time) rather than as watch reads a file")
    ap.add_argument("--quick", action="store_true", help="one short moderate clip of 4 tokens (a few seconds)")
    args = ap.parse_args(argv)
    if args.quick:
        args.clips, args.levels, args.seconds, args.players = 1, "moderate", 2.5, 4
    cv2.setNumThreads(1)
    print(f"tokens_watch: {args.clips} clips a level × {args.seconds:g} s (longer where the last token "
          f"would have under 2 s in view) at {clips.FPS} fps, "
          f"{args.players} tokens each, seed {args.seed}, read {'live' if args.live else 'as a file'}; load average {os.getloadavg()[0]:.2f} (a shared machine)")
    print(f"{'level':<10}{'ballots':>8}{'wrong':>7}" + "".join(f"{f'<= {w:g} s':>14}" for w in WITHIN)
          + f"{'never':>7}{'ms/frame med':>14}{'p95':>7}{'render ms':>11}")
    for level in args.levels.split(","):
        delays, wrong, ms, make, late = [], 0, [], [], []
        digest = hashlib.sha1()
        for n in range(args.clips):
            got = run_clip(level, args.seed + n, args.players, args.seconds, not args.live)
            delays += list(got["delays"].values())
            wrong += got["wrong"]
            ms += got["ms"]
            make += got["make_ms"]
            late += got["late"]
            digest.update(repr((n, [(s, round(t * clips.FPS)) for s, t in got["cast"]])).encode())
        d = np.array(delays)
        within = [f"{int((d <= w).sum())} ({(d <= w).mean() * 100:.1f}%)" for w in WITHIN]
        print(f"{level:<10}{len(d):>8}{wrong:>7}" + "".join(f"{x:>14}" for x in within)
              + f"{int(np.isinf(d).sum()):>7}{np.median(ms):>14.1f}{np.percentile(ms, 95):>7.1f}{np.median(make):>11.1f}")
        if late:
            print(f"  {level}: ballots later than 1 s: " + "; ".join(late))
        # the same digest: every ballot cast at the same frame (a file reads the same at any load)
        print(f"  {level}: ballots' frames digest {digest.hexdigest()[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
