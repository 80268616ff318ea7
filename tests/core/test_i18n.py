"""Every user-facing string goes through the one catalogue: each key the code asks for exists."""
import json
import re
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.events import BadInput

ROOT = Path(__file__).resolve().parents[2]
# A whole key in quotes, followed by ")" or ",": keys built at run time are not literal keys.
LITERAL_KEY = re.compile(r"""\btr\(\s*['"]([a-z0-9_]+(?:\.[a-z0-9_]+)+)['"]\s*[,)]""")


def test_every_literal_key_in_the_code_is_in_the_english_catalogue():
    known = i18n.load_catalogue("en")
    missing = []
    for path in list((ROOT / "companion").rglob("*.py")) + list((ROOT / "companion").rglob("*.kv")):
        for key in LITERAL_KEY.findall(path.read_text(encoding="utf-8")):
            if key not in known:
                missing.append(f"{path.relative_to(ROOT)}: {key}")
    assert missing == []


def write_po(folder: Path, name: str, entries: dict, plural_forms="nplurals=2; plural=(n != 1);"):
    """A PO file in the agreed format (msgid = key), written by hand as a translator would."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"',
             f'"Plural-Forms: {plural_forms}\\n"', ""]
    for key, text in entries.items():
        if isinstance(text, list):
            lines += [f'msgid "{key}"', f'msgid_plural "{key}"']
            lines += [f'msgstr[{i}] "{t}"' for i, t in enumerate(text)]
        else:
            lines += [f'msgid "{key}"', f'msgstr "{text}"']
        lines.append("")
    (folder / name).write_text("\n".join(lines), encoding="utf-8")


def test_a_language_may_leave_keys_out_and_english_fills_in(tmp_path, monkeypatch):
    write_po(tmp_path / "en", "a.po", {"x.hello": "Hello {name}", "x.bye": "Bye", "x.hi": "Hi"})
    write_po(tmp_path / "la", "a.po", {"x.hello": "Salve {name}", "x.hi": ""})
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(i18n, "_catalogues", {
        "en": i18n.load_catalogue("en", tmp_path), "la": i18n.load_catalogue("la", tmp_path)})
    monkeypatch.setattr(i18n, "_language", "la")
    assert i18n.tr("x.hello", name="Brutus") == "Salve Brutus"
    assert i18n.tr("x.bye") == "Bye"
    assert i18n.tr("x.hi") == "Hi"  # an empty msgstr is untranslated


def test_broken_catalogues_are_named_in_one_line(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "a.po").write_text('msgid "a.b"\nnot a PO line\n')
    with pytest.raises(BadInput, match=r"a\.po is not a readable PO file"):
        i18n.load_catalogue("en", tmp_path)
    write_po(tmp_path / "en", "a.po", {"a.b": "x"})
    write_po(tmp_path / "en", "b.po", {"a.b": "y"})
    with pytest.raises(BadInput, match="stands in both a.po and b.po"):
        i18n.load_catalogue("en", tmp_path)
    with pytest.raises(BadInput, match="no catalogue for language 'xx'"):
        i18n.load_catalogue("xx", tmp_path)


def test_a_language_being_read_by_one_thread_is_waited_for_by_another(monkeypatch):
    # Found through a flaky test: a phone's request thread began reading the French catalogue,
    # the tablet's main thread asked for French meanwhile, got an empty catalogue and said the
    # vote's question in English on a French phone.
    import threading
    monkeypatch.setattr(i18n, "_catalogues", {"en": i18n._cat("en")})
    real, started, go = i18n.load_catalogue, threading.Event(), threading.Event()

    def slow(lang, directory=None):
        started.set()
        assert go.wait(30)
        return real(lang, directory)
    monkeypatch.setattr(i18n, "load_catalogue", slow)
    said = {}
    first = threading.Thread(target=lambda: said.setdefault("first", i18n._cat("fr").get("vote.option.exile")))
    first.start()
    assert started.wait(30)
    second = threading.Thread(target=lambda: said.setdefault(
        "second", i18n.text_of(i18n.keyed("vote.option.exile"), "fr")))
    second.start()
    second.join(0.5)   # it waits for the first thread's reading (before: answered in English)
    go.set()
    first.join(30)
    second.join(30)
    assert said == {"first": "Exil", "second": "Exil"}


def test_a_catalogue_read_once_is_read_back_from_the_cache_until_a_file_changes(tmp_path, monkeypatch):
    """Babel's PO parser took ~50 ms a language on the main thread (issue 35): the merged
    catalogue is kept under the files' digest and read back without parsing; a file rewritten
    within the same clock tick (same size, maybe the same mtime) is parsed again."""
    monkeypatch.setenv("TABLE_COMPANION_CACHE", str(tmp_path / "cache"))
    write_po(tmp_path / "la", "a.po", {"x.hello": "Salve {name}", "x.n": ["unus", "multi"]},
             plural_forms="nplurals=2; plural=(n > 1);")
    first = i18n.load_catalogue("la", tmp_path)
    parsed = []
    real = i18n._parse_catalogue
    monkeypatch.setattr(i18n, "_parse_catalogue", lambda paths: parsed.append(paths) or real(paths))
    again = i18n.load_catalogue("la", tmp_path)
    assert parsed == [] and again == first and again.plural_forms == "nplurals=2; plural=(n > 1);"
    assert again["x.n"] == ("unus", "multi")                   # plural forms come back as a tuple
    write_po(tmp_path / "la", "a.po", {"x.hello": "Salvi {name}", "x.n": ["unus", "multi"]},
             plural_forms="nplurals=2; plural=(n > 1);")      # same size
    assert i18n.load_catalogue("la", tmp_path)["x.hello"] == "Salvi {name}" and len(parsed) == 1
    for f in (tmp_path / "cache" / "catalogues").iterdir():   # a damaged copy: parsed again
        f.write_text("{not json", encoding="utf-8")
    assert i18n.load_catalogue("la", tmp_path)["x.hello"] == "Salvi {name}" and len(parsed) == 2
    write_po(tmp_path / "la", "b.po", {"x.hello": "twice"})   # errors still said: never cached
    with pytest.raises(BadInput, match="stands in both a.po and b.po"):
        i18n.load_catalogue("la", tmp_path)
