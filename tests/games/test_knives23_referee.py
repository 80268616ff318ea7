"""`python -m companion.referee knives23 QUESTION`: the real CLI, by subprocess.

JSON in on stdin, one JSON object out (exit 0); malformed or impossible input exits 2 with one
line `error: …` on stderr and nothing on stdout.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
K = lambda n: {"knives": n}  # noqa: E731
D = lambda n: {"doves": n}   # noqa: E731
CURIA_23 = [K(5), K(5), K(3), K(3), K(3), K(2), K(2), K(1), D(1)]
NAMES = ["Ann", "Bo", "Cy", "Di"]


def ask(question, data):
    text = data if isinstance(data, str) else json.dumps(data)
    python = str(PYTHON) if PYTHON.exists() else sys.executable
    return subprocess.run([python, "-m", "companion.referee", "knives23", question], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def answer(question, data):
    p = ask(question, data)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return json.loads(p.stdout)


def refused(question, data, words):
    p = ask(question, data)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    assert words in lines[0], lines[0]
    return lines[0]


def player(name, citizen, *sway):
    return {"name": name, "citizen": citizen, "sway": list(sway)}


LIB = player("Lib", {"blood": 1})
LOY = player("Loy", {"laurels": 2}, {"blood": 1})
OPP = player("Opp", {"laurels": 1, "blood": 1})


# -- final -------------------------------------------------------------------------------------

def test_final_the_issues_example_23_caesar_is_dead():
    assert answer("final", {"players": [LIB, LOY], "curia": CURIA_23}) == {
        "total": 23, "final_total": 23, "caesar_dead": True, "opportunists_win": False, "winners": ["Lib"]}


def test_final_22_caesar_lives():
    r = answer("final", {"players": [LIB, LOY], "curia": CURIA_23 + [D(1)]})
    assert (r["total"], r["caesar_dead"], r["winners"]) == (22, False, ["Loy"])


def test_final_opportunists_change_the_fate_and_win():
    r = answer("final", {"players": [LIB, LOY, OPP], "curia": CURIA_23 + [K(2)], "opportunist_play": [D(3)]})
    assert r == {"total": 25, "final_total": 22, "caesar_dead": False, "opportunists_win": True, "winners": ["Opp"]}


def test_final_all_or_nothing_and_the_tie_break():
    a, b = player("A", {"blood": 3}, {"laurels": 1}), player("B", {"blood": 1}, {"blood": 1})
    assert answer("final", {"players": [a, b], "curia": CURIA_23})["winners"] == ["B"]
    assert answer("final", {"players": [a, b, LOY], "curia": CURIA_23, "variant": "all-or-nothing"})["winners"] == ["A", "B"]


def test_final_lucius_and_francesca_by_the_rules():
    lucius = player("Lucius", {"blood": 3}, {"laurels": 2}, {"laurels": 2}, {"blood": 2}, {"blood": 2}, {"blood": 2})
    francesca = player("Francesca", {"blood": 1}, {"laurels": 2}, {"blood": 1})
    r = answer("final", {"players": [lucius, francesca], "curia": [K(5)] * 5 + [K(3)]})
    assert r["total"] == 28 and r["winners"] == ["Lucius"]


@pytest.mark.parametrize("data,words", [
    ({"players": [LIB], "curia": [K(4)]}, "no Knife card of value 4"),
    ({"players": [LIB], "curia": [D(4)]}, "no Dove card of value 4"),
    ({"players": [player("X", {"blood": 1}, {"blood": 3})], "curia": []}, "no Sway card of 3 Blood"),
    ({"players": [LIB], "curia": [K(1)], "opportunist_play": [K(1)]}, "no player is an Opportunist"),
    ({"players": [LIB, LIB], "curia": []}, "Two players have the same name"),
    ({"players": [LIB], "curia": [], "variant": "chaos"}, "either standard or all-or-nothing"),
    ({"players": [LIB]}, "input has no curia"),
    ({"players": [player("X", {})], "curia": []}, "neither Laurels nor Blood"),
])
def test_final_refuses_impossible_input(data, words):
    refused("final", data, words)


# -- exile -------------------------------------------------------------------------------------

def test_exile_majority_exiles_the_target():
    votes = {"Ann": "exile", "Bo": "exile", "Cy": "exile", "Di": "remain"}
    assert answer("exile", {"players": NAMES, "caller": "Ann", "target": "Bo", "votes": votes}) == \
        {"exiled": True, "shamed": None, "tie": False}


def test_exile_majority_to_remain_shames_the_caller():
    votes = {"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "remain"}
    assert answer("exile", {"players": NAMES, "caller": "Ann", "target": "Bo", "votes": votes}) == \
        {"exiled": False, "shamed": "Ann", "tie": False}


@pytest.mark.parametrize("choice,expected", [("exile", {"exiled": True, "shamed": None, "tie": True}),
                                             ("remain", {"exiled": False, "shamed": "Ann", "tie": True})])
def test_exile_tie_the_tribune_decides(choice, expected):
    votes = {"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "exile"}
    data = {"players": NAMES, "caller": "Ann", "target": "Bo", "votes": votes, "tribune_choice": choice}
    assert answer("exile", data) == expected


@pytest.mark.parametrize("change,words", [
    ({"target": "Ann"}, "Ann cannot call a Vote to Exile on themself"),
    ({"votes": {"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "exile", "Zed": "exile"}}, "A vote came from Zed, who is not at the table"),
    ({"votes": {"Ann": "exile", "Bo": "remain", "Cy": "remain"}}, "No vote yet from Di"),
    ({"votes": {"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "exile"}}, "give tribune_choice"),
    ({"votes": {"Ann": "exile", "Bo": "stay", "Cy": "remain", "Di": "exile"}}, "Bo voted “stay”; the choices are Exile and Remain"),
    ({"target": "Zed"}, "Zed, the target of the Vote to Exile, is not at the table"),
])
def test_exile_refuses_impossible_input(change, words):
    data = {"players": NAMES, "caller": "Ann", "target": "Bo",
            "votes": {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"}, **change}
    refused("exile", data, words)


# -- issue_vote --------------------------------------------------------------------------------

def test_issue_vote_majority():
    votes = {"Ann": "grey", "Bo": "grey", "Cy": "red", "Di": "grey"}
    assert answer("issue_vote", {"players": NAMES, "votes": votes}) == {"resolved": "grey", "tie": False}


def test_issue_vote_tie_goes_to_the_tribunes_choice():
    votes = {"Ann": "grey", "Bo": "red", "Cy": "red", "Di": "grey"}
    assert answer("issue_vote", {"players": NAMES, "votes": votes, "tribune_choice": "red"}) == {"resolved": "red", "tie": True}


@pytest.mark.parametrize("data,words", [
    ({"players": NAMES, "votes": {"Ann": "grey", "Bo": "red", "Cy": "red", "Di": "grey"}}, "the Tribune decides: give tribune_choice, one of red, grey."),
    ({"players": NAMES, "votes": {"Ann": "grey", "Bo": "red", "Cy": "red"}}, "No vote yet from Di"),
    ({"players": NAMES, "votes": {"Ann": "grey", "Bo": "red", "Cy": "red", "Di": "red", "Eve": "red"}}, "A vote came from Eve, who is not at the table"),
    ({"players": NAMES, "votes": {"Ann": "grey", "Bo": "red", "Cy": "red", "Di": "grey"}, "tribune_choice": "blue"}, "The Tribune chooses Red or Grey"),
])
def test_issue_vote_refuses_impossible_input(data, words):
    refused("issue_vote", data, words)


def test_malformed_json_and_unknown_questions():
    refused("final", "{not json", "input is not valid JSON")
    refused("final", "[1, 2]", "input must be one JSON object")
    refused("verdict", {}, "no question “verdict”")


TURN = {"players": 4, "kalends": {"spaces": 9, "black_spaces": 2}, "dagger": 3, "forum": 5, "curia": 5}


@pytest.mark.parametrize("change, words", [
    ({"Tribune": True}, "unknown entries: Tribune"),
    ({"forum": 50, "curia": 50}, "more than the 86 Fate cards"),
    ({"players": 9}, "players must be a whole number from 3 to 8"),
    ({"dagger": 10}, "dagger must be a whole number from 1 to 9"),
    ({"kalends_icon": True}, "give tribune true"),
    ({"tribune": "yes"}, "tribune must be true or false"),
    ({"kalends": {"spaces": 9, "black": 2}}, "has only spaces and black spaces, not black"),
])
def test_end_of_turn_refuses_bad_input_with_one_line(change, words):
    r = ask("end_of_turn", {**TURN, **change})
    assert r.returncode == 2 and r.stdout == "" and words in r.stderr and r.stderr.count("\n") == 1


def test_end_of_turn_a_full_forum_moves_the_dagger_once_and_passes_nothing_without_an_issue():
    """"Once there are 5 or more Fate cards in the Forum after the end of your turn ... advance
    the Dagger on the Kalends track one space toward the Curia.\""""
    out = json.loads(ask("end_of_turn", TURN).stdout)
    assert out["moves"] == [{"why": "forum", "to": 4}] and out["curia"] == 10 and out["deck_to"] is None


# -- the house rule tie_break (issue 33): "If tied, the player with the fewest Laurels/Blood, in
# relation to the outcome, on their Citizen card wins." Read as the icons of the winning kind (the
# default) or as that kind less the other: they differ for a Citizen card with both.

TIED_A = player("A", {"blood": 1, "laurels": 1}, {"blood": 2})   # Blood value 2; card: 1 Blood, net 0
TIED_B = player("B", {"blood": 1}, {"blood": 1})                  # Blood value 2; card: 1 Blood, net 1


@pytest.mark.parametrize("house, winners", [
    (None, ["A", "B"]), ({"tie_break": "icons"}, ["A", "B"]), ({"tie_break": "net"}, ["A"])])
def test_final_tie_break_house_rule_changes_the_winner(house, winners):
    data = {"players": [TIED_A, TIED_B, LOY], "curia": CURIA_23}
    if house is not None:
        data["house_rules"] = house
    r = answer("final", data)
    assert r["caesar_dead"] and r["winners"] == winners
    assert r["tie_break"] == (house or {}).get("tie_break", "icons")


def test_final_no_tie_names_no_tie_break_and_a_bad_reading_is_one_line():
    assert "tie_break" not in answer("final", {"players": [LIB, LOY], "curia": CURIA_23})
    refused("final", {"players": [LIB], "curia": [], "house_rules": {"tie_break": "most"}}, "tie_break")
    refused("final", {"players": [LIB], "curia": [], "house_rules": {"tiebreak": "net"}}, "tiebreak")


def _demo_game_with_tied_loyalists(house):
    """The demo game (22 in the Curia: Caesar lives) with Ann and Bo tied as Loyalists of 2:
    Ann's Citizen shows 1 Laurels and 1 Blood, Bo's 1 Laurels."""
    from companion.games.knives23 import demo
    commands = []
    for c in demo.commands():
        if c.kind in ("tableau", "opportunist_play"):
            continue
        commands.append({"command": c.kind, **c.data})
    tableaux = {"Ann": ({"laurels": 1, "blood": 1}, [{"laurels": 2}]), "Bo": ({"laurels": 1}, [{"laurels": 1}]),
                "Cy": ({"blood": 1}, []), "Di": ({"blood": 2}, [{"laurels": 1}])}
    commands += [{"command": "tableau", "player": p, "citizen": c, "sway": s} for p, (c, s) in tableaux.items()]
    commands.append({"command": "opportunist_play", "cards": []})
    setup = dict(demo.SETUP, **({"house_rules": house} if house is not None else {}))
    return {"setup": setup, "commands": commands}


@pytest.mark.parametrize("house, winners", [(None, ["Ann", "Bo"]), ({"tie_break": "net"}, ["Ann"])])
def test_play_a_whole_game_under_each_tie_break_reading(house, winners):
    r = answer("play", _demo_game_with_tied_loyalists(house))
    result = r["view"]["end"]["result"]
    assert not result["caesar_dead"] and r["outcome"]["winners"] == winners
    reading = (house or {}).get("tie_break", "icons")
    assert r["view"]["house_rules"] == {"tie_break": reading}
    said = r["view"]["end"]["tie_break"]   # what the result screen shows, with the rulebook's words
    assert said.startswith("House rule: Fewest of the winning kind minus the other" if house else
                           "Rule applied: Fewest icons of the winning kind")
    assert said.endswith("(the rulebook: “If tied, the player with the fewest Laurels/Blood, in relation to "
                         "the outcome, on their Citizen card wins.”)")


def test_play_records_a_sway_a_citizens_ability_calls_for():
    """Issue 33: a Sway Sempronia's ability calls for ("must be resolved if a player gives a Fate
    card") is entered through ``referee knives23 play`` and kept in the history."""
    steps = [{"command": "tick_setup", "step": s} for s in ("I", "II", "III", "IV", "V", "VI", "VII")]
    game = {"setup": {"players": NAMES},
            "commands": steps + [{"command": "begin_play"}, {"command": "move", "location": "baths"},
                                 {"command": "ability_sway", "target": "Cy", "by": "Sempronia"}]}
    r = answer("play", game)
    assert r["view"]["history_notes"] == ["Sempronia: Ann Swayed Cy (a Citizen's ability)"]
    assert r["view"]["turn"]["step"] == "action"
    game["commands"][-1] = {"command": "ability_sway", "target": "Ann", "by": "Sempronia"}
    refused("play", game, "Sway goes into another player's tableau")
