"""Tallies, each against its rulebook's words."""
import pytest

from companion.core.events import BadInput, NeedsTieBreak
from companion.core.tally import BinaryMajority, CaptainRule, PluralityAllTiedOut, WeightedPlurality

EXILE = BinaryMajority(("exile", "remain"), "the Tribune", "Ties are determined by the current Tribune.")


def test_knives_a_majority_to_exile_exiles():
    r = EXILE.decide({"A": "exile", "B": "exile", "C": "remain"})
    assert r.winner == "exile" and not r.tie


def test_knives_a_tie_is_decided_by_the_tribune_whatever_they_voted():
    ballots = {"A": "exile", "B": "remain", "C": "exile", "D": "remain"}
    with pytest.raises(NeedsTieBreak) as e:
        EXILE.decide(ballots)
    assert e.value.chooser == "the Tribune" and e.value.among == ("exile", "remain")
    r = EXILE.decide(ballots, tie_choice="remain")
    assert r.winner == "remain" and r.tie and r.decided_by == "the Tribune"
    with pytest.raises(BadInput):
        EXILE.decide(ballots, tie_choice="maybe")


def test_masks_if_multiple_people_tie_for_the_most_votes_they_all_are_eliminated():
    r = PluralityAllTiedOut().decide({"A": "B", "B": "C", "C": "B", "D": "C", "E": "A"}, order="ABCDE")
    assert r.leaders == ("B", "C") and r.winner is None and r.tie
    assert PluralityAllTiedOut().decide({"A": "B", "B": "B", "C": None}).winner == "B"


def test_cicero_weighted_example():
    r = WeightedPlurality("the outgoing Princeps").decide(
        {"A": "A", "B": "C", "C": "C"}, {"A": 6, "B": 4, "C": 5})
    assert r.winner == "C" and r.counts == {"A": 6, "C": 9} and not r.tie


def test_cicero_tie_is_decided_by_the_outgoing_princeps_among_the_tied():
    w = WeightedPlurality("the outgoing Princeps")
    ballots, weights = {"A": "A", "B": "B", "C": "C"}, {"A": 5, "B": 5, "C": 2}
    with pytest.raises(NeedsTieBreak) as e:
        w.decide(ballots, weights)
    assert set(e.value.among) == {"A", "B"}
    assert w.decide(ballots, weights, tie_choice="B").winner == "B"
    with pytest.raises(BadInput, match="not one of the tied"):
        w.decide(ballots, weights, tie_choice="C")
    with pytest.raises(BadInput, match="whole number from 0"):
        w.decide(ballots, {"A": -1, "B": 5, "C": 2})


SEATS = ["A", "B", "C", "D", "E"]


def test_captain_most_recommendations():
    r = CaptainRule().decide(SEATS, "A", {"A": "B", "B": "B", "C": "B", "D": "A", "E": "E"})
    assert r.winner == "B" and not r.tie


def test_captain_tie_goes_to_the_one_who_did_not_recommend_themself():
    r = CaptainRule().decide(SEATS, "A", {"A": "B", "B": "C", "C": "C", "D": "B", "E": "E"})
    assert (r.winner, r.tie) == ("B", True)


def test_captain_still_tied_everyone_recommended_themselves_farthest_clockwise_from_first():
    recs = {p: p for p in SEATS}
    assert CaptainRule().decide(SEATS, "A", recs).winner == "E"
    assert CaptainRule().decide(SEATS, "C", recs).winner == "B"


def test_captain_still_tied_no_one_recommended_themselves():
    recs = {"A": "B", "B": "A", "C": "D", "D": "C", "E": "A"}  # A 2, B 1, C 1, D 1
    assert CaptainRule().decide(SEATS, "A", recs).winner == "A"
    recs = {"A": "B", "B": "A", "C": "D", "D": "C", "E": "D"}  # A1 B1 C1 D2? -> D
    assert CaptainRule().decide(SEATS, "A", recs).winner == "D"
    recs = {"A": "C", "B": "A", "C": "B", "D": "E", "E": "D"}  # all 1, nobody self
    assert CaptainRule().decide(SEATS, "B", recs).winner == "A"


def test_captain_bad_input():
    with pytest.raises(BadInput, match="First player, Z, is not at the table"):
        CaptainRule().decide(SEATS, "Z", {p: p for p in SEATS})
    with pytest.raises(BadInput, match="No recommendation yet from E"):
        CaptainRule().decide(SEATS, "A", {p: p for p in SEATS[:4]})
