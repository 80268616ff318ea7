"""The phone server audit's findings, each replayed against the real server on loopback (as in
test_phone_attacks: attackers get their own 127.x addresses, the honest phone keeps 127.0.0.1).
Deadlines are shortened where a finding is about them; every loop stops by itself."""
from __future__ import annotations

import http.client
import re
import socket
import struct
import threading
import time

import pytest

from companion.core.clock import FakeClock
from companion.core.events import BadInput
from companion.phone import decoder, tls
from companion.phone.server import HISTORY, MAX_WAITING, PhoneServer, RateLimiter
from vision.qr import payload
from vision.qr.payload import Card

from .test_phone_attacks import _one_card_png, raw, status_of
from .test_phone_server import Phone, server  # noqa: F401  (the fixture)
from .test_phone_tls import client_context
from .test_phone_votes import ballot, knives_exile_session, on_phones, serve


def fast_server(curia, key, **options) -> PhoneServer:
    return PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                       rate=RateLimiter(burst=10_000, per_second=1_000), **options).start()


def join_from(server, address, path=None) -> tuple[int, str | None]:
    """A join (or a seat code) from ``address``: the status and the cookie it was given."""
    answer = raw(server, (f"GET {path or '/join?k=' + server.secret} HTTP/1.1\r\n"
                          f"Host: {server.host}:{server.port}\r\n\r\n").encode(), source=address)
    m = re.search(rb"Set-Cookie: ([^=]+)=([^;]+)", answer)
    return status_of(answer), (m.group(2).decode() if m else None)


# --- 1. idle connections from a few addresses hold every slot --------------------------------------

class HttpsPhone(Phone):
    """A phone that accepted the table's certificate."""

    def __init__(self, server, context):
        super().__init__(server)
        self.context = context

    def _connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPSConnection(self.server.host, self.server.port, timeout=30, context=self.context)


@pytest.mark.parametrize("https", [False, True])
def test_idle_connections_from_six_addresses_do_not_keep_a_phone_out(curia, key, tmp_path,
                                                                     https):
    context = tls.server_context(tmp_path, "127.0.0.1") if https else None
    server = fast_server(curia, key, head_seconds=2.0, tls=context)
    phone = HttpsPhone(server, client_context(tmp_path)) if https else Phone(server)
    phone.join_allowed()
    stop = threading.Event()

    def hold(address):   # connect, send nothing, reconnect the moment the server closes it
        while not stop.is_set():
            s = socket.socket()
            try:
                s.bind((address, 0))
                s.settimeout(1.0)
                s.connect((server.host, server.port))
                while not stop.is_set() and s.recv(1) != b"":
                    pass
            except OSError:
                pass
            finally:
                s.close()

    attackers = [threading.Thread(target=hold, args=(f"127.0.0.{2 + i // 6}",))
                 for i in range(36)]
    try:
        for t in attackers:
            t.start()
        time.sleep(0.5)
        got = []
        for _ in range(10):
            try:
                got.append(phone.request("GET", "/state")[0])
            except (OSError, http.client.HTTPException):
                got.append("closed")
            time.sleep(0.1)
        assert got == [200] * 10
    finally:
        stop.set()
        for t in attackers:
            t.join(10)
        server.stop()


def test_a_trickled_tls_handshake_ends_at_the_head_deadline(tmp_path, curia, key):
    # the request head's deadline, not the connection's (60 s here), whatever the Python
    server = fast_server(curia, key, head_seconds=1.0, request_seconds=30.0,
                         answer_seconds=30.0, tls=tls.server_context(tmp_path, "127.0.0.1"))
    hello = bytes.fromhex("16030100c8010000c40303") + bytes(200)   # the start of a ClientHello
    sent = 0
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.settimeout(0.3)
            for b in hello[:40]:       # a byte every 0.3 s: 12 s, far past the 1 s deadline
                try:
                    s.sendall(bytes([b]))
                    if s.recv(10) == b"":  # the server closed it
                        break
                except socket.timeout:
                    sent += 1               # still open: the trickle goes on
                except OSError:
                    break
    finally:
        server.stop()
    assert sent < 40   # closed while the handshake was still trickling in


# --- 2. seat phones are not waiting phones ---------------------------------------------------------

def test_seat_phones_do_not_fill_the_waiting_list(server):  # noqa: F811
    for i in range(MAX_WAITING):
        path = server.seat_url(f"Player{i}").split(str(server.port), 1)[1]
        assert join_from(server, f"127.0.6.{i + 1}", path)[0] == 303
    status, cookie = join_from(server, "127.0.6.99")   # the narrator's counting phone
    assert status == 303 and cookie


# --- 3. whoever holds the join code cannot keep new phones out ---------------------------------------

def test_waiting_phones_from_a_few_addresses_do_not_lock_out_a_new_one(curia, key):
    clock = FakeClock()
    server = fast_server(curia, key, clock=clock)
    try:
        _lock_out(server, clock)
    finally:
        server.stop()


def _lock_out(server, clock):
    for a in range(1, 5):
        for _ in range(2):
            assert join_from(server, f"127.0.3.{a}")[0] == 303
    assert sum(not d["allowed"] for d in server.devices()) == MAX_WAITING
    # a real phone from another address takes the place of the oldest from a crowded address
    status, cookie = join_from(server, "127.0.0.250")
    assert status == 303
    real = server.phone_by_token(cookie)
    assert real is not None and len(server.devices()) == MAX_WAITING
    # the attacker cannot push it out again: from an address already waiting, refused
    for a in range(1, 5):
        assert join_from(server, f"127.0.3.{a}")[0] == 429
    assert server.phone_by_token(cookie) is real
    # the narrator refuses one: that address may not come straight back
    victim = next(d["id"] for d in server.devices() if d["id"] != real.id)
    address = server.phones._phones[victim].address
    assert server.refuse(victim)
    answer = raw(server, (f"GET /join?k={server.secret} HTTP/1.1\r\n"
                          f"Host: {server.host}:{server.port}\r\n\r\n").encode(), source=address)
    assert status_of(answer) == 429 and b"refused a phone from this address" in answer
    # ... but a few minutes later it may
    clock.advance(server.refused_seconds + 1)
    assert join_from(server, address)[0] == 303


# --- 4. a refused phone's photo, read after the refusal --------------------------------------------

def test_a_photo_of_a_phone_refused_while_it_was_read_does_not_count(curia, key):
    text = payload.encode(Card("fate", "knives", 5, "042"), key)
    reading, release = threading.Event(), threading.Event()

    def busy_reader(data):   # the photo waits behind another phone's
        reading.set()
        release.wait(10)
        return [text]

    server = fast_server(curia, key, decoder=busy_reader)
    try:
        phone = Phone(server).join_allowed()
        got = {}
        t = threading.Thread(target=lambda: got.update(r=phone.photo(b"jpeg", scan_id="p1")))
        t.start()
        assert reading.wait(10)
        assert server.refuse(phone.id)   # the narrator refuses it on the tablet
        release.set()
        t.join(20)
        status, _, reply = got["r"]
        assert status == 403 or reply["answers"][0]["status"] != "counted"
        assert curia.counted == {} and curia.commands == []
    finally:
        release.set()
        server.stop()


# --- 5. photos read in the app's own process (Android) -------------------------------------------

def _finder_tiles(side: int, module: int = 1) -> bytes:
    """The audit's photo: QR finder patterns (``module`` px a module) tiled over a ``side`` px
    square, a small PNG that costs the reader a lot."""
    import cv2
    import numpy as np
    tile = np.full((14, 14), 255, np.uint8)
    tile[0:7, 0:7] = 0
    tile[1:6, 1:6] = 255
    tile[2:5, 2:5] = 0
    tile = np.kron(tile, np.ones((module, module), np.uint8))
    n = side // len(tile) + 1
    img = np.tile(tile, (n, n))[:side, :side]
    return cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1].tobytes()


def test_without_a_worker_process_a_costly_photo_is_bounded(key, monkeypatch):
    monkeypatch.setattr(decoder.sys, "executable", "/nonexistent/python")
    worker = decoder.DecodeWorker(seconds=1.0)

    def read(photo) -> dict:
        box: dict = {}

        def run():
            start = time.monotonic()
            try:
                box["texts"] = worker.decode(photo)
            except BadInput as exc:
                box["error"] = exc
            box["seconds"] = time.monotonic() - start

        t = threading.Thread(target=run, daemon=True)   # unbounded, it runs for a minute
        t.start()
        t.join(15)
        return box

    # 4000 px read whole: the reader's first pass alone takes most of a minute; shrunk, it ends
    box = read(_finder_tiles(4000))
    assert "seconds" in box, box
    # 2000 px of finders the reader's passes take seconds each on: stopped between passes
    box = read(_finder_tiles(2000, module=3))
    assert isinstance(box.get("error"), decoder.TooSlow), box
    # an ordinary photo still reads in-process
    card = Card("fate", "knives", 2, "031")
    assert worker.decode(_one_card_png(key, card)) == [payload.encode(card, key)]


# --- 6. one phone's costly photos do not hold up the others' ----------------------------------------

def test_photos_are_first_come_first_served_one_per_phone(curia, key):
    text = payload.encode(Card("fate", "doves", 1, "050"), key)
    one_reader = threading.Lock()   # like DecodeWorker: one photo at a time, capped at 1 s
    read: list[bytes] = []          # the photos in the order the reader took them

    def reader(data):
        with one_reader:
            read.append(data)
            if data == b"bomb":
                time.sleep(1.0)
                raise decoder.TooSlow("photo took more than 1 s to read")
            return [text]

    server = fast_server(curia, key, decoder=reader)
    stop = threading.Event()
    hog_answers: list = []
    try:
        hog, other = Phone(server).join_allowed(), Phone(server).join_allowed()

        def flood():
            while not stop.is_set():
                try:
                    hog_answers.append(hog.photo(b"bomb")[0])
                except (OSError, http.client.HTTPException):
                    hog_answers.append("closed")

        hogs = [threading.Thread(target=flood) for _ in range(4)]
        for t in hogs:
            t.start()
        time.sleep(0.3)
        for i in range(3):
            status, _, reply = other.photo(b"card", scan_id=f"c{i}")
            assert status == 200 and reply["answers"][0]["status"] in ("counted", "duplicate")
        # ahead of the other phone's photos, at most the one being read when they came: the
        # hog's other photos waited their turn (429), then it rested after its slow one
        last_card = len(read) - 1 - read[::-1].index(b"card")
        assert read[:last_card].count(b"bomb") <= 1, read
        assert 429 in hog_answers
    finally:
        stop.set()
        server.stop()


# --- 7. 500s: too many query fields, deep JSON, other scripts' digits ---------------------------------

def test_odd_requests_get_a_one_line_4xx_not_a_500(server, key):  # noqa: F811
    for path in ("/join?a&b&c&d&e", "/seat?k=1&k=2&k=3&k=4&k=5"):
        status, _, page = Phone(server).request("GET", path)
        assert status == 403 and b"Traceback" not in page
    phone = Phone(server).join_allowed()
    seat = Phone(server)   # only a seat's phone may send a ballot: its body is read then
    assert seat.request("GET", server.seat_url("Bo").split(str(server.port), 1)[1])[0] == 303
    for sender, path in ((phone, "/scan"), (seat, "/ballot")):
        status, _, reply = sender.request("POST", path, b"[" * 1000,
                                          {"Content-Type": "application/json"})
        assert (status, reply["reason"]) == (400, "not_json")
        assert "\n" not in reply["error"]
    # a serial in Arabic-Indic digits is a bad code: it counts toward the failed checks
    for i in range(5):
        status, _, reply = phone.scan("23K1.F.K5.\u0660\u0664\u0662.ABC" + "DEFGH"[i])
        assert status == 200 and reply["answers"][0]["reason"] == "check_failed"
    status, _, reply = phone.scan(payload.encode(Card("fate", "knives", 5, "042"), key))
    assert status == 403 and reply["reason"] == "waiting"
    with pytest.raises(BadInput):
        payload.parse("23K1.F.K5.\u0660\u0664\u0662.ABCD", key)


# --- 8. a phone that hangs up before its answer ------------------------------------------------------

def test_a_phone_that_hangs_up_leaves_no_traceback(curia, key, capfd):
    closed = threading.Event()

    def reader(data):
        closed.wait(10)
        raise BadInput("not an image")

    server = fast_server(curia, key, decoder=reader)
    try:
        phone = Phone(server).join_allowed()
        cookie = "; ".join(f"{k}={v}" for k, v in phone.cookies.items())
        for _ in range(3):
            closed.clear()
            s = socket.create_connection((server.host, server.port), timeout=10)
            s.sendall((f"POST /photo HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
                       f"Cookie: {cookie}\r\nContent-Type: image/png\r\n"
                       f"Content-Length: 4\r\n\r\nfake").encode())
            time.sleep(0.2)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()   # a reset: the refusal's write fails
            closed.set()
            time.sleep(0.3)
        assert phone.request("GET", "/state")[0] == 200
    finally:
        closed.set()
        server.stop()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err


# --- 9. ballot floods -------------------------------------------------------------------------------

def test_a_seat_phone_records_at_most_one_ballot_a_second(tmp_path):
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    try:
        def phone():
            p = Phone(server)
            status, _, _ = p.request("GET", server.seat_url("Ann").split(str(server.port), 1)[1])
            assert status == 303
            vote_id = p.request("GET", "/state")[2]["vote"]["vote_id"]
            got = []
            end = time.monotonic() + 1.5
            i = 0
            while time.monotonic() < end:
                status, _, reply = ballot(p, vote_id, i % 2)
                got.append((status, reply.get("reason") or reply.get("status")))
                i += 1
            # a change of mind a second later is still recorded
            time.sleep(1.0)
            last = ballot(p, vote_id, 1, ballot_id="final")
            # a phone's answers are kept for retries, a bounded number of them
            server.ballot_seconds = 0.0
            for j in range(HISTORY + 10):
                ballot(p, vote_id, 0, ballot_id=f"b{j}")
            return got, last, server.phone_by_token(next(iter(p.cookies.values())))

        got, last, record = on_phones(bridge, phone)
    finally:
        server.stop()
    recorded = [g for g in got if g == (200, "recorded")]
    assert 1 <= len(recorded) <= 2 and len(got) > 5
    assert set(got) - set(recorded) == {(429, "ballot_too_fast")}
    assert last[:1] == (200,) and last[2] == {"status": "recorded"}
    assert len(record.answers) <= HISTORY
    journal.close()
