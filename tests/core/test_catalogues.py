"""The catalogue check: every key the code asks for is in English, every English key is used,
and each translation (fr, de) has exactly English's keys with the same placeholders, its own
plural rule, and narration scripts that match the English ones step for step and fit their
slots in that language's espeak-ng voice (one module, parametrised by language).

Keys are found with Python's own parser (``ast``) rather than Babel's extractor: Babel joins the
two branches of ``tr("a" if x else "b")`` into one bogus msgid and skips every f-string, and
both are common here. A key counts as used when it is a literal ``tr``/``ntr`` argument, any
string constant in the code (keys kept in tables, e.g. a game's ``title``), or matches an
f-string key template such as ``tr(f"knives23.location.{loc}")``.
"""
from __future__ import annotations

import ast
import dataclasses
import gettext
import re
import shutil
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.core import i18n
from companion.core.narration import Say, load_script
from companion.core.speakers import MAX_PACE, MIN_PACE, CaptionSpeaker, EspeakSpeaker
from tests.core.test_i18n import write_po

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "companion" / "locale"
GAMES = ROOT / "companion" / "games"
LANGS = ["fr", "de"]
PLURALS = {"fr": "nplurals=2; plural=(n > 1);", "de": "nplurals=2; plural=(n != 1);"}
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


@pytest.mark.parametrize("lang", LANGS)
def test_each_translation_has_exactly_englishs_keys_and_placeholders(lang):
    assert (i18n.LOCALE_DIR / lang).is_dir(), f"no {lang} catalogue"
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


# --- each language's files, area by area ---------------------------------------------------

def _po(path: Path):
    with open(path, "rb") as f:
        return read_po(f, abort_invalid=True)


def _entries(catalog) -> dict[str, tuple[tuple[str, ...], bool]]:
    """key -> (its forms, fuzzy)."""
    return {(m.id[0] if m.pluralizable else m.id): ((tuple(m.string) if m.pluralizable else (m.string,)), m.fuzzy)
            for m in catalog if m.id}


ENGLISH = {p.stem: {k: f for k, (f, _z) in _entries(_po(p)).items()} for p in sorted((LOCALE / "en").glob("*.po"))}
AREAS = [(lang, area) for lang in LANGS for area in sorted(ENGLISH)]


def test_english_areas_are_found():
    assert {"app", "knives23", "masks", "sevenknights", "cicero", "phone"} <= set(ENGLISH)


@pytest.mark.parametrize("lang, area", AREAS)
def test_each_area_parses_with_babel_and_declares_the_languages_plurals(lang, area):
    path = LOCALE / lang / f"{area}.po"
    assert path.exists(), f"no {lang} catalogue {path.relative_to(ROOT)}"
    catalog = _po(path)
    assert str(catalog.locale) == lang
    assert catalog.plural_forms == PLURALS[lang]
    assert catalog.mime_headers and dict(catalog.mime_headers)["Language"] == lang
    # a fuzzy header makes gettext tools skip the catalogue; a fuzzy entry is not a translation
    assert not catalog.fuzzy and not [m.id for m in catalog if m.id and m.fuzzy]


@pytest.mark.parametrize("lang", LANGS)
def test_no_area_without_an_english_one(lang):
    assert sorted(p.stem for p in (LOCALE / lang).glob("*.po") if p.stem not in ENGLISH) == []


@pytest.mark.parametrize("lang, area", AREAS)
def test_each_area_has_every_english_key_no_other_and_the_same_placeholders(lang, area):
    theirs = _entries(_po(LOCALE / lang / f"{area}.po"))
    assert sorted(set(ENGLISH[area]) - set(theirs)) == [], "English keys missing"
    assert sorted(set(theirs) - set(ENGLISH[area])) == [], "keys English does not have"
    wrong = []
    for key, (forms, _fuzzy) in theirs.items():
        en = ENGLISH[area][key]
        if (len(en) > 1) != (len(forms) > 1):
            wrong.append(f"{key}: plural in one language only")
            continue
        if len(forms) > 1 and len(forms) != 2:
            wrong.append(f"{key}: {len(forms)} plural forms, not 2")
        for form in forms:
            if not form.strip():
                wrong.append(f"{key}: empty")
            elif (not placeholders(form) <= placeholders(en)) if len(forms) > 1 else placeholders(form) != placeholders(en):
                # a plural form may leave the count out ("une minute"); all of them together
                # hold English's values (translation_problems)
                wrong.append(f"{key}: {sorted(placeholders(form))} != {sorted(placeholders(en))}")
            else:
                form.format(**{name: "x" for name in placeholders(en)})  # a stray brace fails here
    assert wrong == []


def test_french_plural_rule_makes_0_and_1_singular():
    plural = gettext.c2py(PLURALS["fr"].split("plural=")[1].rstrip(";"))
    assert [plural(n) for n in (0, 1, 2, 7)] == [0, 0, 1, 1]
    plurals = {k: f for area in ENGLISH for k, (f, _z) in _entries(_po(LOCALE / "fr" / f"{area}.po")).items()
               if len(f) > 1}
    assert plurals, "no plural entries in the French catalogue"
    for key, (one, many) in plurals.items():
        assert one != many, key
    one, many = plurals["masks.say.discussion_start"]
    assert "1 minute " in one.format(n=1) and "7 minutes " in many.format(n=7)


# Entries whose German text is rightly the English one: names and numbers (bare placeholders and
# punctuation pass by themselves).
SAME_IN_GERMAN = {
    "game.knives23", "game.masks", "masks.title", "game.sevenknights",
    "game.cicero", "colour.orange", "storage.ok", "settings.voice.espeak", "settings.pace", "devices.boxes_ports",
    "devices.boxes_port_problem", "phone.answer.refused", "phone.card_serial",
    "knives23.title", "knives23.location.forum", "knives23.ui.extra", "knives23.ui.forum",
    "knives23.ui.player_at", "knives23.ui.opportunists", "cicero.title", "cicero.ui.less_time",
    "cicero.ui.more_time", "cicero.ui.primus_is", "cicero.ui.secundus_is",
    "cicero.ui.oratores_votes", "cicero.ui.col_primus", "cicero.ui.col_secundus",
    "cicero.ui.prestige_track", "cicero.ui.use_prestige", "cicero.tribute.prestige",
    "cicero.ui.pay_prestige", "sevenknights.title", "sevenknights.ui.count",
    "sevenknights.ui.toriko", "sevenknights.ui.col_round", "devices.none.tablet",
    "knives23.allegiance.opportunist", "masks.result.royalist",
    "knives23.allegiance.loyalist", "masks.hidden.pause",
    "schema.kind.bool", "schema.kind.null",  # JSON's own words
}


def test_nothing_left_in_english_in_german():
    same = sorted(key for area, entries in ENGLISH.items()
                  for key, (forms, _f) in _entries(_po(LOCALE / "de" / f"{area}.po")).items()
                  if key in entries and forms == entries[key] and key not in SAME_IN_GERMAN
                  and any(c.isalpha() for c in re.sub(r"\{[^}]*\}", "", "".join(forms))))
    assert not same, f"still English: {same}"


# --- narration scripts ---------------------------------------------------------------------

def english_scripts() -> list[Path]:
    found = {p.parent.parent.name + "/" + p.name: p for p in GAMES.glob("*/scripts/*.txt")}
    found.update({p.parents[2].name + "/" + p.name: p for p in GAMES.glob("*/scripts/en/*.txt")})
    return sorted(found.values())


def twin(english: Path, lang: str) -> Path:
    scripts = english.parent if english.parent.name == "scripts" else english.parent.parent
    return scripts / lang / english.name


def shape(path: Path) -> list:
    """The script's steps with the spoken words reduced to their placeholders."""
    out = []
    for step in load_script(str(path)).steps:
        d = dataclasses.asdict(step)
        d.pop("lineno", None)
        if "text" in d:
            d["text"] = sorted(placeholders(d["text"]))
        out.append((type(step).__name__, d))
    return out


def _words(text: str) -> str:
    return "".join(lit for lit, _, _, _ in string.Formatter().parse(text))


ENGLISH_SCRIPTS = english_scripts()
SCRIPTS = [(lang, p) for lang in LANGS for p in ENGLISH_SCRIPTS]


def test_english_scripts_are_found():
    assert len(ENGLISH_SCRIPTS) >= 50


@pytest.mark.parametrize("lang, english", SCRIPTS, ids=lambda x: x if isinstance(x, str) else f"{x.parents[1].name}/{x.name}")
def test_every_english_script_has_a_twin_with_the_same_steps_translated(lang, english):
    theirs = twin(english, lang)
    assert theirs.exists(), f"no {lang} script {theirs.relative_to(ROOT)}"
    assert shape(theirs) == shape(english)
    en_words = [s.text for s in load_script(str(english)).steps if isinstance(s, Say)]
    their_words = [s.text for s in load_script(str(theirs)).steps if isinstance(s, Say)]
    # translated, not copied (a line made only of placeholders stays as it is)
    assert [e for e, f in zip(en_words, their_words) if e == f and any(c.isalpha() for c in _words(e))] == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_script_without_an_english_one(lang):
    twins = {twin(p, lang) for p in ENGLISH_SCRIPTS}
    assert [p for p in GAMES.glob(f"*/scripts/{lang}/*.txt") if p not in twins] == []


# Groups the eyes-closed line names: the catalogue's and typed ones up to the length the app accepts.
TYPED = {"fr": ["Libérateurs avec trois Sang ou plus sur leur carte Citoyen",
                "Joueurs avec 2 Poignards ou plus", "Tous les joueurs assis aux places 1, 2 et 3"],
         "de": []}


def contexts(path: Path, lang: str) -> list[dict]:
    if path.name != "eyes_closed.txt":
        return [{}]
    groups = [f[0] for k, (f, _z) in _entries(_po(LOCALE / lang / "knives23.po")).items()
              if k.startswith("knives23.group.")] + TYPED[lang]
    return [{"group": g, "group_key": "g"} for g in groups]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize("lang", LANGS)
def test_every_slotted_line_fits_its_slot_in_the_languages_voice_at_every_pace(lang, tmp_path):
    speakers = {f"espeak-ng {lang}": EspeakSpeaker(cache_dir=str(tmp_path), voice=lang), "estimate": CaptionSpeaker()}
    over, checked = [], 0
    for english in ENGLISH_SCRIPTS:
        script = load_script(str(twin(english, lang)))
        if not any(isinstance(s, Say) and s.slot for s in script.steps):
            continue
        for ctx in contexts(english, lang):
            for s in script.resolve(ctx):
                if not (isinstance(s, Say) and s.slot):
                    continue
                for name, speaker in speakers.items():
                    for pace in (MIN_PACE, 1.0, MAX_PACE):
                        length = speaker.prepare(s.line_id, s.text, pace).duration_s
                        checked += 1
                        if length > s.slot / pace + 1e-6:
                            over.append(f"{english.name} {s.line_id} {name} pace {pace}: "
                                        f"{length:.2f} s > {s.slot / pace:.2f} s")
    assert checked > 100
    assert over == []
