"""`python -m companion --boxes /dev/pts/N --data DIR` with a vote box on the other end of the
pseudo-terminal (the box simulator, its own process): the app greets the box, the table pairs it
from the devices panel and the box's press is a ballot of the vote. boxes_cli_run.py plays the
table in its own process (one Kivy window per process); the journal is read here, from DIR."""
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    data = tmp_path_factory.mktemp("cli") / "table data"      # a folder the app must create
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("boxes_cli_run.py")),
                           str(data), str(ARTIFACTS)], cwd=ROOT, capture_output=True, text=True,
                          timeout=420)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-4000:]
    result = json.loads(lines[-1][len("RESULT "):])
    result["data"] = data
    return result


@pytest.mark.app
@pytest.mark.slow
def test_the_app_started_from_argv_greets_the_box_on_the_pty(run):
    assert run["argv"]["boxes"].startswith("/dev/pts/")
    assert Path(run["argv"]["data"]) == run["data"]
    [box] = run["greeted"]
    assert box["ident"] == "B0C50001" and box["connected"] and box["firmware"] == "1.0"
    assert box["seat"] is None            # nobody's box until the table pairs it


@pytest.mark.app
@pytest.mark.slow
def test_the_box_is_paired_from_the_devices_panel_and_kept_in_the_data_folder(run):
    assert run["pairing_shown"]
    [box] = run["paired"]
    assert box["seat"] == 1
    pairing = json.loads((run["data"] / "boxes.json").read_text())
    assert pairing["seats"] == [{"box": "B0C50001", "keypad": 0, "seat": 1}]
    texts = " ".join(run["panel_texts"])
    assert "From the command line: --boxes " + run["argv"]["boxes"] in texts
    assert "Box B0C50001[/b]   seat 1   connected" in texts


@pytest.mark.app
@pytest.mark.slow
def test_the_boxs_press_is_counted_in_the_vote(run):
    assert run["voted_after_box"] == ["Ann"]
    db = sqlite3.connect(run["data"] / "journal.sqlite3")
    rows = db.execute("SELECT kind, data, source FROM events WHERE game_id = ? ORDER BY seq",
                      (run["game_id"],)).fetchall()
    ballots = {json.loads(d)["voter"]: (json.loads(d)["choice"], s)
               for k, d, s in rows if k == "ballot_cast"}
    assert ballots["Ann"] == ("Cy", "box:B0C50001")
    assert {v: c for v, (c, _) in ballots.items()} == {"Ann": "Cy", "Bo": "Cy", "Cy": "Di",
                                                        "Di": "Cy", "Ed": "Bo"}
    assert all(s == "tablet" for v, (_, s) in ballots.items() if v != "Ann")
    assert [k for k, _, _ in rows].count("vote_revealed") == 1
    for shot in run["shots"].values():
        assert Path(shot).stat().st_size > 10_000


def test_help_lists_every_option():
    out = subprocess.run([sys.executable, "-m", "companion", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    for option in ("--data DIR", "--boxes PORTS", "auto", "off", "demo", "-h, --help"):
        assert option in out.stdout, option
    bad = subprocess.run([sys.executable, "-m", "companion", "--bogus"], cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    assert bad.returncode == 2 and "unrecognized arguments: --bogus" in bad.stderr
