"""The printable sticker sheet: a multi-page PDF on A4 and Letter label layouts, each sticker a
QR code (readable) plus the card's value in plain text. Page 1 is saved as a test artifact."""
import re
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.events import BadInput
from vision.qr import payload, stickers
from vision.qr.decode import decode_array
from vision.qr.stickers import LAYOUTS, mm

GS = "/usr/bin/gs"


def _pdf_pages(path):
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    return [(float(w), float(h)) for w, h in boxes]


def _codes_on_page(page, layout, scale=0.5):
    """Read each label's code from its own crop (quicker than the whole page).

    ``page`` is at ``stickers.DPI``; crops are read at ``scale`` of it (half: 5 px modules,
    quicker for the detectors and as sure).
    """
    arr = np.array(page.convert("L")) if not isinstance(page, np.ndarray) else page
    px = arr.shape[1] / mm(layout.page_w)  # 1 for a page from Pillow, less for a render
    texts = []
    for i in range(layout.per_page):
        r, c = divmod(i, layout.cols)
        x = int(mm(layout.left + c * layout.pitch_x) * px)
        y = int(mm(layout.top + r * layout.pitch_y) * px)
        crop = arr[y:y + int(mm(layout.label_h) * px), x:x + int(mm(layout.label_w) * px)]
        if crop.min() > 200:  # an unused label at the end of the deck
            continue
        f = scale / px
        if f < 1:
            crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        crop = cv2.copyMakeBorder(crop, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
        texts.append(" ".join(decode_array(crop)))
    return texts


@pytest.mark.parametrize("name, paper_pt, pages", [
    ("L7160", (595.3, 841.9), 5),    # A4, 21 a page: 86 Fate cards on 5 pages
    ("5160", (612.0, 792.0), 3),     # Letter, 30 a page
])
def test_sticker_sheet_pdf_has_the_deck_on_the_right_paper(tmp_path, key, fate_cards, artifacts,
                                                           name, paper_pt, pages):
    layout = LAYOUTS[name]
    out = tmp_path / f"fate-{name}.pdf"
    rendered = stickers.write_pdf(fate_cards, key, layout, out)
    sizes = _pdf_pages(out)
    assert len(sizes) == len(rendered) == pages
    for w, h in sizes:
        assert w == pytest.approx(paper_pt[0], abs=1.5) and h == pytest.approx(paper_pt[1], abs=1.5)
    rendered[0].save(artifacts / f"stickers-{name}-page1.png")
    # every sticker on page 1 reads back as its own card's payload, in order
    want = [payload.encode(c, key) for c in fate_cards[:layout.per_page]]
    assert _codes_on_page(rendered[0], layout) == want
    # the last page holds the rest and nothing more
    rest = fate_cards[(pages - 1) * layout.per_page:]
    assert _codes_on_page(rendered[-1], layout) == [payload.encode(c, key) for c in rest]
    # the PDF itself, drawn by another program (Ghostscript), shows the same stickers
    if not Path(GS).exists():
        pytest.skip("Ghostscript (Debian ghostscript) is needed to render the PDF")
    shown = tmp_path / "gs-page1.png"
    subprocess.run([GS, "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pnggray", "-r150",
                    "-dFirstPage=1", "-dLastPage=1", f"-sOutputFile={shown}", str(out)],
                   check=True, timeout=60)
    shutil.copy(shown, artifacts / f"stickers-{name}-page1-pdf.png")
    img = cv2.imread(str(shown), cv2.IMREAD_GRAYSCALE)
    assert img.shape[1] == pytest.approx(paper_pt[0] / 72 * 150, abs=2)
    assert _codes_on_page(img, layout) == want


def test_small_labels_still_give_readable_codes(key, fate_cards):
    layout = LAYOUTS["L7651"]  # 38.1 x 21.2 mm, 65 a page
    page = stickers.render_pages(fate_cards[:10], key, layout)[0]
    assert _codes_on_page(page, layout) == [payload.encode(c, key) for c in fate_cards[:10]]


def test_sticker_prints_the_value_in_plain_text(key):
    # The plain text must be there for people: compare the ink right of the code for two
    # values; different labels ("5 Knives" vs "1 Dove") give different ink.
    a = np.array(stickers.draw_sticker(payload.Card("fate", "knives", 5, "001"), key, 750, 450))
    b = np.array(stickers.draw_sticker(payload.Card("fate", "doves", 1, "001"), key, 750, 450))
    right = slice(440, None)
    assert (a[:, right] < 128).sum() > 500 and (b[:, right] < 128).sum() > 500
    assert not np.array_equal(a[:, right], b[:, right])
    assert payload.Card("fate", "knives", 5, "001").label == "5 Knives"
    assert payload.Card("fate", "doves", 1, "001").label == "1 Dove"


def test_unknown_layout_and_empty_deck_are_refused():
    with pytest.raises(BadInput, match="unknown label layout 'A5'"):
        stickers.layout_named("A5")
    with pytest.raises(BadInput, match="no cards to print"):
        stickers.render_pages([], b"k" * 16, LAYOUTS["L7160"])


def test_sticker_text_does_not_carry_the_check(key):
    # issue 15, attack 1: the printed code let a card in a hand be typed in. The text right of
    # the code must be the same whatever the deck key (the check is the only keyed part), while
    # the QR code itself changes with the key.
    card = payload.Card("fate", "knives", 5, "042")
    a = np.array(stickers.draw_sticker(card, key, 750, 450))
    b = np.array(stickers.draw_sticker(card, bytes(16), 750, 450))
    right = slice(440, None)
    assert (a[:, right] < 128).sum() > 500
    assert np.array_equal(a[:, right], b[:, right])
    assert not np.array_equal(a[:, :440], b[:, :440])
    assert payload.printed(card) == "23K1.F.K5.042"
