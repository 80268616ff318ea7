"""`python -m vision.tokens sheet|read|calibrate` on real files, in a real subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import synth

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "vision.tokens", *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd or ROOT, env=env)


def test_sheet_then_read_a_photo_of_it(tmp_path):
    out = tmp_path / "sheet.png"
    p = cli("sheet", "--players", 5, "--out", out, "--paper", "letter", "--kind", "token")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(out)] and out.stat().st_size > 10_000
    page = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), synth.warp_page(page, np.random.default_rng(3), width_px=1100, tilt_deg=30))
    p = cli("read", photo, "--json", "--players", 5)
    assert p.returncode == 0, p.stderr
    (line,) = p.stdout.splitlines()
    got = json.loads(line)
    assert got["image"] == str(photo) and got["tokens"] == []
    assert got["warnings"] == [f"seat {s}: both sides of the token in view (exile and remain); not counted" for s in range(1, 6)]


def test_sheet_as_pdf(tmp_path):
    out = tmp_path / "t.pdf"
    p = cli("sheet", "--players", 2, "--out", out)
    assert p.returncode == 0 and out.read_bytes().startswith(b"%PDF")


def test_read_prints_one_json_object_per_image_in_order(tmp_path):
    want = []
    paths = []
    for n, faces in enumerate([{1: "exile", 2: "remain", 3: "exile"}, {1: "remain", 2: "remain", 3: "remain"}]):
        scene = synth.make_scene(np.random.default_rng(20 + n), "easy", players=3, faces=faces)
        path = tmp_path / f"table{n}.png"
        cv2.imwrite(str(path), scene.image)
        paths.append(path)
        want.append([{"player": s, "side": f} for s, f in sorted(faces.items())])
    p = cli("read", *paths, "--json", "--players", 3)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x["image"] for x in lines] == [str(x) for x in paths]
    assert [x["tokens"] for x in lines] == want and all(x["warnings"] == [] for x in lines)


def test_missing_and_unreadable_images_are_one_line_errors_and_the_rest_are_still_read(tmp_path):
    good = tmp_path / "good.jpg"
    cv2.imwrite(str(good), synth.make_scene(np.random.default_rng(1), "easy", players=2, faces={1: "exile", 2: "remain"}).image)
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    p = cli("read", tmp_path / "gone.png", text, good, empty, tmp_path, "--json", "--players", 2)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    errors = p.stderr.splitlines()
    assert errors == [
        f"vision.tokens: error: image '{tmp_path / 'gone.png'}' does not exist",
        f"vision.tokens: error: image '{text}' is not an image OpenCV can read (PNG, JPEG, BMP, TIFF, WebP…)",
        f"vision.tokens: error: image '{empty}' is empty (0 bytes)",
        f"vision.tokens: error: image '{tmp_path}' is a folder, not an image file",
    ]
    (line,) = p.stdout.splitlines()
    assert json.loads(line)["tokens"] == [{"player": 1, "side": "exile"}, {"player": 2, "side": "remain"}]


@pytest.mark.parametrize("args, words", [
    (("sheet", "--players", "9", "--out", "x.pdf"), "9 players: the sheet has markers for 1 to 8"),
    (("sheet", "--players", "three", "--out", "x.pdf"), "'three' is not a whole number"),
    (("sheet", "--players", "3", "--out", "x.svg"), "must end in .pdf or .png"),
    (("read",), "the following arguments are required: IMAGE"),
])
def test_bad_arguments_are_clear_errors_with_a_non_zero_exit(args, words, tmp_path):
    p = cli(*args, cwd=tmp_path)
    assert p.returncode != 0 and words in p.stderr and "Traceback" not in p.stderr


def test_calibrate_says_which_sides_are_still_missing(tmp_path):
    paths = []
    for n, faces in enumerate([{1: "exile", 2: "exile"}, {1: "remain"}]):
        path = tmp_path / f"c{n}.png"
        cv2.imwrite(str(path), synth.make_scene(np.random.default_rng(n), "easy", players=2, faces=faces).image)
        paths.append(path)
    p = cli("calibrate", *paths, "--players", 2)
    assert p.returncode == 1
    report = json.loads(p.stdout)
    assert report["checked"] == [[1, "exile"], [1, "remain"], [2, "exile"]]
    assert report["missing"] == [[2, "remain"]] and report["complete"] is False
