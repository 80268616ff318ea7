"""Reading codes from (generated) phone photos, and the decode CLI."""
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.events import BadInput
from vision.qr import decode, synth

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def photos(fate_cards, key, artifacts):
    """Two generated photos of each condition (seeded: the same images every run); a contact
    sheet of them goes to test-artifacts/qr/ to see what the decoder is up against."""
    shots = list(synth.photo_set(11, 2, fate_cards, key))
    small = [cv2.resize(p.image, (320, 240), interpolation=cv2.INTER_AREA) for p in shots]
    rows = [np.hstack(small[i:i + 4]) for i in range(0, len(small), 4)]
    cv2.imwrite(str(artifacts / "synth-photos.jpg"), np.vstack(rows))
    return shots


@pytest.mark.parametrize("condition", ["plain", "rotated", "angle", "glare", "several"])
def test_photos_read_in_every_common_condition(photos, condition):
    for p in (p for p in photos if p.condition == condition):
        assert sorted(decode.decode_array(p.image)) == sorted(p.texts)


def test_hard_photos_small_blurred_mixed_mostly_read_and_never_misread(photos):
    hard = [p for p in photos if p.condition in ("small", "blur", "mixed")]
    want = sum(len(p.texts) for p in hard)
    got = 0
    for p in hard:
        texts = decode.decode_array(p.image)
        assert set(texts) <= set(p.texts)  # nothing read that is not there
        got += len(texts)
    assert got >= want * 0.5, f"read {got} of {want}"


def test_preprocessing_reads_what_opencv_alone_misses(photos):
    # Small codes in the frame: OpenCV's detectors on the photo as it is miss most of them.
    small = [p for p in photos if p.condition == "small"]
    raw = sum(bool(decode.decode_array(p.image, "opencv-raw")) for p in small)
    ours = sum(decode.decode_array(p.image) == p.texts for p in small)
    assert ours > raw


REAL = ROOT / "benchmarks" / "qr_real"


def test_real_phone_photos_read_in_every_turn_and_photos_without_a_code_read_nothing():
    truth = json.loads((REAL / "truth.json").read_text())
    assert sum(bool(t) for t in truth.values()) == 6
    for name, texts in truth.items():
        img = decode.read_image(REAL / name)
        for k in range(4):
            assert decode.decode_array(np.ascontiguousarray(np.rot90(img, k))) == texts, name


def test_fallback_reads_a_blurred_small_code_zxing_alone_misses():
    """The stages after zxing earn their place: a real photo shrunk, blurred and JPEG'd that
    zxing-cpp alone cannot read, the combined reader reads (and reads right)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import qr_decode
    gained = 0
    for i, shot in enumerate(qr_decode.real_photos()):
        if not shot.texts or i % 4:
            continue
        for j in range(3):
            img = qr_decode.harder(shot.image, np.random.default_rng([1, i, j]))
            best = set(decode.decode_array(img))
            assert best <= shot.texts
            gained += bool(best) and not decode.decode_array(img, "zxing")
    assert gained >= 1


def test_trace_names_each_stage_run_and_max_codes_stops_early(photos):
    several = next(p for p in photos if p.condition == "several")
    trace = []
    texts = decode.decode_array(several.image, trace=trace)
    assert trace[0][0] == "zxing" and sorted(texts) == sorted(several.texts)
    assert decode.decode_array(several.image, max_codes=1) == texts[:1]
    with pytest.raises(ValueError, match="unknown decode method"):
        decode.decode_array(several.image, "quirc")


def test_a_photo_without_a_code_reads_as_empty():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 255, size=(480, 640, 3), dtype=np.uint8)
    assert decode.decode_array(img) == []


def test_bad_image_bytes_are_refused_in_one_line():
    with pytest.raises(BadInput, match="not an image file"):
        decode.image_from_bytes(b"GIF89a nonsense", "upload")
    with pytest.raises(BadInput, match="empty file"):
        decode.image_from_bytes(b"", "upload")


def test_an_image_declaring_too_many_pixels_is_refused_before_decoding():
    # A PNG header claiming 20000 x 20000 pixels: refused from the header alone.
    import struct
    import zlib
    ihdr = struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")
    with pytest.raises(BadInput, match="too large"):
        decode.image_from_bytes(png, "upload")


def test_printed_sheet_photos_read_without_a_misread(key):
    from vision.qr import printed
    allowed = printed.on_sheet("tune", key)
    read = present = 0
    for seed in range(3):
        ph = printed.make_photo(seed, "tune", key)
        got = set(decode.decode_array(ph.image))
        assert got <= allowed
        read, present = read + len(got & set(ph.texts)), present + len(ph.texts)
    assert present and read >= present * 0.5


def test_decode_cli_prints_one_json_line_per_image_and_names_missing_files(
        tmp_path, photos):
    good = tmp_path / "card.jpg"
    cv2.imwrite(str(good), photos[0].image)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 300), 255, np.uint8))
    notimg = tmp_path / "notes.txt"
    notimg.write_text("hello")
    missing = tmp_path / "missing.jpg"
    r = subprocess.run([sys.executable, "-m", "vision.qr", "decode", str(good), str(missing),
                        str(blank), str(notimg)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines == [{"image": str(good), "texts": photos[0].texts},
                     {"image": str(blank), "texts": []}]
    errs = r.stderr.strip().splitlines()
    assert errs == [f"decode: no such file: {missing}",
                    f"decode: notes.txt: not an image file (JPEG, PNG or WebP expected)"
                    .replace("notes.txt", str(notimg))]
    assert r.returncode == 1


def test_stickers_cli_writes_a_pdf_and_refuses_a_bad_layout(tmp_path):
    out = tmp_path / "s.pdf"
    keyf = tmp_path / "deck.key"
    r = subprocess.run([sys.executable, "-m", "vision.qr", "stickers", "--out", str(out),
                        "--layout", "L7651", "--key-file", str(keyf)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["pages"] == 2 and info["stickers"] == 86 and out.read_bytes()[:5] == b"%PDF-"
    assert keyf.exists()
    r = subprocess.run([sys.executable, "-m", "vision.qr", "stickers", "--out", str(out),
                        "--layout", "A5", "--key-file", str(keyf)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip() == "stickers: unknown label layout 'A5' (known: L7160, L7651, 5160)"


@pytest.mark.parametrize("shape", [(1, 20000), (20000, 1), (2, 40000), (40000, 2), (1, 1601),
                                   (3, 5000, 3)])
def test_images_of_any_aspect_ratio_are_read_without_error(shape):
    # A strip shrunk to the work size used to become 0 pixels high: cv2.error in resize.
    img = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    for method in decode.METHODS:
        assert decode.decode_array(img, method) == []


def test_decode_cli_reads_a_one_pixel_high_strip(tmp_path):
    strip = tmp_path / "wide.png"
    cv2.imwrite(str(strip), np.zeros((1, 20000, 3), np.uint8))
    r = subprocess.run([sys.executable, "-m", "vision.qr", "decode", str(strip)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stderr) == (0, "")
    assert json.loads(r.stdout) == {"image": str(strip), "texts": []}
