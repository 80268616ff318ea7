"""The QR code the tablet shows so a phone can open the join link (address + per-game secret)."""
from __future__ import annotations

import io

import qrcode
from PIL import Image


def join_qr_image(url: str, box_size: int = 10, border: int = 4) -> Image.Image:
    """A black-on-white image of ``url`` as a QR code (level M, quiet zone of 4 modules: a phone
    camera reads it off a glossy tablet screen from arm's length)."""
    q = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, box_size=box_size,
                      border=border)
    q.add_data(url)
    q.make(fit=True)
    return q.make_image(fill_color="black", back_color="white").get_image().convert("RGB")


def join_qr_png(url: str, box_size: int = 10) -> bytes:
    """PNG bytes of :func:`join_qr_image` (a Kivy screen loads them with CoreImage)."""
    buf = io.BytesIO()
    join_qr_image(url, box_size).save(buf, "PNG")
    return buf.getvalue()
