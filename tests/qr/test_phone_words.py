"""The phone page speaks the phone's language: every text on it comes from the catalogue
(companion/locale/*/phone.po), chosen by the browser's Accept-Language, else the tablet's."""
from __future__ import annotations

import json
import re

import pytest

from companion.core import i18n
from companion.phone import words
from companion.phone.server import STATIC, PhoneServer, RateLimiter

from .test_phone_server import Phone


def test_the_page_asks_for_exactly_the_words_the_server_gives_it():
    html = (STATIC / "page.html").read_text(encoding="utf-8")
    js = (STATIC / "page.js").read_text(encoding="utf-8")
    asked = set(re.findall(r"\{\{(phone\.[a-z0-9_.]+)\}\}", html))
    asked |= set(re.findall(r"""\btn?\(\s*"(phone\.[a-z0-9_.]+)\"""", js))
    asked |= set(re.findall(r""":\s*"(phone\.page\.status\.[a-z_]+)\"""", js))
    # the card's words are asked for by side: `phone.page.card.${side}` for knives and doves
    assert "`phone.page.card.${side}`" in js
    asked |= {"phone.page.card.knives", "phone.page.card.doves"}
    assert asked == set(words.PAGE_WORDS)
    # no sentence left in the script: its user-facing strings are all keys
    assert not re.search(r'textContent = "[A-Z]', js)
    assert not re.search(r"textContent = `[A-Z]", js)


@pytest.mark.parametrize("header, tablet, want", [
    ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "en", "fr"),
    ("es-ES,es;q=0.9,de;q=0.8,en;q=0.7", "en", "de"),       # no Spanish catalogue: German next
    ("en;q=0.4, de", "fr", "de"),                            # by quality, not by order
    ("es, it", "de", "de"),                                  # none known: the tablet's
    ("", "fr", "fr"),
    (None, "de", "de"),
    ("fr;q=abc, ;;;, " + "x" * 500, "en", "fr"),            # junk does not break it
])
def test_the_phones_language_is_its_browsers_else_the_tablets(header, tablet, want):
    assert words.page_language(header, tablet) == want


def test_every_page_word_is_in_french_and_german():
    for lang in ("fr", "de"):
        own = i18n.load_catalogue(lang)
        english = i18n.load_catalogue("en")
        for key in words.PAGE_WORDS:
            assert key in own, (lang, key)
            assert own[key] != english[key] or key in ("phone.page.card_total", "phone.page.history_line"), (lang, key)


def test_the_server_answers_each_phone_in_its_own_language(curia, key):
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=1000, per_second=1000), language=lambda: "de")
    server.start()
    try:
        fr = Phone(server)
        fr.headers = {"Accept-Language": "fr-FR,fr;q=0.9"}
        status, _, page = fr.request("GET", "/", headers=fr.headers)
        # not joined: a page in French, not raw JSON
        assert status == 403 and b'<html lang="fr">' in page
        assert "Non connecté".encode() in page and "pas connecté à cette partie".encode() in page
        fr.join()
        status, _, page = fr.request("GET", "/", headers=fr.headers)
        text = page.decode()
        assert status == 200 and '<html lang="fr">' in text
        assert "<title>Compagnon de table — téléphone</title>" in text
        assert "Photographier la carte" in text and "{{" not in text
        data = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>',
                                    text, re.S)[1])
        assert data["lang"] == "fr" and data["words"]["phone.page.status.counted"] == "Comptée"
        assert data["words"]["phone.page.card.knives"] == ["{n} Couteau", "{n} Couteaux"]
        # a phone whose browser names no language we have: the tablet's (German)
        es = Phone(server)
        status, _, page = es.request("GET", "/", headers={"Accept-Language": "es"})
        assert status == 403 and b'<html lang="de">' in page and "Nicht beigetreten".encode() in page
        # a refusal to a joined phone, in its language: it is waiting for the narrator
        status, _, reply = fr.request("POST", "/scan", json.dumps({"text": "x"}).encode(),
                                      {"Content-Type": "application/json", **fr.headers})
        assert status == 403 and reply["reason"] == "waiting"
        assert reply["error"] == "ce téléphone attend que le narrateur l'autorise sur la tablette"
    finally:
        server.stop()
