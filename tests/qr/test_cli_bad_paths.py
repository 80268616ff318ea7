"""`python -m vision.qr` on bad input, in a real subprocess (a crash must not take pytest with it):
every bad image, option or path gives ONE line on stderr naming it, a non-zero exit and no
traceback; the other images are still read, and nothing is written when a path is bad."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import qrcode
from PIL import Image

from companion.core.events import BadInput
from vision.qr import decode, payload

ROOT = Path(__file__).resolve().parents[2]


def _run(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.qr", *map(os.fsdecode, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, errors="surrogateescape")


def _qr_png(path: Path, text: str = "hello table") -> Path:
    qrcode.make(text).convert("L").save(path)
    return path


def _one_error_line(r: subprocess.CompletedProcess, *words: str) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# -- decode ------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["best", "zxing"])
def test_a_too_wide_image_is_one_line_and_the_next_image_is_still_read(tmp_path, method):
    """zxing-cpp refuses a side over 65535 px with a ValueError: it used to end the run with a
    traceback before the next image was read."""
    wide = tmp_path / "wide.png"
    Image.new("L", (300000, 1), 255).save(wide)
    good = _qr_png(tmp_path / "good.png")
    r = _run("decode", "--method", method, wide, good)
    assert r.returncode == 1
    assert _one_error_line(r) == f"decode: {wide}: image is 300000x1 pixels, more than 65535 a side"
    assert [json.loads(x) for x in r.stdout.splitlines()] == [
        {"image": str(good), "texts": ["hello table"]}]


def test_a_too_wide_image_is_bad_input_and_a_too_wide_array_reads_nothing():
    buf = io.BytesIO()
    Image.new("L", (70000, 2), 255).save(buf, "PNG")
    with pytest.raises(BadInput, match=r"wide.png: image is 70000x2 pixels, more than 65535 a side"):
        decode.image_from_bytes(buf.getvalue(), "wide.png")
    strip = np.full((2, 70000), 255, np.uint8)
    for method in decode.METHODS:
        assert decode.decode_array(strip, method) == []


@pytest.mark.parametrize("cut", [300, "half", "no IEND"])
def test_a_truncated_png_is_one_line_without_opencvs_or_libpngs_own(tmp_path, cut):
    """Cut inside the first data chunk, OpenCV logged "[ WARN:0@…] … PNG input buffer is
    incomplete"; cut after it, libpng printed "libpng error: …" itself."""
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), np.uint8)
    buf = io.BytesIO()
    Image.fromarray(noise).save(buf, "PNG")
    whole = buf.getvalue()
    trunc = tmp_path / "trunc.png"
    trunc.write_bytes(whole[:{300: 300, "half": len(whole) // 2, "no IEND": len(whole) - 12}[cut]])
    good = _qr_png(tmp_path / "good.png")
    r = _run("decode", trunc, good)
    assert r.returncode == 1
    assert _one_error_line(r) == f"decode: {trunc}: not an image file (JPEG, PNG or WebP expected)"
    assert json.loads(r.stdout)["texts"] == ["hello table"]


def test_an_image_whose_name_is_not_valid_text_is_read(tmp_path):
    """A name with bytes that are no UTF-8 (Python holds them as surrogates): OpenCV 5's own
    file functions crash on such a name; the image is read by Python and decoded from bytes."""
    good = tmp_path / os.fsdecode(b"caf\xe9.png")
    _qr_png(good)
    r = _run("decode", good)
    assert (r.returncode, r.stderr) == (0, "")
    assert json.loads(r.stdout)["texts"] == ["hello table"]


# -- stickers ----------------------------------------------------------------------------------

def _stickers(tmp_path, *args):
    return _run("stickers", "--layout", "L7651", *args)


def test_stickers_out_a_folder_is_one_line_and_writes_nothing(tmp_path):
    folder = tmp_path / "outdir"
    folder.mkdir()
    key = tmp_path / "deck.key"
    r = _stickers(tmp_path, "--out", folder, "--key-file", key)
    assert r.returncode == 2
    assert _one_error_line(r) == f"stickers: sticker sheet {folder} is a folder, not a file"
    assert not key.exists() and list(folder.iterdir()) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_stickers_out_where_no_file_can_be_made_is_one_line(tmp_path):
    key = tmp_path / "deck.key"
    payload.load_or_create_key(key)
    r = _stickers(tmp_path, "--out", "/proc/x.pdf", "--key-file", key)
    assert r.returncode == 2
    assert _one_error_line(r, "/proc/x.pdf").startswith("stickers: cannot write sticker sheet /proc/x.pdf: ")


def test_stickers_key_file_under_a_file_is_one_line_and_writes_nothing(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    out = tmp_path / "s.pdf"
    r = _stickers(tmp_path, "--out", out, "--key-file", afile / "key")
    assert r.returncode == 2
    assert _one_error_line(r) == f"stickers: deck key file {afile / 'key'}: {afile} is not a folder"
    assert not out.exists() and afile.read_text() == ""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_stickers_key_file_where_none_can_be_made_is_one_line(tmp_path):
    out = tmp_path / "s.pdf"
    r = _stickers(tmp_path, "--out", out, "--key-file", "/proc/deck.key")
    assert r.returncode == 2
    assert _one_error_line(r).startswith("stickers: cannot write deck key file /proc/deck.key: ")
    assert not out.exists()


def test_stickers_out_under_a_file_is_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    key = tmp_path / "deck.key"
    r = _stickers(tmp_path, "--out", afile / "s.pdf", "--key-file", key)
    assert r.returncode == 2
    assert _one_error_line(r) == f"stickers: sticker sheet {afile / 's.pdf'}: {afile} is not a folder"
    assert not key.exists()


@pytest.mark.parametrize("preview", ["p.xyz", "outdir", "noext"])
def test_a_bad_preview_is_refused_before_the_pdf_or_the_key_is_written(tmp_path, preview):
    (tmp_path / "outdir").mkdir()
    out, key, target = tmp_path / "s.pdf", tmp_path / "deck.key", tmp_path / preview
    r = _stickers(tmp_path, "--out", out, "--key-file", key, "--preview", target)
    assert r.returncode == 2
    line = _one_error_line(r, str(target))
    assert line.startswith(f"stickers: preview {target}")
    assert not out.exists() and not key.exists()
    assert not (tmp_path / "p.xyz").exists() and not (tmp_path / "noext").exists()
    assert list((tmp_path / "outdir").iterdir()) == []


def test_a_good_preview_is_still_written(tmp_path):
    out, key, preview = tmp_path / "s.pdf", tmp_path / "deck.key", tmp_path / "sub" / "p.png"
    r = _stickers(tmp_path, "--out", out, "--key-file", key, "--preview", preview)
    assert (r.returncode, r.stderr) == (0, "")
    assert out.read_bytes()[:5] == b"%PDF-" and preview.read_bytes()[:4] == b"\x89PNG" and key.exists()


def test_load_or_create_key_says_a_bad_path_in_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(BadInput, match="is not a folder"):
        payload.load_or_create_key(afile / "sub" / "key")
    assert afile.read_text() == ""
