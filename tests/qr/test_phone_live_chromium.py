"""Live scanning on the phone page: headless Chromium's camera is a video file of a Fate card's
sticker (Chromium's fake capture device), the page reads it with the QR reader the tablet
serves (npm barcode-detector's ZXing WebAssembly: desktop Chromium has no BarcodeDetector), and
the card counts. Loopback is a secure context, as the tablet's https address is on a phone."""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.phone.server import STATIC, PhoneServer, RateLimiter
from vision.qr import stickers
from vision.qr.payload import Card

from .test_phone_chromium import make_browser

pytestmark = pytest.mark.slow

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def write_y4m(path: Path, image: np.ndarray, frames: int = 20) -> None:
    """A still video in the YUV4MPEG2 format Chromium's fake camera plays (in a loop)."""
    h, w = image.shape[:2]
    yuv = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes()
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + yuv)


def test_the_vendored_reader_is_the_one_the_ponyfill_was_built_for():
    js = (STATIC / "vendor" / "barcode-detector-ponyfill.js").read_text()
    wasm = (STATIC / "vendor" / "zxing_reader.wasm").read_bytes()
    names = dict(re.findall(r"e\.(ZXING_WASM_SHA256|ZXING_WASM_VERSION)=(\w+)", js))
    want = re.search(rf"\b{names['ZXING_WASM_SHA256']}=`([0-9a-f]{{64}})`", js).group(1)
    assert hashlib.sha256(wasm).hexdigest() == want


def test_live_scanning_reads_a_card_held_to_the_camera(tmp_path, curia, key, artifacts):
    card = Card("fate", "knives", 3, "033")
    sticker = np.array(stickers.draw_sticker(card, key, 600, 360))
    frame = np.full((480, 640), 235, np.uint8)
    frame[60:420, 20:620] = sticker
    video = tmp_path / "card.y4m"
    write_y4m(video, cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=200, per_second=50)).start()
    drv = make_browser(tmp_path, ("--use-fake-device-for-media-stream",
                                  "--use-fake-ui-for-media-stream",
                                  f"--use-file-for-fake-video-capture={video}",
                                  "--autoplay-policy=no-user-gesture-required"))
    try:
        drv.get(server.join_url)
        assert server.allow(server.devices()[0]["id"])
        live = WebDriverWait(drv, 60).until(
            lambda d: d.find_element(By.ID, "live") if d.find_element(By.ID, "live").is_displayed()
            else None)
        live.click()
        WebDriverWait(drv, 60).until(
            lambda d: d.find_element(By.ID, "answer-status").text == "Counted")
        assert "3 Knives" in drv.find_element(By.ID, "answer-detail").text
        drv.save_screenshot(str(artifacts / "phone-page-live-scan.png"))
    finally:
        drv.quit()
        server.stop()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)
    # held in view, the card counts once
    assert list(curia.counted) == ["033"] and curia.total == 3
    assert curia.commands[0].data == {"card": {"knives": 3}, "serial": "033"}
