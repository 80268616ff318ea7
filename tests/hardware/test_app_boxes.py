"""The real app under X with eight simulated boxes on ptys: the devices panel lists them all, a
23 Knives Vote to Exile is cast on the boxes, the table sees who has voted and never what until
the reveal; then a vote of each other game (Masks, Cicero, Seven Knights) is cast on the boxes. Runs app_boxes_run.py in its own process (one Kivy window per process); the
screenshots go to test-artifacts/hardware/."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


GROUPS = ("knives23,masks,cicero", "sevenknights")   # see OTHER_GAMES in app_boxes_run.py


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Both app processes at once (they share the X display, not their ports or data)."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    procs = []
    for group in GROUPS:
        data = tmp_path_factory.mktemp("app")
        procs.append(subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("app_boxes_run.py")), str(data),
             str(ARTIFACTS), group], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True))
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=150)
        lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
        assert proc.returncode == 0 and lines, err[-3000:]
        results.append(json.loads(lines[-1][len("RESULT "):]))
    main, seven = results
    main["others"].update(seven["others"])
    main["shots"].update(seven["shots"])
    return main


def png_size(path):
    head = Path(path).read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_the_devices_panel_lists_eight_boxes(run):
    devices = run["devices"]
    assert [d["ident"] for d in devices] == ["B0C5%04X" % (i + 1) for i in range(8)]
    assert [d["seat"] for d in devices] == [1, 2, 3, 4, 5, None, None, None]
    assert [d["connected"] for d in devices] == [True] * 7 + [False]
    assert devices[6]["detail"] == "unpaired: presses ignored"
    assert devices[0]["battery"] == 95 and devices[4]["battery"] is None
    assert all(d["firmware"] == "1.0" for d in devices)
    for shot in ("devices", "devices_end"):
        assert png_size(run["shots"][shot]) == (1280, 800)


def test_a_vote_in_progress_shows_who_voted_on_a_box_not_what(run):
    mid = run["mid_vote"]
    assert mid["voted"] == ["Ann", "Cy"] and mid["waiting"] == ["Bo", "Di"]
    assert "ballots" not in mid and not mid["revealed"]
    assert png_size(run["shots"]["vote"]) == (1280, 800)


def test_the_boxes_ballots_are_revealed_at_once_and_journalled_once(run):
    last = run["revealed"]
    assert last["ballots"] == {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"}
    assert last["counts"] == {"exile": 3, "remain": 1}
    assert run["ballot_sources"] == ["box:B0C5%04X" % (i + 1) for i in range(4)]
    assert run["counters"]["ballots"] == 4 + 5 + 3    # 23 Knives, Masks, Cicero: once each
    assert [p["seat"] for p in run["box_pressed"][:5]] == [1, 2, 3, 4, 5]
    assert run["box_pressed"][5]["ignored"] == "unpaired"


def test_a_vote_in_every_game_is_cast_on_the_boxes(run):
    others = run["others"]
    assert set(others) == {"masks", "cicero", "sevenknights"}
    for game_id, got in others.items():
        assert got["ballots"] == got["expected"], game_id
        assert all(src.startswith("box:") for src in got["sources"].values()), game_id
        assert png_size(run["shots"][game_id]) == (1280, 800)
    assert others["masks"]["kind"] == "pick" and others["masks"]["counts"]["center"] == 1
    assert others["sevenknights"]["counts"]["Bo"] == 5
    # Cicero: the boxes picked Livia; the tablet weighed the votes (14 = the three players' own)
    assert others["cicero"]["kind"] == "weighted" and others["cicero"]["counts"]["Livia"] > 3
