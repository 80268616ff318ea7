"""Run by test_box_ballots_34.py in its own process, inside a private mount namespace with a small
tmpfs as the data folder: the real app under X, a simulated box on a real pty paired to Ann, a 23
Knives game in its Vote to Exile. The disk is filled, Ann presses, and 3 s later the disk is
freed (issue 34, item 1). Saves a screenshot and prints one JSON line of what it saw."""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.hardware.app_boxes_run import (  # noqa: E402  (first: the window's size)
    pump, pump_until, report_and_quit, run_as_script, screenshot, start_app)

from companion.app import games as game_registry  # noqa: E402
from companion.games.knives23 import demo  # noqa: E402
from hardware.sim import SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402
from tests.hardware.app_box_leave_undo_run import ARTIFACTS, answers  # noqa: E402
from tests.hardware.box_storage_run import fill  # noqa: E402
from tests.hardware.knives_vote import pair_boxes, to_the_vote  # noqa: E402


def main(data_dir: str) -> int:
    data = Path(data_dir)
    pair_boxes(data / "boxes", "B0C50001")
    app = start_app(data_dir)
    sim = SimulatedBoxes(n=1, heartbeat=0.3).start()
    ann = sim.boxes[0]
    boxes = BoxSource(str(data / "boxes"), ports=sim.ports)
    app.add_source(boxes)
    pump_until(lambda: any(d.connected for d in boxes.devices()), "the box")
    assert app.start_game(game_registry.load_ui("knives23"), dict(demo.SETUP))
    pump(4)
    to_the_vote(app.send_command)
    pump(6)
    options = app.view["vote"]["options"]
    filler = fill(data)
    seq = ann.press(options.index("exile"))
    looks, shot = [], None
    end = time.monotonic() + 3.0
    while time.monotonic() < end:
        pump(1)
        looks.append((answers(ann, seq), bool(ann.pending), app.root.ids.toast.message))
        if shot is None and looks[-1][2]:
            shot = screenshot(ARTIFACTS / "disk_full_box_press_waiting.png")
    filler.unlink()                            # the table frees the disk
    pump_until(lambda: ann.is_acked(seq), "Ann's press once the disk is freed", timeout=15)
    pump(6)
    result = {"answers_full": sorted({a for look in looks for a in look[0]}),
              "pending_full": all(look[1] for look in looks), "looks": len(looks),
              "toasts": sorted({look[2] for look in looks if look[2]}),
              "answers_after": sorted(set(answers(ann, seq))),
              "voted": list(app.view["vote"]["voted"]),
              "journal": [[e.data.get("voter"), e.data.get("choice"), e.source]
                          for e in app.session.events if e.kind == "ballot_cast"],
              "shot": shot}
    return report_and_quit(result, app, boxes, sim)


if __name__ == "__main__":
    run_as_script(main, sys.argv[1])
