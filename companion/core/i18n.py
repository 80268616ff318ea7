"""The translation catalogue: every user-facing string goes through ``tr``.

A language's catalogue is the folder ``companion/locale/<lang>/``: gettext PO files (one per
area — ``app.po``, ``knives23.po`` …) read with Babel. The msgid is the catalogue KEY
(``picker.title``), the msgstr its text with ``{placeholders}``; a key may stand in only one
file (the format: companion/locale/README.txt).
English is the reference; another language may leave keys out or untranslated (English is
used for those). A group adds its language by adding a folder — no code changes.

Plurals: a key with ``msgid_plural`` holds one text per plural form, and the file header's
``Plural-Forms`` line gives gettext's rule for choosing (English ``nplurals=2; plural=(n != 1);``).
``ntr(key, n)`` picks the form with the standard library's gettext, so each language brings
its own rule.
"""
from __future__ import annotations

import errno
import gettext
import hashlib
import json
import os
import tempfile
import threading
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from babel.messages.pofile import PoFileError, read_po

from .events import BadInput, with_rule

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
_catalogues: dict[str, "Catalogue"] = {}
_language = "en"
# Each language by its own name, for the settings; a language not listed shows its code.
NATIVE_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch"}


class Catalogue(dict[str, "str | tuple[str, ...]"]):
    """key -> text (a ``str``, or a ``tuple`` of plural forms); ``plural_forms`` is the header line."""

    plural_forms = "nplurals=2; plural=(n != 1);"


def load_catalogue(lang: str, directory: Path | None = None) -> Catalogue:
    """The language's catalogue. Babel's PO parser takes ~50 ms for a language (20 files), which
    blocked the UI thread for three frames the first time a narration line or a screen asked for
    words; so the merged result is kept in the cache folder under the files' own digest and read
    back as JSON (~2 ms) until any file of the folder changes."""
    folder = (directory or LOCALE_DIR) / lang
    if not folder.is_dir():
        raise BadInput(keyed("i18n.no_catalogue", lang=repr(lang), folder=str(folder)))
    paths = sorted(folder.glob("*.po"))
    digest = _digest(paths)
    cached = _cached(folder, digest)
    if cached is not None:
        return cached
    merged = _parse_catalogue(paths)
    _keep(folder, digest, merged)
    return merged


def _digest(paths: list[Path]) -> str | None:
    """The folder's PO files by name and content (not their times: a file rewritten within one
    clock tick keeps its mtime); None when one cannot be read (the parser then says why)."""
    h = hashlib.blake2b(digest_size=16)
    try:
        for path in paths:
            h.update(path.name.encode("utf-8", "surrogateescape") + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return h.hexdigest()


def _cache_file(folder: Path) -> Path:
    from .audio import default_cache_dir  # audio imports this module
    name = hashlib.blake2b(str(folder.resolve()).encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
    return Path(default_cache_dir()) / "catalogues" / f"{folder.name}-{name}.json"


def _cached(folder: Path, digest: str | None) -> Catalogue | None:
    if digest is None:
        return None
    try:
        with _cache_file(folder).open(encoding="utf-8") as f:
            data = json.load(f)
        if data.get("digest") != digest:
            return None
        out = Catalogue((k, tuple(v) if isinstance(v, list) else v) for k, v in data["entries"].items())
        out.plural_forms = data["plural_forms"]
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # no copy yet, or a damaged one: the PO files are read


def _keep(folder: Path, digest: str | None, merged: Catalogue) -> None:
    if digest is None:
        return
    try:
        path = _cache_file(folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"digest": digest, "plural_forms": merged.plural_forms, "entries": merged}, f,
                      ensure_ascii=False)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass  # a cache folder that cannot be written: the files are parsed again next time


def _parse_catalogue(paths: list[Path]) -> Catalogue:
    merged = Catalogue()
    where: dict[str, str] = {}
    for path in paths:
        try:
            with path.open("rb") as f:
                catalog = read_po(f, abort_invalid=True)
        except (PoFileError, ValueError, UnicodeDecodeError) as exc:
            raise BadInput(keyed("i18n.unreadable_po", path=str(path), problem=str(exc))) from None
        header = catalog.mime_headers and dict(catalog.mime_headers).get("Plural-Forms")
        if header:
            _plural_rule(header, str(path))
            merged.plural_forms = header
        for message in catalog:
            if not message.id or message.fuzzy:
                continue  # the header; a fuzzy guess is not a translation (gettext's rule)
            key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
            if key in where:
                raise BadInput(keyed("i18n.key_twice", name=repr(key), first=where[key], second=path.name))
            where[key] = path.name
            text = tuple(message.string) if isinstance(message.string, (tuple, list)) else str(message.string or "")
            if (all(text) if isinstance(text, tuple) else text):  # untranslated: English fills in
                merged[key] = text
    return merged


@lru_cache(maxsize=None)
def _plural_rule(header: str, where: str = "catalogue") -> tuple[int, Callable[[int], int]]:
    """``(nplurals, plural(n))`` from a gettext Plural-Forms line, compiled by gettext."""
    parts = dict(p.strip().split("=", 1) for p in str(header).split(";") if "=" in p)
    try:
        return int(parts["nplurals"]), gettext.c2py(parts["plural"].strip())
    except (KeyError, ValueError, SyntaxError) as exc:
        raise BadInput(keyed("i18n.bad_plural_forms", where=where, problem=repr(exc))) from None


def languages(directory: Path | None = None) -> list[str]:
    return sorted(p.name for p in (directory or LOCALE_DIR).iterdir() if p.is_dir() and any(p.glob("*.po")))


def native_name(lang: str) -> str:
    return NATIVE_NAMES.get(lang, lang)


def set_language(lang: str) -> None:
    global _language
    _cat(lang)
    _language = lang


def language() -> str:
    return _language


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Words made inside are in ``lang`` (the journal's English log lines), then as before."""
    global _language
    _cat(lang)   # a missing catalogue raises before anything changes
    before, _language = _language, lang
    try:
        yield
    finally:
        _language = before


def has(key: str) -> bool:
    return key in _cat("en")


def tr(key: str, **values: Any) -> str:
    """The text for ``key`` in the current language, with placeholders filled."""
    return _tr(_language, key, values)


def _tr(lang: str, key: str, values: dict) -> str:
    text = _cat(lang).get(key)
    if text is None:
        text = _cat("en").get(key)
    if text is None:
        raise KeyError(f"no catalogue entry {key!r}")
    if isinstance(text, tuple):
        raise KeyError(f"catalogue entry {key!r} has plural forms: use ntr({key!r}, n)")
    return text.format(**values) if values else text


def ntr(key: str, n: float, **values: Any) -> str:
    """The plural form of ``key`` for the count ``n`` (also given to the text as ``{n}``)."""
    return _ntr(_language, key, n, values)


def _ntr(lang: str, key: str, n: float, values: dict) -> str:
    lang = lang if isinstance(_cat(lang).get(key), tuple) else "en"
    forms = _cat(lang).get(key)
    if not isinstance(forms, tuple):
        raise KeyError(f"no plural catalogue entry {key!r}")
    nplurals, plural = _plural_rule(_cat(lang).plural_forms, lang)
    # gettext's rules are for whole numbers; a fraction ("1.5 minutes") takes the last form
    index = plural(int(n)) if float(n) == int(n) else nplurals - 1
    shown = int(n) if float(n) == int(n) else n
    return forms[min(index, len(forms) - 1)].format(n=shown, **values)


def keyed(key: str, **values: Any) -> dict:
    """A sentence as data, for events and views: ``{"key": …, "values": {…}}`` (JSON as is);
    ``text_of`` says it in whatever language is current when it is shown."""
    return {"key": key, "values": values}


def message_of(exc: BaseException) -> Any:
    """An error's message as data: ``keyed`` when the error carries a key (so a wrapper that
    quotes it still says it in the reader's language), else its plain one-line text."""
    key = getattr(exc, "key", None)
    if isinstance(key, str):
        return keyed(key, **(getattr(exc, "values", None) or {}))
    # an OSError's args are (errno, strerror): its str() is the line
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)


# The system's reasons a table can meet with its data folder, in the table's words (the
# English is the C library's own, so logs read as before).
_OS_REASONS = {errno.ENOENT: "os.no_such_file", errno.ENOTDIR: "os.not_a_folder", errno.EACCES: "os.no_permission",
               errno.EPERM: "os.not_permitted", errno.EROFS: "os.read_only", errno.ENOSPC: "os.no_space"}


def reason_of(exc: OSError) -> Any:
    """Why a file operation failed, as a message: ``keyed`` for the reasons a table meets
    (a folder missing, read-only, full), else the system's own line."""
    key = _OS_REASONS.get(exc.errno or 0)
    return keyed(key) if key else (exc.strerror or str(exc))


def is_text(value: str) -> bool:
    """False for a str holding half a UTF-16 pair (a file name in an unknown encoding, decoded
    with surrogateescape; JSON's "\\udcff"): Kivy's labels and log file, OpenCV and UTF-8 files
    all fail on one, so it is refused where it comes in."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(value: str) -> str:
    """``value`` with any half UTF-16 pair written as an escape (``\\udcff``): what a label
    or a log line can hold."""
    return value if is_text(value) else value.encode("utf-8", "backslashreplace").decode("utf-8")


def joined(parts: Any, sep: str = " ") -> dict:
    """Messages said one after the other (``sep`` between them): still data, translated when
    shown. Empty parts are left out."""
    return {"join": [p for p in parts if p], "sep": sep}


def is_message(value: Any) -> bool:
    """Is ``value`` a message as data (``keyed`` or ``joined``), not a plain dict of a view?"""
    return isinstance(value, dict) and (set(value) == {"key", "values"} or set(value) == {"join", "sep"})


def texts(value: Any, lang: str | None = None) -> Any:
    """A view (or any JSON-like value) with every message in it said in the current language
    (or ``lang``): what a screen shows, worked out when it is shown."""
    if is_message(value):
        return text_of(value, lang)
    if isinstance(value, dict):
        return {k: texts(v, lang) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [texts(v, lang) for v in value]
    return value


def text_of(message: Any, lang: str | None = None) -> str:
    """A message in the current language (or ``lang``): a ``keyed`` dict, or a typed error or
    outcome that carries ``key`` and ``values``; a plain string (typed by a person, or recorded
    by an older version) as it is; anything else as its ``str`` (English, for logs and the
    referee). A value that is itself keyed is translated too."""
    lang = lang or _language
    if isinstance(message, dict) and "join" in message:
        return str(message.get("sep", " ")).join(t for t in (text_of(p, lang) for p in message["join"]) if t)
    if isinstance(message, dict) and "key" in message:
        key, values = message["key"], message.get("values") or {}
    else:
        key, values = getattr(message, "key", None), getattr(message, "values", None) or {}
    if not (isinstance(key, str) and has(key)):
        if isinstance(message, dict) and isinstance(key, str):
            return _unlisted(key, values, lang)
        return message if isinstance(message, str) else str(message)
    values = {k: text_of(v, lang) if is_message(v) else v for k, v in values.items()}
    if isinstance(_cat("en").get(key), tuple):
        return _ntr(lang, key, values.pop("n"), values)
    return _tr(lang, key, values)


def _unlisted(key: str, values: dict, lang: str) -> str:
    """A keyed message the English catalogue in use lacks: the catalogue loader's own errors
    while a broken (or a test's stand-in) catalogue is read. Said with the English catalogue as
    shipped; when that cannot be read either, the key and its values still say what went wrong."""
    values = {k: text_of(v, lang) if is_message(v) else v for k, v in values.items()}
    text = _shipped_english().get(key)
    if isinstance(text, str):
        return text.format(**values)
    return f"{key}: " + "; ".join(f"{k}={v}" for k, v in values.items())


_SHIPPED_DIR = LOCALE_DIR
_shipped: list[Catalogue] = []


def _shipped_english() -> Catalogue:
    """The English catalogue as shipped, read once; empty when it cannot be read (or while it
    is being read: its own loader's error asks for it)."""
    with _loading_lock:
        if not _shipped and "shipped" not in _loading:
            _loading.add("shipped")
            try:
                _shipped.append(load_catalogue("en", _SHIPPED_DIR))
            except BadInput:
                return Catalogue()
            finally:
                _loading.discard("shipped")
        return _shipped[0] if _shipped else Catalogue()


def format_when(timestamp: float, with_year: bool = False) -> str:
    """A moment (epoch seconds, local time) as the current language writes it: "01 déc. 21:05"
    in French, "01.12. 21:05"-like in German (Babel's locale data, so month names are the
    language's own)."""
    from datetime import datetime

    from babel.dates import format_datetime
    pattern = "dd MMM yyyy HH:mm" if with_year else "dd MMM HH:mm"
    return format_datetime(datetime.fromtimestamp(timestamp), pattern, locale=_babel_locale(_language))


def _babel_locale(lang: str) -> str:
    from babel import Locale, UnknownLocaleError
    try:
        return str(Locale.parse(lang))
    except (UnknownLocaleError, ValueError):  # a group's own language Babel does not know
        return "en"


def error_text(exc: BaseException) -> str:
    """A refusal as a person at the table reads it: its message in the current language, with
    the rulebook's words it quotes (the rulebooks are English)."""
    rule = getattr(exc, "rule", None)
    text = text_of(exc) if getattr(exc, "key", None) else message_of(exc)
    return with_rule(str(text), rule, _language)


_loading: set[str] = set()
# One catalogue read at a time. Another thread asking for a language being read waits for it
# (a phone's request thread and the tablet's main thread both say words: the one that came
# second got an empty catalogue, hence English, on a French phone); the reading thread itself,
# re-entering for its own error's words, finds the language in _loading.
_loading_lock = threading.RLock()


def _cat(lang: str) -> Catalogue:
    found = _catalogues.get(lang)
    if found is not None:
        return found
    with _loading_lock:
        if lang not in _catalogues:
            if lang in _loading:
                # the loader's own error is keyed and asks for its words while the catalogue is
                # being read: none yet (text_of then uses the shipped English: _unlisted)
                return Catalogue()
            _loading.add(lang)
            try:
                _catalogues[lang] = load_catalogue(lang)
            finally:
                _loading.discard(lang)
        return _catalogues[lang]
