"""The referee CLI for Seven Knights, run for real: `python -m companion.referee sevenknights ...`."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def referee(question, payload, game="sevenknights"):
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([PYTHON, "-m", "companion.referee", game, question], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def ok(question, payload):
    p = referee(question, payload)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return json.loads(p.stdout)


def bad(question, payload):
    p = referee(question, payload)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


FIVE = ["A", "B", "C", "D", "E"]


def recs(s, players=FIVE):
    return dict(zip(players, s))


def test_the_issue_example():
    """A->B B->C C->C D->B E->E: B and C tie with 2; C recommended themself, B did not."""
    assert ok("captain", {"players": FIVE, "first": "A", "recommendations": recs("BCCBE")}) == \
        {"captain": "B", "tie": True}


@pytest.mark.parametrize("first, r, answer", [
    ("A", "BBBAE", {"captain": "B", "tie": False}),   # most recommendations
    ("A", "ABCDE", {"captain": "E", "tie": True}),    # all recommended themselves: farthest from A
    ("C", "ABCDE", {"captain": "B", "tie": True}),    # ... farthest from C
    ("A", "CABED", {"captain": "E", "tie": True}),    # nobody recommended themselves
    ("D", "CABED", {"captain": "C", "tie": True}),
])
def test_captain_paths(first, r, answer):
    assert ok("captain", {"players": FIVE, "first": first, "recommendations": recs(r)}) == answer


def test_several_tied_who_did_not_recommend_themselves():
    six = list("ABCDEF")
    data = {"players": six, "first": "A", "recommendations": recs("BCCABA", six)}
    assert ok("captain", data) == {"captain": "B", "tie": True}
    data["first"] = "B"
    assert ok("captain", data) == {"captain": "A", "tie": True}


@pytest.mark.parametrize("payload, words", [
    ({"players": FIVE, "first": "Z", "recommendations": recs("BCCBE")}, "first player 'Z' is not at the table"),
    ({"players": FIVE, "first": "A", "recommendations": recs("BCCB")}, "no recommendation from E"),
    ({"players": FIVE, "first": "A", "recommendations": {**recs("BCCBE"), "Q": "A"}}, "'Q' is not at the table"),
    ({"players": FIVE, "first": "A", "recommendations": recs("BCCBQ")}, "E recommends 'Q', who is not at the table"),
    ({"players": FIVE, "first": "A", "recommendations": {**recs("BCCB"), "E": 3}}, "E recommends 3"),
    ({"players": FIVE, "first": "A"}, "missing 'recommendations'"),
    ({"players": ["A", "A"], "first": "A", "recommendations": {"A": "A"}}, "names a player twice"),
    ({"players": "ABCDE", "first": "A", "recommendations": {}}, "players must be a non-empty list"),
    ({"players": FIVE, "first": "A", "recommendations": ["B"]}, "recommendations must be an object"),
])
def test_bad_input_exits_2_with_one_line(payload, words):
    assert words in bad("captain", payload)


def test_malformed_json_and_unknown_question():
    assert "not valid JSON" in bad("captain", "{players")
    assert "input must be one JSON object" in bad("captain", "[1, 2]")
    assert "unknown question 'mayor'" in bad("mayor", {})


def test_setup_question_uses_the_same_tables():
    assert ok("setup", {"players": FIVE, "mode": "basic"}) == {
        "mode": "basic", "players": 5, "first": "A", "rounds": 3, "tiles": ["1", "2", "3", "4", "5", "witch"],
        "center": 1, "set_aside": 0, "unused_knights": [6, 7], "player_cards": 2}
    assert ok("setup", {"players": ["A", "B", "C"], "mode": "groping"})["set_aside"] == 2
    assert "not 3" in bad("setup", {"players": ["A", "B", "C"], "mode": "unity"})
