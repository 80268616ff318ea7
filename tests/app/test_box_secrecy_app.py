"""The real app under X with vote boxes on real pseudo-terminals: no screen tells which button a
box pressed while a vote is open (the devices panel, the toast about an ignored press or a ballot
the rules refused), the toast gives the real reason where it names no button, and a box inventing
ids does not fill the devices panel."""
import json
import os
import re
import time

import pytest

from companion.core.i18n import tr
from hardware import protocol as P
from hardware.sim import SimulatedBoxes
from hardware.source import BoxSource

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]



def names_a_button(texts):
    return [t for t in texts if re.search(r"button \d", t)]


def panel_texts(driver):
    panel = driver.app.screen("devices")
    panel.refresh()
    driver.pump(2)
    return [panel.last_press] + [getattr(w, "text", "") for w in panel.ids.list.children]


@pytest.mark.app
def test_no_screen_names_the_button_a_box_pressed_while_the_vote_is_open(driver, tmp_path):
    app = driver.app
    app.screen("devices").last_press = ""     # an earlier test's message is not this one's
    driver.start_game("masks", NAMES)
    honest = SimulatedBoxes(n=1, heartbeat=0.3, directory=str(tmp_path)).start()
    victim = "%08X" % honest.boxes[0].box_id
    data = tmp_path / "boxes"
    data.mkdir()
    (data / "boxes.json").write_text(json.dumps(
        {"version": 1, "seats": [{"box": victim, "keypad": 0, "seat": 1}]}))
    source = BoxSource(str(data), ports=honest.ports)
    app.add_source(source)
    twin = None
    try:
        driver.pump_until(lambda: any(d.connected for d in app.devices() if d.kind == "box"),
                   "the box")
        for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
            assert app.send(kind), kind
        driver.pump(4)
        assert app.view["vote"] and not app.view["vote"].get("revealed")
        seq = honest.press(0, 1)                 # seat 1's secret ballot
        driver.pump_until(lambda: honest.boxes[0].is_acked(seq), "the ballot recorded")
        # Ann's own seat: the rules refuse it, and their reason ("Ann cannot vote for themself")
        # would tell the table what she pressed. The toast says only that it was not counted.
        seq = honest.press(0, 0)
        driver.pump_until(lambda: honest.boxes[0].is_acked(seq), "the self press answered")
        expected = f"box:{victim}: " + tr("app.ballot_not_counted")
        driver.pump_until(lambda: app.root.ids.toast.message == expected, "the toast")
        driver.screenshot("hardware/box_press_refused_during_vote")
        assert not any("themself" in t for t in driver.visible_texts())
        app.goto("devices")
        texts = panel_texts(driver)
        [line] = [t for t in texts if "Box %s" % victim in t]
        assert "pressed during a vote" in line
        assert not names_a_button(texts + driver.visible_texts())
        driver.screenshot("hardware/devices_panel_secret_press")

        # Another box says it is the victim, on another port: the victim's next press is
        # ignored, and the toast says why without naming the button.
        (tmp_path / "twin").mkdir()
        twin = SimulatedBoxes(n=1, heartbeat=0.3, directory=str(tmp_path / "twin"),
                              first_id=honest.boxes[0].box_id).start()
        source.manager.add_port(twin.pattern)
        driver.pump_until(lambda: "Two boxes" in app.root.ids.toast.message, "the conflict")
        seq = honest.press(0, 0)
        driver.pump_until(lambda: honest.boxes[0].is_acked(seq), "the press answered")
        expected = tr("devices.press_duplicate_id", box=victim)
        driver.pump_until(lambda: app.root.ids.toast.message == expected, "the toast")
        assert "button" not in expected and "not paired" not in expected
        texts = panel_texts(driver)
        assert not names_a_button(texts + driver.visible_texts())
        driver.screenshot("hardware/devices_panel_duplicate_id_press")
        assert [c.data["choice"] for c in app.session.events if c.kind == "ballot_cast"] \
            == ["Bo"]                             # the ignored press counted for nothing
    finally:
        app.remove_source(source)
        honest.stop()
        if twin is not None:
            twin.stop()


@pytest.mark.app
def test_a_box_inventing_ids_does_not_fill_the_devices_panel(driver, tmp_path):
    app = driver.app
    master, slave = os.openpty()
    source = BoxSource(str(tmp_path / "boxes"), ports=[os.ttyname(slave)])
    app.add_source(source)
    try:
        app.goto("devices")
        driver.pump_until(lambda: source.manager._ports[os.ttyname(slave)].serial is not None,
                   "the port open")
        n = 300
        os.write(master, b"".join(P.encode(P.make(
            "HELLO", 0x30000000 + i, 1, version=1, fw_major=1, fw_minor=0, keypads=255,
            buttons=12, reason=0, boot=1)) for i in range(n)))
        last = "%08X" % (0x30000000 + n - 1)
        driver.pump_until(lambda: any(last in d.ident for d in app.devices()), "the last id")
        panel = app.screen("devices")
        panel.refresh()
        driver.pump(2)
        lines = [w for w in panel.ids.list.children if type(w).__name__ == "DeviceLine"]
        boxes = [w for w in lines if last in w.text]
        assert len(boxes) <= 16 and len(lines) < 40      # was 300 boxes x 255 keypads
        assert not any("3000000" in w.text for w in lines)   # the replaced ids are gone
        shown = list(panel.ids.list.children)
        panel.refresh()                                   # nothing changed: the same rows
        assert list(panel.ids.list.children) == shown
    finally:
        app.remove_source(source)
        os.close(master)
        os.close(slave)
