"""The real app under X, restarted mid-vote: a box press the dead app never answered is counted
once the table resumes the game (app_box_resume_run.py, in its own process)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.app


def test_a_press_the_dead_app_never_answered_counts_after_the_resume(tmp_path):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("app_box_resume_run.py")),
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    run = json.loads(lines[-1][len("RESULT "):])
    assert run["waiting_before_resume"]          # no game attached: no answer, still pending
    # Answered "recorded" (a box that retransmitted its press before the answer came is told the
    # same again: the journal below holds one ballot all the same).
    assert run["answers"] and set(run["answers"]) == {run["recorded"]}
    assert run["voted"] == ["Ann"]
    assert run["journal"] == [["Ann", "remain", "box:B0C50001"]]
