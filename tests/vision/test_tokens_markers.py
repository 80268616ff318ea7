"""The marker plan: ids far apart, one marker per seat and face, the printed words right."""
from __future__ import annotations

import itertools

import pytest

from vision import markers


def test_token_markers_are_at_least_9_bits_apart_in_every_rotation():
    ids = [i for pair in markers.TOKEN_IDS for i in pair]
    assert len(set(ids)) == 16
    worst = min(markers.distance(a, b) for a, b in itertools.combinations(ids, 2))
    assert worst >= markers.TOKEN_MIN_DISTANCE == 9


def test_all_88_markers_are_at_least_7_bits_apart_and_correction_cannot_reach_another():
    ids = list(markers.all_faces())
    assert len(ids) == 88 == len(set(ids))
    worst = min(markers.distance(a, b) for a, b in itertools.combinations(ids, 2))
    assert worst >= markers.ALL_MIN_DISTANCE == 7
    # Two correction zones of radius CORRECTION_BITS never touch: a misread needs ≥ 3 more bits.
    assert worst - 2 * markers.CORRECTION_BITS >= 3


def test_each_seat_has_an_exile_and_a_remain_side_and_a_pick_set_for_the_table():
    faces = markers.faces_for(5, "all")
    for seat in range(1, 6):
        mine = [f.face for f in faces if f.seat == seat]
        assert mine == ["exile", "remain", "player1", "player2", "player3", "player4", "player5", "center"]
    assert {f.seat for f in faces} == {1, 2, 3, 4, 5}
    assert len(markers.faces_for(8, "token")) == 16 and len(markers.faces_for(8, "pick")) == 72


def test_printed_words_say_the_side_and_the_issue_colour():
    exile, remain = markers.faces_for(1, "token")
    assert exile.label() == "EXILE side  (red Issue)" and remain.label() == "REMAIN side  (grey Issue)"
    picks = markers.faces_for(3, "pick")
    assert [f.label() for f in picks if f.seat == 2] == [
        "votes for PLAYER 1", "votes for PLAYER 2", "votes for PLAYER 3", "votes CENTER"]


@pytest.mark.parametrize("bad", [0, 9, "3", 2.0, True])
def test_a_table_size_outside_1_to_8_is_refused(bad):
    with pytest.raises(ValueError, match="1 to 8"):
        markers.faces_for(bad)
