"""The translation catalogue: every user-facing string goes through ``tr``.

A language's catalogue is the folder ``companion/locale/<lang>/``: JSON files (one per area —
``app.json``, ``knives23.json`` …) mapping a key to text with ``{placeholders}``; a key may stand
in only one file. English is the reference; another language may leave keys out (English is
used for those). A group adds its language by adding one file — no code changes.

Plurals: a key whose value is a list holds one text per plural form, and the language's
``"_plural_forms"`` entry gives gettext's rule for choosing (English:
``"nplurals=2; plural=(n != 1);"``, the line a ``.po`` file's header carries). ``ntr(key, n)``
picks the form with the standard library's gettext, so each language brings its own rules.
"""
from __future__ import annotations

import gettext
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from .events import BadInput

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
_catalogues: dict[str, dict] = {}
PLURAL_FORMS_KEY = "_plural_forms"
_language = "en"


def load_catalogue(lang: str, directory: Path = LOCALE_DIR) -> dict[str, str]:
    folder = directory / lang
    if not folder.is_dir():
        raise BadInput(f"no catalogue for language {lang!r} ({folder} is missing)")
    merged: dict[str, str] = {}
    where: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise BadInput(f"catalogue {path} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not all(isinstance(k, str) and _is_text(v) for k, v in data.items()):
            raise BadInput(f"catalogue {path} must map text keys to text (or to a list of plural forms)")
        if PLURAL_FORMS_KEY in data:
            _plural_rule(data[PLURAL_FORMS_KEY], str(path))
        for key in data:
            if key in where:
                raise BadInput(f"catalogue key {key!r} stands in both {where[key]} and {path.name}")
            where[key] = path.name
        merged.update(data)
    return merged


def _is_text(value) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and bool(value)
                                      and all(isinstance(v, str) for v in value))


@lru_cache(maxsize=None)
def _plural_rule(header: str, where: str = "catalogue"):
    """``(nplurals, plural(n))`` from a gettext Plural-Forms line, compiled by gettext."""
    m = re.fullmatch(r"\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*(.+?);?\s*", str(header))
    if not m:
        raise BadInput(f"{where}: {PLURAL_FORMS_KEY} must read like 'nplurals=2; plural=(n != 1);'")
    try:
        return int(m[1]), gettext.c2py(m[2])
    except (ValueError, SyntaxError) as exc:
        raise BadInput(f"{where}: {PLURAL_FORMS_KEY} has a bad plural rule ({exc})") from None


def languages(directory: Path = LOCALE_DIR) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.is_dir())


def set_language(lang: str) -> None:
    global _language
    if lang not in _catalogues:
        _catalogues[lang] = load_catalogue(lang)
    _language = lang


def language() -> str:
    return _language


def has(key: str) -> bool:
    return key in _cat("en")


def tr(key: str, **values: Any) -> str:
    """The text for ``key`` in the current language, with placeholders filled."""
    text = _cat(_language).get(key)
    if text is None:
        text = _cat("en").get(key)
    if text is None:
        raise KeyError(f"no catalogue entry {key!r}")
    if isinstance(text, list):
        raise KeyError(f"catalogue entry {key!r} has plural forms: use ntr({key!r}, n)")
    return text.format(**values) if values else text


def ntr(key: str, n: float, **values: Any) -> str:
    """The plural form of ``key`` for the count ``n`` (also given to the text as ``{n}``)."""
    lang = _language if isinstance(_cat(_language).get(key), list) else "en"
    forms = _cat(lang).get(key)
    if not isinstance(forms, list):
        raise KeyError(f"no plural catalogue entry {key!r}")
    nplurals, plural = _plural_rule(_cat(lang).get(PLURAL_FORMS_KEY, "nplurals=2; plural=(n != 1);"), lang)
    # gettext's rules are for whole numbers; a fraction ("1.5 minutes") takes the last form
    index = plural(int(n)) if float(n) == int(n) else nplurals - 1
    shown = int(n) if float(n) == int(n) else n
    return forms[min(index, len(forms) - 1)].format(n=shown, **values)


def _cat(lang: str) -> dict[str, str]:
    if lang not in _catalogues:
        _catalogues[lang] = load_catalogue(lang)
    return _catalogues[lang]
