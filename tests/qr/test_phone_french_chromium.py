"""A phone set to French, in a real headless Chromium: the page, the vote and the Curia scan
answers are all in French, from the catalogue (companion/locale/fr/phone.po and the games'
vote words), while the tablet speaks English. Screenshots go to test-artifacts/phone/."""
from __future__ import annotations

import shutil

import cv2
import pytest

from companion.core import i18n
from companion.core.events import Command
from companion.phone.server import PhoneServer, RateLimiter
from vision.qr import payload, synth

from .test_phone_chromium import make_browser
from .test_phone_votes import knives_exile_session, serve
from .test_phone_votes_chromium import Tablet

pytestmark = pytest.mark.slow

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def french_browser(tmp_path):
    drv = make_browser(tmp_path, extra=("--lang=fr-FR", "--accept-lang=fr-FR,fr"))
    yield drv
    drv.quit()
    shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def text(drv, element_id):
    return drv.find_element(By.ID, element_id).text


def test_a_french_phone_votes_and_scans_in_french(french_browser, tmp_path, curia, key,
                                                  fate_cards, phone_artifacts):
    drv = french_browser
    assert i18n.language() == "en"   # the tablet speaks English; the phone asks for French
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    tablet = Tablet(bridge)
    try:
        drv.get(server.seat_url("Ann"))
        tablet.wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#vote-options button"))
        assert drv.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
        assert drv.title == "Compagnon de table — téléphone"
        assert text(drv, "vote-title") == "Vote de Ann"
        assert text(drv, "vote-question") == "Ann demande un Vote d'Exil contre Bo : Exil ou Maintien ?"
        assert text(drv, "vote-status") == "À vous de voter"
        assert text(drv, "who").startswith("Ce téléphone est le téléphone")
        buttons = {b.text: b for b in drv.find_elements(By.CSS_SELECTOR, "#vote-options button")}
        assert set(buttons) == {"Exil", "Maintien"}
        drv.save_screenshot(str(phone_artifacts / "phone-fr-vote.png"))
        buttons["Exil"].click()
        tablet.wait(drv, lambda d: text(d, "vote-status") == "Enregistré")
        assert text(drv, "vote-detail").startswith("Votre vote est pris.")
        assert "Exil" not in text(drv, "vote-answer")
        drv.save_screenshot(str(phone_artifacts / "phone-fr-recorded.png"))
        # the tablet still speaks English
        assert i18n.text_of(session.view("table")["vote"]["question"]).startswith("Ann calls a Vote to Exile")
    finally:
        server.stop()
    assert session.view("table")["vote"]["voted"] == ["Ann"]

    # the Curia: a French phone joins, waits for the narrator, scans a photo
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=200, per_second=50)).start()
    try:
        drv.delete_all_cookies()
        drv.get(f"{server.base_url}/")
        assert text(drv, "answer-status") == "Non connecté"
        assert "scannez le code de connexion" in text(drv, "answer-detail")
        drv.save_screenshot(str(phone_artifacts / "phone-fr-not-joined.png"))
        drv.get(server.join_url)
        WebDriverWait(drv, 30).until(lambda d: text(d, "answer-status") == "En attente du narrateur")
        assert server.allow(server.devices()[0]["id"])
        WebDriverWait(drv, 30).until(lambda d: text(d, "answer-status") == "Prêt")
        photo = synth.make_photo(31, "plain", fate_cards, key)
        card = payload.parse(photo.texts[0], key)
        path = tmp_path / "card.jpg"
        cv2.imwrite(str(path), photo.image)
        drv.find_element(By.ID, "photo").send_keys(str(path))
        WebDriverWait(drv, 60).until(lambda d: text(d, "answer-status") == "Comptée")
        side = {"knives": ("Couteau", "Couteaux"), "doves": ("Colombe", "Colombes")}[card.side]
        word = side[0] if card.value == 1 else side[1]
        assert text(drv, "answer-detail") == \
            f"{card.value} {word} (carte {card.serial}) — total {curia.total}"
        assert text(drv, "count") == "1 carte révélée"
        assert drv.find_element(By.CSS_SELECTOR, "label[for=photo]").text == "Photographier la carte"
        # a photo with no code: the server's answer in French too
        blank = tmp_path / "blank.png"
        cv2.imwrite(str(blank), 255 * (photo.image[:200, :200] * 0 + 1))
        drv.find_element(By.ID, "photo").send_keys(str(blank))
        WebDriverWait(drv, 60).until(lambda d: text(d, "answer-status") == "Illisible")
        assert text(drv, "answer-detail") == "aucun code de carte n'a pu être lu sur la photo"
        drv.save_screenshot(str(phone_artifacts / "phone-fr-scan.png"))
    finally:
        server.stop()
    assert len(curia.counted) == 1
