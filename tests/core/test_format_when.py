"""Dates on the picker and Past games: month names in the table's language (Babel's locale data)."""
from __future__ import annotations

import time

from companion.core import i18n


def test_a_moment_is_written_with_the_languages_month_name(monkeypatch):
    # 1 December, noon local time: the month name is what differs between the languages
    moment = time.mktime((2026, 12, 1, 12, 5, 0, 0, 0, -1))
    said = {}
    for lang in ("en", "fr", "de"):
        monkeypatch.setattr(i18n, "_language", lang)
        said[lang] = (i18n.format_when(moment), i18n.format_when(moment, with_year=True))
    assert said["en"] == ("01 Dec 12:05", "01 Dec 2026 12:05")
    assert said["fr"] == ("01 déc. 12:05", "01 déc. 2026 12:05")
    assert said["de"] == ("01 Dez. 12:05", "01 Dez. 2026 12:05")


def test_a_language_babel_does_not_know_is_written_in_english(monkeypatch):
    monkeypatch.setattr(i18n, "_language", "zz")
    assert i18n.format_when(time.mktime((2026, 12, 1, 12, 5, 0, 0, 0, -1))) == "01 Dec 12:05"
