"""`python -m companion.referee cicero princeps|first_princeps`: the real CLI, by subprocess."""
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


def referee(payload, question="princeps") -> subprocess.CompletedProcess:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([str(PYTHON), "-m", "companion.referee", "cicero", question],
                          input=text, capture_output=True, text=True, cwd=ROOT, timeout=60)


def answer(payload, question="princeps") -> dict:
    done = referee(payload, question)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


def refused(payload, question="princeps") -> str:
    done = referee(payload, question)
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def election(votes="A6 B4 C5", ballots="AA BC CC", outgoing="A", **over) -> dict:
    q = {"players": [{"name": w[0], "votes": int(w[1:])} for w in votes.split()],
         "ballots": {w[0]: w[1] for w in ballots.split()}, "outgoing": outgoing}
    q.update(over)
    return q


# -- princeps -------------------------------------------------------------------------------

def test_the_issue_example_the_player_who_receives_the_most_votes_becomes_princeps():
    assert answer(election()) == {"princeps": "C", "tally": {"A": 6, "C": 9}, "tie": False}


def test_they_may_of_course_vote_for_themselves():
    assert answer(election(ballots="AA BB CC")) == {"princeps": "A", "tally": {"A": 6, "B": 4, "C": 5}, "tie": False}


def test_in_case_of_a_tie_the_outgoing_princeps_decides_the_winner_from_among_the_tied_players():
    q = election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="C")
    assert answer(q) == {"princeps": "C", "tally": {"A": 6, "B": 4, "C": 6}, "tie": True}
    q["outgoing_choice"] = "A"
    assert answer(q)["princeps"] == "A"


def test_the_outgoing_princeps_may_pick_themself_when_tied_and_a_choice_without_a_tie_changes_nothing():
    q = election(votes="A5 B5 C2", ballots="AA BB CA", outgoing="B", outgoing_choice="B")
    assert answer(q) == {"princeps": "A", "tally": {"A": 7, "B": 5}, "tie": False}
    q = election(votes="A5 B7 C2", ballots="AA BB CA", outgoing="B", outgoing_choice="B")
    assert answer(q) == {"princeps": "B", "tally": {"A": 7, "B": 7}, "tie": True}


def test_the_automatii_give_5_votes_to_the_player_with_the_fewest_pp():
    q = {"players": [{"name": "A", "votes": 6, "prestige": 20}, {"name": "B", "votes": 4, "prestige": 12}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "A", "automatii": True}
    assert answer(q) == {"princeps": "B", "tally": {"A": 6, "B": 9}, "tie": False}


def test_on_equal_pp_the_automatii_votes_go_to_the_opponent_of_the_current_princeps():
    q = {"players": [{"name": "A", "votes": 6, "prestige": 15}, {"name": "B", "votes": 4, "prestige": 15}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "B", "automatii": True}
    assert answer(q) == {"princeps": "A", "tally": {"A": 11, "B": 4}, "tie": False}
    q["outgoing"] = "A"
    assert answer(q) == {"princeps": "B", "tally": {"A": 6, "B": 9}, "tie": False}


def test_a_tie_made_by_the_automatii_is_still_the_outgoing_princeps_to_break():
    q = {"players": [{"name": "A", "votes": 3, "prestige": 10}, {"name": "B", "votes": 8, "prestige": 30}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "B", "automatii": True}
    assert "outgoing_choice" in refused(q)
    q["outgoing_choice"] = "A"
    assert answer(q) == {"princeps": "A", "tally": {"A": 8, "B": 8}, "tie": True}


@pytest.mark.parametrize("payload, words", [
    (election(ballots="AA BZ CC"), "'Z' is not a player"),
    (election(ballots="AA BB CC ZA"), "'Z' is not a player"),
    (election(outgoing="Z"), "outgoing Princeps 'Z'"),
    (election(votes="A6 B-4 C5"), "votes of B must be a whole number from 0"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B"), "outgoing_choice"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="B"), "not one of the tied"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="Q"), "'Q' is not a player"),
    (election(votes="A6 A4 C5", ballots="AA CC"), "listed twice"),
    (election(automatii=True), "only in the 2-player game"),
    ({"players": [{"name": "A", "votes": 1}, {"name": "B", "votes": 1}], "ballots": {"A": "A", "B": "A"},
      "outgoing": "A", "automatii": True}, "needs a whole-number 'prestige'"),
    (election(ballots=""), "No votes were given"),
    ({"players": "ABC", "ballots": {}, "outgoing": "A"}, "players must be a list"),
])
def test_malformed_elections_exit_2_with_one_line(payload, words):
    assert words in refused(payload)


def test_not_json_and_unknown_question_exit_2():
    assert "not valid JSON" in refused("{nope")
    assert "unknown question" in refused({}, question="consul")
    assert "one JSON object" in refused("[1, 2]")


# -- first_princeps ---------------------------------------------------------------------------

def first(rows: str, **over) -> dict:
    """rows: 'A:votes/oratores/age ...'"""
    q = {"players": []}
    for w in rows.split():
        name, nums = w.split(":")
        v, o, a = (int(x) for x in nums.split("/"))
        q["players"].append({"name": name, "votes": v, "oratores_votes": o, "age": a})
    q.update(over)
    return q


def test_first_princeps_the_most_votes_in_the_senate():
    assert answer(first("A:6/0/30 B:5/3/70 C:4/0/20"), "first_princeps") == {"princeps": "A"}


def test_first_princeps_in_case_of_a_tie_the_most_votes_in_the_oratores_caste():
    assert answer(first("A:6/1/80 B:6/3/20 C:7/0/20"), "first_princeps") == {"princeps": "C"}
    assert answer(first("A:6/1/80 B:6/3/20 C:2/9/20"), "first_princeps") == {"princeps": "B"}


def test_first_princeps_if_there_is_still_a_tie_the_oldest_of_the_tied_players():
    # C is the oldest at the table but not among the tied.
    assert answer(first("A:6/2/40 B:6/2/45 C:2/9/90"), "first_princeps") == {"princeps": "B"}


def test_first_princeps_tied_even_on_age_needs_to_be_told_who_is_older():
    q = first("A:6/2/40 B:6/2/40")
    assert "say who is the oldest" in refused(q, "first_princeps")
    q["oldest"] = "A"
    assert answer(q, "first_princeps") == {"princeps": "A"}


@pytest.mark.parametrize("payload, words", [
    (first("A:6/2/40 B:-1/2/40"), "votes of B must be a whole number"),
    (first("A:6/2/40 B:6/-2/40"), "oratores_votes of B"),
    (first("A:6/2/40"), "2 to 5 players"),
    (first("A:6/2/40 B:1/1/1 C:1/1/1 D:1/1/1 E:1/1/1 F:1/1/1"), "2 to 5 players"),
    ({"players": [{"name": "A", "votes": 1, "oratores_votes": 1}, {"name": "B", "votes": 1,
                                                                   "oratores_votes": 1, "age": 3}]}, "has no 'age'"),
    (first("A:6/2/40 B:6/2/40", oldest="C"), "'C' is not a player"),
])
def test_malformed_first_princeps_exit_2_with_one_line(payload, words):
    assert words in refused(payload, "first_princeps")
