"""French and German for tests: the real catalogues once they are in the tree; until then
stand-ins made from English (every text marked «…» for fr, ‹…› for de), so what switches
language is checked either way. ``TEST_LOCALE_DIR=DIR`` points the tests at another locale
folder (e.g. a copy holding the translators' latest files, for screenshots)."""
from __future__ import annotations

import os
from pathlib import Path

from companion.core import i18n

MARKS = {"fr": ("«", "»"), "de": ("‹", "›")}


def stand_in_locale(folder: Path) -> Path:
    """``folder``/en (a link to English) plus stand-in fr and de PO files; returns ``folder``."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po
    en = i18n.load_catalogue("en")
    for lang, (left, right) in MARKS.items():
        catalog = Catalog(locale=lang)
        for key, text in en.items():
            if isinstance(text, tuple):
                catalog.add((key, key), tuple(f"{left}{t}{right}" for t in text))
            else:
                catalog.add(key, f"{left}{text}{right}")
        (folder / lang).mkdir(parents=True, exist_ok=True)
        with open(folder / lang / "all.po", "wb") as f:
            write_po(f, catalog)
    if not (folder / "en").exists():
        (folder / "en").symlink_to(i18n.LOCALE_DIR / "en")
    return folder


def use_french_and_german(tmp_path: Path, monkeypatch) -> dict:
    """Make fr and de loadable; returns each language's stand-in mark (None: the real one)."""
    chosen = os.environ.get("TEST_LOCALE_DIR")
    if chosen:
        monkeypatch.setattr(i18n, "LOCALE_DIR", Path(chosen))
    elif not all((i18n.LOCALE_DIR / lang).is_dir() for lang in MARKS):
        monkeypatch.setattr(i18n, "LOCALE_DIR", stand_in_locale(tmp_path / "locale"))
    else:
        return {"fr": None, "de": None}
    monkeypatch.setattr(i18n, "_catalogues", {})
    real = all((Path(i18n.LOCALE_DIR) / lang / "all.po").exists() is False for lang in MARKS)
    return {lang: None if real else left for lang, (left, _) in MARKS.items()}
