"""Issue 17: what the core says to a person — a timer's spoken warning, a narration script's,
a sound file's, a voice's, a timer record's refusal — is in the table's language; the English
words (``str()``, logs) are unchanged."""
from __future__ import annotations

import pytest

from companion.core import i18n
from companion.core.audio import wav_duration
from companion.core.events import BadInput
from companion.core.narration import parse_script
from companion.core.speakers import SpeechError, make_speaker
from companion.core.timers import Countdown, RevealCountdown, spoken_end, spoken_warning
from companion.core.clock import FakeClock


def in_each(fn) -> dict[str, object]:
    """``fn()`` with English, French and German current in turn."""
    out = {}
    for lang in ("en", "fr", "de"):
        with i18n.speaking(lang):
            out[lang] = fn()
    return out


def test_a_timers_spoken_warning_and_end_are_said_in_the_language_spoken_now():
    assert in_each(lambda: spoken_warning(60)) == {
        "en": ("timer_one_minute", "One minute left."), "fr": ("timer_one_minute", "Plus qu'une minute."),
        "de": ("timer_one_minute", "Noch eine Minute.")}
    assert in_each(spoken_end) == {"en": ("timer_time_up", "Time is up."), "fr": ("timer_time_up", "Le temps est écoulé."),
                                   "de": ("timer_time_up", "Die Zeit ist um.")}
    assert in_each(lambda: spoken_warning(180))["fr"] == ("timer_3_minutes", "Plus que 3 minutes.")


def shown(exc: BaseException) -> dict[str, str]:
    return {lang: i18n.text_of(exc, lang) for lang in ("en", "fr", "de")}


def test_a_bad_line_of_a_narration_script_is_said_in_french_with_the_line_quoted():
    with pytest.raises(BadInput) as e:
        parse_script("say hello: Hello.\npause 9 to 4\n", "hello.txt")
    said = shown(e.value)
    assert said["en"] == str(e.value) == \
        "hello.txt line 2: pause 9 to 4: the second number must not be smaller (in: pause 9 to 4)"
    assert said["fr"] == "hello.txt ligne 2 : pause 9 to 4 : le second nombre ne doit pas être plus petit (dans : pause 9 to 4)"
    assert said["de"] == "hello.txt Zeile 2: pause 9 to 4: Die zweite Zahl darf nicht kleiner sein (in: pause 9 to 4)"
    with pytest.raises(BadInput) as e:
        parse_script("say x: a {bad!r} one\n", "x.txt")
    assert shown(e.value)["fr"].startswith("x.txt ligne 1 : le texte a un espace réservé incorrect {bad!r}")
    assert str(e.value).startswith("x.txt line 1: the text has a bad placeholder {bad!r}: use a plain name like {group}")


def test_a_sound_file_that_is_not_a_wav_is_said_in_french(tmp_path):
    path = tmp_path / "clip.wav"
    path.write_bytes(b"not a wav at all")
    with pytest.raises(BadInput) as e:
        wav_duration(str(path))
    assert str(e.value) == f"{path}: not a readable WAV file (no RIFF/WAVE header)"
    assert shown(e.value)["fr"] == f"{path} : pas un fichier WAV lisible (pas d'en-tête RIFF/WAVE)"


def test_a_voice_that_cannot_be_made_is_said_in_french():
    with pytest.raises(BadInput) as e:
        make_speaker("parrot")
    assert shown(e.value)["fr"].startswith("voix inconnue 'parrot' ; connues : ")
    with pytest.raises(SpeechError) as e2:
        make_speaker("espeak", binary="no-such-espeak")
    assert str(e2.value) == "espeak: the program 'no-such-espeak' is not installed"
    assert shown(e2.value)["de"] == "espeak: Das Programm 'no-such-espeak' ist nicht installiert"
    assert i18n.error_text(e2.value) == str(e2.value)   # English current: the same words


def test_a_damaged_timer_record_and_a_bad_reveal_count_are_said_in_french():
    clock = FakeClock(0.0)
    record = Countdown(120, clock).to_dict() | {"elapsed_s": "soon"}
    with pytest.raises(BadInput) as e:
        Countdown.from_dict(record, clock)
    assert str(e.value) == "timer record: 'elapsed_s' must be a number of seconds, got 'soon'"
    assert shown(e.value)["fr"] == "enregistrement du minuteur : 'elapsed_s' doit être un nombre de secondes, pas 'soon'"
    with pytest.raises(BadInput) as e:
        RevealCountdown("drum_roll")
    assert shown(e.value)["de"] == "unbekannter Aufdeck-Countdown 'drum_roll'; bekannt: count_of_three, ready_set_go"
    with pytest.raises(BadInput) as e:
        Countdown(60, clock).add("a bit")
    assert shown(e.value)["fr"] == "le temps à ajouter doit être un nombre de secondes, pas 'a bit'"


def test_the_demos_command_line_refusal_is_said_in_its_language(tmp_path, monkeypatch):
    from companion import demo
    monkeypatch.setattr(i18n, "_language", "en")   # the demo sets its --lang: put it back after
    with pytest.raises(BadInput) as e:
        demo.main(["--lang", "de", "--quiet", "--replay", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")])
    assert i18n.error_text(e.value) == f"--replay {tmp_path / 'nothing'}: dort liegt kein journal.sqlite3 (nehmt eines mit --out auf)"
    assert str(e.value) == f"--replay {tmp_path / 'nothing'}: no journal.sqlite3 there (record one with --out)"
