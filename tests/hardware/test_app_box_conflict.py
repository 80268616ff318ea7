"""The real app under X: two boxes with one id on two ptys are shown as a conflict on the devices
panel and in a toast, neither counts in a vote until the table keeps one (app_box_conflict_run.py,
in its own process; screenshots in test-artifacts/hardware/)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.app


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    data = tmp_path_factory.mktemp("app")
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("app_box_conflict_run.py")),
                           str(data), str(ROOT / "test-artifacts")], cwd=ROOT,
                          capture_output=True, text=True, timeout=150)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


def test_the_conflict_is_toasted_and_shown_on_both_rows(run):
    assert run["toast"].startswith("Two boxes say they are B0C50001")
    assert [d["conflict"] for d in run["devices"]] == [True, True]
    assert len(run["panel"]) == 2 and all("neither counts" in t for t in run["panel"])


def test_neither_counts_until_the_table_keeps_one(run):
    ignored, recorded = run["statuses"]["ignored"], run["statuses"]["recorded"]
    assert run["before_keep"] == {"answers": [[ignored], [ignored]], "voted": []}
    assert run["after_keep"] == {"answers": [[recorded], [ignored]], "voted": ["Ann"]}
    assert run["journal"] == [["Ann", "exile", "box:B0C50001"]]
    # the kept box counts; the other is still a duplicate, ignored, and shown so
    assert [d["conflict"] for d in run["devices_after"]] == [False, True]
    assert "which the table kept" in run["devices_after"][1]["detail"]


def test_the_screens_were_saved(run):
    for key in ("shot_conflict", "shot_kept"):
        head = Path(run[key]).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (1280, 800)
