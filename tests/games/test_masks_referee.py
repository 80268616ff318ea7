"""`python -m companion.referee masks vote`: the real CLI, by subprocess."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():  # a checkout whose venv lives elsewhere
    PYTHON = Path(sys.executable)


def referee(payload, question="vote") -> subprocess.CompletedProcess:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([str(PYTHON), "-m", "companion.referee", "masks", question],
                          input=text, capture_output=True, text=True, cwd=ROOT, timeout=60)


PLAYERS = ["A", "B", "C", "D", "E"]


def question(ids="Queen King Spy Pamphleteer Martyr", center="Fugitive Harlot Executioner",
             votes="B C A A A", royalist=None, target=None, **over) -> dict:
    q = {
        "players": PLAYERS,
        "identities": dict(zip(PLAYERS, ids.split())) if isinstance(ids, str) else ids,
        "center": center.split(),
        "royalist": royalist,
        "votes": ({p: (None if v == "-" else v) for p, v in zip(PLAYERS, votes.split())}
                  if isinstance(votes, str) else votes),
        "executioner_target": target,
    }
    q.update(over)
    return q


def answer(payload) -> dict:
    done = referee(payload)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


def refused(payload, *words: str) -> str:
    done = referee(payload)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_the_issue_example():
    a = answer(question())
    assert {k: a[k] for k in ("eliminated", "result", "winners")} == {
        "eliminated": ["A"], "result": "people", "winners": ["C", "D"]}
    # the reasons the engine computed come with every answer, numbers as numbers
    assert a["decided_by"] == "royal_eliminated"
    assert a["counts"] == {"A": 3, "B": 1, "C": 1, "D": 0, "E": 0, "center": 0}
    assert a["most_voted"] == ["A"] and a["executioner"] is None and a["warnings"] == []


def test_the_answer_names_the_executioner_and_the_royalist_warnings():
    a = answer(question(ids="Queen Martyr Executioner Pamphleteer Spy", center="Fugitive Harlot King",
                        votes="C C A C C", target="A", royalist="B"))
    assert (a["executioner"], a["executioner_target"], a["eliminated"]) == ("C", "A", ["A"])
    assert a["warnings"] == ["martyr"] and a["decided_by"] == "royal_eliminated"


@pytest.mark.parametrize("name, q, expected", [
    ("royals survive", question(votes="C C D C A"),
     {"eliminated": ["C"], "result": "royals", "winners": ["A", "B"]}),
    ("tie: both out", question(votes="C C A A D"),
     {"eliminated": ["A", "C"], "result": "people", "winners": ["C", "D"]}),
    ("martyr supersedes", question(votes="E E A A C"),
     {"eliminated": ["A", "E"], "result": "martyr", "winners": ["E"]}),
    ("royalist wins with the royal", question(ids="Queen Spy Pamphleteer Harlot Martyr",
                                              center="Fugitive King Executioner",
                                              votes="B C B B C", royalist="B"),
     {"eliminated": ["B"], "result": "royals", "winners": ["A", "B"]}),
    ("executioner names another", question(ids="Queen King Executioner Pamphleteer Martyr",
                                           center="Fugitive Harlot Spy", votes="C C A C C",
                                           target="A"),
     {"eliminated": ["A"], "result": "people", "winners": ["C", "D"]}),
    ("both royals in the center, majority", question(ids="Spy Pamphleteer Fugitive Harlot Martyr",
                                                     center="Queen King Executioner",
                                                     votes="center center center E A"),
     {"eliminated": [], "result": "people", "winners": ["A", "B", "C", "D"]}),
    ("both royals in the center, no majority", question(ids="Spy Pamphleteer Fugitive Harlot Martyr",
                                                        center="Queen King Executioner",
                                                        votes="center center D C A"),
     {"eliminated": [], "result": "royals", "winners": []}),
    ("draw", question(ids="Spy Pamphleteer Fugitive Harlot Executioner",
                      center="Queen King Martyr", votes="center center center center A"),
     {"eliminated": [], "result": "draw", "winners": []}),
    ("center tied with a player", question(votes="C C center center A"),
     {"eliminated": ["C"], "result": "royals", "winners": ["A", "B"]}),
    ("vanguard abstains", question(votes="- A A A A"),
     {"eliminated": ["A"], "result": "people", "winners": ["C", "D"]}),
])
def test_answers(name, q, expected):
    a = answer(q)
    assert {k: a[k] for k in expected} == expected


def test_royalist_and_executioner_target_may_be_left_out():
    q = question()
    del q["royalist"], q["executioner_target"]
    assert answer(q)["result"] == "people"


@pytest.mark.parametrize("name, payload, words", [
    ("not 5 players", question(players=["A", "B", "C", "D"]), ["exactly 5 players, got 4"]),
    ("unknown name in votes", question(votes={"A": "Zed", "B": "C", "C": "A", "D": "A", "E": "A"}),
     ["'Zed'", "not a player"]),
    ("unknown voter", question(votes={"A": "B", "B": "C", "C": "A", "D": "A", "Zed": "A"}),
     ["'Zed'", "not a player"]),
    ("unknown name in identities", question(ids={"A": "Queen", "B": "King", "C": "Spy",
                                                        "D": "Pamphleteer", "Zed": "Martyr"}),
     ["'Zed'"]),
    ("vote for oneself", question(votes="A C A A A"), ["A voted for themself", "one other player"]),
    ("identity not in the game", question(ids="Queen King Werewolf Pamphleteer Martyr"),
     ["identities.C: 'Werewolf' is not one of Pamphleteer"]),
    ("same identity twice", question(ids="Queen King Spy Spy Martyr"), ["Spy appears twice"]),
    ("same identity at the table and in the center",
     question(center="Fugitive Harlot Queen"), ["Queen appears twice"]),
    ("two center cards only", question(center="Fugitive Harlot"), ["3 Bystander"]),
    ("two abstentions", question(votes="- - A A A"), ["abstained", "Vanguard"]),
    ("executioner without a choice", question(ids="Queen King Executioner Pamphleteer Martyr",
                                              center="Fugitive Harlot Spy", votes="C C A C C"),
     ["Executioner", "another player"]),
    ("executioner chooses themself", question(ids="Queen King Executioner Pamphleteer Martyr",
                                              center="Fugitive Harlot Spy", votes="C C A C C",
                                              target="C"), ["another player"]),
    ("a target when the executioner is not on top", question(target="B"),
     ["did not get the most votes"]),
    ("unknown royalist", question(royalist="Zed"), ["royalist: 'Zed' is not a player"]),
    ("missing votes", {k: v for k, v in question().items() if k != "votes"}, ["input has no votes"]),
    ("unknown field", question(exectioner=None), ["unknown key 'exectioner'"]),
    ("not JSON", "{players: A", ["not valid JSON"]),
    ("not an object", "[1, 2]", ["one JSON object"]),
    ("players not a list", question(players="ABCDE"), ["players: must be a list"]),
    ("a player named center", question(players=["A", "B", "C", "D", "center"]), ["'center'"]),
    ("a key in the wrong case", {**question(), "Votes": {}}, ["unknown key 'Votes'"]),
    ("a key twice", '{"players": ["A","B","C","D","E"], "players": ["A"]}', ["“players” appears twice"]),
    ("NaN", '{"players": NaN}', ["NaN is not a number"]),
    ("six players", question(players=list("ABCDEF")), ["exactly 5 players, got 6", "Players 5"]),
    ("a number as a name", question(players=["A", "B", "C", "D", 5]), ["players[4]"]),
    ("deep nesting", "[" * 100000 + "]" * 100000, ["nested too deeply"]),
    ("empty input", "", ["not valid JSON"]),
])
def test_bad_input_is_refused_on_one_line(name, payload, words):
    refused(payload, *words)


# --- house rules (issue 33): each reading the rulebook leaves open changes the outcome ---------

def _outcome(a: dict) -> dict:
    return {k: a[k] for k in ("eliminated", "result", "winners")}


# C (the Queen) tied with the center: "If multiple people tie for the most votes, they all are
# eliminated" -- is C, or nobody?
CENTER_TIE = question(ids="Spy King Queen Pamphleteer Martyr", center="Fugitive Harlot Executioner",
                      votes="C C center center A")
# C (the Executioner) tied with A (the Queen); C named E (the Martyr).
EXECUTIONER_TIE = question(ids="Queen King Executioner Pamphleteer Martyr", center="Spy Fugitive Harlot",
                           votes="C C A A B", target="E")
# Both Royals among the Bystanders; D (the Vanguard, a People player) abstained: 2 of the People's
# 3 votes cast went to the center, 2 of their 4 players.
CENTER_MAJORITY = question(ids="Pamphleteer Fugitive Harlot Executioner Martyr", center="Queen King Spy",
                           votes="center center E - A")


@pytest.mark.parametrize("q, house, expected, reading", [
    (CENTER_TIE, {}, {"eliminated": ["C"], "result": "people", "winners": ["A", "D"]},
     "masks.reading.center_tie"),
    (CENTER_TIE, {"center_tie": "players_out"}, {"eliminated": ["C"], "result": "people", "winners": ["A", "D"]},
     "masks.reading.center_tie"),
    (CENTER_TIE, {"center_tie": "nobody_out"}, {"eliminated": [], "result": "royals", "winners": ["B", "C"]},
     "masks.reading.center_tie"),
    (EXECUTIONER_TIE, {"executioner_tie": "chooses"},
     {"eliminated": ["A", "E"], "result": "martyr", "winners": ["E"]}, "masks.reading.executioner_tie"),
    ({**EXECUTIONER_TIE, "executioner_target": None}, {"executioner_tie": "all_out"},
     {"eliminated": ["A", "C"], "result": "people", "winners": ["C", "D"]}, "masks.reading.executioner_tie"),
    (CENTER_MAJORITY, {"center_majority": "votes_cast"},
     {"eliminated": [], "result": "people", "winners": ["A", "B", "C", "D"]}, "masks.reading.center_majority"),
    (CENTER_MAJORITY, {"center_majority": "all_people"},
     {"eliminated": [], "result": "royals", "winners": []}, "masks.reading.center_majority"),
], ids=["center_tie-default", "center_tie-players_out", "center_tie-nobody_out", "executioner_tie-chooses",
        "executioner_tie-all_out", "center_majority-votes_cast", "center_majority-all_people"])
def test_each_house_rule_reading_decides_the_outcome(q, house, expected, reading):
    a = answer({**q, "house_rules": house} if house else q)
    assert _outcome(a) == expected
    assert reading in a["readings"]


def test_under_all_out_the_executioner_tied_has_no_choice_to_make():
    refused({**EXECUTIONER_TIE, "house_rules": {"executioner_tie": "all_out"}}, "Executioner")


def test_a_house_rule_the_game_does_not_have_is_refused_on_one_line():
    refused({**CENTER_TIE, "house_rules": {"center_tie": "center_out"}}, "center_tie", "nobody_out")
    refused({**CENTER_TIE, "house_rules": {"centre_tie": "nobody_out"}}, "centre_tie")


def _play(setup: dict, commands: list[dict]) -> subprocess.CompletedProcess:
    return referee({"setup": setup, "commands": commands}, question="play")


def test_a_whole_game_takes_the_house_rules_in_its_setup():
    """`referee masks play`: the setup records the choice; under ``all_out`` the tied players
    are not asked to look for the Executioner: the Identities come next, and all tied are out."""
    players = ["A", "B", "C", "D", "E"]
    votes = dict(zip(players, ["C", "C", "A", "A", "B"]))
    commands = ([{"command": c} for c in ("start_hidden_phase", "end_hidden_phase", "end_discussion")]
                + [{"command": "cast_ballot", "voter": v, "choice": c} for v, c in votes.items()]
                + [{"command": "enter_identities",
                    "identities": dict(zip(players, "Queen King Executioner Pamphleteer Martyr".split())),
                    "center": ["Spy", "Fugitive", "Harlot"]}])
    done = _play({"players": players, "house_rules": {"executioner_tie": "all_out"}}, commands)
    assert done.returncode == 0, done.stderr
    assert "Eliminated: A, C" in done.stdout and "The People win" in done.stdout, done.stdout
    # the default reading: the tied players look for the Executioner first
    done = _play({"players": players}, commands)
    assert done.returncode == 2 and "commands[8] (enter_identities)" in done.stderr, done.stderr
