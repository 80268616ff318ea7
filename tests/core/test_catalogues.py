"""The catalogue check: every key the code asks for is in English, every English key is used,
and each translation (fr, de) has exactly English's keys with the same placeholders.

Keys are found with Python's own parser (``ast``) rather than Babel's extractor: Babel joins the
two branches of ``tr("a" if x else "b")`` into one bogus msgid and skips every f-string, and
both are common here. A key counts as used when it is a literal ``tr``/``ntr`` argument, any
string constant in the code (keys kept in tables, e.g. a game's ``title``), or matches an
f-string key template such as ``tr(f"knives23.location.{loc}")``.
"""
from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from companion.core import i18n
from tests.core.test_i18n import write_po

ROOT = Path(__file__).resolve().parents[2]
KEY_SHAPE = re.compile(r"[a-z0-9_]+(?:\.[A-Za-z0-9_]+)+")
KV_CALL = re.compile(r"""\bn?tr\(\s*(['"])([^'"]+)\1\s*([,)+])""")
KV_LITERAL = re.compile(r"""(['"])([a-z0-9_]+(?:\.[A-Za-z0-9_]+)+)\1""")


def _is_tr(call: ast.Call) -> bool:
    f = call.func
    return (isinstance(f, ast.Name) and f.id in ("tr", "ntr", "keyed")) or \
        (isinstance(f, ast.Attribute) and f.attr in ("tr", "ntr", "keyed"))


def _keys_of(node: ast.AST, literal: set, templates: set) -> None:
    """The keys a tr() argument can be: a constant, both branches of ``a if c else b``, an
    f-string (as a template), or ``"prefix." + x`` (as a template)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        literal.add(node.value)
    elif isinstance(node, ast.IfExp):
        _keys_of(node.body, literal, templates)
        _keys_of(node.orelse, literal, templates)
    elif isinstance(node, ast.JoinedStr):
        templates.add("".join(v.value if isinstance(v, ast.Constant) else "\0" for v in node.values))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and \
            isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
        templates.add(node.left.value + "\0")


def used_keys(root: Path = ROOT / "companion"):
    """``(called, templates, mentioned)``: literal keys passed to tr/ntr (with where), key
    templates (``\\0`` for the built part), and every key-shaped string constant."""
    called: dict[str, str] = {}
    templates: set[str] = set()
    mentioned: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _is_tr(node) and node.args:
                literal: set[str] = set()
                _keys_of(node.args[0], literal, templates)
                for key in literal:
                    called.setdefault(key, f"{path.relative_to(root)}:{node.lineno}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY_SHAPE.fullmatch(node.value):
                mentioned.add(node.value)
    for path in sorted(root.rglob("*.kv")):
        text = path.read_text(encoding="utf-8")
        for m in KV_CALL.finditer(text):
            if m[3] == "+":
                templates.add(m[2] + "\0")
                continue
            called.setdefault(m[2], f"{path.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}")
        mentioned.update(m[2] for m in KV_LITERAL.finditer(text))
    return called, templates, mentioned


def placeholders(text) -> set[str]:
    forms = text if isinstance(text, tuple) else (text,)
    return {name for form in forms for _, name, _, _ in string.Formatter().parse(form) if name}


def translation_problems(lang: str, directory: Path | None = None) -> list[str]:
    """What is wrong with a translation against English, one line per problem."""
    en = i18n.load_catalogue("en", directory)
    other = i18n.load_catalogue(lang, directory)
    nplurals, _ = i18n._plural_rule(other.plural_forms, lang)
    problems = [f"{lang}: missing {k}" for k in en if k not in other]
    problems += [f"{lang}: unknown {k}" for k in other if k not in en]
    for key, text in other.items():
        if key not in en:
            continue
        if isinstance(en[key], tuple) != isinstance(text, tuple):
            problems.append(f"{lang}: {key} must {'' if isinstance(en[key], tuple) else 'not '}have plural forms")
            continue
        want = placeholders(en[key])
        if isinstance(text, tuple):
            if len(text) != nplurals:
                problems.append(f"{lang}: {key} has {len(text)} plural forms, Plural-Forms says {nplurals}")
            # a form may leave the count out ("une minute"), never add or lose another value
            wrong = [f for f in text if not placeholders(f) <= want] or \
                ([] if want - {"n"} <= placeholders(text) else list(text))
            if wrong:
                problems.append(f"{lang}: {key} placeholders {sorted(placeholders(text))} differ from English {sorted(want)}")
        elif placeholders(text) != want:
            problems.append(f"{lang}: {key} placeholders {sorted(placeholders(text))} differ from English {sorted(want)}")
    return problems


def test_every_key_the_code_or_a_screen_asks_for_is_in_the_english_catalogue():
    known = i18n.load_catalogue("en")
    called, templates, _ = used_keys()
    assert len(called) > 300   # the extractor finds the code's keys, not nothing
    assert sorted(f"{where}: {k}" for k, where in called.items() if k not in known) == []
    for t in templates:   # a key template matches at least one key
        prefix = t.split("\0")[0]
        assert any(k.startswith(prefix) for k in known), f"no catalogue key fits {t!r}"


def test_every_english_key_is_used():
    known = i18n.load_catalogue("en")
    called, templates, mentioned = used_keys()
    fits = [re.compile(".+".join(re.escape(part) for part in t.split("\0")) + r"\Z") for t in templates]
    unused = [k for k in known if k not in called and k not in mentioned and not any(f.match(k) for f in fits)]
    assert unused == []


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_each_translation_has_exactly_englishs_keys_and_placeholders(lang):
    if not (i18n.LOCALE_DIR / lang).is_dir():
        pytest.skip(f"the {lang} catalogue has not landed yet")
    assert translation_problems(lang) == []


def test_the_check_finds_each_kind_of_problem(tmp_path):
    write_po(tmp_path / "en", "a.po", {"x.hi": "Hi {name}", "x.bye": "Bye", "x.n": ["{n} card", "{n} cards"],
                                       "x.m": ["{n} card of {who}", "{n} cards of {who}"]})
    write_po(tmp_path / "fr", "a.po", {"x.hi": "Salut {nom}", "x.extra": "?", "x.n": ["une carte", "{n} cartes"],
                                       "x.m": ["une carte", "{n} cartes"]}, "nplurals=2; plural=(n > 1);")
    assert sorted(translation_problems("fr", tmp_path)) == sorted([
        "fr: missing x.bye", "fr: unknown x.extra",
        "fr: x.hi placeholders ['nom'] differ from English ['name']",
        "fr: x.m placeholders ['n'] differ from English ['n', 'who']"])
    write_po(tmp_path / "de", "a.po", {"x.hi": "Hallo {name}", "x.bye": ["Tschüss", "Tschüss"],
                                       "x.n": ["{n} Karte"], "x.m": ["{n} Karte von {who}", "{n} Karten von {who}"]})
    assert translation_problems("de", tmp_path) == [
        "de: missing x.n", "de: x.bye must not have plural forms"]  # a plural with a form left empty is missing


def test_the_extractor_reads_conditional_keys_templates_and_kv_files(tmp_path):
    (tmp_path / "m.py").write_text(
        'tr("a.one" if x else "a.two")\ni18n.ntr("a.three", 2)\ntr(f"a.loc.{x}")\n'
        'tr("a.say." + y)\nTITLE = "a.title"\n')
    (tmp_path / "s.kv").write_text("Label:\n    text: tr('a.kv')\n    hint: tr('a.kv2.' + x)\n")
    called, templates, mentioned = used_keys(tmp_path)
    assert set(called) == {"a.one", "a.two", "a.three", "a.kv"}
    assert templates == {"a.loc.\0", "a.say.\0", "a.kv2.\0"}
    assert "a.title" in mentioned
