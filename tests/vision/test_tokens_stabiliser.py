"""The stabiliser: a reading counts only once it holds over several consecutive frames."""
from __future__ import annotations

from vision.reader import Reading, TokenWarning
from vision.stabiliser import Change, Stabiliser


def frame(**seats) -> Reading:
    """seat_3="exile" style keyword arguments."""
    toks = {int(k.split("_")[1]): v for k, v in seats.items()}
    return Reading(tokens=toks, seen=tuple(sorted(toks)))


def both_sides(seat) -> Reading:
    w = TokenWarning("both_sides", seat, "both", "both")
    return Reading(seen=(seat,), warnings=[w])


def test_a_reading_becomes_stable_on_the_kth_consecutive_frame_and_is_reported_once():
    st = Stabiliser(frames=3)
    assert st.feed(frame(seat_1="exile")) == []
    assert st.feed(frame(seat_1="exile")) == []
    assert st.feed(frame(seat_1="exile")) == [Change(1, "exile")]
    assert st.feed(frame(seat_1="exile")) == []
    assert st.stable == {1: "exile"}


def test_a_glimpse_of_the_other_side_while_flipping_restarts_the_count():
    st = Stabiliser(frames=3)
    for f in ["remain", "remain", "exile", "exile"]:
        assert st.feed(frame(seat_2=f)) == []
    assert st.feed(frame(seat_2="exile")) == [Change(2, "exile")]


def test_a_few_frames_without_the_token_do_not_break_the_run_but_many_do():
    st = Stabiliser(frames=3, max_gap=2)
    st.feed(frame(seat_4="remain"))
    st.feed(frame())  # a finger over it
    st.feed(frame())
    st.feed(frame(seat_4="remain"))
    assert st.feed(frame(seat_4="remain")) == [Change(4, "remain")]
    for _ in range(2):
        assert st.feed(frame()) == []
    assert st.feed(frame()) == [Change(4, None)]  # taken away
    assert st.stable == {}


def test_an_ambiguous_seat_is_never_stable_and_unsettles_its_earlier_reading():
    st = Stabiliser(frames=2)
    st.feed(frame(seat_1="exile"))
    assert st.feed(frame(seat_1="exile")) == [Change(1, "exile")]
    assert st.feed(both_sides(1)) == [Change(1, None)]
    for _ in range(5):
        assert st.feed(both_sides(1)) == []
    assert st.stable == {}


def test_a_changed_side_replaces_the_old_one_only_when_it_holds():
    st = Stabiliser(frames=2)
    st.feed(frame(seat_1="exile"))
    st.feed(frame(seat_1="exile"))
    assert st.feed(frame(seat_1="remain")) == [Change(1, None)]
    assert st.feed(frame(seat_1="remain")) == [Change(1, "remain")]


def test_seats_are_independent():
    st = Stabiliser(frames=2)
    st.feed(frame(seat_1="exile"))
    assert st.feed(frame(seat_1="exile", seat_2="remain")) == [Change(1, "exile")]
    assert st.feed(frame(seat_1="exile", seat_2="remain")) == [Change(2, "remain")]
    assert st.present == {1, 2}
