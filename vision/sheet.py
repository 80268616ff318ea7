"""The printable marker sheet: PNG or PDF, A4 or Letter, 300 dpi.

Voting tokens are printed as pairs: the Exile side and the Remain side of one seat side by side,
joined by a dashed fold line. Cut round the solid line, fold, glue (or glue each half onto the two
faces of the real token). Pick cards are single cards, one row per seat. Every card carries the seat
number, the seat colour (in words and as a band) and what the face means, so the table can sort and
check them without the app.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from companion.core.events import BadInput

from . import markers
from .markers import Face

DPI = 300
PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 10.0
HEADER_MM = 14.0
CELL_W_MM, CELL_H_MM = 46.0, 58.0
BAND_MM = 7.0  # colour band with the seat's number and colour
MARKER_MM = 32.0  # the marker, black border included
QUIET_MM = 5.0  # white round the marker: the detector needs it to see the border
COLUMNS = 4
CUT = (150, 150, 150)


def mm(v: float) -> int:
    return int(round(v * DPI / 25.4))


@lru_cache(maxsize=None)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                 "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        if Path(path).exists():
            return ImageFont.truetype(path, px)
    return ImageFont.load_default(size=px)


def _text_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (0, 0, 0) if sum(rgb) > 380 else (255, 255, 255)


def draw_card(img: Image.Image, face: Face, x: int, y: int) -> None:
    """One card (CELL_W_MM × CELL_H_MM) with its top-left corner at pixel (x, y)."""
    d = ImageDraw.Draw(img)
    w, h = mm(CELL_W_MM), mm(CELL_H_MM)
    rgb = markers.SEAT_RGB[face.colour]
    band = mm(BAND_MM)
    d.rectangle([x, y, x + w, y + band], fill=rgb, outline=(0, 0, 0) if face.colour == "white" else None)
    d.text((x + w // 2, y + band // 2), f"SEAT {face.seat} · {face.colour.upper()}",
           fill=_text_on(rgb), font=_font(mm(3.6)), anchor="mm")
    side = mm(MARKER_MM)
    mx = x + (w - side) // 2
    my = y + band + mm(QUIET_MM)
    marker = markers.marker_image(face.marker_id, side)
    img.paste(Image.fromarray(marker).convert("RGB"), (mx, my))
    label_y = my + side + mm(QUIET_MM) + mm(3.2)
    d.text((x + w // 2, label_y), face.label(), fill=(0, 0, 0), font=_font(mm(3.0)), anchor="mm")
    d.text((x + w // 2, label_y + mm(4.2)), f"marker {face.marker_id}", fill=(110, 110, 110),
           font=_font(mm(2.2)), anchor="mm")


def _dashed(d: ImageDraw.ImageDraw, x: int, y0: int, y1: int) -> None:
    step = mm(2.0)
    for yy in range(y0, y1, 2 * step):
        d.line([x, yy, x, min(yy + step, y1)], fill=CUT, width=3)


def layout(players: int, kind: str = "token") -> list[list[tuple[Face, bool]]]:
    """Pages of (face, column, row, joined-to-previous) — joined cards share a fold line."""
    faces = markers.faces_for(players, kind)
    rows: list[list[tuple[Face, bool]]] = []
    tokens = [f for f in faces if f.kind == "token"]
    picks = [f for f in faces if f.kind == "pick"]
    # Token pairs: two pairs per row of four.
    row: list[tuple[Face, bool]] = []
    for i in range(0, len(tokens), 2):
        if len(row) == COLUMNS:
            rows.append(row)
            row = []
        row += [(tokens[i], False), (tokens[i + 1], True)]
    if row:
        rows.append(row)
    # Pick cards: each seat starts a new row, so a player's set is cut out together.
    for seat in range(1, players + 1):
        mine = [f for f in picks if f.seat == seat]
        for i in range(0, len(mine), COLUMNS):
            rows.append([(f, False) for f in mine[i:i + COLUMNS]])
    return rows


def render_pages(players: int, paper: str = "a4", kind: str = "token") -> list[np.ndarray]:
    """The sheet's pages as RGB arrays at 300 dpi."""
    markers.check_players(players)
    if paper not in PAPER_MM:
        raise BadInput(f"paper {paper!r} is not one of {', '.join(PAPER_MM)}")
    pw_mm, ph_mm = PAPER_MM[paper]
    pw, ph = mm(pw_mm), mm(ph_mm)
    rows_per_page = int((ph_mm - 2 * MARGIN_MM - HEADER_MM - 4) // CELL_H_MM)  # 4 mm for the scale bar
    grid_w = COLUMNS * mm(CELL_W_MM)
    x0 = (pw - grid_w) // 2
    y0 = mm(MARGIN_MM + HEADER_MM)
    rows = layout(players, kind)
    chunks = [rows[i:i + rows_per_page] for i in range(0, len(rows), rows_per_page)]
    pages = []
    for n, chunk in enumerate(chunks, start=1):
        img = Image.new("RGB", (pw, ph), (255, 255, 255))
        d = ImageDraw.Draw(img)
        what = {"token": "voting tokens", "pick": "pick cards", "all": "voting tokens and pick cards"}[kind]
        d.text((x0, mm(MARGIN_MM)), f"Table companion · {what} · {players} players · page {n} of {len(chunks)}",
               fill=(0, 0, 0), font=_font(mm(3.6)))
        d.text((x0, mm(MARGIN_MM + 5)),
               "Print at 100 %. Cut on solid lines; fold token pairs on the dashed line. Keep the white round each marker.",
               fill=(60, 60, 60), font=_font(mm(2.4)))
        # A 50 mm bar at the foot of the page, to check the printer did not scale it.
        by = ph - mm(MARGIN_MM)
        d.line([x0, by, x0 + mm(50), by], fill=(0, 0, 0), width=4)
        for tick in (x0, x0 + mm(50)):
            d.line([tick, by - mm(1.5), tick, by + mm(1.5)], fill=(0, 0, 0), width=4)
        d.text((x0 + mm(53), by), "this bar is 50 mm long when printed at 100 %", fill=(60, 60, 60),
               font=_font(mm(2.4)), anchor="lm")
        for r, row in enumerate(chunk):
            y = y0 + r * mm(CELL_H_MM)
            for c, (face, joined) in enumerate(row):
                x = x0 + c * mm(CELL_W_MM)
                draw_card(img, face, x, y)
            # Cut lines: solid round each card or pair; dashed where a pair folds.
            c = 0
            while c < len(row):
                span = 2 if c + 1 < len(row) and row[c + 1][1] else 1
                xa, xb = x0 + c * mm(CELL_W_MM), x0 + (c + span) * mm(CELL_W_MM)
                d.rectangle([xa, y, xb, y + mm(CELL_H_MM)], outline=CUT, width=3)
                if span == 2:
                    _dashed(d, x0 + (c + 1) * mm(CELL_W_MM), y, y + mm(CELL_H_MM))
                c += span
        pages.append(np.asarray(img))
    return pages


def write_sheet(out: str | Path, players: int, paper: str = "a4", kind: str = "token") -> list[Path]:
    """Writes the sheet; PDF or PNG by ``out``'s extension. A PDF holds every page; for PNG, pages
    after the first go to NAME-2.png, NAME-3.png… Returns the files written."""
    out = Path(out)
    ext = out.suffix.lower()
    if ext not in (".pdf", ".png"):
        raise BadInput(f"sheet file {str(out)!r} must end in .pdf or .png")
    if not out.parent.exists():
        raise BadInput(f"folder {str(out.parent)!r} for the sheet does not exist")
    pages = render_pages(players, paper, kind)
    if ext == ".pdf":
        imgs = [Image.fromarray(p) for p in pages]
        # Our own title: Pillow's default is the file's name, which it cannot write into the
        # PDF when the name is not valid text (bytes that are no UTF-8: a UnicodeEncodeError).
        try:
            imgs[0].save(out, "PDF", resolution=DPI, save_all=True, append_images=imgs[1:],
                         title="Table companion marker sheet")
        except ValueError as exc:  # Pillow's own refusal (an OSError: the caller names the file)
            raise BadInput(f"could not write {str(out)!r}: {exc}") from None
        return [out]
    written = []
    for n, page in enumerate(pages, start=1):
        path = out if n == 1 else out.with_name(f"{out.stem}-{n}{out.suffix}")
        # Encoded here and written by Python: a file name that is not valid text (undecodable
        # bytes, kept as surrogates) crashes OpenCV's own imwrite (a segfault in OpenCV 5).
        ok, png = cv2.imencode(".png", cv2.cvtColor(page, cv2.COLOR_RGB2BGR))
        if not ok:
            raise BadInput(f"could not write {str(path)!r}")
        with open(path, "wb") as f:   # an OSError: the caller names the file
            f.write(png.tobytes())
        written.append(path)
    return written
