"""`python -m companion demo` plays a scripted game headless: simulated inputs, narration to a WAV."""
import subprocess
import sys
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_plays_a_game_and_records_its_narration(tmp_path):
    out = tmp_path / "demo"
    proc = subprocess.run([sys.executable, "-m", "companion", "demo", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = proc.stdout
    assert "[  box:01] cast_ballot" in text            # ballots came from the simulated boxes
    assert "revealed at once" in text
    assert "🔊" in text and "winners:" in text
    # Before a reveal the table line names who has voted, never what.
    mid = [ln for ln in text.splitlines() if "voted (" in ln]
    assert mid and not any("exile" in ln.split("voted (")[1] for ln in mid)
    with wave.open(str(out / "narration.wav")) as w:
        seconds = w.getnframes() / w.getframerate()
    assert seconds > 30
    assert (out / "transcript.txt").read_text().count("\n") > 10
    artifacts = ROOT / "test-artifacts" / "demo"
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "demo-output.txt").write_text(text)
    (artifacts / "narration.wav").write_bytes((out / "narration.wav").read_bytes())


def _languages_for_the_test(tmp_path, monkeypatch):
    """fr and de: the real catalogues once they are in the tree; until then stand-ins made
    from English (every text marked «…» / ‹…›), so the replay mechanism is checked either way."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    from companion.core import i18n
    if all((i18n.LOCALE_DIR / lang).is_dir() for lang in ("fr", "de")):
        return {"fr": None, "de": None}
    en = i18n.load_catalogue("en")
    for lang, (left, right) in {"fr": ("«", "»"), "de": ("‹", "›")}.items():
        catalog = Catalog(locale=lang)
        for key, text in en.items():
            if isinstance(text, tuple):
                catalog.add((key, key), tuple(f"{left}{t}{right}" for t in text))
            else:
                catalog.add(key, f"{left}{text}{right}")
        (tmp_path / "locale" / lang).mkdir(parents=True)
        with open(tmp_path / "locale" / lang / "all.po", "wb") as f:
            write_po(f, catalog)
    (tmp_path / "locale" / "en").symlink_to(i18n.LOCALE_DIR / "en")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    monkeypatch.setattr(i18n, "_catalogues", {})
    return {"fr": "«", "de": "‹"}


def _screens(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("screen:", "winners:"))]


def test_a_game_recorded_in_french_replays_in_german(tmp_path, monkeypatch, capsys):
    from companion import demo
    from companion.core import i18n
    marks = _languages_for_the_test(tmp_path, monkeypatch)
    try:
        assert demo.main(["--lang", "fr", "--out", str(tmp_path / "fr")]) == 0
        french = capsys.readouterr().out
        assert demo.main(["--lang", "de", "--replay", str(tmp_path / "fr"), "--out", str(tmp_path / "replay")]) == 0
        replayed = capsys.readouterr().out
        assert demo.main(["--lang", "de", "--out", str(tmp_path / "de")]) == 0
        german = capsys.readouterr().out
    finally:
        i18n.set_language("en")
    assert "events replayed: 118" in replayed and "in Deutsch" in replayed
    # the replay shows and says exactly what a game played in German shows and says (its
    # first screen is the one before the first tap: the recorded game_started)
    assert _screens(replayed)[1:] == _screens(german) and len(_screens(german)) > 100
    assert (tmp_path / "replay" / "transcript.txt").read_text() == (tmp_path / "de" / "transcript.txt").read_text()
    assert _screens(french) != _screens(german)
    if marks["de"]:   # the stand-ins: German's mark on screen, French's nowhere
        assert marks["de"] in replayed and marks["fr"] not in replayed
