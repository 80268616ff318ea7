"""The token reader against an earlier commit's, on the same frames, frame by frame.

    .venv/bin/python benchmarks/tokens_ab.py --against 4694fd2 [--scenes 20] [--level hard] [--held-out [lens]] [--budget MS|none]
    .venv/bin/python benchmarks/tokens_ab.py --against 4694fd2 --single [--scenes 60] [--level hard] [--held-out [lens]] [--kind all]
    .venv/bin/python benchmarks/tokens_ab.py --against 4694fd2 --level strangers [--held-out [lens]]   # nothing to read

Video (the default): each scene filmed over ``--frames`` frames, ballots as the camera source
casts them. ``--single``: the single-frame reader (the command line's), each scene read twice by
each reader and the second read timed (as tokens_accuracy.py does), tokens missed counted.

This machine's speed wanders by a fifth from one run to the next, so two separate runs of
tokens_accuracy.py cannot tell a 10 % change from noise. Here the earlier commit's ``vision``
package (``git archive``, into a temporary folder) and the working tree's read the same frames,
taking turns on every frame (which goes first alternates), and each one's CPU time is measured on
the reading thread. Printed: ballots missed and wrong for each (as tokens_accuracy.py counts them),
the median, mean and p95 CPU ms a frame, and the median of the per-frame ratio. Both readers
alternate in one process, so both run a little slower than alone (each evicts the other's cache).
"""
from __future__ import annotations

import argparse
import importlib
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from vision import synth  # noqa: E402
from vision.reader import FRAME_BUDGET_MS, TokenReader  # noqa: E402
from vision.stabiliser import Stabiliser  # noqa: E402

import tokens_accuracy  # noqa: E402

from _args import parse_quick  # noqa: E402


def earlier_reader(rev: str, into: Path):
    """The TokenReader class of ``rev``'s vision package, imported as ``vision_<rev>``."""
    return importlib.import_module(f"{earlier_vision(rev, into)}.reader").TokenReader


def earlier_vision(rev: str, into: Path) -> str:
    """``rev``'s vision package unpacked into ``into`` and put on the path: its import name."""
    try:
        blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "vision"], check=True,
                              capture_output=True).stdout
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"tokens_ab: git archive {rev}: {e.stderr.decode().strip()}")
    name = f"vision_{rev.replace('-', '_').replace('/', '_')}"
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    (into / "vision").rename(into / name)
    sys.path.insert(0, str(into))
    return name


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="REV", help="the earlier commit (any git revision; HEAD with --quick)")
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--level", default="hard", choices=("easy", "moderate", "hard", "strangers"),
                    help="strangers: the hard table with every card's marker not ours (nothing to read)")
    ap.add_argument("--single", action="store_true", help="single frames (no tracking), as the command line reads photos")
    ap.add_argument("--held-out", nargs="?", const="ranges", choices=("ranges", "lens"))
    ap.add_argument("--budget", type=tokens_accuracy.budget_arg, default=FRAME_BUDGET_MS, metavar="MS|none")
    ap.add_argument("--kind", choices=("token", "all"), default="token",
                    help="the markers read: the vote's tokens, or all 88 of the plan (the command line's `read`)")
    ap.add_argument("--seed", type=int, default=1)
    args = parse_quick(ap, argv, against="HEAD", scenes=1, frames=2)
    if args.against is None:
        ap.error("--against REV is needed (the earlier commit to compare with; --quick takes HEAD)")
    budget = args.budget
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        old_cls = earlier_reader(args.against, Path(tmp))
        synth_level = tokens_accuracy._synth_level(args.level)
        over, seed = tokens_accuracy._variant(synth_level, args.seed, args.held_out)
        over = {**over, "strangers": True} if args.level == "strangers" else over
        names = (args.against, "now")
        ms: dict[str, list[float]] = {k: [] for k in names}
        wall: dict[str, list[float]] = {k: [] for k in names}  # single frames: wall ms, load included
        missed = dict.fromkeys(names, 0)
        wrong = dict.fromkeys(names, 0)
        frame_wrong = dict.fromkeys(names, 0)  # frames showing a seat's face that is not on the table
        for n in range(args.scenes):
            if args.single:
                _single_scene(n, seed, over, args, old_cls, ms, missed, wrong, frame_wrong, wall)
                continue
            readers = {args.against: old_cls(8, args.kind, tracking=True, budget_ms=budget),
                       "now": TokenReader(8, args.kind, tracking=True, budget_ms=budget)}
            stab = {k: Stabiliser(5, 2) for k in names}
            cast: dict[str, dict[int, str]] = {k: {} for k in names}
            truth: dict[int, str] = {}
            for f in range(args.frames):
                scene = synth.make_scene(np.random.default_rng([seed, n, tokens_accuracy.LEVEL_IDS[args.level]]),
                                         synth_level, kind="token", look=np.random.default_rng([seed, n, 99, f]), **over)
                truth = {} if args.level == "strangers" else scene.truth
                for k in (names if f % 2 == 0 else names[::-1]):
                    c0 = time.thread_time()
                    reading = readers[k].read(scene.image)
                    ms[k].append((time.thread_time() - c0) * 1000)
                    cast[k].update((c.seat, c.face) for c in stab[k].feed(reading) if c.face is not None)
                    frame_wrong[k] += sum(1 for seat, face in reading.tokens.items() if truth.get(seat) != face)
            for k in names:
                missed[k] += sum(1 for seat in truth if seat not in cast[k])
                wrong[k] += sum(1 for seat, face in cast[k].items() if truth.get(seat) != face)
    frames = "single frames" if args.single else f"{args.frames} frames, budget {'none' if budget is None else f'{budget:g} ms'}"
    print(f"tokens_ab: {args.level}{f' (held-out: {args.held_out})' if args.held_out else ''}, "
          f"{args.scenes} scenes × {frames}, 8 tokens each, markers: {args.kind}, both readers on every frame in turn")
    print(f"{'reader':<12}{'missed':>8}{'wrong':>7}{'frames wrong':>14}{'cpu ms med':>12}{'mean':>7}{'p95':>7}")
    for k in names:
        a = np.array(ms[k])
        print(f"{k:<12}{missed[k]:>8}{wrong[k]:>7}{frame_wrong[k]:>14}{np.median(a):>12.2f}{a.mean():>7.2f}"
              f"{np.percentile(a, 95):>7.1f}")
    ratio = np.array(ms["now"]) / np.maximum(np.array(ms[args.against]), 1e-6)
    print(f"median of the per-frame ratio now / {args.against}: {np.median(ratio):.3f}")
    if args.single:
        print("wall ms a photo, median (load included, load average "
              f"{os.getloadavg()[0]:.2f}): " + ", ".join(f"{k} {np.median(wall[k]):.1f}" for k in names))
    return 0


def _single_scene(n, seed, over, args, old_cls, ms, missed, wrong, frame_wrong, wall) -> None:
    """One scene read by both single-frame readers in turn (tokens missed and wrong, CPU ms of
    each one's second read)."""
    scene = synth.make_scene(np.random.default_rng([seed, n, tokens_accuracy.LEVEL_IDS[args.level]]),
                             tokens_accuracy._synth_level(args.level), kind="token", **over)
    truth = {} if args.level == "strangers" else scene.truth
    names = (args.against, "now")
    readers = {args.against: old_cls(8, args.kind), "now": TokenReader(8, args.kind)}
    for k in (names if n % 2 == 0 else names[::-1]):
        readers[k].read(scene.image)  # warm, as tokens_accuracy.py does
        c0, w0 = time.thread_time(), time.perf_counter()
        reading = readers[k].read(scene.image)
        ms[k].append((time.thread_time() - c0) * 1000)
        wall[k].append((time.perf_counter() - w0) * 1000)
        missed[k] += sum(1 for seat in truth if seat not in reading.tokens)
        wrong[k] += sum(1 for seat, face in reading.tokens.items() if truth.get(seat) != face)
        frame_wrong[k] += sum(1 for seat, face in reading.tokens.items() if truth.get(seat) != face)


if __name__ == "__main__":
    sys.exit(main())
