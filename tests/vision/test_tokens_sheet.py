"""The printable sheet: it prints (PNG, PDF; A4, Letter) and reads back after a warp onto a table."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion.core.events import BadInput
from vision import markers, sheet, synth
from vision.reader import TokenReader

ART = str(Path(__file__).resolve().parents[2] / "test-artifacts" / "tokens")


@pytest.mark.parametrize("paper, size_px", [("a4", (2480, 3508)), ("letter", (2550, 3300))])
def test_the_token_sheet_is_one_page_at_300_dpi_and_reads_back_after_a_warp(paper, size_px):
    pages = sheet.render_pages(8, paper, "token")
    assert len(pages) == 1 and pages[0].shape[1::-1] == size_px
    # The page lying on the table, photographed at an angle, a quarter turned, at 1280×720.
    frame = synth.warp_page(pages[0], np.random.default_rng(1), width_px=1150, tilt_deg=35)
    r = TokenReader(8, "all").read(frame)
    seen = sorted((s.face.seat, s.face.face) for s in r.sightings)
    assert seen == sorted((f.seat, f.face) for f in markers.faces_for(8, "token"))
    # Both sides of every seat lie side by side on the sheet: that is reported, not guessed.
    assert r.tokens == {} and [w.kind for w in r.warnings] == ["both_sides"] * 8


def test_every_pick_card_page_reads_back():
    pages = sheet.render_pages(4, "a4", "pick")
    found = []
    for n, page in enumerate(pages):
        frame = synth.warp_page(page, np.random.default_rng(n), width_px=1200, tilt_deg=20)
        found += [(s.face.seat, s.face.face) for s in TokenReader(4, "all").read(frame).sightings]
    assert sorted(found) == sorted((f.seat, f.face) for f in markers.faces_for(4, "pick"))


def test_the_pdf_has_every_page_at_the_paper_size(tmp_path):
    import re
    out = tmp_path / "tokens.pdf"
    # 3 players: 2 rows of token pairs + one row of pick cards per seat = 5 rows, 4 rows a page.
    assert sheet.write_sheet(out, 3, "letter", "all") == [out]
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and re.findall(rb"/Count (\d+)", data) == [b"2"]
    # Every page's media box is the paper in points (1/72 inch): 8.5 × 11 inches.
    boxes = re.findall(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", data)
    assert len(boxes) == 2 and {(float(w), float(h)) for w, h in boxes} == {(612.0, 792.0)}


def test_eight_players_take_one_page_of_tokens_and_six_more_of_pick_cards():
    rows = sheet.layout(8, "all")
    assert len(rows) == 4 + 8 * 3  # 9 pick cards a seat: rows of 4, 4 and 1
    assert all(joined for row in rows[:4] for _, joined in row[1::2])  # token pairs share a fold


def test_png_pages_after_the_first_get_numbered_names(tmp_path):
    out = tmp_path / "sheet.png"
    written = sheet.write_sheet(out, 3, "a4", "all")  # 2 rows of tokens + 3 seats' pick rows
    assert written == [out, tmp_path / "sheet-2.png"]
    assert Image.open(written[0]).size == (2480, 3508)


def test_the_artifact_sheet_for_people_to_look_at():
    import os
    os.makedirs(ART, exist_ok=True)
    written = sheet.write_sheet(f"{ART}/sheet-a4.png", 8, "a4", "token")
    assert written and os.path.getsize(written[0]) > 10_000


@pytest.mark.parametrize("out, words", [("x.txt", "must end in .pdf or .png"), ("/no/such/dir/x.pdf", "does not exist")])
def test_a_bad_output_name_is_a_one_line_error(out, words):
    with pytest.raises(BadInput, match=words):
        sheet.write_sheet(out, 3)


def test_unknown_paper_is_refused():
    with pytest.raises(BadInput, match="paper 'a3'"):
        sheet.render_pages(3, "a3")
