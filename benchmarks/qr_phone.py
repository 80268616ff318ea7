"""Phone server figures: round trip of a typed/live scan and of a photo upload over loopback,
time to render the sticker PDF, and the process's peak memory.

    .venv/bin/python benchmarks/qr_phone.py [--scans 300] [--photos 10]
"""
from __future__ import annotations

import argparse
import http.client
import json
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from companion.phone.server import PhoneServer, RateLimiter  # noqa: E402
from vision.qr import payload, stickers, synth  # noqa: E402

from _args import parse_quick  # noqa: E402


class Counter:
    """The app's submit, reduced to what the rules do with a Curia card."""

    def __init__(self):
        self.lock, self.seen, self.total = threading.Lock(), set(), 0

    def submit(self, cmd):
        with self.lock:
            if cmd.data["serial"] in self.seen:
                return {"status": "duplicate", "total": self.total, "count": len(self.seen)}
            self.seen.add(cmd.data["serial"])
            (side, n), = cmd.data["card"].items()
            self.total += n if side == "knives" else -n
            return {"status": "counted", "total": self.total, "count": len(self.seen)}


def request(server, cookies, method, path, body, ctype):
    c = http.client.HTTPConnection(server.host, server.port, timeout=60)
    c.request(method, path, body, {"Content-Type": ctype, "Cookie": cookies,
                                   "Host": f"{server.host}:{server.port}"})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def join(server) -> str:
    """Join as a phone does (the join code's link): the session cookie the server issues. The
    server runs with auto_allow (the headless demo's mode), so the phone may count at once."""
    c = http.client.HTTPConnection(server.host, server.port, timeout=60)
    c.request("GET", f"/join?k={server.secret}", headers={"Host": f"{server.host}:{server.port}"})
    r = c.getresponse()
    r.read()
    c.close()
    cookie = r.headers.get("Set-Cookie", "")
    if r.status != 303 or "=" not in cookie:
        raise SystemExit(f"error: joining the phone server failed ({r.status})")
    return cookie.split(";", 1)[0]


def ms(xs):
    return f"median {statistics.median(xs) * 1000:.1f} ms, p90 " \
           f"{sorted(xs)[int(len(xs) * 0.9) - 1] * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--scans", type=int, default=300)
    ap.add_argument("--photos", type=int, default=10)
    args = parse_quick(ap, argv, scans=20, photos=1)
    key = bytes(range(16))
    cards = payload.deck_cards(payload.load_deck())
    counter = Counter()
    server = PhoneServer(counter.submit, key, host="127.0.0.1", auto_allow=True,
                         rate=RateLimiter(burst=1e9, per_second=1e9)).start()
    try:
        cookies = join(server)
        texts = [payload.encode(cards[i % len(cards)], key) for i in range(args.scans)]
        times = []
        for t in texts:
            t0 = time.perf_counter()
            status, _ = request(server, cookies, "POST", "/scan",
                                json.dumps({"text": t}).encode(), "application/json")
            times.append(time.perf_counter() - t0)
            assert status == 200, (status, _)
        print(f"text scan round trip ({args.scans} scans, loopback): {ms(times)}")

        photos = [synth.make_photo(100 + i, "plain", cards, key) for i in range(args.photos)]
        times, sizes = [], []
        for ph in photos:
            jpg = cv2.imencode(".jpg", ph.image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
            sizes.append(len(jpg))
            t0 = time.perf_counter()
            status, body = request(server, cookies, "POST", "/photo", jpg, "image/jpeg")
            times.append(time.perf_counter() - t0)
            assert status == 200, body
        print(f"photo upload + decode round trip ({args.photos} photos, 1280x960, "
              f"~{statistics.mean(sizes) / 1024:.0f} KB): {ms(times)}")
    finally:
        server.stop()

    with tempfile.TemporaryDirectory() as d:
        for name in ("L7160", "5160"):
            t0 = time.perf_counter()
            pages = stickers.write_pdf(cards, key, stickers.LAYOUTS[name], Path(d) / "s.pdf")
            dt = time.perf_counter() - t0
            size = (Path(d) / "s.pdf").stat().st_size
            print(f"sticker PDF {name}: {len(cards)} stickers, {len(pages)} pages, "
                  f"{dt:.2f} s, {size / 1024:.0f} KB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS) of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
