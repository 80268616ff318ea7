"""Decode rate and time per image on a seeded, generated set of degraded sticker photos.

Compares OpenCV's QR detectors on the photo as it is (QRCodeDetector, QRCodeDetectorAruco,
and both) with vision.qr.decode's pre-processing chain. The photos are generated
(vision/qr/synth.py: real stickers, warped, shrunk, blurred, glared, JPEG'd), not real phone
photos, so the rates compare methods; they are not a claim about real-photo rates.

    .venv/bin/python benchmarks/qr_decode.py [--per-condition 20] [--seed 1]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.qr import decode, payload, synth  # noqa: E402


def opencv_only(det_factory):
    det = det_factory()

    def run(img):
        gray, f = decode._scaled(decode._gray(img), decode.WORK_SIDE)
        try:
            ok, texts, _, _ = det.detectAndDecodeMulti(gray)
        except cv2.error:
            return []
        return [t for t in texts if t] if ok else []
    return run


METHODS = {
    "QRCodeDetector": opencv_only(cv2.QRCodeDetector),
    "QRCodeDetectorAruco": opencv_only(cv2.QRCodeDetectorAruco),
    "both, no pre-proc.": lambda img: decode.decode_array(img, preprocess=False),
    "vision.qr (ours)": decode.decode_array,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-condition", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    key = bytes(range(16))
    cards = payload.deck_cards(payload.load_deck())
    cv2.setNumThreads(1)  # per-image CPU cost comparable between runs and machines

    t0 = time.perf_counter()
    photos = list(synth.photo_set(args.seed, args.per_condition, cards, key))
    print(f"generated {len(photos)} photos ({args.per_condition} per condition, seed "
          f"{args.seed}, {synth.PHOTO_SIZE[0]}x{synth.PHOTO_SIZE[1]} JPEG) in "
          f"{time.perf_counter() - t0:.1f} s")

    # rate[method][condition] = [codes read, codes present, wrong texts, [cpu s], [wall s]]
    rate = {m: defaultdict(lambda: [0, 0, 0, [], []]) for m in METHODS}
    for ph in photos:
        want = set(ph.texts)
        for name, fn in METHODS.items():
            c0, w0 = time.process_time(), time.perf_counter()
            got = set(fn(ph.image))
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            r = rate[name][ph.condition]
            r[0] += len(got & want)
            r[1] += len(want)
            r[2] += len(got - want)
            r[3].append(cpu)
            r[4].append(wall)

    conds = list(synth.CONDITIONS)
    print("\ndecode rate (codes read / codes in the photos)")
    print(f"{'method':22s}" + "".join(f"{c:>9s}" for c in conds) + f"{'all':>9s}{'wrong':>7s}")
    for name in METHODS:
        row, read, total, wrong = "", 0, 0, 0
        for c in conds:
            r = rate[name][c]
            row += f"{r[0] / r[1]:9.0%}"
            read, total, wrong = read + r[0], total + r[1], wrong + r[2]
        print(f"{name:22s}{row}{read / total:9.1%}{wrong:7d}")

    print("\nCPU time per image, ms (per condition: mean/max; all: mean/median/max; one OpenCV thread)")
    print(f"{'method':22s}" + "".join(f"{c:>13s}" for c in conds) + f"{'all':>16s}")
    for name in METHODS:
        row, alls = "", []
        for c in conds:
            t = rate[name][c][3]
            alls += t
            row += f"{statistics.mean(t) * 1000:7.0f}/{max(t) * 1000:5.0f}"
        print(f"{name:22s}{row}   {statistics.mean(alls) * 1000:5.0f}/"
              f"{statistics.median(alls) * 1000:4.0f}/{max(alls) * 1000:5.0f}")
    walls = [w for r in rate["vision.qr (ours)"].values() for w in r[4]]
    print(f"\nours, wall time per image on this machine: mean {statistics.mean(walls) * 1000:.0f} "
          f"ms, median {statistics.median(walls) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
