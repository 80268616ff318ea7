"""The French catalogue and narration scripts against the English reference.

Every English area has a French ``.po`` (gettext, read by Babel) holding exactly the English keys,
each with the English placeholders (per plural form) and French plural rules; every English
narration script has a French twin with the same steps (line ids, slots, pauses, marks, waits),
the same placeholders per line, and slotted lines that fit their slots in espeak-ng's French voice
at every pace. The English side is read as it stands (JSON today, ``.po`` once converted).
"""
from __future__ import annotations

import dataclasses
import gettext
import json
import shutil
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.core.narration import Say, load_script
from companion.core.speakers import MAX_PACE, MIN_PACE, CaptionSpeaker, EspeakSpeaker

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "companion" / "locale"
FR_PLURALS = "nplurals=2; plural=(n > 1);"


def _read_po(path: Path) -> dict[str, str | list[str]]:
    with open(path, "rb") as f:
        catalog = read_po(f, abort_invalid=True)
    out: dict[str, str | list[str]] = {}
    for m in catalog:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
        out[key] = list(m.string) if isinstance(m.id, (tuple, list)) else m.string
    return out


def english_areas() -> dict[str, dict[str, str | list[str]]]:
    areas: dict[str, dict] = {}
    for path in sorted((LOCALE / "en").iterdir()):
        if path.suffix == ".po":
            areas[path.stem] = _read_po(path)
        elif path.suffix == ".json" and not (path.with_suffix(".po")).exists():
            areas[path.stem] = {k: v for k, v in json.loads(path.read_text(encoding="utf-8")).items()
                                if not k.startswith("_")}  # "_plural_forms": the header, not a key
    return areas


def fields(text: str) -> list[str]:
    return sorted({f for _, f, _, _ in string.Formatter().parse(text) if f is not None})


def forms(value) -> list[str]:
    return value if isinstance(value, list) else [value]


EN = english_areas()


def test_english_areas_are_found():
    assert {"app", "knives23", "masks", "sevenknights", "cicero", "phone"} <= set(EN)


@pytest.mark.parametrize("area", sorted(EN))
def test_each_french_area_parses_with_babel_and_declares_french_plurals(area):
    path = LOCALE / "fr" / f"{area}.po"
    assert path.exists(), f"no French catalogue {path.relative_to(ROOT)}"
    with open(path, "rb") as f:
        catalog = read_po(f, abort_invalid=True)
    assert str(catalog.locale) == "fr"
    assert catalog.plural_forms == FR_PLURALS
    assert not catalog.fuzzy and not [m.id for m in catalog if m.id and m.fuzzy]


def test_no_french_area_without_an_english_one():
    assert sorted(p.stem for p in (LOCALE / "fr").glob("*.po") if p.stem not in EN) == []


@pytest.mark.parametrize("area", sorted(EN))
def test_each_french_area_has_every_english_key_and_no_other(area):
    fr = _read_po(LOCALE / "fr" / f"{area}.po")
    assert sorted(set(EN[area]) - set(fr)) == [], "English keys missing in French"
    assert sorted(set(fr) - set(EN[area])) == [], "French keys English does not have"


@pytest.mark.parametrize("area", sorted(EN))
def test_every_french_text_is_there_with_the_english_placeholders(area):
    fr = _read_po(LOCALE / "fr" / f"{area}.po")
    wrong = []
    for key, en in EN[area].items():
        if key not in fr:
            continue
        if isinstance(en, list) != isinstance(fr[key], list):
            wrong.append(f"{key}: plural in one language only")
            continue
        for f in forms(fr[key]):
            if not f.strip():
                wrong.append(f"{key}: empty")
            elif fields(f) != fields(forms(en)[-1]):
                wrong.append(f"{key}: {fields(f)} != {fields(forms(en)[-1])}")
    assert wrong == []


def test_french_plural_rule_makes_0_and_1_singular():
    plural = gettext.c2py(FR_PLURALS.split("plural=")[1].rstrip(";"))
    assert [plural(n) for n in (0, 1, 2, 7)] == [0, 0, 1, 1]
    plurals = {k: v for area in EN for k, v in _read_po(LOCALE / "fr" / f"{area}.po").items()
               if isinstance(v, list)}
    assert plurals, "no plural entries in the French catalogue"
    for key, (one, many) in plurals.items():
        assert one != many, key
    one, many = plurals["masks.say.discussion_start"]
    assert "1 minute " in one.format(n=1) and "7 minutes " in many.format(n=7)


# --- narration scripts ---------------------------------------------------------------------

def english_scripts() -> list[Path]:
    games = ROOT / "companion" / "games"
    found = {p.parent.parent.name + "/" + p.name: p for p in games.glob("*/scripts/*.txt")}
    found.update({p.parents[2].name + "/" + p.name: p for p in games.glob("*/scripts/en/*.txt")})
    return sorted(found.values())


def french_twin(english: Path) -> Path:
    scripts = english.parent if english.parent.name == "scripts" else english.parent.parent
    return scripts / "fr" / english.name


def shape(path: Path) -> list:
    """The script's steps with the spoken words reduced to their placeholders."""
    out = []
    for step in load_script(str(path)).steps:
        d = dataclasses.asdict(step)
        d.pop("lineno", None)
        if "text" in d:
            d["text"] = fields(d["text"])
        out.append((type(step).__name__, d))
    return out


ENGLISH_SCRIPTS = english_scripts()


def test_english_scripts_are_found():
    assert len(ENGLISH_SCRIPTS) >= 50


@pytest.mark.parametrize("english", ENGLISH_SCRIPTS, ids=lambda p: f"{p.parents[1].name}/{p.name}")
def test_every_english_script_has_a_french_one_with_the_same_steps(english):
    french = french_twin(english)
    assert french.exists(), f"no French script {french.relative_to(ROOT)}"
    assert shape(french) == shape(english)
    en_words = [s.text for s in load_script(str(english)).steps if isinstance(s, Say)]
    fr_words = [s.text for s in load_script(str(french)).steps if isinstance(s, Say)]
    # translated, not copied (a line made only of placeholders stays as it is)
    assert [e for e, f in zip(en_words, fr_words) if e == f and any(c.isalpha() for c in _words(e))] == []


def _words(text: str) -> str:
    return "".join(lit for lit, _, _, _ in string.Formatter().parse(text))


def test_no_french_script_without_an_english_one():
    twins = {french_twin(p) for p in ENGLISH_SCRIPTS}
    stray = [p for p in (ROOT / "companion" / "games").glob("*/scripts/fr/*.txt") if p not in twins]
    assert stray == []


# Groups the eyes-closed line names: the catalogue's and typed ones up to the length the app accepts.
TYPED_FR = ["Libérateurs avec trois Sang ou plus sur leur carte Citoyen",
            "Joueurs avec 2 Poignards ou plus", "Tous les joueurs assis aux places 1, 2 et 3"]


def contexts(path: Path) -> list[dict]:
    if path.name != "eyes_closed.txt":
        return [{}]
    fr = _read_po(LOCALE / "fr" / "knives23.po")
    groups = [v for k, v in fr.items() if k.startswith("knives23.group.")] + TYPED_FR
    return [{"group": g, "group_key": "g"} for g in groups]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_every_slotted_french_line_fits_its_slot_in_french_at_every_pace(tmp_path):
    espeak = EspeakSpeaker(cache_dir=str(tmp_path), voice="fr")
    speakers = {"espeak-ng fr": espeak, "estimate": CaptionSpeaker()}
    over, checked = [], 0
    for english in ENGLISH_SCRIPTS:
        script = load_script(str(french_twin(english)))
        if not any(isinstance(s, Say) and s.slot for s in script.steps):
            continue
        for ctx in contexts(english):
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
