"""Seeded photos of a printed sticker sheet: the PDF as printed, then what a phone camera does.

Unlike ``synth.py`` (one sticker pasted on a card), this starts from the sticker sheet PDF that
``python -m vision.qr stickers`` writes, rasterised by Ghostscript as a printer would (Pillow's
own page raster where ``gs`` is missing), and photographs part of the page: any turn, a tilted
view (pinhole perspective), paper bowed off the table, codes from large to a couple of dozen
pixels, defocus or shake, a specular glare that burns out part of the page, a hand's shadow,
uneven light, sensor noise and JPEG.

Two profiles keep tuning apart from judging: ``tune`` (label sheet L7160, Gaussian defocus) is
what the decoder's stages were tried on; ``held-out`` uses another sheet (L7651, smaller
labels), other blur kernels (a lens disc, shake), stronger bow and glare and lower JPEG quality,
and other seeds. The truth of a photo is every code whose four corners are inside the frame.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import cv2
import numpy as np

from . import payload, stickers
from .synth import Photo, _table

zxingcpp: ModuleType | None
try:  # a benchmark generator's tool, not the app's: the tablet (no recipe) does without it
    import zxingcpp
except ImportError:
    zxingcpp = None

PROFILES: dict[str, dict[str, Any]] = {
    "tune": dict(layout="L7160", size=(1600, 1200), code_px=(26, 160), tilt=50, bow=(0, 0.05),
                 blur=("gauss",), blur_px=(0, 2.6), glare=(0, 260), shadow=0.35,
                 jpeg=(50, 92), noise=(2, 6)),
    "held-out": dict(layout="L7651", size=(2016, 1512), code_px=(24, 150), tilt=58,
                     bow=(0.01, 0.08), blur=("disc", "motion"), blur_px=(0, 3.5),
                     glare=(60, 320), shadow=0.5, jpeg=(35, 85), noise=(3, 8)),
}
SEED_BASE = {"tune": 0, "held-out": 7_000_001}  # held-out photos never share a seed with tuning


@dataclass(frozen=True)
class Page:
    gray: np.ndarray                       # 300 dpi page, 0..255
    codes: tuple[tuple[str, np.ndarray], ...]  # (text, 4x2 corners in page pixels)


def _rasterise(layout: stickers.Layout, cards: list[payload.Card], key: bytes) -> np.ndarray:
    gs = shutil.which("gs")
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "sheet.pdf"
        pages = stickers.write_pdf(cards, key, layout, pdf)
        if gs is None:
            return np.asarray(pages[0].convert("L"))
        png = Path(tmp) / "page.png"
        subprocess.run([gs, "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH", "-sDEVICE=pnggray",
                        f"-r{stickers.DPI}", "-dFirstPage=1", "-dLastPage=1",
                        f"-sOutputFile={png}", str(pdf)], check=True, timeout=120)
        page = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
        if page is None:
            raise RuntimeError(f"ghostscript wrote no readable page ({png})")
        return page


@lru_cache(maxsize=4)
def sheet_page(layout_name: str, key: bytes) -> Page:
    """Page 1 of the printed sheet and where each code is on it (read back from the clean
    page: a code the clean page does not give back would be a fault of the sheet itself)."""
    layout = stickers.layout_named(layout_name)
    cards = payload.deck_cards(payload.load_deck(), ("fate", "sway"))[:layout.per_page]
    gray = _rasterise(layout, cards, key)
    if zxingcpp is None:
        raise RuntimeError("printed sticker photos are located with zxing-cpp: pip install zxing-cpp")
    found = zxingcpp.read_barcodes(gray, formats=zxingcpp.BarcodeFormat.QRCode)
    want = {payload.encode(c, key) for c in cards}
    codes = tuple((b.text, np.array([[p.x, p.y] for p in (
        b.position.top_left, b.position.top_right, b.position.bottom_right,
        b.position.bottom_left)], np.float32)) for b in found)
    if {t for t, _ in codes} != want:
        raise RuntimeError(f"clean {layout_name} page gives back {len(codes)} of {len(want)} codes")
    return Page(gray, codes)


def _view(rng: np.random.Generator, p: dict[str, Any], page_shape: tuple[int, ...], code_side: float,
          centre_on: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Homography from (pre-scaled) page pixels to the photo: turned, tilted, at a distance."""
    h, w = page_shape
    W, H = size
    s = rng.uniform(*p["code_px"]) / code_side
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    pts = (corners - centre_on) * s
    t = np.deg2rad(rng.uniform(0, p["tilt"]))
    axis = rng.uniform(0, np.pi)
    a = np.array([np.cos(axis), np.sin(axis)])
    f = 1.2 * max(W, H)  # a phone's wide lens
    out = []
    for q in pts:
        d = float(q @ a)
        flat = q - d * a + d * np.cos(t) * a
        out.append(flat * f / (f + d * np.sin(t)))
    r = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    dst = np.array(np.array(out) @ rot.T + [W / 2 + rng.uniform(-0.2, 0.2) * W,
                                            H / 2 + rng.uniform(-0.2, 0.2) * H], np.float32)
    return cv2.getPerspectiveTransform(corners, dst)


def _bow(rng: np.random.Generator, p: dict[str, Any], size: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
    """Paper lifted off the table: straight lines along one direction bend into arcs.

    Every photo point moves along ``b`` by an amount that depends only on its position along
    ``a`` (a ⟂ b), so the map inverts exactly: the truth's corners move the same way."""
    W, H = size
    amount = rng.uniform(*p["bow"]) * max(W, H)
    ang = rng.uniform(0, np.pi)
    a = np.array([np.cos(ang), np.sin(ang)])
    b = np.array([-a[1], a[0]])
    half = 0.5 * (abs(a[0]) * W + abs(a[1]) * H)
    mid = a @ [W / 2, H / 2]

    def shift(pts: np.ndarray) -> np.ndarray:  # displacement of photo points (N x 2) along b
        u = (pts @ a - mid) / half
        return (amount * (1 - u ** 2))[:, None] * b
    return shift


def _blur(rng: np.random.Generator, img: np.ndarray, kind: str, px: float) -> np.ndarray:
    if px < 0.4:
        return img
    if kind == "gauss":
        return cv2.GaussianBlur(img, (0, 0), px)
    n = max(3, int(2 * px) | 1)
    k: np.ndarray = np.zeros((n, n), np.float32)
    if kind == "disc":
        cv2.circle(k, (n // 2, n // 2), n // 2, 1.0, -1)
    else:  # shake: a short stroke at any angle
        k[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (n, n))
    return cv2.filter2D(img, -1, k / max(float(k.sum()), 1e-6))


def make_photo(seed: int, profile: str, key: bytes) -> Photo:
    p = PROFILES[profile]
    rng = np.random.default_rng(SEED_BASE[profile] + seed)
    page = sheet_page(p["layout"], key)
    W, H = p["size"]
    text, quad = page.codes[int(rng.integers(len(page.codes)))]
    code_side = float(np.linalg.norm(quad[1] - quad[0]))
    # Shrink the 300-dpi page to about twice its size in the photo first (as a lens averages).
    pre = min(1.0, 2.0 * p["code_px"][1] / code_side)
    small = cv2.resize(page.gray, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
    m = _view(rng, p, small.shape, code_side * pre, quad.mean(axis=0) * pre, (W, H))
    paper = cv2.warpPerspective(small.astype(np.float32), m, (W, H), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones(small.shape, np.float32), m, (W, H))
    table = _table(rng, W, H).mean(axis=2)
    img = table * (1 - mask) + paper * mask * rng.uniform(0.75, 0.95)
    shift = _bow(rng, p, (W, H))
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    d = shift(np.stack([xs.ravel(), ys.ravel()], 1)).astype(np.float32)
    img = cv2.remap(img, xs - d[:, 0].reshape(H, W), ys - d[:, 1].reshape(H, W),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # where the codes are in the photo
    texts, centres = [], []
    for t, q in page.codes:
        pq = cv2.perspectiveTransform((q * pre)[None].astype(np.float32), m)[0]
        pq = pq + shift(pq.astype(np.float64))
        if (pq >= 3).all() and (pq[:, 0] < W - 3).all() and (pq[:, 1] < H - 3).all():
            texts.append(t)
            centres.append(pq.mean(axis=0))
    # light: a gradient, sometimes a hand's shadow, sometimes glare burning out the gloss
    gx = np.linspace(rng.uniform(0.55, 1.0), rng.uniform(0.8, 1.15), W, dtype=np.float32)
    gy = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(0.85, 1.1), H, dtype=np.float32)
    img = img * gy[:, None] * gx[None, :]
    if rng.random() < p["shadow"]:
        ang = rng.uniform(0, 2 * np.pi)
        side = (np.cos(ang) * (xs - W * rng.uniform(0.3, 0.7))
                + np.sin(ang) * (ys - H * rng.uniform(0.3, 0.7)))
        edge = 1 / (1 + np.exp(-side / rng.uniform(8, 40)))
        img = img * (1 - rng.uniform(0.3, 0.6) * edge)
    lo, hi = p["glare"]
    strength = rng.uniform(lo, hi)
    if strength > 40:
        # the hot spot lies on the paper (the gloss), most often over a code in view
        cx, cy = (centres[int(rng.integers(len(centres)))] + rng.normal(0, 0.05 * W, 2)
                  if centres else (rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H))
        rx, ry = rng.uniform(0.04, 0.14) * W, rng.uniform(0.03, 0.1) * H
        g = np.exp(-((xs - cx) ** 2 / (2 * rx ** 2) + (ys - cy) ** 2 / (2 * ry ** 2)))
        img = img + strength * g
    img = _blur(rng, img, p["blur"][int(rng.integers(len(p["blur"])))], rng.uniform(*p["blur_px"]))
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * rng.uniform(*p["noise"])
    img = np.clip(img, 0, 255).astype(np.uint8)
    bgr = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)  # phones send colour JPEGs
    ok, jpg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*p["jpeg"]))])
    photo = cv2.imdecode(jpg, cv2.IMREAD_COLOR)
    assert photo is not None  # the JPEG it just encoded
    return Photo(photo, texts, f"sheet-{profile}")


def on_sheet(profile: str, key: bytes) -> set[str]:
    """Every text printed on the photographed page: a read outside it is a misread."""
    return {t for t, _ in sheet_page(PROFILES[profile]["layout"], key).codes}
