"""The phone server over real sockets: joining, every security check, bad input, duplicates,
retries and reconnects. The app's ``submit`` is the honest stand-in from conftest."""
import http.client
import json

import cv2
import pytest

from companion.core.clock import FakeClock
from companion.core.events import BadInput
from companion.phone.server import PhoneServer, RateLimiter, is_local_peer
from vision.qr import payload, synth
from vision.qr.payload import Card


class Phone:
    """A minimal HTTP client that keeps the cookies the server sets, like a phone's browser."""

    def __init__(self, server: PhoneServer):
        self.server = server
        self.cookies: dict[str, str] = {}

    def _connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.server.host, self.server.port, timeout=30)

    def request(self, method, path, body=None, headers=None, host=None, cookies=True):
        conn = self._connection()
        hdrs = {"Host": host or f"{self.server.host}:{self.server.port}"}
        if cookies and self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        hdrs.update(headers or {})
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in hdrs.items():
            conn.putheader(k, v)
        if body is not None and "Content-Length" not in hdrs:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        if body is not None:
            conn.send(body)
        res = conn.getresponse()
        data = res.read()
        for h in res.headers.get_all("Set-Cookie") or []:
            name, _, rest = h.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        conn.close()
        ctype = res.headers.get("Content-Type", "")
        return res.status, res.headers, (json.loads(data) if "json" in ctype else data)

    def join(self, secret=None):
        return self.request("GET", f"/join?k={secret or self.server.secret}")

    @property
    def id(self) -> str:
        """The id the server issued this phone (what the tablet shows)."""
        status, _, st = self.request("GET", "/state")
        assert status == 200, st
        return st["phone"]

    def join_allowed(self):
        """Join, and the narrator allows this phone on the tablet."""
        status, _, _ = self.join()
        assert status == 303
        assert self.server.allow(self.id)
        return self

    def scan(self, text, scan_id=None):
        body = {"text": text} if scan_id is None else {"text": text, "scan_id": scan_id}
        return self.request("POST", "/scan", json.dumps(body).encode(),
                            {"Content-Type": "application/json"})

    def photo(self, jpg: bytes, scan_id=None, ctype="image/jpeg"):
        headers = {"Content-Type": ctype}
        if scan_id:
            headers["X-Scan-Id"] = scan_id
        return self.request("POST", "/photo", jpg, headers)


@pytest.fixture
def server(curia, key):
    s = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                    rate=RateLimiter(burst=10_000, per_second=1_000)).start()
    yield s
    s.stop()


@pytest.fixture
def phone(server):
    return Phone(server).join_allowed()


def code(key, side, value, serial):
    kind = "sway" if side in ("laurels", "blood") else "fate"
    return payload.encode(Card(kind, side, value, serial), key)


def one_line_refusal(reply, *words):
    assert reply["status"] == "refused"
    assert "\n" not in reply["error"]
    for w in words:
        assert w in reply["error"]


# --- joining and the secret ------------------------------------------------------------------

def test_join_link_sets_the_secret_cookie_and_takes_it_out_of_the_address(server):
    p = Phone(server)
    status, headers, _ = p.join()
    assert status == 303 and headers["Location"] == "/"
    token = p.cookies[server.cookie_name]
    assert len(token) >= 30 and server.secret not in token
    cookie_lines = headers.get_all("Set-Cookie")
    # Lax: a link to /join on another site brings the cookie along (issue 32, hole 3)
    assert any("HttpOnly" in c and "SameSite=Lax" in c for c in cookie_lines)
    status, headers, page = p.request("GET", "/")
    assert status == 200 and b"<title>Table companion" in page
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"
    assert server.join_url == f"http://127.0.0.1:{server.port}/join?k={server.secret}"


def test_a_phone_without_the_secret_is_refused_everywhere(server, curia, key):
    stranger = Phone(server)
    status, _, page = stranger.join("wrong-secret")
    assert status == 403 and b"join link is not for the game" in page
    for method, path in [("GET", "/page.js"), ("GET", "/state")]:
        status, _, reply = stranger.request(method, path)
        assert status == 403, path
        one_line_refusal(reply, "not joined")
    status, _, page = stranger.request("GET", "/")   # a person gets a page that says so
    assert status == 403 and b"Not joined" in page
    status, _, reply = stranger.scan(code(key, "knives", 5, "050"))
    assert status == 403
    # a cookie with a guessed token, or the secret itself, is no better
    for guess in ("abcd", server.secret):
        stranger.cookies = {server.cookie_name: guess}
        status, _, _ = stranger.scan(code(key, "knives", 5, "050"))
        assert status == 403
    assert curia.total == 0 and curia.commands == []


def test_each_game_gets_its_own_secret(curia, key):
    a = PhoneServer(curia.submit, key, host="127.0.0.1")
    b = PhoneServer(curia.submit, key, host="127.0.0.1")
    assert a.secret != b.secret and len(a.secret) >= 20


# --- the local network only ------------------------------------------------------------------

@pytest.mark.parametrize("addr, ok", [
    ("127.0.0.1", True), ("192.168.1.20", True), ("10.0.0.7", True), ("172.16.5.4", True),
    ("::1", True), ("fe80::1%wlan0", True), ("::ffff:192.168.0.3", True),
    ("8.8.8.8", False), ("203.0.113.9", False), ("2001:4860::8888", False),
    ("0.0.0.0", False), ("not an address", False),
])
def test_only_local_network_peers_are_answered(addr, ok):
    assert is_local_peer(addr) is ok


def test_the_server_will_not_bind_a_public_address(curia, key):
    with pytest.raises(BadInput, match="not a local-network address"):
        PhoneServer(curia.submit, key, host="8.8.8.8")


def test_a_request_naming_another_host_is_refused(phone):
    # DNS rebinding: a web page on evil.example pointed at our address sends its own Host.
    status, _, reply = phone.request("GET", "/state", host="evil.example")
    assert status == 421
    one_line_refusal(reply, "Host header")


# --- scans: counted, duplicate, not a Fate card, unreadable ----------------------------------

def test_scans_are_counted_once_and_the_total_is_the_rules(phone, key, curia):
    status, _, reply = phone.scan(code(key, "knives", 5, "042"))
    a = reply["answers"][0]
    assert (status, a["status"], a["total"], a["count"]) == (200, "counted", 5, 1)
    assert a["card"] == {"knives": 5} and a["label"] == "5 Knives" and a["serial"] == "042"
    _, _, reply = phone.scan(code(key, "doves", 2, "075"))
    assert reply["answers"][0]["status"] == "counted" and reply["total"] == 3
    # "a card already counted is never counted twice"
    _, _, reply = phone.scan(code(key, "knives", 5, "042"))
    assert reply["answers"][0]["status"] == "duplicate" and reply["total"] == 3
    assert (curia.total, len(curia.counted)) == (3, 2)
    cmd = curia.commands[0]
    assert cmd.kind == "curia_card" and cmd.data == {"card": {"knives": 5}, "serial": "042"}
    assert cmd.source == f"phone:{phone.id}"


def test_forged_mistyped_and_non_fate_codes_change_nothing(phone, key, curia):
    phone.scan(code(key, "knives", 3, "030"))
    forged = payload.encode(Card("fate", "knives", 5, "031"), b"not the deck key")
    real = code(key, "knives", 5, "080")
    mistyped = real[:-6] + ("9" if real[-6] != "9" else "8") + real[-5:]
    for text, words in [(forged, "check failed"), (mistyped, "check failed"),
                        (code(key, "blood", 2, "140"), "a Sway card"),
                        ("https://example.com", "not a 23 Knives card code")]:
        status, _, reply = phone.scan(text)
        a = reply["answers"][0]
        assert status == 200 and a["status"] == "not_fate", text
        assert words in a["error"] and "\n" not in a["error"]
        assert reply["total"] == 3
    assert (curia.total, list(curia.counted)) == (3, ["030"])
    assert len(curia.commands) == 1  # nothing but the real Fate card reached the rules


def test_a_retry_with_the_same_scan_id_gets_the_first_answer(phone, key, curia):
    text = code(key, "knives", 1, "001")
    _, _, first = phone.scan(text, scan_id="s-1")
    _, _, again = phone.scan(text, scan_id="s-1")
    assert first["answers"][0]["status"] == "counted"
    assert again["answers"] == first["answers"] and again["replayed"] is True
    assert (curia.total, len(curia.commands)) == (1, 1)


def test_photos_are_decoded_and_each_card_answered(phone, key, fate_cards, curia):
    photo = synth.make_photo(4, "several", fate_cards, key)
    ok, jpg = cv2.imencode(".jpg", photo.image)
    status, _, reply = phone.photo(jpg.tobytes(), scan_id="p1")
    assert status == 200
    got = {a["serial"]: a["status"] for a in reply["answers"]}
    want = {payload.parse(t, key).serial for t in photo.texts}
    assert got == {s: "counted" for s in want}
    assert reply["total"] == curia.total == sum(
        (n if side == "knives" else -n) for c in curia.counted.values() for side, n in c.items())
    # the same photo again: every card is a duplicate, nothing changes
    _, _, again = phone.photo(jpg.tobytes(), scan_id="p2")
    assert {a["status"] for a in again["answers"]} == {"duplicate"}
    assert again["total"] == reply["total"]


def test_a_photo_without_a_code_is_unreadable(phone, curia):
    blank = cv2.imencode(".png", (255 * (cv2.randu(
        __import__("numpy").zeros((300, 400), "uint8"), 0, 2))).astype("uint8"))[1].tobytes()
    status, _, reply = phone.photo(blank, ctype="image/png")
    assert status == 200 and reply["answers"] == [
        {"status": "unreadable", "reason": "unreadable",
         "error": "no card code could be read in the photo"}]
    assert curia.commands == []


# --- bad requests ---------------------------------------------------------------------------

@pytest.mark.parametrize("body, ctype, code_, words", [
    (b"{not json", "application/json", 400, "not JSON"),
    (b'{"text": "23K1", "extra": 1}', "application/json", 400, "expected"),
    (b'{"text": 5}', "application/json", 400, "expected"),
    (b'["23K1"]', "application/json", 400, "expected"),
    (json.dumps({"text": "x" * 65}).encode(), "application/json", 400, "1-64"),
    (b'{"text": "a", "scan_id": "../../etc"}', "application/json", 400, "scan_id"),
    (b"text=23K1", "application/x-www-form-urlencoded", 415, "content type"),
    (b"\xff\xfe" * 10, "application/json", 400, "not JSON"),
])
def test_malformed_scans_are_refused_in_one_line(phone, curia, body, ctype, code_, words):
    status, _, reply = phone.request("POST", "/scan", body, {"Content-Type": ctype})
    assert status == code_
    one_line_refusal(reply, words)
    assert curia.commands == []


def test_a_body_over_the_limit_is_refused_before_it_is_read(phone, server):
    # Only the headers are sent: the server must answer 413 from Content-Length alone.
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.putrequest("POST", "/photo", skip_host=True)
    conn.putheader("Host", f"{server.host}:{server.port}")
    conn.putheader("Cookie", "; ".join(f"{k}={v}" for k, v in phone.cookies.items()))
    conn.putheader("Content-Type", "image/jpeg")
    conn.putheader("Content-Length", str(server.max_photo + 1))
    conn.endheaders()
    res = conn.getresponse()
    reply = json.loads(res.read())
    assert res.status == 413
    one_line_refusal(reply, "over the", "limit")


def test_requests_without_a_length_or_chunked_are_refused(phone):
    status, _, reply = phone.request("POST", "/scan", None, {"Content-Type": "application/json"})
    assert status == 411
    status, _, reply = phone.request("POST", "/photo", None, {
        "Content-Type": "image/jpeg", "Transfer-Encoding": "chunked"})
    assert status == 411
    one_line_refusal(reply, "chunked")


def test_a_photo_that_is_not_an_image_is_refused(phone, curia):
    status, _, reply = phone.photo(b"\xff\xd8 this is not really a jpeg")
    assert status == 400
    one_line_refusal(reply, "not an image")
    assert curia.commands == []


def test_unknown_paths_and_methods_are_refused(phone):
    assert phone.request("GET", "/etc/passwd")[0] == 404
    assert phone.request("GET", "/../page.js")[0] == 404
    status, _, reply = phone.request("DELETE", "/scan")
    assert status == 501 and reply["status"] == "refused"


# --- rate ------------------------------------------------------------------------------------

def test_the_request_rate_is_limited_per_phone(curia, key):
    clock = FakeClock()
    s = PhoneServer(curia.submit, key, host="127.0.0.1",
                    rate=RateLimiter(burst=5, per_second=1, clock=clock)).start()
    try:
        p = Phone(s)
        assert p.join()[0] == 303
        assert s.allow(s.devices()[-1]["id"])
        statuses = [p.request("GET", "/state")[0] for _ in range(6)]
        assert statuses == [200, 200, 200, 200, 429, 429]
        status, _, reply = p.scan(code(key, "knives", 5, "050"))
        assert status == 429
        one_line_refusal(reply, "too many requests")
        assert curia.commands == []
        clock.advance(2.0)  # two tokens come back
        assert p.scan(code(key, "knives", 5, "050"))[0] == 200
        assert curia.total == 5
    finally:
        s.stop()


def test_wrong_secret_guesses_are_rate_limited_too(curia, key):
    s = PhoneServer(curia.submit, key, host="127.0.0.1",
                    rate=RateLimiter(burst=3, per_second=0.5, clock=FakeClock())).start()
    try:
        p = Phone(s)
        assert [p.join(f"guess{i}")[0] for i in range(5)] == [403, 403, 403, 429, 429]
        assert p.join()[0] == 429  # even the right one waits: guessing costs time
    finally:
        s.stop()


# --- dropping and reconnecting -----------------------------------------------------------------

def test_a_phone_that_reconnects_loses_nothing(server, key, curia):
    p = Phone(server).join_allowed()
    pid = p.id
    p.scan(code(key, "knives", 3, "030"), scan_id="a")
    p.scan(code(key, "doves", 1, "050"), scan_id="b")
    # the phone drops (page closed, Wi-Fi lost) and opens the join link again
    again = Phone(server)
    again.cookies = dict(p.cookies)
    assert again.join()[0] == 303 and again.id == pid
    status, _, state = again.request("GET", "/state")
    assert status == 200 and state["total"] == 2 and state["phone"] == pid
    assert [a["serial"] for a in state["history"]] == ["030", "050"]
    # a scan whose answer was lost in the drop is sent again: answered, not counted twice
    _, _, reply = again.scan(code(key, "doves", 1, "050"), scan_id="b")
    assert reply["replayed"] and reply["answers"][0]["status"] == "counted"
    assert (curia.total, len(curia.counted)) == (2, 2)


def test_tablet_taps_and_phone_scans_mix(phone, key, curia):
    from companion.core.events import Command
    curia.submit(Command("curia_card", {"card": {"knives": 2}, "serial": "020"}))  # a tap
    _, _, reply = phone.scan(code(key, "knives", 2, "020"))
    assert reply["answers"][0]["status"] == "duplicate" and reply["total"] == 2
    _, _, st = phone.request("GET", "/state")
    assert st["total"] == 2 and st["count"] == 1


def test_a_flood_of_open_connections_is_capped_and_the_server_keeps_answering(phone, server):
    import socket
    from companion.phone.httpd import CappedServer as _CappedServer
    held = []
    try:
        # connections that send nothing hold their slots until the handler's timeout
        for _ in range(_CappedServer.MAX_CONNECTIONS + 5):
            held.append(socket.create_connection((server.host, server.port), timeout=5))
        extra = held[-1]
        extra.settimeout(5)
        assert extra.recv(100) == b""  # closed by the server at once, no thread started
    finally:
        for s in held:
            s.close()
    # once they are gone, phones are answered again
    import time
    for _ in range(100):
        try:
            if phone.request("GET", "/state")[0] == 200:
                break
        except (ConnectionError, OSError):
            pass
        time.sleep(0.05)
    assert phone.request("GET", "/state")[0] == 200
