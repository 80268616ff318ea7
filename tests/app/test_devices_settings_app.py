"""The Devices setting on the devices panel (boxes on/off, ports or auto, hot-plug), the camera
setting by name, and the Back key — in the real app under X."""
from __future__ import annotations

import json
import time

import pytest
from kivy.core.window import Window

import hardware.discovery as discovery
from companion.core.i18n import tr
from hardware.discovery import FakePortLister, PortInfo
from hardware.sim import SimulatedBoxes



def boxes(app):
    return [d for d in app.devices() if d.kind == "box"]


@pytest.fixture
def sim(tmp_path):
    (tmp_path / "links").mkdir()
    s = SimulatedBoxes(n=2, directory=str(tmp_path / "links")).start()
    yield s
    s.stop()


def open_devices(driver):
    driver.tap(driver.find(root=driver.app.root.ids.topbar, cls="TopButton",
                           text=tr("app.devices")))
    assert driver.app.sm.current == "devices"
    return driver.app.screen("devices")


@pytest.mark.app
def test_boxes_are_switched_on_and_off_and_given_ports_on_the_devices_panel(driver, sim):
    app = driver.app
    panel = open_devices(driver)
    ids = panel.ids
    try:
        # Ports typed on the panel: the first simulated box's port.
        ids.boxes_on.state = "down"
        driver.type_into(ids.box_ports, sim.urls[0])
        driver.tap(ids.boxes_apply)
        driver.pump_until(lambda: [b.connected for b in boxes(app)] == [True], "box 1")
        saved = json.loads((app.data_dir / "settings.json").read_text())
        assert (saved["boxes_enabled"], saved["box_ports"]) == (True, sim.urls[0])
        assert app.boxes_arg is None
        assert driver.find_all(contains=tr("devices.boxes_ports", ports=sim.urls[0]))

        # A list that is not one: said in one line, nothing changes.
        driver.type_into(ids.box_ports, sim.urls[0] + " " + sim.urls[1])
        driver.tap(ids.boxes_apply)
        assert "write auto, or ports separated by commas" in app.root.ids.toast.message
        assert app.settings.box_ports == sim.urls[0] and len(boxes(app)) == 1

        # A port that is not there: named on the panel with the system's one-line reason.
        driver.type_into(ids.box_ports, "/dev/no-such-box")
        driver.tap(ids.boxes_apply)
        driver.pump_until(lambda: ("/dev/no-such-box", "") not in app.box_source.port_status()
                   and app.box_source.port_status(), "the port's problem")
        panel.refresh()
        driver.pump(2)
        [line] = driver.find_all(contains="/dev/no-such-box: ")
        assert "could not open port" in line.text and "No such file or directory" in line.text
        assert boxes(app) == []
        driver.screenshot("hardware/devices_port_missing")

        # Off: no box source, the panel says so, the setting is kept.
        driver.tap(ids.boxes_on)
        assert ids.boxes_on.state == "normal" and ids.box_ports.disabled
        driver.tap(ids.boxes_apply)
        assert app.box_source is None and boxes(app) == []
        assert driver.find_all(contains=tr("devices.boxes_off"))
        assert json.loads((app.data_dir / "settings.json").read_text())["boxes_enabled"] is False
        driver.screenshot("hardware/devices_boxes_off")
    finally:
        app.settings.boxes_enabled, app.settings.box_ports = True, "auto"
        app.remove_source(app.box_source) if app.box_source else None
        app.box_source = None


@pytest.mark.app
def test_auto_finds_a_box_plugged_in_while_the_app_runs(driver, sim, monkeypatch):
    """'auto' watches the USB bus (here its virtual twin, a FakePortLister whose ports are the
    simulated boxes' real ptys): a box plugged in later shows up on the panel by itself."""
    app = driver.app
    bus = FakePortLister([PortInfo("/dev/ttyS0")])
    monkeypatch.setattr(discovery, "default_lister", lambda: bus)
    panel = open_devices(driver)
    try:
        ids = panel.ids
        ids.boxes_on.state = "down"
        driver.type_into(ids.box_ports, "auto")
        driver.tap(ids.boxes_apply)
        app.box_source.watcher.interval = 0.2
        driver.wait(1.0)
        assert boxes(app) == []
        assert driver.find_all(contains=tr("devices.boxes_watching",
                                           ports=tr("devices.boxes_none_yet")))
        bus.plug(PortInfo(sim.urls[1], 0x2341, 0x0043, "Arduino Uno"))
        driver.pump_until(lambda: [b.ident for b in boxes(app) if b.connected] == ["B0C50002"],
                   "the plugged-in box")
        panel.refresh()
        driver.pump(4)
        assert driver.find_all(contains=tr("devices.boxes_watching", ports=sim.urls[1]))
        assert ids.box_ports.text == "auto" and ids.box_ports.scroll_x == 0
        driver.screenshot("hardware/devices_auto_hotplug")
    finally:
        app.settings.boxes_enabled, app.settings.box_ports = True, "auto"
        if app.box_source:
            app.remove_source(app.box_source)
        app.box_source = None


@pytest.mark.app
def test_the_camera_setting_names_the_cameras_found(driver, tmp_path, monkeypatch):
    import vision.cameras as cameras
    root = tmp_path / "video4linux"
    for node, name, index in (("video0", "Integrated Camera: Integrated C", 0),
                              ("video1", "Integrated Camera: Integrated C", 1),
                              ("video2", "HD Pro Webcam C920", 0)):
        (root / node).mkdir(parents=True)
        (root / node / "name").write_text(name + "\n")
        (root / node / "index").write_text("%d\n" % index)
    monkeypatch.setattr(cameras, "SYSFS_ROOT", str(root))
    app = driver.app
    driver.tap(driver.find(root=app.root.ids.topbar, cls="TopButton", text=tr("app.settings")))
    screen = app.screen("settings")
    spinner = screen.ids.camera
    assert spinner.values == ["Integrated Camera", "HD Pro Webcam C920"]   # names, no device paths
    assert spinner.text == spinner.values[0]
    scroll = spinner.parent
    while type(scroll).__name__ != "ScrollView":
        scroll = scroll.parent
    scroll.scroll_to(spinner, animate=False)
    driver.pump(4)
    driver.tap(spinner)                         # opens the list of names
    choice = [w for w in spinner._dropdown.container.children
              if w.text == "HD Pro Webcam C920"][0]
    driver.tap(choice)
    assert spinner.text == "HD Pro Webcam C920"
    driver.screenshot("camera/settings_camera_by_name")
    driver.tap(screen.ids.save)
    try:
        assert app.settings.camera == "/dev/video2"
        assert json.loads((app.data_dir / "settings.json").read_text())["camera"] == "/dev/video2"
        app.goto("camera")
        driver.pump(4)
        assert app.screen("camera").ids.where.text == "/dev/video2"
        app.goto("settings")                     # chosen before, unplugged now: still named
        monkeypatch.setattr(cameras, "SYSFS_ROOT", str(tmp_path / "none"))
        screen.show_cameras()
        assert spinner.values == [tr("settings.camera_absent")] == [spinner.text]
    finally:
        app.settings.camera = ""
        app.goto("picker")


def press_back():
    return Window.dispatch("on_keyboard", 27, 0, None, [])


def masks_to_vote(driver):
    driver.start_game("masks", ["Ann", "Bo", "Cy", "Di", "Ed"])
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        assert driver.app.send(kind), kind
    driver.pump(4)
    assert driver.app.sm.current == "vote"


@pytest.mark.app
def test_back_asks_before_leaving_a_game_and_does_nothing_during_a_secret_vote(driver,
                                                                              monkeypatch):
    app = driver.app
    left = []
    monkeypatch.setattr(app, "stop", lambda *a: left.append(True))
    assert not press_back()                     # no game, on the picker: Back leaves as usual
    masks_to_vote(driver)

    # During the secret vote: nothing at all, the voter keeps the private screen.
    vote = app.screen("vote")
    driver.hold(driver.find(cls="VoterButton", voter="Ann"))
    assert app.private and vote.mode == "choose"
    assert press_back() is True
    driver.pump(3)
    assert app.back_key.question is None and vote.mode == "choose" and left == []
    driver.tap(driver.find(cls="ChoiceButton", option="Bo"))
    if vote.mode == "done":
        vote._hide_done()
    assert not app.private

    # In the game: a question; Stay keeps everything, Back on the question is Stay too.
    assert press_back() is True
    question = app.back_key.question
    assert question is not None and question.parent is Window
    driver.screenshot("app/back_key_question")
    driver.tap(question.ids.stay)
    driver.pump(4)
    assert app.back_key.question is None and app.game_id == "masks" and left == []
    press_back()
    assert press_back() is True and app.back_key.question is None
    driver.pump(4)

    # On a utility screen: back to the game, no question.
    app.goto("settings")
    assert press_back() is True and app.sm.current == "vote" and app.back_key.question is None

    # Leave: the app closes (the game stays in the journal, resumable).
    press_back()
    driver.tap(app.back_key.question.ids.leave)
    driver.pump(4)
    assert left == [True]
    assert app.journal.unfinished()[0].game == "masks"
