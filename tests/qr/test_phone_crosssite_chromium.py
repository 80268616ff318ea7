"""Issue 32, hole 3, in a real headless Chromium: a page on another website sends a seated
phone to the table's join link (everyone at the table can read its secret). The phone must keep
its seat: its cookie comes along (SameSite=Lax) and /join keeps the phone that holds it."""
from __future__ import annotations

import http.server
import threading

import pytest

from companion.phone.server import PhoneServer, RateLimiter

from .test_phone_chromium import browser  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def other_site(target: str) -> http.server.ThreadingHTTPServer:
    """A page on another site (127.0.0.2 is another site than 127.0.0.1 to a browser) that
    sends whoever opens it to ``target``."""
    page = f'<!doctype html><script>location = "{target}";</script>'.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Page)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd


def test_3_a_join_link_on_another_site_leaves_a_seated_phone_on_its_seat(browser, curia, key):  # noqa: F811
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=10_000, per_second=1_000)).start()
    evil = other_site(server.join_url)
    try:
        browser.get(server.seat_url("Bo"))
        WebDriverWait(browser, 30).until(lambda d: d.current_url == f"{server.base_url}/")
        bo = server.seats()["Bo"]
        token = browser.get_cookie(server.cookie_name)["value"]
        assert server.phone_by_token(token).id == bo

        browser.get(f"http://127.0.0.2:{evil.server_address[1]}/")
        WebDriverWait(browser, 30).until(lambda d: d.current_url == f"{server.base_url}/")
        # the same phone, still on Bo's seat, with the same cookie
        assert browser.get_cookie(server.cookie_name)["value"] == token
        assert server.seats() == {"Bo": bo}
        assert server.phone_by_token(token).seat == "Bo"
        # and Bo's seat code still opens on this phone (no "already has a phone")
        browser.get(server.seat_url("Bo"))
        WebDriverWait(browser, 30).until(lambda d: d.current_url == f"{server.base_url}/")
        assert server.seats() == {"Bo": bo}
        assert browser.get_cookie(server.cookie_name)["value"] == token
    finally:
        evil.shutdown()
        evil.server_close()
        server.stop()
