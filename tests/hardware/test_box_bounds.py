"""A faulty or hostile box cannot make the host grow without bound: a port carries one box (a box
inventing ids stays one box), silent boxes are forgotten and the list has a cap, frames from ids
never introduced cost no memory and few warnings, a box that does not read loses the oldest
frames. And no list shows which button a box pressed while a vote is open. Real
pseudo-terminals (and, for the rig, in-process wires too)."""
from __future__ import annotations

import json
import logging
import os
import time

from hardware import protocol as P
from hardware.manager import FORGET_AFTER, MAX_BOXES, MAX_KEYPADS, OUTBOX_MAX, BoxManager, _Port


class PtyBox:
    """A box played by the test on a real pty; it never reads what the host sends."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)

    def write(self, data: bytes):
        for i in range(0, len(data), 4096):
            os.write(self.master, data[i:i + 4096])

    def close(self):
        for fd in (self.master, self.slave):
            os.close(fd)


def hello(box_id, keypads=1, seq=1):
    return P.make("HELLO", box_id, seq, version=1, fw_major=1, fw_minor=0, keypads=keypads,
                  buttons=12, reason=0, boot=1)


def until(predicate, what, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


def started(tmp_path, boxes, **kw):
    m = BoxManager(str(tmp_path), ports=[b.path for b in boxes], **kw)
    m.start(lambda command, done=None: None)
    until(lambda: all(m._ports[b.path].serial is not None for b in boxes), "ports open")
    return m


def test_a_box_inventing_ids_stays_one_box_on_its_port(tmp_path):
    flooder, honest = PtyBox(), PtyBox()
    m = started(tmp_path, [flooder, honest])
    try:
        honest.write(P.encode(hello(0xB0C50002)))
        n = 2000
        flooder.write(b"".join(P.encode(hello(0x30000000 + i, keypads=255)) for i in range(n)))
        last = 0x30000000 + n - 1
        until(lambda: (last, flooder.path) in m._boxes, "the last id")
        # one box per port: each new id replaced the one before (was: 2001 records)
        assert set(m._boxes) == {(0xB0C50002, honest.path), (last, flooder.path)}
        units = m.units()
        flood = [u for u in units if u.url == flooder.path]
        assert len(units) == MAX_KEYPADS + 1 and len(flood) == MAX_KEYPADS   # was 510,001 rows
        assert "says 255 keypads" in flood[0].detail
        assert any(u.ident == "B0C50002" and u.connected for u in units)
        m.vote_opened(3)                  # one VOTE_STATE per listed box, not per id ever seen
        assert m._host_seq < 20
    finally:
        m.stop()
        flooder.close()
        honest.close()


def test_silent_boxes_are_forgotten_and_the_list_has_a_cap(tmp_path):
    now = [1000.0]
    (tmp_path / "boxes.json").write_text(json.dumps(
        {"version": 1, "seats": [{"box": "00000100", "keypad": 0, "seat": 1}]}))
    m = BoxManager(str(tmp_path), clock=lambda: now[0])
    ports = [_Port("fake%d" % i) for i in range(MAX_BOXES + 5)]
    for i, port in enumerate(ports):
        m._ports[port.url] = port
        m._handle(port, hello(0x100 + i))
    assert len(m._boxes) == MAX_BOXES
    assert sum("not listed" in p for p in m.problems) == 5
    now[0] += FORGET_AFTER + 1            # all silent ten minutes: forgotten, seats kept
    m._handle(ports[-1], hello(0x100 + len(ports) - 1))
    assert list(m._boxes) == [(0x100 + len(ports) - 1, ports[-1].url)]
    seated = [u for u in m.units() if u.seat == 1]
    assert [(u.ident, u.detail) for u in seated] == [("00000100", "not seen yet")]


def test_frames_from_ids_never_introduced_cost_no_memory(tmp_path, caplog):
    box = PtyBox()
    # a clock that stands still: whatever the machine's speed, "once a second" is once
    m = started(tmp_path, [box], clock=lambda: 100.0)
    try:
        caplog.set_level(logging.INFO, logger="hardware.boxes")
        n = 20000
        box.write(b"".join(P.encode(P.make("HEARTBEAT", 0x20000000 + i, 1, battery=50,
                                           pending=0)) for i in range(n)))
        until(lambda: m.counters["unknown_box"] >= n, "every frame handled")
        lines = [r for r in caplog.records if "no HELLO here yet" in r.getMessage()]
        assert len(lines) == n                                       # every drop is logged...
        assert sum(r.levelno >= logging.WARNING for r in lines) == 1   # ...one warning a second
        assert len(m._rate_logged) == 1                              # was one key per id
        assert m._host_seq <= 2            # the opening WELCOME and one more (was one per id)
        assert len(m._boxes) == 0 and not hasattr(m._ports[box.path], "welcomed")
    finally:
        m.stop()
        box.close()


def test_a_box_that_does_not_read_costs_at_most_a_bounded_queue(tmp_path):
    box = PtyBox()
    m = started(tmp_path, [box])
    try:
        box.write(P.encode(hello(0xB0C50001)))
        until(lambda: m.units(), "the box")
        for _ in range(20000):            # ~280 KB of VOTE_STATE: more than a pty buffers
            m.vote_opened(2)
        outbox = m._ports[box.path].outbox
        assert outbox.qsize() <= OUTBOX_MAX and outbox.dropped > 0
    finally:
        m.stop()
        box.close()


def test_no_list_shows_the_button_of_a_press_while_a_vote_is_open(make_rig):
    rig = make_rig(n=2)
    rig.manager.pair(1)
    rig.press_acked(0, 0)
    rig.taken()
    rig.manager.vote_opened(3)
    rig.press_acked(0, 2)                # seat 1's ballot
    rig.press_acked(1, 1)                # an unpaired box: ignored, but maybe a secret too
    [pressed] = rig.taken("box_pressed")
    assert (pressed.data["why"], pressed.data["secret"]) == ("unpaired", True)
    details = [u.detail for u in rig.manager.units()]
    assert details[0] == "pressed during a vote" and not any("button" in d for d in details)
    rig.manager.revealed()
    rig.manager.vote_closed()            # a press made in the vote stays hidden afterwards
    assert not any("button" in u.detail for u in rig.manager.units())
    rig.press_acked(0, 1)                # no vote: the button helps find the box
    [pressed] = rig.taken("box_pressed")
    assert (pressed.data["why"], pressed.data["secret"]) == ("no_vote", False)
    assert rig.manager.units()[0].detail == "last press: button 1"
