"""The eight attacks on the phone channel from issue 15, each replayed against the real server
on loopback (the table's Wi-Fi stood in for by 127.0.0.0/8: an attacker gets its own address,
127.0.0.66, the honest phone keeps 127.0.0.1). Every loop here is bounded and stops by itself."""
from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from companion.phone.server import PhoneServer, RateLimiter
from vision.qr import payload
from vision.qr.payload import Card

from .test_phone_server import Phone, server  # noqa: F401  (the fixture)

ATTACKER = "127.0.0.66"


def raw(server, data: bytes, source=None, timeout=20.0) -> bytes:
    """Send ``data`` as it is and read the whole answer (the server closes after one)."""
    s = socket.create_connection((server.host, server.port), timeout=timeout,
                                 source_address=(source, 0) if source else None)
    try:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


# --- 8. odd lengths, a lost cookie, cookies across ports -----------------------------------------

@pytest.mark.parametrize("length", ["\u00b2", "1" * 5000, "-1", "+5", " 5 5"])
def test_8_an_odd_content_length_is_a_one_line_refusal_not_a_traceback(server, length):  # noqa: F811
    phone = Phone(server).join_allowed()   # (a waiting phone's scan is refused before its length is read)
    cookie = "; ".join(f"{k}={v}" for k, v in phone.cookies.items())
    head = (f"POST /scan HTTP/1.1\r\nHost: {server.host}:{server.port}\r\nCookie: {cookie}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n")
    answer = raw(server, head.encode("latin-1") + b'{"text": "x"}')
    assert status_of(answer) == 411
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["status"] == "refused" and "Content-Length" in body["error"]
    assert "\n" not in body["error"] and "Traceback" not in body["error"]


def test_8_a_phone_that_lost_its_cookie_gets_a_page_not_raw_json(server):
    stranger = Phone(server)
    for path in ("/", "/index.html"):
        status, headers, page = stranger.request("GET", path)
        assert status == 403 and headers["Content-Type"].startswith("text/html")
        assert b"<html" in page and b"scan the join code" in page.lower()
    # the page's own requests still get a short JSON refusal it can show
    status, headers, reply = stranger.request("GET", "/state")
    assert status == 403 and reply["status"] == "refused"


def test_8_the_join_cookie_belongs_to_this_server_port_only(server):
    phone = Phone(server)
    status, headers, _ = phone.join()
    names = [c.split("=", 1)[0] for c in headers.get_all("Set-Cookie")]
    # browsers send a cookie to every port of a host: a name per port keeps two servers (or
    # anything else listening on the tablet) from receiving or overwriting each other's
    assert names and all(n.endswith(str(server.port)) for n in names)


# --- 4. a long Cookie header ------------------------------------------------------------------

def test_4_long_cookie_headers_are_refused_before_any_parsing_and_phones_go_on(server, key):
    phone = Phone(server).join_allowed()
    cookie = 'a="' + "\\" * 60_000 + '"'  # 60 KB Python's cookie parser chews on for seconds
    head = (f"GET /state HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
            f"Cookie: {cookie}\r\n\r\n").encode()
    answers = [None] * 6

    def attack(i):
        answers[i] = raw(server, head, source=ATTACKER)

    threads = [threading.Thread(target=attack, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    status, _, _ = phone.request("GET", "/state")
    for t in threads:
        t.join(60)
    assert status == 200
    for a in answers:
        assert status_of(a) == 431 and b"headers over" in a
    # many short headers are capped too
    many = "".join(f"X-{i}: y\r\n" for i in range(200))
    answer = raw(server, f"GET /state HTTP/1.1\r\nHost: h\r\n{many}\r\n".encode(),
                 source=ATTACKER)
    assert status_of(answer) == 431


# --- 2. connections that trickle a byte at a time -------------------------------------------------

def test_2_trickling_connections_neither_hold_every_slot_nor_outlive_their_deadline(curia, key):
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=10_000, per_second=1_000),
                         head_seconds=2.0, request_seconds=4.0).start()
    stop = threading.Event()
    closed_after = []

    def slow_loris():
        s = socket.create_connection((server.host, server.port), timeout=10,
                                     source_address=(ATTACKER, 0))
        start = time.monotonic()
        try:
            s.sendall(b"GET /state HTTP/1.1\r\n")
            for _ in range(40):  # at most 20 s, a header byte every half second
                if stop.is_set():
                    return
                s.sendall(b"X")
                time.sleep(0.5)
        except OSError:
            closed_after.append(time.monotonic() - start)  # the server closed it
        finally:
            s.close()

    attackers = [threading.Thread(target=slow_loris) for _ in range(32)]
    try:
        for t in attackers:
            t.start()
        time.sleep(0.5)
        phone = Phone(server).join_allowed()
        got = [phone.request("GET", "/state")[0] for _ in range(30)]
        assert got == [200] * 30
        for t in attackers:
            t.join(30)
        # every trickling connection was closed by the server, none lasted its 20 s
        assert len(closed_after) == 32 and max(closed_after) < 15
    finally:
        stop.set()
        server.stop()


# --- 6. made-up phone ids ------------------------------------------------------------------------

def test_6_made_up_ids_neither_evict_a_phone_nor_act_as_it(server, key, curia):
    real = Phone(server).join_allowed()
    text = payload.encode(Card("fate", "knives", 3, "030"), key)
    _, _, first = real.scan(text, scan_id="s-1")
    assert first["answers"][0]["status"] == "counted"
    # 32 made-up ids in the header the server used to believe, and a guessed token
    for i in range(32):
        status, _, reply = Phone(server).request(
            "POST", "/scan", json.dumps({"text": text}).encode(),
            {"Content-Type": "application/json", "X-Phone-Id": f"fake{i}",
             "X-Table-Key": server.secret})
        assert status == 403
    status, _, _ = Phone(server).request("GET", "/state", headers={"X-Phone-Id": real.id})
    assert status == 403
    # players who know the join link join again and again, from one address and from many
    refused = 0
    for i in range(40):
        addr = ATTACKER if i < 20 else f"127.0.0.{100 + i}"
        a = raw(server, (f"GET /join?k={server.secret} HTTP/1.1\r\n"
                         f"Host: {server.host}:{server.port}\r\n\r\n").encode(), source=addr)
        refused += status_of(a) == 429
    # (8 wait; one more, from a new address, took the place of one of ATTACKER's two)
    assert refused >= 40 - 9
    assert sum(1 for d in server.devices() if not d["allowed"]) <= 8
    # the real phone is still known: its retried scan gets its first answer back
    _, _, again = real.scan(text, scan_id="s-1")
    assert again["replayed"] and again["answers"][0]["status"] == "counted"
    assert (curia.total, len(curia.counted)) == (3, 1)


# --- 1. a real card from a hand, typed codes, acting as another phone ----------------------------

def test_1_a_card_from_a_hand_counts_only_from_a_phone_the_narrator_allowed(server, key, curia):
    scanner = Phone(server).join_allowed()       # the phone the narrator allowed
    cheat = Phone(server)
    cheat.join()                                 # a player's own phone: joined, never allowed
    hand = Card("fate", "knives", 5, "061")      # a real card in the cheat's hand
    status, _, reply = cheat.scan(payload.encode(hand, key))
    assert status == 403 and "waiting for the narrator" in reply["error"]
    status, _, reply = cheat.scan(payload.printed(hand), )
    assert status == 403
    assert curia.commands == [] and curia.total == 0

    # typing the sticker's small type counts only while the narrator allows typing ...
    status, _, reply = scanner.request("POST", "/scan", json.dumps(
        {"text": payload.printed(hand), "typed": True}).encode(),
        {"Content-Type": "application/json"})
    a = reply["answers"][0]
    assert status == 200 and a["status"] == "not_fate" and a["reason"] == "typing_off"
    assert curia.commands == []
    # ... and then only for a card that deck printed under that serial
    server.typing = True
    fake_value = payload.printed(Card("fate", "knives", 5, "001"))  # serial 001 is a 1 Knife
    _, _, reply = scanner.request("POST", "/scan", json.dumps(
        {"text": fake_value, "typed": True}).encode(), {"Content-Type": "application/json"})
    assert reply["answers"][0]["reason"] == "not_printed" and curia.commands == []
    real_1 = server.deck["001"]
    _, _, reply = scanner.request("POST", "/scan", json.dumps(
        {"text": payload.printed(real_1), "typed": True}).encode(),
        {"Content-Type": "application/json"})
    assert reply["answers"][0]["status"] == "counted" and curia.total == real_1.value
    # the printed text carries no check: typed as a scan, it is refused
    _, _, reply = scanner.scan(payload.printed(hand))
    assert reply["answers"][0]["status"] == "not_fate" and len(curia.counted) == 1


def test_1_guessing_the_check_sends_a_phone_back_to_the_narrator(server, key, curia):
    scanner = Phone(server).join_allowed()
    body = payload.printed(Card("fate", "knives", 5, "061"))
    for i in range(5):
        _, _, reply = scanner.scan(f"{body}.{'ABCDEFGHJK'[i]}AAA")
        assert reply["answers"][0]["reason"] == "check_failed"
    status, _, reply = scanner.scan(f"{body}.ZZZZ")
    assert status == 403 and "waiting for the narrator" in reply["error"]
    assert [d["allowed"] for d in server.devices()] == [False]
    assert curia.commands == []


# --- 3. a photo full of codes ---------------------------------------------------------------------

def _sheet_of_codes(key, n=100) -> bytes:
    """A small PNG holding ``n`` real codes (about 21 KB for 100, as in the attack)."""
    import io

    from PIL import Image

    from vision.qr.stickers import qr_image
    sheet = Image.new("L", (10 * 200, (n + 9) // 10 * 200), 255)
    for i in range(n):
        c = qr_image(payload.encode(Card("fate", "knives", 5, f"{i:03d}"), key), 6, 2)
        sheet.paste(c, ((i % 10) * 200, (i // 10) * 200))
    buf = io.BytesIO()
    sheet.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def _one_card_png(key, card) -> bytes:
    import io

    from vision.qr.stickers import qr_image
    buf = io.BytesIO()
    qr_image(payload.encode(card, key), 8, 4).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.slow
def test_3_a_photo_full_of_codes_is_capped_and_other_phones_are_answered(curia, key):
    import resource

    from companion.phone.decoder import DecodeWorker
    worker = DecodeWorker(seconds=3.0)
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=10_000, per_second=1_000),
                         decoder=worker.decode).start()
    try:
        bomb = _sheet_of_codes(key)
        assert len(bomb) < 40_000
        cheat, other = Phone(server).join_allowed(), Phone(server).join_allowed()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        got = {}
        t = threading.Thread(target=lambda: got.update(bomb=cheat.photo(bomb, ctype="image/png")))
        t.start()
        time.sleep(0.3)
        # a text scan from another phone never waits for a photo
        _, _, reply = other.scan(payload.encode(Card("fate", "doves", 1, "050"), key))
        assert reply["answers"][0]["status"] == "counted"
        # another phone's one-card photo is read once the capped one is stopped
        card = Card("fate", "knives", 2, "031")
        status, _, reply = other.photo(_one_card_png(key, card), ctype="image/png")
        t.join(60)
        assert status == 200 and reply["answers"][0]["status"] == "counted"
        status, _, reply = got["bomb"]
        assert status == 400 and reply["status"] == "refused"
        assert "took more than 3 s" in reply["error"] or "codes in one photo" in reply["error"]
        assert worker.killed <= 1
        # none of the hundred codes counted; the tablet's own memory did not grow with it
        assert sorted(curia.counted) == ["031", "050"]
        grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
        assert grew_mb < 200
    finally:
        server.stop()
        worker.close()


def test_3_a_photo_with_more_codes_than_allowed_counts_none(curia, key, tmp_path):
    from companion.phone.decoder import DecodeWorker
    worker = DecodeWorker(seconds=60.0, max_codes=3)   # no time cap here: the count cap acts
    try:
        with pytest.raises(Exception, match="8 codes in one photo"):
            worker.decode(_sheet_of_codes(key, 8))
        assert worker.decode(_one_card_png(key, Card("fate", "knives", 2, "031"))) == [
            payload.encode(Card("fate", "knives", 2, "031"), key)]
    finally:
        worker.close()


# --- 7. a phone's words on the tablet ----------------------------------------------------------

def test_7_bad_scans_make_few_toasts_and_never_the_phones_text(key):
    from companion.core.clock import FakeClock
    from companion.phone.source import TOAST_SECONDS, PhoneSource
    clock = FakeClock()
    toasts = []
    source = PhoneSource(key, execute=lambda cmd: None, state=lambda: None, rules=lambda: None,
                         notify=toasts.append, host="127.0.0.1", clock=clock,
                         rate=RateLimiter(burst=10_000, per_second=1_000))
    source.start(lambda cmd: None)
    words = "[color=ff0000]CAESAR IS DEAD, COUNT 5[/color]"
    forged = payload.encode(Card("fate", "knives", 5, "099"), b"not the deck key!")
    try:
        phone = Phone(source.server)
        phone.join()
        assert source.server.allow(source.server.devices()[0]["id"])
        done = threading.Event()

        def flood():
            for i in range(40):  # 40 bad scans in 1.2 s of the tablet's clock
                phone.scan(words if i % 8 else forged)
            done.set()

        t = threading.Thread(target=flood)
        t.start()
        while not done.is_set():   # the test's main thread plays Kivy's Clock
            source.poll()
            clock.advance(0.03)
            t.join(0.005)
        source.poll()
        assert 1 <= len(toasts) <= 1 + int(1.2 / TOAST_SECONDS) + 1
        assert not any("CAESAR" in t or "[color" in t or "099" in t for t in toasts)
        clock.advance(TOAST_SECONDS)
        source.poll()   # what was held back is summed up in one line, not replayed
        assert len(toasts) <= 3 and "more refused" in toasts[-1]
    finally:
        source.stop()


# --- 5. a tapped card scanned afterwards ----------------------------------------------------------

def test_5_a_tapped_card_is_claimed_by_its_scan_never_counted_twice(tmp_path, key):
    from companion.core.events import Command
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import demo
    from companion.games.knives23.rules import Knives23Rules, running_total
    from companion.phone.bridge import CuriaBridge

    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, Knives23Rules(), demo.SETUP)
    for cmd in demo.commands():
        session.execute(cmd)
        if cmd.kind == "abilities_done":
            break
    bridge = CuriaBridge(session)
    # the narrator taps the 5 Knives just turned over (a tap carries no serial)
    assert bridge.submit(Command("curia_card", {"card": {"knives": 5}}))["status"] == "counted"
    server = PhoneServer(bridge.submit, key, status=bridge.status, host="127.0.0.1",
                         rate=RateLimiter(burst=500, per_second=100)).start()
    answers = []

    def phone():
        p = Phone(server).join_allowed()
        for card in (Card("fate", "knives", 5, "070"),    # the same card, scanned
                     Card("fate", "knives", 5, "070"),    # and again
                     Card("fate", "doves", 2, "071")):    # the next card
            answers.append(p.scan(payload.encode(card, key))[2])

    try:
        t = threading.Thread(target=phone)
        t.start()
        while t.is_alive():  # the test's main thread plays Kivy's Clock
            bridge.drain()
            t.join(0.01)
    finally:
        server.stop()
    assert [a["answers"][0]["status"] for a in answers] == ["claimed", "duplicate", "counted"]
    assert [a["total"] for a in answers] == [5, 5, 3]
    assert running_total(session.state) == 3 and len(session.state.curia_revealed) == 2
    assert [r["serial"] for r in session.state.curia_revealed] == ["070", "071"]
    resumed = GameSession.resume(journal, session.game_id, Knives23Rules())
    assert [r["serial"] for r in resumed.state.curia_revealed] == ["070", "071"]


def test_issue32_4_a_scanned_card_is_claimed_by_its_tap_never_counted_twice(tmp_path, key):
    """Issue 32, hole 4: scan, then tap, counted the card twice (11 instead of 8)."""
    from companion.core.events import Command
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import demo
    from companion.games.knives23.rules import Knives23Rules, running_total
    from companion.phone.bridge import CuriaBridge

    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, Knives23Rules(), demo.SETUP)
    for cmd in demo.commands():
        session.execute(cmd)
        if cmd.kind == "abilities_done":
            break
    assert session.state.curia_count >= 3
    bridge = CuriaBridge(session)
    server = PhoneServer(bridge.submit, key, status=bridge.status, host="127.0.0.1",
                         rate=RateLimiter(burst=500, per_second=100)).start()
    answers = []

    def phone():
        p = Phone(server).join_allowed()
        for card in (Card("fate", "knives", 5, "080"), Card("fate", "knives", 3, "081")):
            answers.append(p.scan(payload.encode(card, key))[2])

    try:
        t = threading.Thread(target=phone)
        t.start()
        while t.is_alive():  # the test's main thread plays Kivy's Clock
            bridge.drain()
            t.join(0.01)
    finally:
        server.stop()
    assert [a["answers"][0]["status"] for a in answers] == ["counted", "counted"]
    # the narrator taps the 3 Knives a phone has just scanned (the tap names it), then a card no
    # phone scanned
    session.execute(Command("curia_card", {"card": {"knives": 3}}, source="tablet"))
    assert running_total(session.state) == 8 and len(session.state.curia_revealed) == 2
    session.execute(Command("curia_card", {"card": {"knives": 3}}, source="tablet"))
    assert running_total(session.state) == 11 and len(session.state.curia_revealed) == 3
    # and the same card scanned again is still a duplicate, whatever came first
    assert bridge.submit(Command("curia_card", {"card": {"knives": 3}, "serial": "081"},
                                 source="phone:1"))["status"] == "duplicate"
    resumed = GameSession.resume(journal, session.game_id, Knives23Rules())
    assert running_total(resumed.state) == 11
    assert [r["serial"] for r in resumed.state.curia_revealed] == ["080", "081", None]


def test_3_without_a_worker_process_photos_are_still_read_with_the_code_cap(key, monkeypatch):
    # An Android build has no interpreter to start: the reader runs in-process, still capped
    # to a few codes per photo.
    from companion.phone import decoder
    monkeypatch.setattr(decoder.sys, "executable", "/nonexistent/python")
    worker = decoder.DecodeWorker(max_codes=3)
    card = Card("fate", "knives", 2, "031")
    assert worker.decode(_one_card_png(key, card)) == [payload.encode(card, key)]
    with pytest.raises(Exception, match=r"codes in one photo \(at most 3\)"):
        worker.decode(_sheet_of_codes(key, 8))   # (it stops reading at the 4th)
