"""Narration in every language: a language's scripts are ``scripts/<lang>/<name>.txt`` beside
the English ones, read first when the app speaks that language; each has the English file's
line ids and slots, and its slotted lines fit their slots with that language's espeak-ng voice
at every pace, so the narration's length never depends on the hidden setup in any language."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.narration import Say, load_script, script_path, script_timeline
from companion.core.speakers import MAX_PACE, MIN_PACE, EspeakSpeaker
from companion.games.knives23 import cues as k23
from companion.games.knives23.tables import tables

ROOT = Path(__file__).resolve().parents[2]
PACES = (MIN_PACE, 1.0, MAX_PACE)
LANGS = ("fr", "de")


def translated(lang: str) -> list[tuple[Path, Path]]:
    """(English script, its translation) for every script the language has."""
    return sorted((p.parent.parent / p.name, p) for p in (ROOT / "companion").glob(f"**/scripts/{lang}/*.txt"))


def structure(script) -> list[tuple]:
    """Steps, line ids and which lines have a slot; the slot's length is the language's own."""
    return [(type(s).__name__, getattr(s, "line_id", None), bool(getattr(s, "slot", None))) for s in script.steps]


def test_the_languages_own_script_is_read_first_and_english_fills_in(tmp_path, monkeypatch):
    (tmp_path / "de").mkdir()
    (tmp_path / "a.txt").write_text("say hello: Hello.\n")
    (tmp_path / "b.txt").write_text("say bye: Goodbye.\n")
    (tmp_path / "de" / "a.txt").write_text("say hello: Hallo.\n")
    monkeypatch.setattr(i18n, "_language", "de")
    assert load_script(str(tmp_path / "a.txt")).steps[0].text == "Hallo."
    assert load_script(str(tmp_path / "b.txt")).steps[0].text == "Goodbye."   # not translated yet
    assert load_script(str(tmp_path / "a.txt"), "en").steps[0].text == "Hello."
    assert script_path(str(tmp_path / "a.txt"), "fr") == str(tmp_path / "a.txt")
    (tmp_path / "de" / "a.txt").write_text("say hello: Guten Tag.\n")   # a changed file is read again
    assert load_script(str(tmp_path / "a.txt")).steps[0].text == "Guten Tag."


def _total(*args) -> float:
    done = subprocess.run([sys.executable, "-m", "companion.core.narration", *args, "--speaker", "espeak"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.strip().splitlines()[-1].split()[1])


def test_the_command_line_checks_a_script_in_a_language(tmp_path):
    """``--lang fr`` reads the French file with the French voice: a French line too long for
    its slot lengthens the French narration (the tool shows it), never the English one."""
    (tmp_path / "fr").mkdir()
    (tmp_path / "s.txt").write_text("slot 3\nsay a: Close your eyes.\n")
    (tmp_path / "fr" / "s.txt").write_text("slot 3\nsay a: Tout le monde, fermez les yeux maintenant, "
                                           "et gardez-les bien fermés jusqu'à la fin de la nuit.\n")
    assert _total(str(tmp_path / "s.txt")) == 3.0
    assert _total(str(tmp_path / "s.txt"), "--lang", "fr") > 3.5
    bad = subprocess.run([sys.executable, "-m", "companion.core.narration", str(tmp_path / "s.txt"),
                          "--lang", "xx", "--speaker", "espeak"], capture_output=True, text=True, timeout=120)
    # a language the app has neither a catalogue nor this script in is refused before any voice
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no catalogue for language 'xx'" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_each_translated_script_keeps_its_slots_and_fits_them_in_its_own_voice(lang, tmp_path, monkeypatch):
    pairs = translated(lang)
    if not pairs or not (i18n.LOCALE_DIR / lang).is_dir():
        pytest.skip(f"no {lang} narration scripts in the tree yet")
    monkeypatch.setattr(i18n, "_language", lang)
    voice = EspeakSpeaker(cache_dir=str(tmp_path), voice=lang)
    problems = []
    for english, own in pairs:
        script = load_script(str(english))
        if not any(isinstance(s, Say) and s.slot for s in script.steps):
            continue   # no fixed slots: a line the table waits for, not one that could leak the setup
        assert script.name == str(own)   # the language's own file was read
        if structure(script) != structure(load_script(str(english), "en")):
            problems.append(f"{own}: its steps, line ids or slotted lines differ from the English file")
        groups = tables()["eyes_closed_groups"] if english.name == "eyes_closed.txt" else [None]
        totals = set()
        for group in groups:
            ctx = k23.eyes_closed_context(group) if group else {}
            for pace in PACES:
                for s in script.resolve(ctx):
                    if isinstance(s, Say) and s.slot and "{" not in s.text:
                        took = voice.prepare(s.line_id, s.text, pace).duration_s
                        if took > s.slot / pace:
                            problems.append(f"{own} {s.line_id} at pace {pace}: {took:.2f} s > slot {s.slot / pace:.2f} s")
                if any(isinstance(s, Say) and s.slot for s in script.steps):
                    totals.add(round(script_timeline(script, ctx, voice, pace)[-1][1] * pace, 2))
        if len(totals) > 1 and all(isinstance(s, Say) and s.slot or not isinstance(s, Say) for s in script.steps):
            problems.append(f"{own}: its length depends on the setup or does not scale with the pace ({sorted(totals)})")
    assert problems == [], "\n".join(problems)
