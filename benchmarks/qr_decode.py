"""QR reads, misreads and time per photo: zxing-cpp alone, OpenCV alone, and vision.qr combined.

    .venv/bin/python benchmarks/qr_decode.py [--sets real,real-harder,sheet-tune,sheet-held-out,cards]
        [--sheet-photos 40] [--per-condition 20] [--seed 1]

Sets:
- ``real``: real phone photos (benchmarks/qr_real/, ZXing's Android benchmark photos), each in
  its four turns; photos with no QR code count a misread for any text read.
- ``real-harder``: the same photos made harder, three seeded ways each per turn: shrunk (small
  codes), blurred, dimmed, glared, JPEG'd at low quality.
- ``sheet-tune`` / ``sheet-held-out``: photos of the printed sticker sheet
  (vision/qr/printed.py): the decoder was tried on the first; the second uses another label
  sheet, other blur kernels, other seeds, and was only measured.
- ``cards``: vision/qr/synth.py's generated photos of stickered cards, per condition.

Methods: ``zxing-cpp`` (zxing-cpp alone), ``OpenCV`` (OpenCV's two detectors behind this
package's pre-processing chain, the reader before zxing-cpp), ``combined`` (vision.qr's reader:
zxing-cpp first, the rest only while codes are left to read). "reads" counts codes read of the
codes fully in view; "misreads" counts texts read that are not in the photo (for sheet photos:
not printed on the page). Times are CPU time per photo on one thread.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.qr import decode, payload, printed, synth  # noqa: E402

from _args import parse_quick  # noqa: E402

REAL = Path(__file__).resolve().parent / "qr_real"
METHODS = {"zxing-cpp": "zxing", "OpenCV": "opencv", "combined": "best"}
SETS = ("real", "real-harder", "sheet-tune", "sheet-held-out", "cards")
KEY = bytes(range(16))


@dataclass
class Shot:
    image: np.ndarray
    texts: set[str]        # codes fully in view: what should be read
    allowed: set[str]      # what may be read without being a misread


def real_photos(limit: int | None = None):
    truth = json.loads((REAL / "truth.json").read_text())
    for name, texts in sorted(truth.items())[:limit]:
        img = decode.read_image(REAL / name)
        for k in range(4):
            yield Shot(np.ascontiguousarray(np.rot90(img, k)), set(texts), set(texts))


def harder(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    f = rng.uniform(0.4, 0.75)
    g = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    g = cv2.resize(g, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)  # a phone's upscale
    g = cv2.GaussianBlur(g, (0, 0), rng.uniform(0.6, 1.8))
    g = g * rng.uniform(0.45, 0.9) + rng.uniform(0, 60)
    h, w = g.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.3) * w
    g = g + rng.uniform(0, 140) * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))
    g = np.clip(g + rng.normal(0, 4, g.shape), 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", g, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 60))])
    return cv2.imdecode(jpg, cv2.IMREAD_GRAYSCALE)


def real_harder(seed: int, limit: int | None = None):
    for i, shot in enumerate(real_photos(limit)):
        for j in range(3):
            rng = np.random.default_rng([seed, i, j])
            yield Shot(harder(shot.image, rng), shot.texts, shot.allowed)


def sheet_photos(profile: str, n: int):
    allowed = printed.on_sheet(profile, KEY)
    for i in range(n):
        ph = printed.make_photo(i, profile, KEY)
        yield Shot(ph.image, set(ph.texts), allowed)


def card_photos(seed: int, per_condition: int):
    cards = payload.deck_cards(payload.load_deck())
    for ph in synth.photo_set(seed, per_condition, cards, KEY):
        yield Shot(ph.image, set(ph.texts), set(ph.texts))


def measure(shots: list[Shot], stages: dict | None = None) -> dict:
    """Per method: reads, misreads, times. ``stages`` (if given) gets, per stage of the combined
    reader, [runs, codes it added, misreads it added, CPU ms]."""
    out = {}
    for name, method in METHODS.items():
        read = total = wrong = photos_all = 0
        ms = []
        for s in shots:
            trace = [] if stages is not None and method == "best" else None
            c0 = time.process_time()
            got = set(decode.decode_array(s.image, method, trace=trace))
            ms.append((time.process_time() - c0) * 1000)
            read += len(got & s.texts)
            total += len(s.texts)
            wrong += len(got - s.allowed)
            photos_all += got >= s.texts
            for stage, new, cpu in trace or ():
                st = stages.setdefault(stage, [0, 0, 0, 0.0])
                st[0] += 1
                st[1] += len(set(new) & s.texts)
                st[2] += len(set(new) - s.allowed)
                st[3] += cpu
        out[name] = dict(read=read, codes=total, misreads=wrong, all_read=photos_all,
                         median=float(np.median(ms)), p95=float(np.percentile(ms, 95)),
                         max=float(np.max(ms)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--sheet-photos", type=int, default=40)
    ap.add_argument("--per-condition", type=int, default=20, help="cards set: photos per condition")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--real-photos", type=int, help="real sets: only the first N photos (all by default)")
    ap.add_argument("--trace", action="store_true", help="also print what each stage of the "
                    "combined reader added")
    args = parse_quick(ap, argv, sets="real,cards", per_condition=1, real_photos=1)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    for s in sets:
        if s not in SETS:
            ap.error(f"unknown set {s!r} (known: {', '.join(SETS)})")
    cv2.setNumThreads(1)  # per-photo CPU cost comparable between runs and machines
    makers = {
        "real": lambda: real_photos(args.real_photos),
        "real-harder": lambda: real_harder(args.seed, args.real_photos),
        "sheet-tune": lambda: sheet_photos("tune", args.sheet_photos),
        "sheet-held-out": lambda: sheet_photos("held-out", args.sheet_photos),
        "cards": lambda: card_photos(args.seed, args.per_condition),
    }
    print(f"{'set':16s}{'photos':>7s}  {'method':10s}{'reads':>12s}{'misreads':>9s}"
          f"{'photos all read':>16s}{'median ms':>10s}{'p95 ms':>8s}{'max ms':>8s}", flush=True)
    for s in sets:
        shots = list(makers[s]())
        stages = {} if args.trace else None
        for name, r in measure(shots, stages).items():
            print(f"{s:16s}{len(shots):>7d}  {name:10s}{r['read']:>6d}/{r['codes']:<5d}"
                  f"{r['misreads']:>9d}{r['all_read']:>10d}/{len(shots):<5d}{r['median']:10.1f}"
                  f"{r['p95']:8.1f}{r['max']:8.0f}", flush=True)
        for stage, (runs, added, wrong, cpu) in (stages or {}).items():
            print(f"{'':16s}  stage {stage:28s} ran {runs:4d}x, added {added:4d} reads, "
                  f"{wrong} misreads, {cpu / max(runs, 1):7.1f} ms a run", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
