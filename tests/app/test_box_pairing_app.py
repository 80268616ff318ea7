"""Pairing from the devices panel of the real app: the tablet shows a seat, the player presses
any button on their box (simulated, on real pseudo-terminals), the box is that seat's."""
import time

import pytest

from companion.core.i18n import tr
from hardware.source import BoxSource


def pump_until(driver, predicate, timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        driver.pump(1)
        if predicate():
            return True
    return False


@pytest.mark.app
def test_pair_a_box_to_a_seat_from_the_devices_panel(driver, tmp_path):
    app = driver.app
    driver.start_game("masks", ["Ann", "Bo", "Cy", "Di", "Ed"])
    source = BoxSource.simulated(str(tmp_path / "boxes"), n=2)
    app.add_source(source)
    try:
        assert pump_until(driver, lambda: len([d for d in app.devices() if d.kind == "box"]) == 2)
        app.goto("devices")
        driver.pump(4)
        driver.tap(driver.find(cls="BigButton", text=tr("devices.pair_seat", seat=2, name="Bo")))
        assert source.manager.pairing_seat == 2
        driver.screenshot("hardware/pairing_waiting_for_a_press")
        assert driver.find(contains=tr("devices.pairing_now", seat=2, name="Bo"))
        source.sim.press(1, 3)  # the second box, any button
        assert pump_until(driver, lambda: any(d.seat == 2 for d in app.devices() if d.kind == "box"))
        assert source.manager.pairing_seat is None
        app.screen("devices").refresh()
        driver.pump(4)
        driver.screenshot("hardware/pairing_done")
        paired = [d for d in app.devices() if d.kind == "box" and d.seat == 2]
        assert len(paired) == 1
        # The other box is not paired: its presses are ignored, and the table is told so.
        source.sim.press(0, 1)
        assert pump_until(driver, lambda: "not paired" in app.screen("devices").last_press)
    finally:
        app.remove_source(source)
