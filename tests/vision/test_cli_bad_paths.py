"""`python -m vision.tokens` with paths OpenCV cannot take and files it warns about, in a real
subprocess (OpenCV 5 segfaults on a file name that is not valid text: pytest must survive it)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOT_TEXT = os.fsdecode(b"bad\xff")   # bytes that are no UTF-8: Python keeps them as surrogates


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.tokens", *map(os.fsdecode, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          errors="surrogateescape", env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("ext", [".png", ".pdf"])
def test_a_sheet_whose_name_is_not_valid_text_is_written(tmp_path, ext):
    """It used to segfault in cv2.imwrite (PNG) or end in a Pillow traceback (PDF: the name
    went into the PDF's title)."""
    out = tmp_path / f"{NOT_TEXT}{ext}"
    r = _run("sheet", "--players", "4", "--out", out)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stderr == ""
    assert r.stdout.splitlines()[0] == str(out)
    head = out.read_bytes()[:5]
    assert head == (b"%PDF-" if ext == ".pdf" else b"\x89PNG\r")
    if ext == ".png":   # the pages are the images they were
        page = cv2.imdecode(np.frombuffer(out.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
        assert page is not None and page.shape[:2] == (3508, 2480)
        assert all(Path(p).exists() for p in r.stdout.splitlines())


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
@pytest.mark.parametrize("ext", [".png", ".pdf"])
def test_a_sheet_where_no_file_can_be_made_is_one_line(ext):
    r = _run("sheet", "--players", "4", "--out", f"/proc/x{ext}")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [f"vision.tokens: error: cannot write '/proc/x{ext}': No such file or directory"]


def test_an_image_whose_name_is_not_valid_text_is_read(tmp_path):
    image = tmp_path / f"{NOT_TEXT}.png"
    image.write_bytes(cv2.imencode(".png", np.full((480, 640, 3), 255, np.uint8))[1].tobytes())
    r = _run("read", image)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines() == [f"{image}: no tokens"]


@pytest.mark.parametrize("command", [["read"], ["calibrate", "--players", "3"]])
@pytest.mark.parametrize("keep", [0.001, 0.5])
def test_a_truncated_png_is_one_line_without_opencvs_own_warning(tmp_path, command, keep):
    whole = cv2.imencode(".png", np.random.default_rng(0).integers(0, 256, (600, 600, 3), np.uint8))[1]
    trunc = tmp_path / "trunc.png"
    # cut inside its first data chunk, as a download stopped early: OpenCV logged a WARN line;
    # cut after it, OpenCV's libpng printed its own "libpng error" line (whole_png checks first)
    trunc.write_bytes(whole.tobytes()[:max(300, int(whole.size * keep))])
    r = _run(*command, trunc)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"vision.tokens: error: image '{trunc}' is not an image OpenCV can read (PNG, JPEG, BMP, TIFF, WebP…)"]
