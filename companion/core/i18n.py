"""The translation catalogue: every user-facing string goes through ``tr``.

A language's catalogue is the folder ``companion/locale/<lang>/``: JSON files (one per area —
``app.json``, ``knives23.json`` …) mapping a key to text with ``{placeholders}``; a key may stand
in only one file. English is the reference; another language may leave keys out (English is
used for those). A group adds its language by adding one file — no code changes.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .events import BadInput

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
_catalogues: dict[str, dict[str, str]] = {}
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
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise BadInput(f"catalogue {path} must map text keys to text")
        for key in data:
            if key in where:
                raise BadInput(f"catalogue key {key!r} stands in both {where[key]} and {path.name}")
            where[key] = path.name
        merged.update(data)
    return merged


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
    return text.format(**values) if values else text


def _cat(lang: str) -> dict[str, str]:
    if lang not in _catalogues:
        _catalogues[lang] = load_catalogue(lang)
    return _catalogues[lang]
