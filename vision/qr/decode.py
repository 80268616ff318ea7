"""Read QR codes from phone photos: zxing-cpp first, then OpenCV and pre-processing as a fallback.

zxing-cpp reads most photos on its own in about a millisecond. Each later stage runs only while
the photo still has codes left to read: nothing read yet, or a code zxing found but could not
decode (it reports those with ``return_errors``). The stages, cheapest first: a straightened,
re-binarised crop of each found-but-unread code; zxing on the photo with fixes for what goes
wrong in phone photos (sharpening for blur, local contrast and flattened lighting for glare and
shadow); enlarged crops of sticker-like patches (small codes); then OpenCV's two detectors with
the same fixes, where they add reads zxing misses. ``benchmarks/qr_decode.py`` and
``benchmarks/qr_real.py`` measure what each part is worth.

Nothing read here is trusted as a card: the phone server still checks every text's keyed check
(``payload.parse``), so a misread cannot count.
"""
from __future__ import annotations

import os
import threading
import time
from types import ModuleType
from typing import Any, Callable, Iterable, Sequence

import cv2
import numpy as np

zxingcpp: ModuleType | None
try:
    import zxingcpp
except ImportError:  # no python-for-android recipe: on the tablet, OpenCV's stages read alone
    zxingcpp = None

from companion.core.events import BadInput
from vision.capture import check_image_size, whole_png

WORK_SIDE = 1600          # long side photos are read at first (phones send 4000 px)
MAX_SIDE = 65535          # zxing-cpp refuses a wider or taller image (a ValueError)

_local = threading.local()  # OpenCV detectors are not safe to share between threads


def _detectors() -> tuple[cv2.QRCodeDetectorAruco, cv2.QRCodeDetector]:
    if not hasattr(_local, "dets"):
        _local.dets = (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector())
    return _local.dets


def _gray(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY if img.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    return img


def _scaled(gray: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """The image shrunk so its long side is at most ``side``, and the factor it was shrunk by."""
    h, w = gray.shape[:2]
    f = side / max(h, w)
    if f >= 1:
        return gray, 1.0
    # At least one pixel each way: a 20000x1 strip would otherwise shrink to 0 rows.
    size = (max(1, int(w * f)), max(1, int(h * f)))
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA), f


class _Found:
    """The texts read so far and the quads that were detected but not read."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.unread: list[np.ndarray] = []   # quads in full-image coordinates

    def add(self, texts: Sequence[str], quads: Iterable[np.ndarray], scale: float = 1.0,
            offset: tuple[float, float] = (0, 0)) -> bool:
        new = False
        for t, q in zip(texts, quads):
            q = np.asarray(q, np.float32).reshape(4, 2) / scale + np.asarray(offset, np.float32)
            if t:
                if t not in self.texts:
                    self.texts.append(t)
                    new = True
                self.unread = [u for u in self.unread if not _overlaps(u, q)]
            elif not any(_overlaps(u, q) for u in self.unread):
                self.unread.append(q)
        return new


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    ra = np.linalg.norm(a - ca, axis=1).max()
    return float(np.linalg.norm(ca - cb)) < ra


def _run(img: np.ndarray, found: _Found, scale: float = 1.0, offset: tuple[float, float] = (0, 0),
         which: Sequence[int] = (0, 1)) -> None:
    for i in which:
        det = _detectors()[i]
        try:
            ok, texts, quads, _ = det.detectAndDecodeMulti(img)
        except cv2.error:
            continue
        if ok or (quads is not None and len(quads)):
            found.add(list(texts) if texts is not None else [""] * len(quads),
                      quads if quads is not None else [], scale, offset)


def _quad_of(position: Any) -> np.ndarray:
    return np.array([[p.x, p.y] for p in (position.top_left, position.top_right,
                                          position.bottom_right, position.bottom_left)], np.float32)


def _zx(img: np.ndarray, found: "_Found", scale: float = 1.0, offset: tuple[float, float] = (0, 0),
        global_threshold: bool = False) -> None:
    """zxing-cpp on one image; codes it found but could not decode become ``unread`` quads."""
    assert zxingcpp is not None  # decode() reads with OpenCV alone without it
    if max(img.shape[:2]) > MAX_SIDE:  # zxing-cpp's limit: such a strip holds no code anyway
        return
    binarizer = zxingcpp.Binarizer.GlobalHistogram if global_threshold else zxingcpp.Binarizer.LocalAverage
    res = zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode, return_errors=True,
                                 binarizer=binarizer)
    if res:
        found.add([b.text if b.valid else "" for b in res], [_quad_of(b.position) for b in res],
                  scale, offset)


def _zx_text(img: np.ndarray) -> str:
    assert zxingcpp is not None  # decode() reads with OpenCV alone without it
    for b in zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode):
        return b.text
    return ""


def _clahe(g: np.ndarray) -> np.ndarray:
    return cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(g)


def _flatten(g: np.ndarray) -> np.ndarray:
    """Divide out the lighting (glare, shadow): what is left is the print."""
    k = max(15, (min(g.shape[:2]) // 12) | 1)
    bg = cv2.morphologyEx(g, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    return cv2.divide(g, bg, scale=230)


def _sharpen(g: np.ndarray, sigma: float = 2.0, amount: float = 1.5) -> np.ndarray:
    blur = cv2.GaussianBlur(g, (0, 0), sigma)
    return cv2.addWeighted(g, 1 + amount, blur, -amount, 0)


def _adaptive(g: np.ndarray) -> np.ndarray:
    block = max(11, (min(g.shape[:2]) // 40) | 1)
    return cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY,
                                 block, 5)


def _straighten(gray: np.ndarray, quad: np.ndarray, size: int = 231) -> np.ndarray:
    """The quad mapped to a square with a quiet zone, at about 11 px per module of version 1."""
    m = size // 7
    dst = np.array([[m, m], [size - m, m], [size - m, size - m], [m, size - m]], np.float32)
    t = cv2.getPerspectiveTransform(np.array(quad, np.float32), dst)
    return cv2.warpPerspective(gray, t, (size, size), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)


def _read_unread(gray: np.ndarray, found: _Found, opencv: bool = True) -> None:
    for quad in list(found.unread):
        crop = _straighten(gray, quad)
        variants = (crop, _sharpen(crop), _clahe(crop),
                    cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1],
                    _adaptive(_sharpen(crop)))
        # zxing on every variant first (a fraction of a millisecond each), OpenCV after
        tries: list[tuple[np.ndarray, Any]] = [(v, None) for v in variants]
        if opencv:
            tries += [(v, d) for v in variants for d in _detectors()]
        for variant, det in tries:
            if det is None:
                text = _zx_text(variant)
            else:
                try:
                    text, _, _ = det.detectAndDecode(variant)
                except cv2.error:
                    text = ""
            if text:
                if text not in found.texts:
                    found.texts.append(text)
                found.unread = [u for u in found.unread if u is not quad]
                break


def _candidates(gray: np.ndarray, max_n: int = 8) -> list[tuple[int, int, int, int]]:
    """Boxes (full-image x, y, w, h) of compact patches of dense dark/light edges: stickers.

    A code a few dozen pixels wide is too small for the detectors to find in the whole photo,
    but it is the densest texture on a card: find it here, then read an enlarged crop.
    """
    small, f = _scaled(gray, 800)
    grad = cv2.morphologyEx(small, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    _, bw = cv2.threshold(grad, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bw = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    bw = cv2.morphologyEx(bw, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    _, _, stats, _ = cv2.connectedComponentsWithStats(bw)
    found = []
    for x, y, bw_, bh, area in stats[1:]:
        if bw_ < 10 or bh < 10 or bw_ > 0.7 * small.shape[1] or bh > 0.7 * small.shape[0]:
            continue
        if area < 0.3 * bw_ * bh:  # a ring or a line, not a filled patch
            continue
        found.append((int(area), int(x / f), int(y / f), int(bw_ / f), int(bh / f)))
    found.sort(reverse=True)
    return [b[1:] for b in found[:max_n]]


def _unskewed(crop: np.ndarray) -> list[np.ndarray]:
    """The crop with the code's slant undone: a card photographed at an angle.

    A square's pixels have the same spread in every direction; a tilted view squashes it into a
    slanted parallelogram. Whitening the dark blob's covariance (x -> C^-1/2 x) makes it square
    again, whatever the tilt's direction, up to a rotation the detectors handle. The blob is
    found at three closing sizes because the module size is not known yet.
    """
    _, dark = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    h, w = crop.shape[:2]
    out = []
    for k in (5, 9, 15):
        merged = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(merged)
        best = None
        for i in range(1, n):
            _, _, bw_, bh, area = stats[i]
            if area < 0.02 * h * w or bw_ > 0.95 * w or bh > 0.95 * h:
                continue
            if best is None or area > stats[best][4]:
                best = i
        if best is None:
            continue
        ys, xs = np.nonzero(labels == best)
        pts = np.stack([xs, ys], 1).astype(np.float64)
        c = pts.mean(axis=0)
        ev, evec = np.linalg.eigh(np.cov((pts - c).T))
        if ev[0] <= 0 or ev[1] / ev[0] < 1.2:  # already square: nothing to undo
            continue
        m = evec @ np.diag(1 / np.sqrt(ev)) @ evec.T * np.sqrt(np.sqrt(ev.prod()))
        size = int(max(h, w) * 1.3)
        affine = np.hstack([m, (np.array([size / 2, size / 2]) - m @ c)[:, None]])
        out.append(cv2.warpAffine(crop, affine, (size, size), flags=cv2.INTER_CUBIC,
                                  borderMode=cv2.BORDER_REPLICATE))
    return out


def _read_candidates(gray: np.ndarray, found: _Found, run: Callable[..., None] | None = None, side: int = 500,
                     max_n: int = 8) -> None:
    """Enlarged crops of sticker-like patches, read with ``run`` (zxing or OpenCV).

    zxing needs neither the contrast variants nor the unskewing OpenCV does (its binariser is
    local and its detector takes any perspective): only the plain and sharpened crops."""
    run = run or _run
    light = run is _zx
    H, W = gray.shape[:2]
    for x, y, w, h in _candidates(gray, max_n):
        m = int(0.25 * max(w, h))
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(W, x + w + m), min(H, y + h + m)
        crop = gray[y0:y1, x0:x1]
        z = max(1.0, side / max(crop.shape[:2]))
        big = cv2.resize(crop, None, fx=z, fy=z, interpolation=cv2.INTER_CUBIC) if z > 1 else crop
        variants: tuple[Callable[[], np.ndarray], ...] = (lambda: big, lambda: _sharpen(big, 2.0, 1.5), lambda: _sharpen(big, 4.0, 2.5))
        if not light:
            variants += (lambda: _clahe(big), lambda: cv2.threshold(
                _sharpen(big, 3.0, 2.0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1])
        for variant in variants:
            before = len(found.texts)
            run(variant(), found, z, (x0, y0))
            if len(found.texts) > before:
                break
        else:
            if light:
                continue
            for unskewed in _unskewed(big):
                # positions in an unskewed crop do not map back: keep only what was read
                here = _Found()
                run(unskewed, here)
                if here.texts:
                    found.texts += [t for t in here.texts if t not in found.texts]
                    break


METHODS = ("best", "zxing", "opencv", "opencv-raw")


def _opencv_stages(gray: np.ndarray, work: np.ndarray, f: float,
                   found: _Found) -> list[tuple[str, str, Callable[[], None]]]:
    """OpenCV's detectors behind the pre-processing chain (this package's reader before zxing)."""
    return [
        ("OpenCV", "left", lambda: _run(work, found, f)),
        ("OpenCV: unread crops", "left", lambda: _read_unread(gray, found)),
        ("OpenCV: sticker crops", "left", lambda: _read_candidates(gray, found, _run)),
        ("OpenCV: CLAHE", "left", lambda: _run(_clahe(work), found, f)),
        ("OpenCV: flattened light", "left", lambda: _run(_flatten(work), found, f)),
        ("OpenCV: sharpened", "left", lambda: _run(_sharpen(work), found, f)),
        ("OpenCV: unread crops", "left", lambda: _read_unread(gray, found)),
        ("OpenCV: adaptive threshold", "left", lambda: _run(_adaptive(_flatten(work)), found, f)),
        ("OpenCV: unread crops", "left", lambda: _read_unread(gray, found)),
    ]


def decode_array(img: np.ndarray, method: str = "best", max_codes: int | None = None,
                 trace: list | None = None) -> list[str]:
    """Texts of the QR codes in a BGR or grayscale image; [] when none can be read.

    ``method``: "best" (zxing-cpp, then the fallbacks while codes are left to read), "zxing"
    (zxing-cpp alone), "opencv" (OpenCV's detectors with this package's pre-processing, no
    zxing) or "opencv-raw" (OpenCV's detectors on the photo as it is). ``max_codes`` stops the
    search once that many codes are read (a photo full of codes costs no more than it should).
    ``trace``, if given, gets one (stage name, texts it added, CPU ms) per stage run.
    """
    if method not in METHODS:
        raise ValueError(f"unknown decode method {method!r} (known: {', '.join(METHODS)})")
    if zxingcpp is None:
        if method == "zxing":
            raise ValueError("the zxing method needs the zxing-cpp package, which is not installed")
        method = "opencv"
    if img is None or img.size == 0:
        return []
    gray = _gray(img)
    found = _Found()
    work, f = _scaled(gray, WORK_SIDE)
    # When a stage runs: "left" while codes are left to read (nothing read yet, or a code found
    # but not decoded); "none" only while nothing at all is read (whole-crop passes cost tens of
    # milliseconds: worth it for a photo zxing reads nothing in, not for the last of many codes);
    # "located" only while nothing is read but zxing located a code it could not decode (OpenCV's
    # pass costs a few hundred milliseconds: not for every photo without a code).
    if method in ("best", "zxing"):
        stages = [("zxing", "left", lambda: _zx(gray, found))]
        if method == "best":
            stages += [
                ("zxing: unread crops", "left", lambda: _read_unread(gray, found, opencv=False)),
                ("zxing: sharpened", "left", lambda: _zx(_sharpen(work), found, f)),
                ("zxing: flattened light", "left", lambda: _zx(_flatten(work), found, f)),
                ("zxing: global threshold", "left", lambda: _zx(
                    gray, found, global_threshold=True)),
                ("zxing: sticker crops", "none", lambda: _read_candidates(gray, found, _zx)),
                # Of OpenCV's stages only this one added reads after zxing's (a couple per
                # hundred generated card photos, none on the real ones); the whole-photo passes
                # added none and its unread-crop pass made the only misread seen
                # (benchmarks/qr_decode.py --trace).
                ("OpenCV: sticker crops", "located", lambda: _read_candidates(
                    gray, found, _run, max_n=3)),
            ]
    else:
        stages = _opencv_stages(gray, work, f, found)
        if method == "opencv-raw":
            stages = stages[:1]

    for name, when, stage in stages:
        if max_codes is not None and len(found.texts) >= max_codes:
            break
        if found.texts and (when != "left" or not found.unread):
            continue
        if when == "located" and not found.unread:
            continue
        before, c0 = len(found.texts), time.process_time()
        stage()
        if trace is not None:
            trace.append((name, found.texts[before:], (time.process_time() - c0) * 1000))
    return found.texts[:max_codes] if max_codes is not None else found.texts


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Load an image file; BadInput (one line) if it is missing, too big, or not an image."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise BadInput(f"no such file: {p}")
    if os.path.isdir(p):
        raise BadInput(f"is a directory, not an image: {p}")
    if not os.path.isfile(p):   # /dev/zero, a FIFO: reading it would never end
        raise BadInput(f"not a regular file: {p}")
    try:
        with open(p, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise BadInput(f"cannot read {p}: {exc.strerror}") from None
    return image_from_bytes(data, p)


def image_from_bytes(data: bytes, name: str = "upload") -> np.ndarray:
    """Decode JPEG/PNG/WebP bytes; BadInput if they are not an image or are too many pixels."""
    if not data:
        raise BadInput(f"{name}: empty file")
    # The header gives the size before the pixels are decoded: refuse bombs first.
    if not check_image_size(data, name) or not whole_png(data):
        raise BadInput(f"{name}: not an image file (JPEG, PNG or WebP expected)")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise BadInput(f"{name}: not an image file (JPEG, PNG or WebP expected)")
    h, w = img.shape[:2]
    if max(h, w) > MAX_SIDE:  # a 300000x1 strip: few pixels, but no reader takes it
        raise BadInput(f"{name}: image is {w}x{h} pixels, more than {MAX_SIDE} a side")
    return img


def decode_file(path: str | os.PathLike, method: str = "best") -> list[str]:
    return decode_array(read_image(path), method)
