"""Done-when test for the phone page: the real server and a real headless Chromium (Debian's
chromium and chromedriver) open the join link, upload card photos, type a code, and the tablet's
Curia total (the stand-in for the rules) and the page agree."""
import shutil
import threading
from pathlib import Path

import cv2
import pytest

from companion.phone.server import PhoneServer, RateLimiter
from vision.qr import payload, synth
from vision.qr.payload import Card

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

pytestmark = pytest.mark.slow

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def make_browser(tmp_path, extra=()):
    """Debian's headless Chromium, driven by its chromedriver, with its own profile."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Debian chromium and chromium-driver are needed (scripts/setup.sh test)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=420,900",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}", *extra):
        opts.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


@pytest.fixture
def browser(tmp_path):
    drv = make_browser(tmp_path)
    yield drv
    drv.quit()
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def _history(drv):
    return [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#history li")]


def _wait_for_answers(drv, n):
    WebDriverWait(drv, 60).until(lambda d: len(_history(d)) >= n)
    return drv.find_element(By.ID, "answer-status").text


def test_phone_page_in_chromium_scans_photos_and_the_curia_total_is_right(
        browser, curia, key, fate_cards, tmp_path, phone_artifacts):
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=200, per_second=50)).start()
    try:
        # photos of three different Fate cards, generated from the real stickers
        photos = []
        for seed, cond in ((21, "plain"), (22, "rotated"), (23, "glare")):
            ph = synth.make_photo(seed, cond, fate_cards, key)
            path = tmp_path / f"card-{cond}.jpg"
            cv2.imwrite(str(path), ph.image)
            photos.append((path, payload.parse(ph.texts[0], key)))
        assert len({c.serial for _, c in photos}) == 3

        # a browser that has not joined is refused
        browser.get(f"{server.base_url}/")
        assert "not joined" in browser.page_source

        browser.get(server.join_url)
        assert browser.current_url == f"{server.base_url}/"  # the secret left the address bar
        assert browser.title.startswith("Table companion")
        upload = browser.find_element(By.ID, "photo")
        # joined, but waiting for the narrator (tests/qr/test_phone_attacks.py: its scans are
        # refused until then)
        WebDriverWait(browser, 30).until(
            lambda d: d.find_element(By.ID, "answer-status").text == "Waiting for the narrator")
        phone_id = server.devices()[0]["id"]
        assert f"Phone {phone_id}" in browser.find_element(By.ID, "who").text
        assert not browser.find_element(By.ID, "typed").is_displayed()
        browser.save_screenshot(str(phone_artifacts / "phone-page-waiting.png"))
        assert server.allow(phone_id) and (setattr(server, "typing", True) or True)
        WebDriverWait(browser, 30).until(
            lambda d: d.find_element(By.ID, "answer-status").text == "Ready")
        assert browser.find_element(By.ID, "typed").is_displayed()

        expected = 0
        for i, (path, card) in enumerate(photos, start=1):
            upload.send_keys(str(path))
            assert _wait_for_answers(browser, i) == "Counted"
            expected += card.value if card.side == "knives" else -card.value
            assert browser.find_element(By.ID, "total").text == str(expected)
            assert card.label in browser.find_element(By.ID, "answer-detail").text

        # the first card's photo again: a duplicate, the total stays
        upload.send_keys(str(photos[0][0]))
        assert _wait_for_answers(browser, 4) == "Already counted"
        # a typed code no sticker carries (serial 001 is a 1 Knife): refused
        browser.find_element(By.ID, "code").send_keys(payload.printed(Card("fate", "knives", 5, "001")))
        browser.find_element(By.CSS_SELECTOR, "#typed button").click()
        assert _wait_for_answers(browser, 5) == "Not a Fate card"
        assert "no card of this deck" in browser.find_element(By.ID, "answer-detail").text

        assert curia.total == expected and len(curia.counted) == 3
        assert browser.find_element(By.ID, "total").text == str(curia.total)
        assert browser.find_element(By.ID, "count").text == "3 cards revealed"

        # the phone reloads the page: the server gives back this phone's answers
        browser.refresh()
        WebDriverWait(browser, 30).until(lambda d: len(_history(d)) == 5)
        assert browser.find_element(By.ID, "total").text == str(expected)
        browser.save_screenshot(str(phone_artifacts / "phone-scan.png"))

        # the phone loses its cookie: a page that says how to join again, never raw JSON
        browser.delete_all_cookies()
        browser.refresh()
        assert "Not joined" in browser.find_element(By.ID, "answer-status").text
        browser.save_screenshot(str(phone_artifacts / "phone-page-not-joined.png"))
    finally:
        server.stop()


def test_the_page_gives_up_on_a_silent_tablet_and_its_retry_counts_once(
        browser, curia, key, phone_artifacts):
    """The tablet does not answer a scan (its main thread busy): after its request timeout the
    page says the scan is not sent yet and keeps it; once the tablet answers, the same scan is
    sent again and the card counts once."""
    release = threading.Event()

    def slow_submit(cmd):
        release.wait(40)   # bounded: the test releases it much sooner
        return curia.submit(cmd)

    server = PhoneServer(slow_submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=200, per_second=50), typing=True).start()
    try:
        browser.get(server.join_url)
        assert server.allow(server.devices()[0]["id"])
        WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "typed").is_displayed())
        card = server.deck["001"]
        browser.find_element(By.ID, "code").send_keys(payload.printed(card))
        browser.find_element(By.CSS_SELECTOR, "#typed button").click()
        WebDriverWait(browser, 40).until(
            lambda d: d.find_element(By.ID, "answer-status").text == "Not sent yet")
        assert browser.find_element(By.ID, "pending").text == "1 scan waiting to be sent…"
        browser.save_screenshot(str(phone_artifacts / "phone-page-not-sent.png"))
        release.set()
        WebDriverWait(browser, 60).until(
            lambda d: d.find_element(By.ID, "answer-status").text == "Counted")
        assert browser.find_element(By.ID, "pending").text == ""
    finally:
        release.set()
        server.stop()
    assert list(curia.counted) == ["001"] and len(curia.commands) == 1
