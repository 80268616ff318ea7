"""The box manager against virtual boxes, on real pseudo-terminals and on in-process wires
(every test runs on both): discovery, pairing, ballots, LEDs, hot-plug and every kind of bad
input the issue lists. Fault injection is seeded, so a failure replays."""
import json
import time

import pytest

from companion.core.inputs import CommandQueue
from hardware import protocol as P
from tests.hardware.conftest import hello_on_loop
from hardware.manager import BoxManager
from hardware.sim import (LED_IGNORED, LED_OPEN, LED_PAIRED, LED_RECORDED,
                          LED_REVEALED, Faults, SimBox)


def ballots(commands):
    return [(c.data["seat"], c.data["option"]) for c in commands if c.kind == "cast_ballot"]


def test_boxes_are_discovered_by_their_hello(rig):
    units = rig.manager.units()
    assert [u.ident for u in units] == ["B0C50001", "B0C50002", "B0C50003"]
    assert all(u.connected and u.firmware == "1.0" and u.seat is None for u in units)
    assert all(u.battery is None for u in units)


def test_battery_is_reported_from_heartbeats(make_rig):
    rig = make_rig(n=1, battery=64, heartbeat=0.1)
    rig.wait(lambda: rig.manager.units()[0].battery == 64, "battery from a heartbeat")


def test_pairing_binds_the_next_press_and_is_remembered(rig, tmp_path):
    rig.manager.pair(3)
    rig.press_acked(1, 5)
    [cmd] = rig.taken()
    assert cmd.kind == "box_pressed" and cmd.data["seat"] == 3 and cmd.data["paired"]
    assert cmd.source == "box:B0C50002"
    assert rig.sim.boxes[1].leds[0] == LED_PAIRED
    assert rig.manager.pairing_seat is None
    assert {u.ident: u.seat for u in rig.manager.units()}["B0C50002"] == 3
    # The box is that seat's until changed: a second manager reads the same file.
    again = BoxManager(rig.data_dir, ports=[])
    assert again.seats() == {("B0C50002", 0): 3}
    # Changing: pairing seat 3 to another box frees the first.
    rig.manager.pair(3)
    rig.press_acked(2, 0)
    assert rig.manager.seats() == {("B0C50003", 0): 3}


def test_an_unpaired_box_is_ignored_and_shown(rig):
    rig.manager.vote_opened(2)
    rig.press_acked(0, 1)
    [cmd] = rig.taken()
    assert cmd.kind == "box_pressed" and cmd.data["ignored"] == "unpaired"
    assert rig.sim.boxes[0].acks[-1].status == P.ACK_IGNORED
    assert rig.sim.boxes[0].leds[0] == LED_IGNORED
    assert "unpaired" in rig.manager.units()[0].detail
    assert rig.manager.acked_ballots() == {}


def test_a_vote_from_open_to_reveal(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.wait(lambda: all(b.leds[0] == LED_OPEN for b in rig.sim.boxes), "vote-open LEDs")
    rig.press_acked(0, 1)
    rig.press_acked(2, 0)
    assert ballots(rig.taken()) == [(1, 1), (3, 0)]
    # answered only once the app committed the ballot: "recorded" at once, no "received" first
    assert [a.status for a in rig.sim.boxes[0].acks[-1:]] == [P.ACK_RECORDED]
    assert rig.sim.boxes[0].leds[0] == LED_RECORDED
    assert rig.manager.acked_ballots() == {1: 1, 3: 0}
    rig.manager.revealed()
    rig.wait(lambda: all(b.leds[0] == LED_REVEALED for b in rig.sim.boxes), "revealed LEDs")
    rig.press_acked(1, 0)            # too late: the vote is revealed
    assert ballots(rig.taken()) == []


def test_a_button_beyond_the_options_is_not_a_ballot(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.press_acked(0, 7)
    [cmd] = rig.taken()
    assert cmd.kind == "box_pressed" and "button 7 but the vote has 2 options" in cmd.data["ignored"]


def test_changing_a_ballot_before_the_reveal_sends_the_new_choice(rig):
    rig.pair_all()
    rig.manager.vote_opened(3)
    rig.press_acked(0, 0)
    rig.press_acked(0, 2)
    assert ballots(rig.taken()) == [(1, 0), (1, 2)]
    assert rig.manager.acked_ballots() == {1: 2}


def test_a_repeated_sequence_number_is_acked_again_but_never_counted_twice(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    with box._lock:
        seq = box._next_seq()
    frame = P.encode(P.make("PRESS", box.box_id, seq, keypad=0, button=1))
    box._link.write(frame)
    rig.wait(lambda: sum(a.acked == seq for a in box.acks) == 1, "the ACK")
    for _ in range(2):
        box._link.write(frame)
    rig.wait(lambda: sum(a.acked == seq for a in box.acks) == 3, "two more ACKs")
    assert ballots(rig.taken()) == [(1, 1)]
    assert rig.manager.counters["duplicates"] == 2


def test_lost_acks_and_lost_presses_still_count_each_press_exactly_once(make_rig):
    # Half of all frames, both ways, are lost: the box retries, the host de-duplicates.
    rig = make_rig(n=2, seed=11, retry=0.05)
    rig.pair_all()
    for box in rig.sim.boxes:
        box.faults = Faults(drop=0.5, duplicate=0.3)
    rig.manager.vote_opened(3)
    expected = []
    for button in (0, 1, 2, 1):
        for i in range(2):
            rig.press_acked(i, button)
            expected.append((i + 1, button))
    got = ballots(rig.taken())
    assert sorted(got) == sorted(expected)
    for i in range(2):     # each box's ballots arrive in the order pressed
        assert [o for s, o in got if s == i + 1] == [0, 1, 2, 1]


def test_noise_corruption_and_truncation_are_dropped_and_counted(make_rig):
    faults = Faults(noise=0.3, corrupt=0.2, truncate=0.15, duplicate=0.2)
    rig = make_rig(n=3, faults=faults, seed=5, heartbeat=0.1)
    rig.pair_all()
    rig.manager.vote_opened(2)
    for round_ in range(3):
        for i in range(3):
            rig.press_acked(i, (i + round_) % 2)
    got = ballots(rig.taken())
    assert sorted(got) == sorted((i + 1, (i + r) % 2) for r in range(3) for i in range(3))
    assert rig.manager.counters["bad_frames"] > 0
    assert all("\n" not in p for p in rig.manager.problems)
    assert all(u.connected for u in rig.manager.units())


def test_a_slow_box_whose_frames_arrive_in_pieces(make_rig):
    rig = make_rig(n=1, faults=Faults(byte_delay=0.003))
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.press_acked(0, 1)
    assert ballots(rig.taken()) == [(1, 1)]


def test_a_flooding_box_is_throttled_and_the_others_still_vote(make_rig):
    rig = make_rig(n=3)
    rig.pair_all()
    rig.sim.boxes[0].faults = Faults(flood=400)
    rig.manager.vote_opened(2)
    rig.wait(lambda: rig.manager.counters["flood_dropped"] > 50, "the flood to be throttled")
    rig.press_acked(1, 1)
    rig.press_acked(2, 0)
    rig.press_acked(0, 1)           # the flooder's press gets through on a retry
    assert sorted(ballots(rig.taken())) == [(1, 1), (2, 1), (3, 0)]
    assert "flooding" in rig.manager.units()[0].detail
    assert any("floods the line" in p for p in rig.manager.problems)


def test_unplugged_mid_vote_shows_missing_and_the_ballot_stands_when_back(make_rig):
    rig = make_rig(n=3)
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.press_acked(0, 1)
    rig.wait(lambda: rig.sim.boxes[0].leds[0] == LED_RECORDED, "vote-received LED")
    rig.sim.unplug(0)
    rig.wait(lambda: not rig.manager.units()[0].connected, "box 1 shown missing")
    assert rig.manager.units()[0].detail == "unplugged"
    assert rig.manager.units()[0].seat == 1
    rig.press_acked(1, 0)            # the vote goes on without it
    rig.sim.replug(0)
    rig.wait(lambda: rig.manager.units()[0].connected, "box 1 back")
    # Back: its ballot still stands, its LED shows it again, and nothing was counted twice.
    rig.wait(lambda: rig.sim.boxes[0].leds[0] == LED_RECORDED, "vote-received LED restored")
    assert rig.manager.acked_ballots() == {1: 1, 2: 0}
    assert ballots(rig.taken()) == [(1, 1), (2, 0)]
    # Its sequence numbers restarted at power-up: a new press with an old number still counts.
    rig.press_acked(0, 0)
    assert ballots(rig.taken()) == [(1, 0)]


def test_a_press_pending_during_the_unplug_is_counted_once(make_rig):
    rig = make_rig(n=2)
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    box.faults = Faults(drop=1.0)    # the press and its retries are lost...
    seq = rig.sim.press(0, 1)
    time.sleep(0.3)
    rig.sim.boxes[0].unplug()
    box.faults = Faults()
    rig.sim.replug(0, power_up=False)  # ...the cable comes back without a power cycle
    rig.wait(lambda: box.is_acked(seq), "the pending press to be acked after the replug")
    time.sleep(0.6)                   # retries that crossed the ACK must not count again
    assert ballots(rig.taken()) == [(1, 1)]


def test_a_box_never_introduced_is_asked_for_hello_and_its_press_dropped(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.sim.boxes[0]._link.write(P.encode(P.make("PRESS", 0xDEAD, 1, keypad=0, button=1)))
    rig.wait(lambda: any("unknown box 0x0000DEAD" in p for p in rig.manager.problems),
             "the unknown box to be logged")
    assert rig.taken() == []


def test_a_box_of_another_protocol_version_is_listed_but_not_counted(make_rig, transport):
    rig = make_rig(n=1)
    rig.pair_all()
    # a box of protocol version 2 on the same port, in place of the first
    stranger = SimBox(0xABCD0001, rig.sim.boxes[0]._make_link, version=2)
    rig.sim.boxes[0].unplug()
    rig.sim.boxes[0] = stranger
    stranger.plug()
    rig.wait(lambda: any(u.ident == "ABCD0001" for u in rig.manager.units()), "v2 box listed")
    rig.manager.vote_opened(2)
    seq = stranger.press(1)
    # answered (so it stops retransmitting), never read as a ballot
    rig.wait(lambda: stranger.is_acked(seq), "the v2 box's press answered")
    assert [a.status for a in stranger.acks if a.acked == seq] == [P.ACK_IGNORED]
    time.sleep(0.4)
    assert ballots(rig.taken()) == [] and not stranger.pending
    unit = [u for u in rig.manager.units() if u.ident == "ABCD0001"][0]
    assert "speaks protocol v2" in unit.detail


def test_a_hub_serves_one_seat_per_keypad(make_rig):
    rig = make_rig(n=1, keypads=4)
    assert [u.ident for u in rig.manager.units()] == ["B0C50001/%d" % k for k in range(4)]
    rig.pair_all()
    rig.manager.vote_opened(3)
    for k in (3, 0, 2):
        rig.press_acked(0, k % 3, keypad=k)
    assert ballots(rig.taken()) == [(4, 0), (1, 0), (3, 2)]
    assert rig.sim.boxes[0].leds == [LED_RECORDED, LED_OPEN, LED_RECORDED, LED_RECORDED]


def test_acknowledged_ballots_can_be_posted_again(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.press_acked(0, 1)
    rig.press_acked(1, 0)
    rig.taken()
    rig.manager.repost()
    assert ballots(rig.taken()) == [(1, 1), (2, 0)]


def test_a_damaged_pairing_file_is_kept_aside_with_one_line(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    (data / "boxes.json").write_text('{"seats": [{"box": "zz"')
    m = BoxManager(str(data), ports=[])
    assert m.seats() == {}
    [problem] = m.problems
    assert "pairing file" in problem and "\n" not in problem
    assert (data / "boxes.json.bad").exists()
    m.pair(2)
    (data / "boxes.json").write_text(json.dumps(
        {"version": 1, "seats": [{"box": "B0C50001", "keypad": 0, "seat": 2}]}))
    assert BoxManager(str(data), ports=[]).seats() == {("B0C50001", 0): 2}


def test_pyserial_loopback_carries_the_same_protocol(tmp_path):
    # loop:// hears its own writes: the host's WELCOME and ACKs come back and must be ignored
    # as echoes, while box frames written into the loop are read like any port's.
    got, q = [], CommandQueue()
    m = BoxManager(str(tmp_path), ports=["loop://"])
    m.start(q.post)
    try:
        deadline = time.monotonic() + 5
        port = hello_on_loop(m, deadline, fw_major=2, fw_minor=5)
        assert m.units()[0].firmware == "2.5"
        m.pair(4)
        m.vote_opened(2)
        for seq in (2, 3, 3):
            with port.write_lock:
                port.serial.write(P.encode(P.make("PRESS", 0x1234, seq, keypad=0, button=1)))
        while len(got) < 2 or m.counters["duplicates"] < 1:
            q.drain(got.append)
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert [(c.kind, c.data.get("seat")) for c in got] == [("box_pressed", 4),
                                                               ("cast_ballot", 4)]
        assert m.counters["echo"] > 0 and m.counters["bad_frames"] == 0
    finally:
        m.stop()


def test_a_port_that_cannot_be_opened_is_retried_not_fatal(tmp_path):
    m = BoxManager(str(tmp_path), ports=[str(tmp_path / "nothing-here")])
    m.start(lambda c: None)
    time.sleep(0.3)
    port = m._ports[str(tmp_path / "nothing-here")]
    assert "nothing-here" in port.problem and port.thread.is_alive()
    m.stop()


def test_a_box_flooding_presses_loses_the_excess_and_nothing_counts_twice(rig):
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    burst = b"".join(P.encode(P.make("PRESS", box.box_id, 1000 + k, keypad=0, button=k % 2))
                     for k in range(300))
    box._link.write(burst)
    rig.wait(lambda: rig.manager.counters["flood_dropped"] > 0, "the press flood throttled")
    time.sleep(0.3)
    got = ballots(rig.taken())
    acked = {a.acked for a in box.acks if a.acked >= 1000}
    # every counted press was acknowledged and the rest were not, so a real box would retry them
    assert 0 < len(got) < 300 and len(got) == len(acked)
    assert got == [(1, (s - 1000) % 2) for s in sorted(acked)]
    rig.press_acked(1, 1)            # the other boxes are unaffected
    assert ballots(rig.taken()) == [(2, 1)]


def test_a_failing_post_loses_no_ballot_the_box_believes_received(make_rig):
    rig = make_rig(n=1, retry=0.05)
    rig.pair_all()
    rig.manager.vote_opened(2)
    fails = {"left": 2}
    real_post = rig.manager._post

    def flaky(cmd, done=None):
        if cmd.kind == "cast_ballot" and fails["left"]:
            fails["left"] -= 1
            raise RuntimeError("queue full")
        real_post(cmd, done)
    rig.manager._post = flaky
    rig.press_acked(0, 1)            # acked only once the post went through
    assert fails["left"] == 0
    assert ballots(rig.taken()) == [(1, 1)]
    assert any("could not handle a frame" in p for p in rig.manager.problems)
    assert all(t.is_alive() for t in (p.thread for p in rig.manager._ports.values()))


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,                                    # nested too deep to read
    json.dumps({"seats": {"B0C50001": 2}}),
    json.dumps({"seats": [["B0C50001", 0, 2]]}),
    json.dumps({"seats": [{"box": 0xB0C50001, "keypad": 0, "seat": 2}]}),
    json.dumps({"seats": [{"box": "-1", "keypad": 0, "seat": 2}]}),
    json.dumps({"seats": [{"box": "B0C50001", "keypad": "1", "seat": 2}]}),
    json.dumps({"seats": [{"box": "B0C50001", "keypad": 0, "seat": 2.5}]}),
    json.dumps({"seats": [{"box": "B0C50001", "keypad": 0, "seat": True}]}),
    json.dumps({"seats": [{"box": "B0C50001", "keypad": 0, "seat": 0}]}),
    json.dumps({"seats": [{"box": "B0C50001", "keypad": 0, "seat": 2},
                          {"box": "B0C50002", "keypad": 0, "seat": 2}]}),   # one seat, two keypads
])
def test_a_pairing_file_with_wrong_values_starts_unpaired_and_is_kept(tmp_path, text):
    data = tmp_path / "d"
    data.mkdir()
    (data / "boxes.json.bad").write_text("an older damaged copy")
    (data / "boxes.json").write_text(text)
    m = BoxManager(str(data), ports=[])
    assert m.seats() == {}
    [problem] = m.problems
    assert "pairing file" in problem and "\n" not in problem and len(problem) < 400
    assert (data / "boxes.json.bad2").read_text() == text      # kept, byte for byte
    assert (data / "boxes.json.bad").read_text() == "an older damaged copy"
    assert m.pairing_problem == (str(data / "boxes.json"), m.pairing_problem[1], str(data / "boxes.json.bad2"))
