"""`python -m vision.tokens read` on hostile image files, in a real subprocess: each is refused in
one line naming what is wrong, quickly and without decoding it, and the other images are read."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _png(w: int, h: int, rows: bool) -> bytes:
    """A grey PNG claiming w x h pixels: all-zero rows (a decompression bomb: they compress
    about 1000:1), or no pixel data at all (a header that lies)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    idat = b""
    if rows:
        z = zlib.compressobj(9)
        row = bytes(w + 1)
        idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def test_decompression_bombs_are_refused_before_decoding(tmp_path):
    bomb = tmp_path / "bomb.png"           # 100 M pixels in about 100 KB
    bomb.write_bytes(_png(10000, 10000, rows=True))
    huge = tmp_path / "huge.png"           # beyond Pillow's own limit too
    huge.write_bytes(_png(30000, 30000, rows=False))
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), np.full((480, 640, 3), 255, np.uint8))
    p = subprocess.run([sys.executable, "-m", "vision.tokens", "read", "--json", str(bomb),
                        str(huge), str(good)], capture_output=True, text=True, timeout=120,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        f"vision.tokens: error: image '{bomb}' is too large (10000x10000 pixels, limit 40000000)",
        f"vision.tokens: error: image '{huge}' is too large (900000000 pixels, limit 40000000)",
    ]
    assert [json.loads(x)["image"] for x in p.stdout.splitlines()] == [str(good)]
