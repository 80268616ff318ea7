"""Phones scanning Fate cards at 23 Knives' Curia reveal, in the real app under X (1280x800).

The game is the scripted demo game (companion/games/knives23/demo.py) sent as commands up to the
Curia; the phone screen is opened from the Curia screen's button and serves on loopback. Phones
are real HTTP clients (urllib, with a cookie jar like a phone's browser) on worker threads, while
the test's main thread draws frames so the app's poll answers them, as Kivy's Clock does in the
app. "Reveal the cards slowly—one at a time—while adding and subtracting the total of Knives and
Doves" (23 Knives, End of the Game). Screenshots go to test-artifacts/qr/."""
from __future__ import annotations

import http.cookiejar
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import cv2
import pytest

from companion.core.i18n import tr
from companion.games.knives23 import demo
from companion.phone.source import KEY_FILE, choose_host
from vision.qr import payload
from vision.qr.decode import decode_array
from vision.qr.payload import Card

NAMES = demo.SETUP["players"]
OPTIONS = {"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2}


class Phone:
    """A phone's browser: joins through the link in the tablet's QR code (keeping the cookies
    it sets) and posts card codes the way the page does."""

    def __init__(self, join_url: str):
        self.join_url = join_url
        self.base = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(join_url))
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def join(self) -> str:
        """Open the join link; the id the server issued this phone (what the tablet shows)."""
        with self.opener.open(self.join_url, timeout=30) as res:  # 303 to the page, followed
            page = res.read().decode()
        assert res.status == 200 and "<html" in page.lower()
        try:
            with self.opener.open(f"{self.base}/state", timeout=30) as res:
                return json.loads(res.read())["phone"]
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"/state after joining: {exc.code} {exc.read()[:200]!r}") from None

    def scan(self, text: str) -> dict:
        req = urllib.request.Request(f"{self.base}/scan", data=json.dumps({"text": text}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        try:
            with self.opener.open(req, timeout=30) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as exc:
            return {"http": exc.code, **json.loads(exc.read())}


def off_main(driver, fn, timeout=30.0):
    """Run ``fn`` on a worker thread (a phone waiting for its answer) while the main thread
    draws frames: the app's Clock polls the phone source, which answers on the main thread."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    end = time.monotonic() + timeout
    while t.is_alive():
        assert time.monotonic() < end, "the phone got no answer"
        driver.pump(1)
    driver.pump(2)  # the answer's line reaches the tablet on the next poll
    if "error" in box:
        raise box["error"]
    return box["value"]


def serving_in_a_game(driver):
    """A 23 Knives game on the tablet, its phone screen open and serving on loopback."""
    app = driver.app
    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app.goto("phone")
    driver.pump(4)
    screen = app.screen("phone")
    assert screen.start_serving(host="127.0.0.1")
    return screen



def to_the_curia(driver):
    """The demo game, sent as commands, up to the first Curia card."""
    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app = driver.app
    for cmd in demo.commands():
        if cmd.kind == "curia_card":
            break
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    app.reveal_seen()
    app.narrator.cancel()  # the earlier rounds' lines: only the Curia's are listened for
    driver.pump(4)
    assert app.view["phase"] == "curia_reveal" and app.sm.current == "knives23.curia"


def card_label(card):
    (kind, value), = card.items()
    return tr(f"knives23.card.{kind}_one") if value == 1 else tr(f"knives23.card.{kind}", value=value)


def fate(card: dict, serial: str) -> Card:
    (side, value), = card.items()
    return Card("fate", side, value, serial)


def lines_on(driver, screen):
    """Every line a person can read on the screen now (bold markup taken off)."""
    return [re.sub(r"\[/?b\]", "", line) for t in driver.visible_texts(screen) for line in t.splitlines()]


@pytest.mark.app
def test_phones_scan_the_curia_with_tablet_taps_mixed_in(driver):
    app = driver.app
    to_the_curia(driver)
    curia = driver.screen
    driver.tap(curia.ids.phone_button)
    assert app.sm.current == "phone"
    screen = app.screen("phone")
    assert screen.start_serving(host="127.0.0.1")
    source = screen.source
    assert source in app.sources and source.server.serving
    # the deck key lives with the app's data (not in the user's home)
    key = payload.load_key(app.data_dir / KEY_FILE)
    assert key == source.server.key
    driver.pump(4)
    assert screen.ids.qr.texture is not None and screen.ids.qr.texture.width > 200
    assert source.server.join_url in screen.ids.url.text
    assert tr("phone.loopback", host="127.0.0.1") in lines_on(driver, screen)

    cards = demo.CURIA
    serials = [f"{101 + i:03d}" for i in range(len(cards))]
    codes = [payload.encode(fate(c, s), key) for c, s in zip(cards, serials)]
    ann, bo = Phone(source.server.join_url), Phone(source.server.join_url)
    ann_id = off_main(driver, ann.join)
    bo_id = off_main(driver, bo.join)
    assert ann_id != bo_id
    # a phone that joined waits: its scans count once the narrator allows it here
    reply = off_main(driver, lambda: ann.scan(codes[0]))
    assert reply["http"] == 403 and "waiting for the narrator" in reply["error"]
    assert app.view["end"]["revealed_count"] == 0
    waiting = f"Phone {ann_id}   waiting for you   0 scans"
    driver.pump_until(lambda: waiting in lines_on(driver, screen), "the waiting phone's line")
    driver.screenshot("qr/phone_screen_waiting")
    for pid in (ann_id, bo_id):
        driver.pump(4)
        row = driver.find(root=screen, cls="PhoneRow", phone_id=pid)
        driver.tap(row.ids.allow)
        assert app.sm.current == "phone"
    assert all(d["allowed"] for d in source.server.devices())

    def scanned(phone, code):
        reply = off_main(driver, lambda: phone.scan(code))
        return reply["answers"][0], reply["total"]

    answer, total = scanned(ann, codes[0])                 # 5 Knives
    assert (answer["status"], answer["total"], total) == ("counted", 5, 5)
    reply = off_main(driver, lambda: bo.scan(codes[1]))     # 3 Knives
    answer = reply["answers"][0]
    assert (answer["status"], answer["total"], answer["count"], answer["of"]) == ("counted", 8, 2, 10)
    assert (reply["total"], reply["count"], reply["of"]) == (8, 2, 10)   # the page's "2 of 10"
    assert screen.total == "8" and screen.counter == tr("knives23.ui.revealed_of", n=2, count=10)
    driver.advance(0.5)  # the narrator starts on the card: its caption takes room from the screen
    assert app.caption
    driver.screenshot("qr/phone_screen_caption")

    # A card tapped on the tablet, on the Curia screen, while the phones stay joined.
    driver.tap(screen.ids.back_button)
    assert app.sm.current == "knives23.curia"
    driver.tap(driver.find(cls="K23Button", text=card_label(cards[2])))   # 2 Knives
    assert app.view["end"]["running_total"] == 10 and curia.total == "10"
    driver.screenshot("qr/curia_scan_button")

    answer, total = scanned(ann, codes[3])                 # 3 Knives, scanned from the Curia screen
    assert (answer["status"], total) == ("counted", 13)
    assert curia.total == "13"
    answer, total = scanned(ann, codes[0])                 # the first card again
    assert (answer["status"], total) == ("duplicate", 13)
    # the table hears of it too, not only the phone that scanned
    toast = app.root.ids.toast
    driver.pump_until(lambda: "already counted" in toast.message, "the duplicate's toast")
    assert toast.message == tr("phone.answer.duplicate", phone=f"Phone {ann_id}", card="5 Knives",
                               serial=serials[0])
    forged = payload.encode(Card("fate", "knives", 5, "199"), bytes(16))   # not this deck's key
    answer, total = scanned(bo, forged)
    assert answer["status"] == "not_fate" and "check failed" in answer["error"] and total == 13
    sway = payload.encode(Card("sway", "blood", 2, "160"), key)
    answer, _ = scanned(bo, sway)
    assert answer["status"] == "not_fate" and "not a Fate card" in answer["error"]
    answer, total = scanned(bo, codes[4])                  # 5 Knives
    assert (answer["status"], total) == ("counted", 18)
    answer, total = scanned(ann, codes[5])                 # 2 Doves
    assert (answer["status"], total) == ("counted", 16)

    # The table view, the journal and the narrator agree with what the phones were told.
    view = app.view
    assert view["end"]["running_total"] == 16 == sum(c.get("knives", 0) - c.get("doves", 0) for c in cards[:6])
    assert view["end"]["revealed_count"] == 6
    revealed = [e for e in app.journal.events(app.session.game_id) if e.kind == "curia_card_revealed"]
    assert [(e.data["card"], e.data["serial"]) for e in revealed] == [
        (cards[0], serials[0]), (cards[1], serials[1]), (cards[2], None), (cards[3], serials[3]),
        (cards[4], serials[4]), (cards[5], serials[5])]
    assert [e.source for e in revealed] == [f"phone:{ann_id}", f"phone:{bo_id}", "tablet",
                                            f"phone:{ann_id}", f"phone:{bo_id}", f"phone:{ann_id}"]
    assert [e.data["total"] for e in revealed] == [5, 8, 10, 13, 18, 16]
    spent = 0
    while app.narrator.busy and spent < 120:   # let the narrator speak the queued cards
        driver.advance(5, step=0.5)
        spent += 5
    spoken = [e.text for e in app.narrator.history if e.key == "curia_total"]
    # The voice keeps step: each card's line says the total when it was spoken (a newer card
    # overtakes a total still waiting), in order, ending on the screen's total.
    said = [int(t.rsplit(" ", 1)[1].rstrip(".")) for t in spoken]
    assert said and said == [t for t in (5, 8, 10, 13, 18, 16) if t in said] and said[-1] == 16, spoken
    assert spoken[0] == "5 Knives. The total is 5." and spoken[-1] == "2 Doves. The total is 16."

    # The devices panel lists both phones with their scan counts; its button comes back here.
    driver.tap(driver.find(root=app.root, text=tr("app.devices")))
    assert app.sm.current == "devices"
    devices = app.screen("devices")
    texts = " ".join(driver.visible_texts(devices))
    assert f"Phone {ann_id}" in texts and f"Phone {bo_id}" in texts and "4 scans" in texts
    devices.ids.list.parent.scroll_y = 0   # the phones are at the bottom of the list
    driver.screenshot("qr/devices_phones")
    driver.tap(devices.ids.phone_button)
    assert app.sm.current == "phone"
    driver.pump(4)
    lines = lines_on(driver, screen)
    assert f"Phone {ann_id}   allowed   4 scans" in lines and f"Phone {bo_id}   allowed   4 scans" in lines
    assert tr("phone.answer.counted", phone=f"Phone {ann_id}", card="2 Doves", total=16) in lines
    assert screen.ids.total.text == "16" and screen.ids.counter.text == "6 of 10 cards revealed"
    # every counted card face up, with its sticker's serial or "tapped"
    faces = [f.text for f in reversed(screen.ids.faces.children)]
    assert len(faces) == 6
    assert faces[0] == f"1. [b]5 Knives[/b]\n#{serials[0]}" and faces[2].endswith("tapped")
    # refused scans are told at most every 4 s: the last summary line, then a clear picture
    driver.pump_until(lambda: not source._unsaid, "the held-back refusals' toast")
    toast._clear()  # it fades after 6 s of real time; not worth waiting for before the picture
    shot = driver.screenshot("qr/phone_screen")
    # the code on the screen, read back from the window's pixels, holds the join link
    assert decode_array(cv2.imread(str(shot))) == [source.server.join_url]

    # Stopping: the phones are no longer served and leave the devices list.
    driver.tap(screen.ids.serve_button)
    assert not screen.serving and source not in app.sources and not source.server.serving
    assert all(d.kind != "phone" for d in app.devices())
    with pytest.raises(OSError):
        ann.scan(codes[6])
    assert app.view["end"]["revealed_count"] == 6


@pytest.mark.app
def test_outside_23_knives_and_without_a_network_the_screen_says_so(driver):
    app = driver.app
    app.goto("phone")
    driver.pump(4)
    screen = app.screen("phone")
    assert tr("phone.no_game") in " ".join(driver.visible_texts(screen))
    assert screen.ids.serve_button.disabled
    assert not screen.start_serving(host="127.0.0.1") and screen.source is None
    driver.screenshot("qr/phone_screen_no_game")

    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app.goto("phone")
    driver.pump(4)
    # before the Curia, phones may join; the screen says their scans do not count yet
    assert tr("phone.before_curia") in lines_on(driver, screen)
    assert not screen.show_total and screen.ids.total.text == ""
    app.root.ids.toast._clear()  # the refusal above; it would fade after 6 s of real time
    # no LAN: the kernel's route says loopback; the server binds it and says phones cannot reach it
    assert screen.start_serving(lan=lambda: "127.0.0.1")
    assert screen.source.host == "127.0.0.1" and screen.source.server.serving
    driver.pump(2)
    assert tr("phone.no_lan", host="127.0.0.1") in lines_on(driver, screen)
    driver.screenshot("qr/phone_screen_no_lan")
    driver.set_size(800, 1280)   # a tablet held upright
    assert screen.ids.qr.width > 300
    driver.screenshot("qr/phone_screen_portrait")
    screen.stop_serving()
    assert not screen.serving


def test_where_the_server_binds():
    assert choose_host(lan=lambda: "192.168.1.20") == ("192.168.1.20", None, "192.168.1.20")
    assert choose_host(lan=lambda: "127.0.0.1") == ("127.0.0.1", "no_lan", "127.0.0.1")
    # a public address is never served on: phones on the Internet are not at the table
    assert choose_host(lan=lambda: "203.0.113.7") == ("127.0.0.1", "not_local", "203.0.113.7")
    assert choose_host("127.0.0.1") == ("127.0.0.1", "loopback", "127.0.0.1")


@pytest.mark.app
def test_a_player_votes_from_their_phone_with_their_own_seat_code(driver):
    """Phones vote: the narrator shows Bo's seat code; Bo's phone joins with it and votes in
    the Vote to Exile; the tablet's vote screen shows that Bo voted, never what."""
    app = driver.app
    screen = serving_in_a_game(driver)
    driver.pump(4)
    driver.tap(driver.find(root=screen, cls="SeatButton", player="Bo"))
    assert screen.seat == "Bo"
    shot = driver.screenshot("qr/phone_screen_seat_code")
    seat_url = decode_array(cv2.imread(str(shot)))[0]
    assert seat_url == screen.source.server.seat_url("Bo") and "/seat?k=" in seat_url
    assert tr("phone.seat_caption", player="Bo") in lines_on(driver, screen)

    bo = Phone(seat_url)
    bo_id = off_main(driver, bo.join)
    for cmd in demo.commands():          # the demo game up to its first Vote to Exile
        if cmd.kind == "cast_ballot":
            break
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    assert app.view["vote"]["voters"] == NAMES

    def state():
        with bo.opener.open(f"{bo.base}/state", timeout=30) as res:
            return json.loads(res.read())

    vote = off_main(driver, state)["vote"]
    assert [o["label"] for o in vote["options"]] == [tr("vote.option.exile"), tr("vote.option.remain")]

    def cast():
        req = urllib.request.Request(f"{bo.base}/ballot", method="POST",
                                     headers={"Content-Type": "application/json"},
                                     data=json.dumps({"vote_id": vote["vote_id"], "option": 1}).encode())
        with bo.opener.open(req, timeout=30) as res:
            return json.loads(res.read())

    assert off_main(driver, cast) == {"status": "recorded"}
    view = app.view["vote"]
    assert view["voted"] == ["Bo"] and "ballots" not in view
    assert off_main(driver, state)["vote"]["voted"] is True
    app.goto("vote")
    driver.pump(4)
    assert tr("vote.status", voted=1, total=4) in lines_on(driver, app.screen("vote"))
    driver.screenshot("qr/vote_screen_phone_ballot")
    rows = [d for d in screen.source.server.devices() if d["id"] == bo_id]
    assert rows[0]["seat"] == "Bo" and not rows[0]["allowed"]
    # the rest vote on the tablet; the reveal shows the phone's ballot among the others
    for name, choice in (("Ann", "exile"), ("Cy", "exile"), ("Di", "exile")):
        assert app.send("cast_ballot", voter=name, choice=choice)
    done = app.view["vote_history"][-1]
    assert done["ballots"]["Bo"] == "remain" and done["sources"]["Bo"] == f"phone:{bo_id}"
    screen.stop_serving()


@pytest.mark.app
def test_a_refused_seat_phone_leaves_a_new_seat_code_on_the_tablet(driver):
    """Issue 32, hole 2: a neighbour photographed Bo's seat code and took the seat; the narrator
    refuses that phone. The tablet now shows a new code for Bo; the photographed one no longer
    works, and the new one gives Bo's own phone the seat."""
    screen = serving_in_a_game(driver)
    driver.pump(4)
    driver.tap(driver.find(root=screen, cls="SeatButton", player="Bo"))
    old = decode_array(cv2.imread(str(driver.screenshot("qr/phone_screen_seat_code_old"))))[0]
    thief_id = off_main(driver, Phone(old).join)
    assert screen.source.server.seats() == {"Bo": thief_id}
    screen.refuse(thief_id)
    driver.pump(4)
    new = decode_array(cv2.imread(str(driver.screenshot("qr/phone_screen_seat_code_new"))))[0]
    assert new != old and new == screen.source.server.seat_url("Bo")

    def open_old():
        try:
            Phone(old).join()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        return None

    code, page = off_main(driver, open_old)
    assert code == 403 and "no longer valid" in page
    bo_id = off_main(driver, Phone(new).join)
    assert screen.source.server.seats() == {"Bo": bo_id}
    screen.stop_serving()


@pytest.mark.app
def test_live_scanning_turns_on_https_with_the_tables_certificate(driver):
    import ssl

    from companion.phone import tls
    app = driver.app
    screen = serving_in_a_game(driver)
    assert screen.source.server.join_url.startswith("http://")
    driver.tap(screen.ids.secure_button)
    source = screen.source
    assert screen.secure and source in app.sources and source.server.join_url.startswith("https://")
    print_ = tls.fingerprint(app.data_dir)
    assert tr("phone.fingerprint", fingerprint=print_) in lines_on(driver, screen)
    driver.screenshot("qr/phone_screen_https")
    # a phone that accepted the certificate joins at the https address
    ctx = ssl.create_default_context(cafile=str(app.data_dir / tls.CERT_FILE))
    phone = Phone(source.server.join_url)
    phone.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(phone.jar),
                                               urllib.request.HTTPSHandler(context=ctx))
    assert off_main(driver, phone.join)
    driver.tap(screen.ids.secure_button)
    assert not screen.secure and screen.source.server.join_url.startswith("http://")
    screen.stop_serving()


@pytest.mark.app
def test_a_seated_phone_follows_the_tablets_board_and_timer(driver):
    """Issue 32, the table on every player's phone, in the real app: Bo's phone, seated with
    Bo's seat code, long-polls its view (GET /table, what the page shows); the app's own poll
    publishes it. The tablet plays the demo game to a called Vote to Exile under Quid pro quo:
    the phone's view follows the board (Ann's turn, not Bo's), and carries the app's running
    bribe countdown."""
    app = driver.app
    driver.start_game("knives23", NAMES, first="Ann", options={**OPTIONS, "quid_pro_quo": True})
    app.goto("phone")
    driver.pump(4)
    screen = app.screen("phone")
    assert screen.start_serving(host="127.0.0.1")
    bo = Phone(screen.source.server.seat_url("Bo"))
    off_main(driver, bo.join)

    def table(version):
        with bo.opener.open(f"{bo.base}/table?v={version}", timeout=30) as res:
            return json.loads(res.read())

    first = off_main(driver, lambda: table(0))
    rows = dict(first["table"]["board"])
    assert rows["Tribune"] == app.view["tribune"] and first["table"]["timers"] == []
    for cmd in demo.commands():          # the demo game up to its first Vote to Exile
        if cmd.kind == "cast_ballot":
            break
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    driver.pump(4)
    assert app.view["phase"] == "exile_called"
    seen = off_main(driver, lambda: table(first["version"]))
    for _ in range(5):   # the game's screen starts the countdown on its next refresh
        if seen["table"]["timers"]:
            break
        seen = off_main(driver, lambda: table(seen["version"]))
    shown = seen["table"]
    rows = dict(shown["board"])
    kalends = app.view["kalends"]
    assert rows["Turn"] == "Ann" and not shown["your_turn"] and rows["Tribune"] == app.view["tribune"]
    assert rows["Kalends"] == f"Dagger on {kalends['dagger']} of {kalends['spaces']} (Curia at {kalends['curia_space']})"
    assert rows["Forum"].startswith(str(app.view["forum"]["count"]))
    (timer,) = shown["timers"]
    assert timer["name"] == "Bribe" and timer["running"] and timer["ends_at"] > seen["now"]
    screen.stop_serving()


@pytest.mark.app
def test_five_chromium_phones_follow_the_apps_23_knives_round(driver, tmp_path, monkeypatch):
    """Issue 32 in the real app with five headless Chromium phones (en, fr, de), each seated
    with its player's seat code: the first round of the five-player game the qr tests play
    whole (tests/qr/phone_games.py), sent on the tablet, with the Vote to Exile and the first
    Issue voted from the phones. After each move every phone shows the app's board (the Tribune,
    whose turn), the bribe countdown while it runs, and with eyes closed a page that stays as
    it is while the app runs on. (The whole game and a Cicero round: tests/qr/test_phone_table_chromium.py.)"""
    from companion.phone.httpd import CappedServer
    from companion.phone.server import RateLimiter, option_words
    from tests.qr.phone_games import FIVE, PHONE_VOTES, knives_five
    from tests.qr.test_phone_chromium import make_browser
    from tests.qr.test_phone_table_chromium import LANGS, READ
    # five phones on one loopback address stand in for five devices on five addresses: the
    # caps per address are the five addresses' together
    monkeypatch.setattr(CappedServer, "PER_ADDRESS", CappedServer.MAX_CONNECTIONS)
    app = driver.app
    driver.start_game("knives23", FIVE, first="Ann", options={**OPTIONS, "quid_pro_quo": True})
    app.goto("phone")
    driver.pump(4)
    screen = app.screen("phone")
    assert screen.start_serving(host="127.0.0.1", rate=RateLimiter(burst=150, per_second=25))
    server = screen.source.server
    phones = []
    try:
        for i, lang in enumerate(LANGS):
            phones.append(make_browser(tmp_path / f"phone{i}", extra=(f"--lang={lang}", f"--accept-lang={lang}")))
            phones[-1].get(server.seat_url(FIVE[i]))
        for drv in phones:
            driver.pump_until(lambda: drv.execute_script(READ)["version"] != "0", "a seated phone's view")
        steps = knives_five()
        last = next(i for i, s in enumerate(steps) if not isinstance(s, str) and s[0].kind == "eyes_open")
        bribe = False
        for step in steps[:last + 2]:
            if isinstance(step, str):
                for i, drv in enumerate(phones):
                    label = option_words(PHONE_VOTES[step][FIVE[i]], LANGS[i])
                    def choice():
                        return [b for b in drv.find_elements("css selector", "#vote-options button")
                                if b.text == label]
                    driver.pump_until(lambda: bool(choice()), f"{FIVE[i]}'s choices")
                    choice()[0].click()
                driver.pump_until(lambda: app.view.get("vote") is None or app.view["vote"]["revealed"]
                                  or not app.view["vote"]["waiting"], "the phones' ballots")
                continue
            for cmd in step:
                assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
            driver.pump(2)
            if step[0].kind == "eyes_closed":
                driver.pump_until(lambda: all(d.execute_script(READ)["board"] == [] for d in phones), "eyes closed")
                pages = [d.page_source for d in phones]
                end = time.monotonic() + 3
                while time.monotonic() < end:
                    driver.pump(1)
                assert [d.page_source for d in phones] == pages, "a page changed with eyes closed"
                continue
            view = app.view
            want = [view["tribune"]] + ([view["turn"]["player"]] if view.get("turn") else [])

            reads: list = []

            def shown():
                reads[:] = [d.execute_script(READ) for d in phones]
                return all(all(any(w == v for _, v in r["board"]) for w in want) for r in reads)
            driver.pump_until(shown, f"the phones' boards after {step[0].kind}")
            if view["phase"] == "exile_called":   # the app starts the bribe's countdown
                driver.pump_until(lambda: all(len(d.execute_script(READ)["timers"]) == 1 for d in phones),
                                  "the bribe's countdown on the phones")
                bribe = True
            else:   # a countdown left running past its phase is not on the phones
                driver.pump_until(lambda: all(d.execute_script(READ)["timers"] == [] for d in phones),
                                  f"no countdown on the phones after {step[0].kind}")
        assert bribe, "the app's bribe countdown was not on the phones"
        phones[0].save_screenshot(str(driver.screenshot("phone/app_tablet").parent / "app_phone_ann.png"))
    finally:
        for drv in phones:
            drv.quit()
        screen.stop_serving()
