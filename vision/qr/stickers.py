"""Printable sticker sheets: one sticker per card, a QR code plus the card's value in plain text.

Pages are drawn with Pillow at 300 dpi onto common label-sheet layouts and written as one
multi-page PDF. Layout figures are the published sizes of the named Avery sheets (and of their
many compatible clones); a group with another sheet adds a :class:`Layout`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import qrcode
from PIL import Image, ImageDraw, ImageFont

from companion.core.events import BadInput

from .payload import Card, check_writable, encode, printed

DPI = 300
QUIET_MODULES = 2  # the label's own white edge adds to this; 2 keeps the code large on small labels


@dataclass(frozen=True)
class Layout:
    """A label sheet, all lengths in millimetres."""

    name: str
    paper: str
    page_w: float
    page_h: float
    cols: int
    rows: int
    label_w: float
    label_h: float
    left: float      # page edge to the first label's left edge
    top: float       # page edge to the first label's top edge
    pitch_x: float   # left edge to the next label's left edge
    pitch_y: float

    @property
    def per_page(self) -> int:
        return self.cols * self.rows


A4 = (210.0, 297.0)
LETTER = (215.9, 279.4)
LAYOUTS = {
    # 21 per A4, 63.5 x 38.1 mm
    "L7160": Layout("L7160", "A4", *A4, 3, 7, 63.5, 38.1, 7.25, 15.15, 66.04, 38.1),
    # 65 per A4, 38.1 x 21.2 mm: the smallest that still gives ~0.75 mm modules
    "L7651": Layout("L7651", "A4", *A4, 5, 13, 38.1, 21.2, 4.75, 10.7, 40.64, 21.2),
    # 30 per Letter, 2 5/8 x 1 in
    "5160": Layout("5160", "Letter", *LETTER, 3, 10, 66.675, 25.4, 4.7625, 12.7, 69.85, 25.4),
}


def mm(v: float) -> int:
    return int(round(v / 25.4 * DPI))


@lru_cache(maxsize=None)
def _font(px: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = Path("/usr/share/fonts/truetype/dejavu") / name
    if path.exists():
        return ImageFont.truetype(str(path), px)
    return ImageFont.load_default(size=px)  # Pillow's bundled font: same layout, fewer glyphs


def qr_image(text: str, module_px: int, border: int = QUIET_MODULES) -> Image.Image:
    """A black-on-white QR code of ``text`` with square modules of ``module_px`` pixels.

    Level M: the payload still fits version 1 (21 x 21), and bigger modules matter more for
    small, blurred phone photos than the extra repair of Q or H.
    """
    q = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=border)
    q.add_data(text)
    q.make(fit=True)
    matrix = q.get_matrix()
    n = len(matrix)
    img = Image.new("L", (n, n), 255)
    img.putdata([0 if dark else 255 for row in matrix for dark in row])
    return img.resize((n * module_px, n * module_px), Image.Resampling.NEAREST)


def _fit_font(draw: ImageDraw.ImageDraw, text: str, max_w: float, max_h: float,
              bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The largest font (found by bisection: pages have hundreds of lines) that fits the box."""
    lo, hi = 6, max(6, int(max_h))
    while lo < hi:
        px = (lo + hi + 1) // 2
        l, t, r, b = draw.textbbox((0, 0), text, font=_font(px, bold))
        if r - l <= max_w and b - t <= max_h:
            lo = px
        else:
            hi = px - 1
    return _font(lo, bold)


def draw_sticker(card: Card, key: bytes, w: int, h: int, game_title: str = "23 Knives"
                 ) -> Image.Image:
    """One sticker, ``w`` x ``h`` pixels: the code on the left, the value large on the right."""
    img = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(img)
    pad = max(2, mm(1.5))
    payload = encode(card, key)
    side = min(h - 2 * pad, int(w * 0.55))
    probe = qr_image(payload, 1)
    module_px = max(1, side // probe.width)
    code = qr_image(payload, module_px)
    img.paste(code, (pad, (h - code.height) // 2))
    tx = pad + code.width + pad
    tw = w - tx - pad
    if tw < mm(8):
        raise BadInput(f"label too small for a sticker ({w}x{h} px at {DPI} dpi)")
    # Three lines: the value (what the table reads), the card type and serial, and the code
    # without its check (payload.printed): a card in a hand cannot be typed in from its text.
    big = _fit_font(draw, card.label, tw, h * 0.30, bold=True)
    kind = f"{game_title} · {card.kind.capitalize()} · {card.serial}"
    mid = _fit_font(draw, kind, tw, h * 0.12)
    typed = printed(card)
    small = _fit_font(draw, typed, tw, h * 0.11)
    lines = [(card.label, big), (kind, mid), (typed, small)]
    heights = [draw.textbbox((0, 0), t, font=f)[3] - draw.textbbox((0, 0), t, font=f)[1]
               for t, f in lines]
    gap = mm(1.2)
    y = (h - sum(heights) - gap * (len(lines) - 1)) // 2
    for (text, font), lh in zip(lines, heights):
        top = draw.textbbox((0, 0), text, font=font)[1]
        draw.text((tx, y - top), text, font=font, fill=0)
        y += lh + gap
    return img


def render_pages(cards: list[Card], key: bytes, layout: Layout, outline: bool = False
                 ) -> list[Image.Image]:
    """The sheet pages (1-bit images at :data:`DPI`); ``outline`` draws cut lines for plain paper."""
    if not cards:
        raise BadInput("no cards to print: the deck file has zero of the chosen kinds")
    lw, lh = mm(layout.label_w), mm(layout.label_h)
    pages = []
    for start in range(0, len(cards), layout.per_page):
        page = Image.new("L", (mm(layout.page_w), mm(layout.page_h)), 255)
        draw = ImageDraw.Draw(page)
        for i, card in enumerate(cards[start:start + layout.per_page]):
            r, c = divmod(i, layout.cols)
            x = mm(layout.left + c * layout.pitch_x)
            y = mm(layout.top + r * layout.pitch_y)
            page.paste(draw_sticker(card, key, lw, lh), (x, y))
            if outline:
                draw.rectangle([x, y, x + lw - 1, y + lh - 1], outline=0, width=1)
        pages.append(page.convert("1", dither=Image.Dither.NONE))
    return pages


def write_pdf(cards: list[Card], key: bytes, layout: Layout, out: str | os.PathLike,
              outline: bool = False) -> list[Image.Image]:
    """Write the sticker sheet PDF; returns the pages so a caller can also save a preview."""
    out = check_writable(out, "sticker sheet")   # before the drawing: a bad path says so at once
    pages = render_pages(cards, key, layout, outline)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=DPI,
                      title=f"23 Knives stickers ({layout.name}, {layout.paper})")
    except OSError as exc:  # no permission, a read-only disk, /proc: one line naming the file
        raise BadInput(f"cannot write sticker sheet {out}: {exc.strerror or exc}") from None
    return pages


def check_preview(path: str | os.PathLike) -> Path:
    """The preview image's path, checked before anything is written: BadInput naming it when
    its extension is no image type Pillow writes, or no file can be written there."""
    p = check_writable(path, "preview")
    ext = p.suffix.lower()
    if Image.registered_extensions().get(ext) not in Image.SAVE:
        raise BadInput(f"preview {p}: {ext or 'no extension'} is not an image type that can be "
                       "written (use .png)")
    return p


def write_preview(page: Image.Image, path: str | os.PathLike) -> None:
    p = check_preview(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        page.save(p)
    except (OSError, ValueError) as exc:  # Pillow: no write access, a mode it cannot save
        raise BadInput(f"cannot write preview {p}: {getattr(exc, 'strerror', None) or exc}") from None


def layout_named(name: str) -> Layout:
    try:
        return LAYOUTS[name]
    except KeyError:
        raise BadInput(f"unknown label layout {name!r} (known: {', '.join(LAYOUTS)})") from None
