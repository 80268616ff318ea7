"""The German translation against the English reference.

The catalogue: companion/locale/de/<area>.po (gettext, read with Babel; msgid = catalogue key)
must hold every English key of that area, no other key, the same {placeholders} and the same
plural shape. The narration: every English script has a German one in scripts/de/ with the
same steps (line ids, slots, pauses, marks, waits), and every German line that has a slot fits
it when espeak-ng's German voice says it (the slots keep the hidden setup unheard).

English is read from companion/locale/en/<area>.po where the catalogue has moved to gettext,
else from companion/locale/en/<area>.json (a plural entry there is a list of forms).
"""
from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from companion.core.narration import Say, load_script
from companion.core.speakers import EspeakSpeaker

PKG = Path(__file__).resolve().parent.parent / "companion"
EN, DE = PKG / "locale" / "en", PKG / "locale" / "de"

# Entries whose German text is rightly the English one: names, numbers and bare placeholders.
SAME_IN_GERMAN = {
    "game.knives23", "game.masks", "game.sevenknights",
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
}


def fields(texts) -> set[str]:
    return {f for t in texts for _lit, f, _spec, _conv in string.Formatter().parse(t)
            if f is not None}


def english() -> dict[str, dict[str, tuple[str, ...]]]:
    """area -> key -> its forms (one form for a plain entry, two for a plural one)."""
    areas: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted(EN.glob("*.po")):
        with path.open("rb") as fh:
            cat = read_po(fh)
        areas[path.stem] = {
            (m.id[0] if m.pluralizable else m.id):
                (tuple(m.string) if m.pluralizable else (m.string,))
            for m in cat if m.id}
    for path in sorted(EN.glob("*.json")):
        if path.stem in areas:
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        areas[path.stem] = {k: tuple(v) if isinstance(v, list) else (v,)
                            for k, v in data.items() if not k.startswith("_")}
    return areas


def german(area: str):
    with (DE / f"{area}.po").open("rb") as fh:
        return read_po(fh, locale="de")


def german_entries(cat) -> dict[str, tuple[tuple[str, ...], bool]]:
    return {(m.id[0] if m.pluralizable else m.id):
            ((tuple(m.string) if m.pluralizable else (m.string,)), m.fuzzy)
            for m in cat if m.id}


ENGLISH = english()


def test_english_reference_is_found():
    assert {"app", "knives23", "masks", "cicero", "sevenknights", "phone"} <= set(ENGLISH)


@pytest.mark.parametrize("area", sorted(ENGLISH))
def test_catalogue_parses_with_german_header(area):
    assert (DE / f"{area}.po").is_file(), f"no German catalogue for area {area!r}"
    cat = german(area)
    assert str(cat.locale) == "de"
    assert cat.plural_forms == "nplurals=2; plural=(n != 1);"
    assert cat.mime_headers and dict(cat.mime_headers)["Language"] == "de"
    assert not cat.fuzzy, "a fuzzy header makes gettext tools skip the catalogue"


@pytest.mark.parametrize("area", sorted(ENGLISH))
def test_same_keys_as_english(area):
    de = german_entries(german(area))
    missing = sorted(set(ENGLISH[area]) - set(de))
    unknown = sorted(set(de) - set(ENGLISH[area]))
    assert not missing, f"{area}: not translated: {missing}"
    assert not unknown, f"{area}: keys English does not have: {unknown}"


def test_no_german_area_without_english():
    # A German area waiting for another branch's English may hold only obsolete (#~) entries.
    for path in DE.glob("*.po"):
        if path.stem not in ENGLISH:
            assert not german_entries(german(path.stem)), f"{path.name}: no English area"


@pytest.mark.parametrize("area", sorted(ENGLISH))
def test_placeholders_plural_shape_and_no_empty_text(area):
    bad = []
    for key, (forms, fuzzy) in german_entries(german(area)).items():
        en = ENGLISH[area].get(key)
        if en is None:
            continue
        if fuzzy or not all(f.strip() for f in forms):
            bad.append(f"{key}: empty or fuzzy")
        if (len(en) > 1) != (len(forms) > 1):
            bad.append(f"{key}: plural in one language only")
        if len(forms) > 1 and len(forms) != 2:
            bad.append(f"{key}: German has 2 plural forms, not {len(forms)}")
        if fields(forms) != fields(en):
            bad.append(f"{key}: placeholders {sorted(fields(forms))}, English {sorted(fields(en))}")
        for form in forms:
            form.format(**{name: "x" for name in fields(en)})  # a stray brace fails here
    assert not bad, "\n".join(bad)


def test_nothing_left_in_english():
    same = sorted(f"{key}" for area, entries in ENGLISH.items()
                  for key, (forms, _f) in german_entries(german(area)).items()
                  if key in entries and forms == entries[key] and key not in SAME_IN_GERMAN
                  and any(c.isalpha() for c in "".join(forms)))
    assert not same, f"still English: {same}"


def english_scripts() -> list[Path]:
    found = []
    for scripts in sorted(PKG.glob("games/*/scripts")):
        en_dir = scripts / "en"
        found += sorted((en_dir if en_dir.is_dir() else scripts).glob("*.txt"))
    return found


def german_script(path: Path) -> Path:
    scripts = path.parent.parent if path.parent.name == "en" else path.parent
    return scripts / "de" / path.name


def test_every_script_has_a_german_one_and_no_other():
    assert english_scripts(), "no English narration scripts found"
    missing = [str(p) for p in english_scripts() if not german_script(p).is_file()]
    assert not missing, f"no German script for: {missing}"
    english_names = {(p.parent.parent if p.parent.name == "en" else p.parent, p.name)
                     for p in english_scripts()}
    extra = [str(p) for p in PKG.glob("games/*/scripts/de/*.txt")
             if (p.parent.parent, p.name) not in english_names]
    assert not extra, f"German scripts with no English one: {extra}"


def _strip(step):
    if isinstance(step, Say):
        return ("say", step.line_id, step.slot, frozenset(fields([step.text])))
    return (type(step).__name__,) + tuple(v for k, v in vars(step).items() if k != "lineno")


@pytest.mark.parametrize("path", english_scripts(), ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_script_keeps_ids_slots_and_timing(path):
    en, de = load_script(str(path)), load_script(str(german_script(path)))
    assert [_strip(s) for s in de.steps] == [_strip(s) for s in en.steps]
    for e, d in zip(en.steps, de.steps):
        words = "".join(lit for lit, *_ in string.Formatter().parse(e.text)) \
            if isinstance(e, Say) else ""
        if any(c.isalpha() for c in words):
            assert d.text != e.text, f"{path.name} {e.line_id}: still English"


@pytest.mark.slow
def test_german_lines_fit_their_slots(tmp_path):
    # A slotted placeholder gets the longest German words it takes (23 Knives' eyes-closed groups).
    groups = [f[0] for k, (f, _z) in german_entries(german("knives23")).items()
              if k.startswith("knives23.group.")]
    LONGEST = {"group": max(groups, key=len), "group_key": "group"}
    speaker = EspeakSpeaker(cache_dir=str(tmp_path), voice="de")
    over = []
    for path in english_scripts():
        for step in load_script(str(german_script(path))).steps:
            if isinstance(step, Say) and step.slot > 0:
                text = step.text.format_map(LONGEST)
                seconds = speaker.prepare(step.line_id, text).duration_s
                if seconds > step.slot:
                    over.append(f"{path.name} {step.line_id}: {seconds:.2f} s in a {step.slot} s slot")
    assert not over, "\n".join(over)
