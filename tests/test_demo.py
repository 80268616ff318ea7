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


def _screens(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("screen:", "winners:"))]


def test_a_game_recorded_in_french_replays_in_german(tmp_path, monkeypatch, capsys):
    from companion import demo
    from companion.core import i18n
    from tests.languages import use_french_and_german
    marks = use_french_and_german(tmp_path, monkeypatch)
    try:
        assert demo.main(["--lang", "fr", "--out", str(tmp_path / "fr")]) == 0
        capsys.readouterr()
        # played again into the same folder: its game comes next to the first, and the replay
        # takes the last one (it took the oldest)
        assert demo.main(["--lang", "fr", "--out", str(tmp_path / "fr")]) == 0
        french = capsys.readouterr().out
        assert demo.main(["--lang", "de", "--replay", str(tmp_path / "fr"), "--out", str(tmp_path / "replay")]) == 0
        replayed = capsys.readouterr().out
        assert demo.main(["--lang", "de", "--out", str(tmp_path / "de")]) == 0
        german = capsys.readouterr().out
    finally:
        i18n.set_language("en")
    assert "replaying game 2 of" in replayed and "events replayed: 118" in replayed and "in Deutsch" in replayed
    # the replay shows and says exactly what a game played in German shows and says (its
    # first screen is the one before the first tap: the recorded game_started)
    assert _screens(replayed)[1:] == _screens(german) and len(_screens(german)) > 100
    assert (tmp_path / "replay" / "transcript.txt").read_text() == (tmp_path / "de" / "transcript.txt").read_text()
    assert _screens(french) != _screens(german)
    if marks["de"]:   # the stand-ins: German's mark on screen, French's nowhere
        assert marks["de"] in replayed and marks["fr"] not in replayed
