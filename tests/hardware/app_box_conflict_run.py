"""Run by test_app_box_conflict.py in its own process (one Kivy window per process): the real app
under X with two simulated boxes that carry one id (a cloned EEPROM) on two real ptys. The app
toasts the conflict, the devices panel shows both rows, a 23 Knives vote counts neither box's
press; once the table keeps one box, its press counts and the other's does not. Saves
screenshots and prints one JSON line of what it saw."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

# Run as a file: this checkout first (the shared venv's editable install may point at another)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# the app window's size and the pumping/screenshot helpers of the other box runner
from tests.hardware.app_boxes_run import (  # noqa: E402  (first)
    pump, pump_until, report_and_quit, screenshot, start_app)

from companion.app import games as game_registry  # noqa: E402
from companion.games.knives23 import demo  # noqa: E402
from hardware import protocol as P  # noqa: E402
from hardware.sim import SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402


def answer(box, seq):
    """The box's answers to one press. A box sends a press again when its answer is slow (under
    load), and each copy is answered the same: the distinct answers are what the box was told."""
    with box._lock:
        return sorted({a.status for a in box.acks if a.acked == seq})


def main(data_dir: str, artifacts: str) -> int:
    artifacts = Path(artifacts) / "hardware"
    app = start_app(data_dir)
    boxes_dir = Path(data_dir) / "boxes"
    boxes_dir.mkdir(parents=True, exist_ok=True)
    (boxes_dir / "boxes.json").write_text(json.dumps(
        {"version": 1, "seats": [{"box": "B0C50001", "keypad": 0, "seat": 1}]}))
    sim = SimulatedBoxes(n=2, heartbeat=0.3)
    sim.boxes[1].box_id = sim.boxes[0].box_id          # the clone
    sim.start()
    boxes = BoxSource(str(boxes_dir), ports=sim.ports)
    app.add_source(boxes)
    app.engine_clock = type("Mono", (), {"now": staticmethod(time.monotonic)})()
    toast = app.root.ids.toast
    pump_until(lambda: "Two boxes say they are B0C50001" in toast.message, "the toast")
    result = {"toast": toast.message}
    app.goto("devices")
    pump(10)
    result["panel"] = [w.text for w in app.screen("devices").ids.list.children
                       if "B0C50001" in getattr(w, "text", "")]
    result["shot_conflict"] = screenshot(artifacts / "devices_duplicate_id.png")
    result["devices"] = [{"ident": d.ident, "conflict": d.conflict, "detail": d.detail}
                         for d in boxes.devices()]
    app.go_home()
    pump(4)

    assert app.start_game(game_registry.load_ui("knives23"), dict(demo.SETUP))
    for cmd in demo.commands():
        if cmd.kind == "cast_ballot":
            break
        assert app.send_command(cmd), cmd
    pump(6)
    options = app.view["vote"]["options"]
    seqs = [sim.press(0, options.index("exile")), sim.press(1, options.index("remain"))]
    pump_until(lambda: all(answer(b, s) for b, s in zip(sim.boxes, seqs)), "both answered")
    result["before_keep"] = {"answers": [answer(b, s) for b, s in zip(sim.boxes, seqs)],
                             "voted": list(app.view["vote"]["voted"])}

    # The table keeps the first box, with the button on its row of the devices panel.
    app.goto("devices")
    pump(6)
    rows = [w for w in app.screen("devices").ids.list.children
            if "button" in getattr(w, "ids", {}) and sim.urls[0] in w.ids.text.text]
    assert len(rows) == 1, [getattr(w, "text", "") for w in app.screen("devices").ids.list.children]
    result["shot_keep_button"] = screenshot(artifacts / "devices_duplicate_id_keep_button.png")
    rows[0].ids.button.dispatch("on_release")
    pump(2)
    seqs = [sim.press(0, options.index("exile")), sim.press(1, options.index("remain"))]
    pump_until(lambda: all(answer(b, s) for b, s in zip(sim.boxes, seqs)), "both answered")
    pump(4)
    result["after_keep"] = {"answers": [answer(b, s) for b, s in zip(sim.boxes, seqs)],
                            "voted": list(app.view["vote"]["voted"])}
    result["journal"] = [(e.data.get("voter"), e.data.get("choice"), e.source)
                         for e in app.session.events if e.kind == "ballot_cast"]
    app.goto("devices")
    pump(10)
    result["devices_after"] = [{"detail": d.detail, "conflict": d.conflict}
                               for d in boxes.devices()]
    result["shot_kept"] = screenshot(artifacts / "devices_duplicate_id_kept.png")
    result["statuses"] = {"recorded": P.ACK_RECORDED, "ignored": P.ACK_IGNORED}
    return report_and_quit(result, app, boxes, sim)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except Exception:
        import traceback
        traceback.print_exc(file=sys.__stderr__)
        sys.exit(1)
