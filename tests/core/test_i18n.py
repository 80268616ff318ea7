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


def test_a_language_may_leave_keys_out_and_english_fills_in(tmp_path, monkeypatch):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "a.json").write_text(json.dumps({"x.hello": "Hello {name}", "x.bye": "Bye"}))
    (tmp_path / "la").mkdir()
    (tmp_path / "la" / "a.json").write_text(json.dumps({"x.hello": "Salve {name}"}))
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(i18n, "_catalogues", {
        "en": i18n.load_catalogue("en", tmp_path), "la": i18n.load_catalogue("la", tmp_path)})
    monkeypatch.setattr(i18n, "_language", "la")
    assert i18n.tr("x.hello", name="Brutus") == "Salve Brutus"
    assert i18n.tr("x.bye") == "Bye"


def test_broken_catalogues_are_named_in_one_line(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "a.json").write_text('{"a.b": "x",}')
    with pytest.raises(BadInput, match=r"a\.json is not valid JSON"):
        i18n.load_catalogue("en", tmp_path)
    (tmp_path / "en" / "a.json").write_text('{"a.b": "x"}')
    (tmp_path / "en" / "b.json").write_text('{"a.b": "y"}')
    with pytest.raises(BadInput, match="stands in both a.json and b.json"):
        i18n.load_catalogue("en", tmp_path)
    with pytest.raises(BadInput, match="no catalogue for language 'xx'"):
        i18n.load_catalogue("xx", tmp_path)
