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
