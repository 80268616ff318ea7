"""Finding boxes by USB id and hot-plug (hardware.discovery), with the fake port lister as the
USB bus and real pseudo-terminals as the ports: simulated boxes on some, silence on another."""
from __future__ import annotations

import os
import queue

import pytest

from hardware.discovery import (BOX_USB_IDS, FakePortLister, PortInfo, PortWatcher, box_ports,
                                looks_like_box, parse_boxes)
from hardware.sim import SimulatedBoxes
from hardware.source import BoxSource

CH340 = (0x1A86, 0x7523)
UNO = (0x2341, 0x0043)


def usb(device, ids, description="USB Serial"):
    return PortInfo(device, ids[0], ids[1], description)


def test_documented_board_ids_look_like_boxes_and_ports_without_ids_do_not():
    assert looks_like_box(usb("/dev/ttyACM0", UNO, "Arduino Uno"))
    assert looks_like_box(usb("/dev/ttyUSB0", CH340))
    # /dev/ttyS0 as list_ports shows it on this machine: no USB ids, never opened by "auto"
    assert not looks_like_box(PortInfo("/dev/ttyS0", None, None, "n/a"))
    # another vendor's USB device (a phone modem) is not opened either…
    assert not looks_like_box(usb("/dev/ttyACM1", (0x2C7C, 0x0801), "Quectel RM520N-GL"))
    # …unless its product string names a vote box (a box with its own USB firmware)
    assert looks_like_box(usb("/dev/ttyACM2", (0x1209, 0x0001), "Table Companion Vote Box"))
    assert all(len(ids) == 2 and 0 < ids[0] <= 0xFFFF for ids in BOX_USB_IDS)


def test_the_real_lister_runs_here_and_never_offers_a_port_without_usb_ids():
    from hardware.discovery import SerialPortLister
    lister = SerialPortLister()
    listed = lister.ports()
    offered = box_ports(lister)
    assert all(p.vid is not None for p in listed if p.device in offered)
    assert "/dev/ttyS0" not in offered


def test_parse_boxes():
    assert parse_boxes(None) is None and parse_boxes("off") is None and parse_boxes(" ") is None
    assert parse_boxes("auto") == ["auto"] and parse_boxes("AUTO") == ["auto"]
    assert parse_boxes("/dev/pts/3, /dev/ttyUSB0") == ["/dev/pts/3", "/dev/ttyUSB0"]
    assert parse_boxes("auto,/dev/pts/4") == ["auto", "/dev/pts/4"]


def test_the_watcher_reports_ports_that_come_and_go():
    bus = FakePortLister([PortInfo("/dev/ttyS0")])
    added, removed = [], []
    w = PortWatcher(bus, added.append, removed.append, interval=60)
    assert w.scan_once() == ([], [])
    bus.plug(usb("/dev/ttyACM0", UNO))
    bus.plug(usb("/dev/ttyUSB0", CH340))
    assert w.scan_once() == (["/dev/ttyACM0", "/dev/ttyUSB0"], [])
    assert w.scan_once() == ([], [])
    bus.unplug("/dev/ttyACM0")
    assert w.scan_once() == ([], ["/dev/ttyACM0"])
    assert added == ["/dev/ttyACM0", "/dev/ttyUSB0"] and removed == ["/dev/ttyACM0"]


def test_a_lister_that_fails_is_reported_in_one_line_and_the_watcher_goes_on():
    class Broken:
        calls = 0

        def ports(self):
            Broken.calls += 1
            if Broken.calls == 1:
                raise OSError("USB service\nnot running")
            return [usb("/dev/ttyACM0", UNO)]

    added = []
    w = PortWatcher(Broken(), added.append, interval=60)
    assert w.scan_once() == ([], []) and w.problem == "USB service not running"
    assert w.scan_once() == (["/dev/ttyACM0"], []) and w.problem == ""


@pytest.mark.slow
def test_auto_greets_box_like_ports_and_only_a_hello_makes_a_box(tmp_path):
    """'auto' opens the ports with box ids; a silent one (same chip, not a box) never shows up;
    a box plugged in later is found (hot-plug) and its presses reach the app."""
    (tmp_path / "links").mkdir()
    sim = SimulatedBoxes(n=2, directory=str(tmp_path / "links")).start()
    master, slave = os.openpty()          # a CH340 device that is not a box: never says HELLO
    bus = FakePortLister([PortInfo("/dev/ttyS0"),
                          usb(sim.urls[0], CH340), usb(os.ttyname(slave), CH340)])
    source = BoxSource(str(tmp_path / "data"), ports=["auto"], lister=bus)
    source.watcher.interval = 0.1
    commands = queue.Queue()
    source.start(commands.put)
    try:
        sim.wait(lambda: [d.ident for d in source.devices()] == ["B0C50001"], what="box 1", timeout=30)
        assert sorted(source.watcher.present) == sorted([sim.urls[0], os.ttyname(slave)])
        assert os.read(master, 64)        # the silent port was greeted (WELCOME) all the same
        bus.plug(usb(sim.urls[1], UNO, "Arduino Uno"))          # hot-plug
        sim.wait(lambda: len(source.devices()) == 2, what="the plugged-in box", timeout=30)
        source.pair(1)
        seq = sim.press(1, 2)
        sim.wait(lambda: sim.boxes[1].is_acked(seq), what="the pairing press to be acked", timeout=30)
        assert [d.seat for d in source.devices() if d.ident == "B0C50002"] == [1]
        assert ("/dev/ttyS0", "") not in source.port_status()
        assert [url for url, _ in source.port_status()] == sorted(
            [sim.urls[0], sim.urls[1], os.ttyname(slave)])
    finally:
        source.stop()
        sim.stop()
        os.close(master)
        os.close(slave)
