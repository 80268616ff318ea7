"""Box ballots under faults (issue 34, items 1-6), each against the real host driver on real
pseudo-terminals (the project's simulated boxes, or frames written here from docs/protocol.md),
real journal files and real faults: a full disk in a private mount namespace, a journal write
lock held by another process, the real app leaving its game and undoing a box ballot."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.core.inputs import CommandQueue
from hardware import protocol as P
from hardware.manager import BoxManager
from hardware.sim import LED_IGNORED, LED_OPEN, LED_RECORDED, SimulatedBoxes
from hardware.source import BoxSource
from tests.hardware.knives_vote import pair_boxes, session_in_the_vote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def ballots(commands):
    return [(c.data["seat"], c.data["option"]) for c in commands if c.kind == "cast_ballot"]


def acks_of(box, seq):
    with box._lock:
        return [a.status for a in box.acks if a.acked == seq]


def run_storage(mode, folder, wrap=()):
    proc = subprocess.run([*wrap, sys.executable, str(HERE / "box_storage_run.py"), mode, folder],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-2000:] + proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


def check_storage_run(run, error):
    # While the storage failed: no answer at all (never "ignored"), the box keeps its press.
    assert run["during"] == [] and run["pending_during"], run
    assert error in run["errors"] and run["failed_posts"] >= 1, run
    # Once the storage is back, the retransmitted press counts, once, answered "recorded".
    assert run["after"] == [P.ACK_RECORDED] and run["led"] == LED_RECORDED, run
    assert run["journal"] == [["Ann", "exile", "box:B0C50001"]], run


# ------------------------------------------------------------------ 1. storage faults
def test_1_a_full_disk_freed_mid_vote_leaves_the_press_waiting_and_counts_it_after(tmp_path):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a private tmpfs")
    folder = tmp_path / "small"
    folder.mkdir()
    script = 'mount -t tmpfs -o size=2m tmpfs "$1" && shift && exec "$@"'
    run = run_storage("full", str(folder), wrap=("unshare", "-m", "sh", "-c", script, "sh",
                                                 str(folder)))
    check_storage_run(run, "StorageFull")
    assert run["failed_posts"] <= 5, "retried at most once a second: %s" % run


def test_1_a_journal_locked_7_s_by_another_process_leaves_the_press_waiting(tmp_path):
    run = run_storage("lock", str(tmp_path))
    check_storage_run(run, "StorageUnavailable")


# ------------------------------------------------------------------ 4. pairing during a vote
def test_4_pairing_a_seat_during_a_vote_does_not_take_a_voters_press(make_rig):
    rig = make_rig(n=3)
    for i in range(2):                       # Cy and Ann have their boxes; box 3 is new
        rig.manager.pair(i + 1)
        rig.press_acked(i, 0)
    rig.taken()
    rig.manager.vote_opened(2)
    rig.manager.pair(3)                      # the table pairs Hal's seat during the vote
    seq = rig.press_acked(0, 1)              # Cy votes meanwhile
    assert acks_of(rig.sim.boxes[0], seq) == [P.ACK_RECORDED]
    assert ballots(rig.taken()) == [(1, 1)] and rig.manager.acked_ballots() == {1: 1}
    assert rig.manager.pairing_seat == 3     # still waiting for Hal's box
    seq = rig.press_acked(2, 0)              # Hal's own (unpaired) box pairs
    assert acks_of(rig.sim.boxes[2], seq) == [P.ACK_PAIRED]
    assert rig.manager.seats() == {("B0C50001", 0): 1, ("B0C50002", 0): 2, ("B0C50003", 0): 3}
    rig.press_acked(0, 0)                    # Cy's next press is still Cy's ballot
    assert ballots(rig.taken()) == [(1, 0)] and rig.manager.acked_ballots() == {1: 0}
    rig.manager.revealed()                   # no vote open: a paired box may move seats
    rig.manager.pair(2)
    seq = rig.press_acked(0, 1)
    assert acks_of(rig.sim.boxes[0], seq) == [P.ACK_PAIRED]
    assert rig.manager.seats()[("B0C50001", 0)] == 2


# ------------------------------------------------------------------ 5. replayed frames
@pytest.mark.parametrize("boot", ["same boot", "earlier boot"])
def test_5_a_replayed_power_up_hello_and_old_press_do_not_flip_a_changed_ballot(make_rig, boot):
    rig = make_rig(n=1, heartbeat=0.2)
    rig.pair_all()
    box = rig.sim.boxes[0]
    if boot == "earlier boot":
        box.restart(lose_hello=False)        # boot 2; the replay is boot 1's power-up HELLO
        rig.wait(lambda: rig.manager._boxes[(box.box_id, box.url)].boot == box.boot
                 and rig.manager.units()[0].connected, "the restart seen")
    rig.manager.vote_opened(2)
    old = rig.press_acked(0, 0)              # exile...
    rig.press_acked(0, 1)                    # ...changed to remain
    assert rig.manager.acked_ballots() == {1: 1}
    time.sleep(0.5)                          # heartbeats: nothing waits
    replay_boot = box.boot if boot == "same boot" else box.boot - 1
    hello = P.make("HELLO", box.box_id, 1, version=1, fw_major=1, fw_minor=0, keypads=1,
                   buttons=box.buttons, reason=P.REASON_POWER_UP, boot=replay_boot)
    box._link.write(P.encode(hello))
    box._link.write(P.encode(P.make("PRESS", box.box_id, old, keypad=0, button=0)))
    time.sleep(1.0)
    box._link.write(P.encode(P.make("PRESS", box.box_id, old, keypad=0, button=0)))
    time.sleep(1.0)
    assert ballots(rig.taken()) == [(1, 0), (1, 1)]
    assert rig.manager.acked_ballots() == {1: 1}
    assert rig.manager.counters["stale_hellos"] >= 1
    seq = rig.press_acked(0, 0)              # the box itself still votes
    assert acks_of(box, seq) == [P.ACK_RECORDED] and rig.manager.acked_ballots() == {1: 0}


# ------------------------------------------------------------------ 6. the counter wraps
class PtyBox:
    """A box written from docs/protocol.md on a real pseudo-terminal: the host opens the slave,
    the box reads and writes the master. It answers WELCOME with HELLO and keeps the emulated
    time (``ticks`` / 25: a frame takes 40 ms, a heartbeat each) that the host's clock reads."""

    RATE = 25.0

    def __init__(self, box_id=0xB0C5A001, boot=7):
        self.master, slave = os.openpty()
        self.url = os.ttyname(slave)
        self._slave = slave
        self.box, self.boot, self.seq = box_id, boot, 0
        self.frames = 0     # frames written
        self.ticks = 0      # the box's time, in 1/RATE s: a frame each, and waits
        self.reader = P.FrameReader()
        self.heard: list[P.Message] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def clock(self) -> float:
        return self.ticks / self.RATE

    def send(self, kind, seq=None, **fields):
        with self._lock:
            if seq is None:
                self.seq = (self.seq + 1) & 0xFFFF
                seq = self.seq
            os.write(self.master, P.encode(P.make(kind, self.box, seq, **fields)))
            self.frames += 1
            self.ticks += 1
        return seq

    def hello(self, reason):
        return self.send("HELLO", version=1, fw_major=1, fw_minor=0, keypads=1, buttons=2,
                         reason=reason, boot=self.boot)

    def _read(self):
        import select
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            for m in self.reader.feed(data):
                if isinstance(m, P.Message):
                    self.heard.append(m)
                    if m.type == P.WELCOME:
                        self.hello(P.REASON_ANSWER)

    def acks(self, seq, since=0):
        return [m.status for m in list(self.heard)[since:] if m.type == P.ACK and m.acked == seq]

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self.master)
        os.close(self._slave)


def wait_for(pred, what, timeout=20.0, poll=0.01):
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out waiting for " + what
        time.sleep(poll)


@pytest.mark.parametrize("button", [0, 1], ids=["same button", "other button"])
def test_6_a_press_reusing_a_number_after_the_counter_wrapped_is_counted(tmp_path, button):
    box = PtyBox()
    data = pair_boxes(tmp_path / "boxes", "%08X" % box.box)
    queue, handled = CommandQueue(), []
    m = BoxManager(str(data), ports=[box.url], clock=box.clock)
    m.start(queue.post)
    try:
        wait_for(lambda: any(x.type == P.WELCOME for x in box.heard), "the WELCOME")
        wait_for(lambda: m.units() and m.units()[0].connected, "the box")
        m.vote_opened(2)

        def settle(seq, since=0):
            end = time.monotonic() + 20
            while not box.acks(seq, since):
                queue.drain(handled.append)
                assert time.monotonic() < end, "no answer to seq %d" % seq
                box.send("PRESS", seq=seq, keypad=0, button=pressed[seq])   # retransmitted
                box.ticks += 6                    # 250 ms between retries
                time.sleep(0.02)
        pressed = {}
        first = box.send("PRESS", keypad=0, button=0)
        pressed[first] = 0
        settle(first)
        box.send("HEARTBEAT", battery=90, pending=0)
        # 65,536 frames after the first press its number comes round again (~18 h of a
        # heartbeat a second; here 25 a second of the box's time, the host's clock)
        while (box.seq + 1) & 0xFFFF != first:
            box.send("HEARTBEAT", battery=90, pending=0)
            if box.seq % 40 == 0:   # the host reads them as they come (its clock is the box's)
                wait_for(lambda: m.counters["frames"] >= box.frames - 10, "the host", 30, 0.001)
        wait_for(lambda: m.counters["frames"] >= box.frames - 3, "the host to read them", 30)
        assert m.counters["flood_dropped"] == 0
        since = len(box.heard)
        again = box.send("PRESS", keypad=0, button=button)
        assert again == first
        pressed[again] = button
        settle(again, since)
        queue.drain(handled.append)
        assert set(box.acks(again, since)) == {P.ACK_RECORDED}
        assert ballots(handled) == [(1, 0), (1, button)], "the new press was not counted"
        assert m.acked_ballots() == {1: button}
    finally:
        m.stop()
        box.close()


# ------------------------------------------------------------------ 3. undo, with the driver
def test_3_undo_of_a_box_ballot_tells_the_box_to_vote_again_and_redo_brings_it_back(tmp_path):
    session, _journal = session_in_the_vote(tmp_path / "journal.sqlite3")
    options = session.view("table")["vote"]["options"]
    pair_boxes(tmp_path / "boxes", "B0C50001")
    sim = SimulatedBoxes(n=1, heartbeat=0.2).start()
    box = sim.boxes[0]
    queue = CommandQueue()
    source = BoxSource(str(tmp_path / "boxes"), ports=sim.ports)
    source.start(queue.post)

    def drain_until(pred, what):
        end = time.monotonic() + 10
        while not pred():
            queue.drain(lambda c: source.on_events(session.execute(c)), wait=0.02)
            assert time.monotonic() < end, "timed out waiting for " + what
    try:
        sim.wait(lambda: any(d.connected for d in source.devices()), what="the box")
        source.on_attach(session.events)
        seq = sim.press(0, options.index("exile"))
        drain_until(lambda: box.leds[0] == LED_RECORDED, "Ann's ballot recorded")
        source.on_events(session.undo())              # the table takes it back
        assert "Ann" not in session.view("table")["vote"]["voted"]
        sim.wait(lambda: box.leds[0] == LED_IGNORED, what="the box told to vote again")
        assert acks_of(box, seq) == [P.ACK_RECORDED, P.ACK_IGNORED]
        assert source.manager.acked_ballots() == {}
        heard = len(box.acks)
        box.unplug()
        box.plug(power_up=False)                      # back on the cable: HELLO, no "recorded"
        time.sleep(1.0)
        assert box.leds[0] != LED_RECORDED
        assert not [a for a in box.acks[heard:] if a.status == P.ACK_RECORDED]
        source.on_events(session.redo())              # the ballot stands again
        sim.wait(lambda: box.leds[0] == LED_RECORDED, what="recorded again after the redo")
        assert source.manager.acked_ballots() == {1: options.index("exile")}
        source.on_events(session.undo())
        sim.wait(lambda: box.leds[0] == LED_IGNORED, what="taken back again")
        seq = sim.press(0, options.index("remain"))   # Ann votes again
        drain_until(lambda: box.is_acked(seq), "the new ballot")
        assert acks_of(box, seq) == [P.ACK_RECORDED]
        assert session.view("table")["vote"]["voted"] == ["Ann"]
        assert source.manager.acked_ballots() == {1: options.index("remain")}
    finally:
        source.stop()
        sim.stop()


# ------------------------------------------------------------------ 2 and 3 in the real app
@pytest.fixture(scope="module")
def app_run(tmp_path_factory):
    """One run of the real app (its own process, under X): app_box_leave_undo_run.py."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    folder = tmp_path_factory.mktemp("app34")
    proc = subprocess.run([sys.executable, str(HERE / "app_box_leave_undo_run.py"),
                           str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=180)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.app
def test_3_the_real_app_undoing_a_box_ballot_never_tells_the_box_recorded_again(app_run):
    undo = app_run["undo"]
    assert undo["voted_after_undo"] == []
    assert undo["led_after_undo"] == LED_IGNORED          # told to vote again
    # back on the cable (HELLO): not told "recorded" again; the simulated box keeps its red
    # "ignored" light (the firmware flashes it, then shows "open")
    assert undo["recorded_after_hello"] == []
    assert undo["led_after_hello"] in (LED_IGNORED, LED_OPEN)
    assert undo["voted_after_revote"] == ["Ann"]


@pytest.mark.app
def test_2_the_real_app_at_the_game_picker_leaves_a_press_unanswered_until_the_resume(app_run):
    leave = app_run["leave"]
    assert leave["answers_at_picker"] == [] and leave["pending_at_picker"]
    assert leave["answers_after_resume"] == [P.ACK_RECORDED]
    assert leave["journal"] == [["Ann", "remain", "box:B0C50001"],
                                ["Cy", "exile", "box:B0C50003"],
                                ["Ann", "exile", "box:B0C50001"],
                                ["Bo", "exile", "box:B0C50002"]]


@pytest.mark.app
def test_4_the_real_app_pairing_a_seat_during_a_vote_leaves_a_voters_press_a_ballot(app_run):
    pairing = app_run["pairing"]
    assert pairing["answers"] == [P.ACK_RECORDED]            # Ann's ballot, not a pairing
    assert pairing["waiting"] == 4                           # still waiting for Di's box
    assert pairing["seats"] == {"B0C50001/0": 1, "B0C50002/0": 2, "B0C50003/0": 3}
    assert pairing["hint_shown"]                             # the panel says so


@pytest.mark.app
def test_1_the_real_app_on_a_full_disk_freed_mid_vote_counts_the_press_after(tmp_path):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a private tmpfs")
    folder = tmp_path / "small"
    folder.mkdir()
    script = 'mount -t tmpfs -o size=8m tmpfs "$1" && shift && exec "$@"'
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), sys.executable,
                           str(HERE / "app_box_full_disk_run.py"), str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    run = json.loads(lines[-1][len("RESULT "):])
    assert run["looks"] >= 2 and run["answers_full"] == [] and run["pending_full"], run
    said = [t for t in run["toasts"] if t.startswith("box:")]   # (not the low-space warning)
    assert said and all("storage is full" in t and "sends it again" in t for t in said), said
    assert run["answers_after"] == [P.ACK_RECORDED] and run["voted"] == ["Ann"]
    assert run["journal"] == [["Ann", "exile", "box:B0C50001"]]


@pytest.mark.app
def test_1_the_real_app_with_its_journal_locked_7_s_leaves_the_press_waiting(app_run):
    lock = app_run["lock"]
    assert lock["looks"] >= 2 and lock["answers_locked"] == [] and lock["pending_locked"], lock
    assert lock["answers_after"] == [P.ACK_RECORDED] and lock["voted"] == ["Ann", "Cy"]
    # the table reads the storage's own words, not "a ballot was not counted, vote again"
    assert lock["toasts"] and all("in use by another program" in t and "sends it again" in t
                                  for t in lock["toasts"]), lock["toasts"]


# ------------------------------------------------------------------ the document says so
def test_the_protocol_document_states_these_rules_with_the_codes_numbers():
    from hardware import manager as M
    from tests.hardware.test_protocol_doc import says
    says("A ballot the tablet could not record is never answered as refused")
    says("the host posts the retransmission again (at most once a second)")
    assert M.RETRY_GAP == 1.0
    says("the same while the table has left its game for the game picker")
    says("once the box's newest seq is 0x6000 (24,576) or more past it, the host forgets it")
    assert M.SEEN_AGE == 0x6000
    says("A HELLO of the past is not believed")
    says("A keypad paired to another seat is a voter's")
    says("when the table takes the ballot back (Undo at the tablet)")
