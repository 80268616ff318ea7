"""No ballot lost or misattributed (issue 14): a box reset on an open port, two boxes with one
id, "received" only once the journal has the ballot, the newer choice whatever the order, every
dropped frame logged, no port written under the manager's lock, the injected clock. Every test
runs the real host against virtual boxes on real pseudo-terminals and in-process wires."""
from __future__ import annotations

import json
import logging
import threading
import time

import pytest

from companion.core.inputs import CommandQueue
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import demo
from companion.games.knives23.rules import Knives23Rules
from hardware import protocol as P
from hardware.manager import BoxManager
from hardware.sim import LED_RECORDED, SimulatedBoxes
from hardware.source import BoxSource
from tests.hardware.conftest import hello_on_loop


def ballots(commands):
    return [(c.data["seat"], c.data["option"]) for c in commands if c.kind == "cast_ballot"]


def acks_of(box, seq):
    with box._lock:
        return [a.status for a in box.acks if a.acked == seq]


# ------------------------------------------------------------------ a reset on an open port
@pytest.mark.parametrize("heartbeat_first", [False, True], ids=["press-first", "heartbeat-first"])
def test_a_box_reset_on_an_open_port_has_its_presses_counted(make_rig, heartbeat_first):
    rig = make_rig(n=2, heartbeat=0.3)
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    before = [rig.press_acked(0, k % 2) for k in range(8)]
    rig.wait(lambda: rig.manager.units()[0].last_seen and not box.pending, "heartbeats")
    time.sleep(0.4)                      # a heartbeat with nothing pending
    box.restart(lose_hello=True)         # the power-up HELLO is lost: only the seq tells
    if heartbeat_first:
        time.sleep(0.5)
    after = [rig.press_acked(0, (k + 1) % 2) for k in range(8)]
    assert set(after) & set(before), "the test must reuse sequence numbers the host has seen"
    assert ballots(rig.taken()) == [(1, k % 2) for k in range(8)] + [(1, (k + 1) % 2)
                                                                      for k in range(8)]
    assert rig.manager.acked_ballots()[1] == 0
    assert box.leds[0] == LED_RECORDED


# ------------------------------------------------------------------ the same id on two ports
@pytest.fixture
def twins(tmp_path, transport):
    sim = SimulatedBoxes(n=2, transport=transport, heartbeat=0.3)
    sim.boxes[1].box_id = sim.boxes[0].box_id          # a cloned EEPROM
    data = tmp_path / "data"
    data.mkdir()
    (data / "boxes.json").write_text(json.dumps(
        {"version": 1, "seats": [{"box": "B0C50001", "keypad": 0, "seat": 1}]}))
    sim.start()
    q, handled = CommandQueue(), []
    m = BoxManager(str(data), ports=sim.ports)
    m.start(q.post)

    def drain():
        q.drain(handled.append)
        return handled
    sim.wait(lambda: len([u for u in m.units() if u.connected]) == 2, what="both boxes")
    yield sim, m, drain
    m.stop()
    sim.stop()


def test_two_boxes_with_one_id_are_flagged_and_neither_counts_until_one_is_kept(twins):
    sim, m, drain = twins
    units = m.units()
    assert [u.ident for u in units] == ["B0C50001", "B0C50001"]
    assert all(u.conflict and "neither counts" in u.detail for u in units)
    assert {u.url for u in units} == set(sim.urls)
    news = [c for c in drain() if c.kind == "box_conflict"]
    assert len(news) == 1 and news[0].data["box"] == "B0C50001"
    assert sorted(news[0].data["ports"]) == sorted(sim.urls) and "\n" not in news[0].data["message"]
    source = BoxSource.__new__(BoxSource)
    source.manager = m
    assert [d.conflict for d in source.devices()] == [True, True]

    m.vote_opened(2)
    seqs = [sim.press(0, 1), sim.press(1, 0)]
    for box, seq in zip(sim.boxes, seqs):
        sim.wait(lambda: acks_of(box, seq) == [P.ACK_IGNORED], what="the ignored answer")
    handled = drain()
    assert ballots(handled) == []
    assert [c.data["ignored"] for c in handled if c.kind == "box_pressed"] == ["duplicate id"] * 2

    m.keep("B0C50001", sim.urls[0])                      # the table keeps the first one
    units = {u.url: u for u in m.units()}
    assert not units[sim.urls[0]].conflict and "which the table kept" in units[sim.urls[1]].detail
    seq0, seq1 = sim.press(0, 1), sim.press(1, 0)
    sim.wait(lambda: drain() and ballots(drain()) == [(1, 1)], what="the kept box's ballot")
    sim.wait(lambda: acks_of(sim.boxes[0], seq0) == [P.ACK_RECORDED], what="recorded")
    sim.wait(lambda: acks_of(sim.boxes[1], seq1) == [P.ACK_IGNORED], what="the other ignored")
    assert m.acked_ballots() == {1: 1}


# ------------------------------------------------------------------ "received" after the journal
def test_a_ballot_is_answered_only_once_it_is_in_the_journal_and_survives_an_app_crash(
        tmp_path, transport):
    """The app dies between the box's press and the journal: the box got no answer, keeps
    retransmitting, and the restarted app counts it."""
    path = tmp_path / "journal.sqlite3"
    session = GameSession.start(Journal(path), Knives23Rules(), demo.SETUP)
    for cmd in demo.commands():
        if cmd.kind == "cast_ballot":
            break
        session.execute(cmd)
    vote = session.view("table")["vote"]
    assert vote and not vote["revealed"]
    sim = SimulatedBoxes(n=1, transport=transport).start()
    box = sim.boxes[0]
    q = CommandQueue()
    source = BoxSource(str(tmp_path / "boxes"), ports=sim.ports)
    source.start(q.post)
    try:
        sim.wait(lambda: any(d.connected for d in source.devices()), what="the box")
        source.pair(1)
        seq = sim.press(0, 0)
        sim.wait(lambda: box.is_acked(seq), what="pairing")
        source.on_attach(session.events)     # the app attached its game: the vote is open
        seq = sim.press(0, vote["options"].index("remain"))
        time.sleep(0.8)                      # three retransmissions: posted once, not answered
        assert not box.is_acked(seq) and box.pending
        assert source.manager.counters["duplicates"] >= 2
    finally:
        source.stop()                        # the app crashes: its queue is gone, undrained
    assert not q.empty()

    session = GameSession.resume(Journal(path), session.game_id, Knives23Rules())
    q2 = CommandQueue()
    source2 = BoxSource(str(tmp_path / "boxes"), ports=sim.ports)
    answered_before_commit = []

    def handle(cmd):
        if cmd.kind == "cast_ballot":
            answered_before_commit.append(box.is_acked(seq))
            source2.on_events(session.execute(cmd))

    source2.start(q2.post)
    try:
        source2.on_attach(session.events)    # the table resumed the game
        deadline = time.monotonic() + 10
        while not box.is_acked(seq):
            q2.drain(handle, wait=0.05)
            assert time.monotonic() < deadline, "the retransmitted press was never answered"
        assert answered_before_commit == [False]
        assert acks_of(box, seq) == [P.ACK_RECORDED]
        cast = [e for e in Journal(path).events(session.game_id) if e.kind == "ballot_cast"]
        assert [(e.data["voter"], e.source) for e in cast] == [("Ann", "box:B0C50001")]
        sim.wait(lambda: box.leds[0] == LED_RECORDED, what="the vote-received LED")
    finally:
        source2.stop()
        sim.stop()


def test_a_refused_ballot_is_answered_ignored_and_a_storage_fault_gets_no_answer(make_rig):
    rig = make_rig(n=1, retry=0.05)
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    from companion.core.events import RuleError
    rig.refuse = lambda c: RuleError("may not vote for themself") if c.kind == "cast_ballot" else None
    seq = rig.press_acked(0, 1)
    assert acks_of(box, seq) == [P.ACK_IGNORED] and rig.manager.acked_ballots() == {}
    faults = {"left": 3}

    def disk_full(c):
        if c.kind == "cast_ballot" and faults["left"]:
            faults["left"] -= 1
            return OSError(28, "No space left on device")
    rig.refuse = disk_full
    seq = rig.sim.press(0, 0)
    rig.wait(lambda: box.is_acked(seq), "the ballot, once the journal took it")
    assert faults["left"] == 0 and acks_of(box, seq) == [P.ACK_RECORDED]
    assert ballots(rig.taken()) == [(1, 0)] and rig.manager.acked_ballots() == {1: 0}


# ------------------------------------------------------------------ the newer choice wins
def test_an_older_press_arriving_after_a_newer_one_is_not_the_ballot(make_rig):
    rig = make_rig(n=1)
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    with box._lock:
        old, new = box._next_seq(), box._next_seq()
    box._link.write(P.encode(P.make("PRESS", box.box_id, new, keypad=0, button=1)))
    rig.wait(lambda: acks_of(box, new) == [P.ACK_RECORDED], "the newer press recorded")
    stale = P.encode(P.make("PRESS", box.box_id, old, keypad=0, button=0))
    box._link.write(stale)               # the older press arrives late
    rig.wait(lambda: rig.manager.counters["seq_doubts"] >= 1, "the stale press noticed")
    rig.wait(lambda: rig.manager.units()[0].connected and rig.manager._boxes[
        (box.box_id, rig.manager.units()[0].url)].confirmed, "the box's HELLO")
    box._link.write(stale)               # and again: answered "ignored" now
    rig.wait(lambda: acks_of(box, old) == [P.ACK_IGNORED], "the stale press answered")
    assert ballots(rig.taken()) == [(1, 1)] and rig.manager.acked_ballots() == {1: 1}


def test_a_hubs_late_press_of_another_keypad_still_counts(make_rig):
    # "newer" is per keypad: keypad 0's press arriving after keypad 1's newer one is its ballot
    rig = make_rig(n=1, keypads=2)
    rig.pair_all()
    rig.manager.vote_opened(2)
    box = rig.sim.boxes[0]
    with box._lock:
        first, second = box._next_seq(), box._next_seq()
    box._link.write(P.encode(P.make("PRESS", box.box_id, second, keypad=1, button=1)))
    rig.wait(lambda: acks_of(box, second) == [P.ACK_RECORDED], "keypad 1's press")
    late = P.encode(P.make("PRESS", box.box_id, first, keypad=0, button=0))
    box._link.write(late)
    rig.wait(lambda: rig.manager.counters["seq_doubts"] >= 1, "the late press noticed")
    url = rig.manager.units()[0].url
    rig.wait(lambda: rig.manager._boxes[(box.box_id, url)].confirmed, "the box's HELLO")
    box._link.write(late)                    # retransmitted: keypad 0 had no newer press
    rig.wait(lambda: acks_of(box, first) == [P.ACK_RECORDED], "keypad 0's press counted")
    assert ballots(rig.taken()) == [(2, 1), (1, 0)]


# ------------------------------------------------------------------ every dropped frame logged
def test_every_dropped_frame_is_logged_with_its_reason(make_rig, caplog):
    rig = make_rig(n=1)
    box = rig.sim.boxes[0]
    caplog.set_level(logging.INFO, logger="hardware.boxes")
    good = bytearray(P.encode(P.make("HEARTBEAT", box.box_id, 60000, battery=50, pending=0)))
    good[-3] ^= 0x40                         # a CRC byte: a wrong checksum
    before = rig.manager.counters["bad_frames"]
    for _ in range(25):
        box._link.write(bytes(good))
    rig.wait(lambda: rig.manager.counters["bad_frames"] - before == 25, "25 bad frames")
    lines = [r.getMessage() for r in caplog.records if "wrong checksum" in r.getMessage()]
    assert len(lines) == 25 and all(ln.startswith("dropped a frame on ") for ln in lines)
    # people are told once, not 25 times
    assert len([p for p in rig.manager.problems if "wrong checksum" in p]) == 1


# ------------------------------------------------------------------ writing
def test_no_port_is_written_while_the_managers_lock_is_held(make_rig):
    rig = make_rig(n=2)
    owned = []
    lock = rig.manager._lock
    for port in rig.manager._ports.values():
        real = port.serial.write

        def write(data, real=real):
            owned.append(lock._is_owned())
            return real(data)
        port.serial.write = write
    rig.pair_all()
    rig.manager.vote_opened(2)
    rig.press_acked(0, 1)
    rig.press_acked(1, 9)                  # ignored: beyond the options
    rig.manager.revealed()
    rig.wait(lambda: len(owned) >= 7, "the frames written")
    assert not any(owned)


def test_a_stuck_port_stalls_neither_the_main_thread_nor_the_other_boxes(make_rig):
    rig = make_rig(n=2)
    rig.pair_all()
    gate = threading.Event()
    port = rig.manager._ports[rig.sim.urls[0]]
    real = port.serial.write

    def stuck(data):
        gate.wait()
        return real(data)
    port.serial.write = stuck              # box 1's USB write hangs (up to its timeout)
    try:
        call = threading.Thread(target=lambda: (rig.manager.vote_opened(2),
                                                rig.manager.units()))
        call.start()
        call.join(5)
        assert not call.is_alive(), "the main thread waited for a stuck port"
        rig.press_acked(1, 1)                # another box votes meanwhile
        assert ballots(rig.taken()) == [(2, 1)]
    finally:
        gate.set()


# ------------------------------------------------------------------ the injected clock
class FrozenClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_host_reads_only_the_injected_clock(tmp_path):
    clock = FrozenClock()
    m = BoxManager(str(tmp_path), ports=["loop://"], clock=clock)
    m.start(CommandQueue().post)
    try:
        deadline = time.monotonic() + 5
        while m.counters["echo"] < 1:                  # the WELCOME on opening, heard back
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(1.5)                                # real time passes, the clock does not
        assert m.counters["echo"] == 1
        clock.now += 1.0                               # a second on the injected clock
        while m.counters["echo"] < 2:                  # "again once a second"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        hello_on_loop(m, deadline)
        assert m.units()[0].last_seen == clock.now and m.units()[0].connected
        clock.now += 10
        assert not m.units()[0].connected             # missing, by the injected clock
    finally:
        m.stop()

