"""Run by test_app_box_resume.py in its own process: a 23 Knives game stopped mid-vote (the app
died), a box whose press was never answered keeps retransmitting; the real app starts with the
boxes on, the table resumes the game, and that press is counted once, in the journal, answered
"recorded". Prints one JSON line of what it saw."""
from __future__ import annotations

import sys
from pathlib import Path

# Run as a file: this checkout first (the shared venv's editable install may point at another)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.hardware.app_boxes_run import (  # noqa: E402  (first: the window's size)
    pump, pump_until, report_and_quit, run_as_script, start_app)

from hardware import protocol as P  # noqa: E402
from hardware.sim import SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402
from tests.hardware.knives_vote import pair_boxes, session_in_the_vote  # noqa: E402


def main(data_dir: str) -> int:
    data = Path(data_dir)
    # the game as the dead app left it
    session, journal = session_in_the_vote(data / "journal.sqlite3")
    options = session.view("table")["vote"]["options"]
    journal.close()
    pair_boxes(data / "boxes", "B0C50001")
    sim = SimulatedBoxes(n=1).start()
    box = sim.boxes[0]
    seq = sim.press(0, options.index("remain"))       # pressed while no app listened

    app = start_app(data_dir)
    boxes = BoxSource(str(data / "boxes"), ports=sim.ports)
    app.add_source(boxes)                              # boxes on from the start
    pump_until(lambda: any(d.connected for d in boxes.devices()), "the box")
    pump(10)
    waiting = box.is_acked(seq) is False and bool(box.pending)
    assert app.resume_game(session.game_id)
    pump_until(lambda: box.is_acked(seq), "the press answered after the resume")
    pump(6)
    with box._lock:
        answers = [a.status for a in box.acks if a.acked == seq]
    result = {
        "waiting_before_resume": waiting, "answers": answers, "recorded": P.ACK_RECORDED,
        "voted": list(app.view["vote"]["voted"]),
        "journal": [(e.data.get("voter"), e.data.get("choice"), e.source)
                    for e in app.session.events if e.kind == "ballot_cast"],
    }
    return report_and_quit(result, app, boxes, sim)


if __name__ == "__main__":
    run_as_script(main, sys.argv[1])
