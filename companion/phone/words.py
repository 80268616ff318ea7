"""What the phone page says, in the phone's language.

The page (static/page.html, static/page.js) holds no sentence of its own: ``{{key}}`` in the
HTML is replaced by the catalogue's text when the page is served, and the script reads the texts
it needs (``PAGE_WORDS``) from a JSON block the server puts in the page. The server's own answers
(refusals, a card that does not count) are made in the phone's language too.

The phone's language is the first of its browser's ``Accept-Language`` that the app has a
catalogue for, else the tablet's.
"""
from __future__ import annotations

import html
import json
import re
from functools import lru_cache

from companion.core import i18n

# Every key the page's HTML and script show (tests/qr/test_phone_words.py checks the page asks
# for no other, and uses all of these).
PAGE_WORDS = (
    "phone.page.title", "phone.page.who",
    "phone.page.vote_title", "phone.page.vote_title_generic", "phone.page.no_vote",
    "phone.page.no_vote_detail", "phone.page.vote_now", "phone.page.vote_now_detail",
    "phone.page.weight", "phone.page.abstain", "phone.page.sending", "phone.page.recorded",
    "phone.page.recorded_detail", "phone.page.not_recorded", "phone.page.not_sent",
    "phone.page.not_sent_detail",
    "phone.page.curia", "phone.page.ready", "phone.page.ready_detail", "phone.page.allowed_detail",
    "phone.page.running_total", "phone.page.take_photo", "phone.page.live_scan",
    "phone.page.typing_off", "phone.page.type_placeholder", "phone.page.send",
    "phone.page.history", "phone.page.history_line", "phone.page.checking", "phone.page.waiting_detail",
    "phone.page.offline_detail", "phone.page.cards_revealed", "phone.page.cards_revealed_of",
    "phone.page.pending", "phone.page.card_detail", "phone.page.card_total",
    "phone.page.card.knives", "phone.page.card.doves",
    "phone.page.live_needs_secure", "phone.page.live_failed", "phone.page.camera_failed",
    "phone.page.hold_card", "phone.page.no_answer",
    "phone.page.status.counted", "phone.page.status.duplicate", "phone.page.status.claimed",
    "phone.page.status.not_fate", "phone.page.status.unreadable", "phone.page.status.refused",
    "phone.page.status.offline", "phone.page.status.waiting",
    "phone.page.table", "phone.page.your_turn", "phone.page.vote_open", "phone.page.timers",
    "phone.page.paused", "phone.page.table_history", "phone.page.result", "phone.page.you_won",
    "phone.page.you_lost", "phone.page.winners", "phone.page.no_game", "phone.page.table_waiting",
)
_HTML_KEY = re.compile(r"\{\{([a-z0-9_.]+)\}\}")


def page_language(accept_language: str | None, tablet: str | None = None) -> str:
    """The first language of an ``Accept-Language`` header ("fr-CH, fr;q=0.9, en;q=0.8") that
    has a catalogue, by quality; else the tablet's language."""
    known = set(i18n.languages())
    ranked = []
    for i, part in enumerate((accept_language or "")[:200].split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower().split("-")[0]))
    for _, _, lang in sorted(ranked):
        if lang in known:
            return lang
    tablet = tablet or i18n.language()
    return tablet if tablet in known else "en"


def say(lang: str, key: str, **values: object) -> str:
    """``key``'s text in ``lang`` (English where that language has no text for it)."""
    return i18n.text_of(i18n.keyed(key, **values), lang)


@lru_cache(maxsize=16)
def words(lang: str) -> dict[str, str | list[str]]:
    """The page script's texts in ``lang``, placeholders unfilled: a text, or a list of plural
    forms (the script picks one with the browser's plural rules; every catalogue here has two)."""
    own, english = i18n.load_catalogue(lang), i18n.load_catalogue("en")
    out: dict[str, str | list[str]] = {}
    for key in PAGE_WORDS:
        text = own.get(key, english[key])
        out[key] = list(text) if isinstance(text, tuple) else text
    return out


def render_page(template: str, lang: str) -> str:
    """static/page.html with its ``{{key}}`` in ``lang`` and the script's words in a JSON block
    (a data block: no script runs from it, so the page's Content-Security-Policy stays strict)."""
    def text(m: re.Match) -> str:
        value = words(lang).get(m[1])
        if value is None:
            raise KeyError(f"the phone page asks for {m[1]!r}, which is not in PAGE_WORDS")
        return html.escape(value if isinstance(value, str) else value[-1])
    page = _HTML_KEY.sub(text, template.replace("{{lang}}", lang))
    data = json.dumps({"lang": lang, "words": words(lang)}, ensure_ascii=False)
    block = ('<script id="words" type="application/json">'
             + data.replace("<", "\\u003c") + "</script>\n")
    return page.replace("</head>", block + "</head>", 1)
