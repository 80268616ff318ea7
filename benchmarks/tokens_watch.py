"""Reading votes from rendered table clips, as ``python -m vision.tokens watch`` and the app do.

    .venv/bin/python benchmarks/tokens_watch.py [--clips 10] [--levels moderate,hard] [--seconds 4] [--seed 1] [--live]
    .venv/bin/python benchmarks/tokens_watch.py --against main --clips 20 --levels hard   # both, taking turns
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
import importlib
import inspect
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision import clips, markers  # noqa: E402
from vision.capture import FrameSource  # noqa: E402
from vision.source import CameraSource  # noqa: E402

from _args import parse_quick  # noqa: E402
from tokens_ab import earlier_vision  # noqa: E402

WITHIN = (0.5, 1.0, 2.0)


def run_clip(level: str, seed: int, players: int, seconds: float,
             sources: dict[str, Callable[[], Any]]) -> dict[str, dict]:
    """One clip through each camera source ``sources`` makes (taking turns on every frame, which
    goes first alternating): per source and seat the delay from in view to its first ballot (inf:
    never cast), wrong ballots, the reader's ms a frame; and the clip's making ms a frame."""
    clip, frames = clips.make_clip(level, seed=seed, players=players, seconds=seconds)
    made = {name: make() for name, make in sources.items()}
    for source in made.values():
        source.expect(None)
    cast: dict[str, dict[int, float]] = {name: {} for name in made}
    wrong = dict.fromkeys(made, 0)
    make_ms = []
    k = 0
    while True:
        t0 = time.perf_counter()
        frame = next(frames, None)
        make_ms.append((time.perf_counter() - t0) * 1000)
        if frame is None:
            break
        for name in (list(made) if k % 2 == 0 else list(made)[::-1]):
            for cmd in made[name].step(frame):
                if cmd.kind != "cast_ballot":
                    continue
                seat, side = cmd.data["seat"], markers.TOKEN_SIDES[cmd.data["option"]]
                if clip.truth.get(seat) != side:
                    wrong[name] += 1
                else:
                    cast[name].setdefault(seat, k / clip.fps)
        k += 1
    out = {}
    for name, source in made.items():
        delays = {s: cast[name].get(s, float("inf")) - clip.in_view[s] for s in clip.truth}
        late = [f"clip {seed} seat {s} ({'never' if np.isinf(d) else f'{d:.2f} s'}, in view at {clip.in_view[s]:.2f} "
                f"of {clip.seconds:.2f} s)" for s, d in sorted(delays.items()) if d > 1.0]
        out[name] = {"late": late, "delays": delays, "wrong": wrong[name], "ms": list(source.read_ms or []),
                     "make_ms": make_ms[:-1], "cast": sorted(cast[name].items())}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=10, help="clips per level")
    ap.add_argument("--levels", default="moderate,hard")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--players", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--live", action="store_true",
                    help="read as a live camera (the budget in CPU time) rather than as watch reads a file")
    ap.add_argument("--against", metavar="REV",
                    help="also an earlier commit's camera source (its vision package), taking turns on every frame")
    args = parse_quick(ap, argv, help="one short moderate clip of 4 tokens (a few seconds)",
                       clips=1, levels="moderate", seconds=2.5, players=4)
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        sources: dict[str, Callable[[], Any]] = {}
        if args.against:
            old = earlier_vision(args.against, Path(tmp))
            old_source = importlib.import_module(f"{old}.source").CameraSource
            recorded = "recorded" in inspect.signature(old_source).parameters and not args.live
            sources[args.against] = lambda: old_source(FrameSource(), args.players, timed=True,
                                                       **({"recorded": True} if recorded else {}))
        sources["now"] = lambda: CameraSource(FrameSource(), args.players, timed=True, recorded=not args.live)
        _report(args, sources)
    return 0


def _report(args: argparse.Namespace, sources: dict[str, Callable[[], Any]]) -> None:
    print(f"tokens_watch: {args.clips} clips a level × {args.seconds:g} s (longer where the last token "
          f"would have under 2 s in view) at {clips.FPS} fps, "
          f"{args.players} tokens each, seed {args.seed}, read {'live' if args.live else 'as a file'}"
          f"{f', against {args.against} taking turns' if args.against else ''}; "
          f"load average {os.getloadavg()[0]:.2f} (a shared machine)")
    print(f"{'level':<10}{'reader':>10}{'ballots':>8}{'wrong':>7}" + "".join(f"{f'<= {w:g} s':>14}" for w in WITHIN)
          + f"{'never':>7}{'ms/frame med':>14}{'p95':>7}{'render ms':>11}")
    for level in args.levels.split(","):
        delays: dict[str, list[float]] = {k: [] for k in sources}
        ms: dict[str, list[float]] = {k: [] for k in sources}
        late: dict[str, list[str]] = {k: [] for k in sources}
        wrong = dict.fromkeys(sources, 0)
        digest = {k: hashlib.sha1() for k in sources}
        make: list[float] = []
        ratios: list[float] = []
        for n in range(args.clips):
            got = run_clip(level, args.seed + n, args.players, args.seconds, sources)
            for name, g in got.items():
                delays[name] += list(g["delays"].values())
                wrong[name] += g["wrong"]
                ms[name] += g["ms"]
                late[name] += g["late"]
                digest[name].update(repr((n, [(s, round(t * clips.FPS)) for s, t in g["cast"]])).encode())
            make += got["now"]["make_ms"]
            if args.against and len(got[args.against]["ms"]) == len(got["now"]["ms"]):
                ratios += [a / b for a, b in zip(got["now"]["ms"], got[args.against]["ms"]) if b > 0]
        for name in sources:
            d = np.array(delays[name])
            within = [f"{int((d <= w).sum())} ({(d <= w).mean() * 100:.1f}%)" for w in WITHIN]
            print(f"{level:<10}{name[:10]:>10}{len(d):>8}{wrong[name]:>7}" + "".join(f"{x:>14}" for x in within)
                  + f"{int(np.isinf(d).sum()):>7}{np.median(ms[name]):>14.1f}{np.percentile(ms[name], 95):>7.1f}"
                  f"{np.median(make):>11.1f}")
        for name in sources:
            if late[name]:
                print(f"  {level}, {name}: ballots later than 1 s: " + "; ".join(late[name]))
            # the same digest: every ballot cast at the same frame (a file reads the same at any load)
            print(f"  {level}, {name}: ballots' frames digest {digest[name].hexdigest()[:12]}")
        if ratios:
            print(f"  {level}: per-frame CPU ratio now / {args.against}, median {np.median(ratios):.3f}")


if __name__ == "__main__":
    sys.exit(main())
