"""Run by test_box_ballots_34.py in its own process: the real app under X, two simulated boxes on
real ptys paired to Ann and Bo, a 23 Knives game in its Vote to Exile (issue 34, items 2 and 3).

3. Ann votes on her box, the table presses Undo: the box is told to vote again (red flash, then
   "vote open"), and after its HELLO (back on the cable) it is not told "recorded" again.
2. The table leaves to the game picker; Bo presses: no answer at all (the box keeps the press),
   as after a restart; the table resumes the game and the press counts, answered "recorded".
Saves screenshots and prints one JSON line of what it saw."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.hardware.app_boxes_run import (  # noqa: E402  (first: the window's size)
    pump, pump_until, report_and_quit, run_as_script, screenshot, start_app)

from companion.app import games as game_registry  # noqa: E402
from companion.core.i18n import has, tr  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.games.knives23 import demo  # noqa: E402
from hardware import protocol as P  # noqa: E402
from hardware.sim import SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402
from tests.hardware.box_storage_run import HOLDER  # noqa: E402
from tests.hardware.knives_vote import pair_boxes, to_the_vote  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "hardware"


def pump_for(seconds: float):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pump(1)


def answers(box, seq, since=0):
    with box._lock:
        return [a.status for a in box.acks[since:] if a.acked == seq]


def main(data_dir: str) -> int:
    data = Path(data_dir)
    pair_boxes(data / "boxes", "B0C50001", "B0C50002", "B0C50003")
    app = start_app(data_dir)
    sim = SimulatedBoxes(n=3, heartbeat=0.3).start()
    ann, bo, cy = sim.boxes
    boxes = BoxSource(str(data / "boxes"), ports=sim.ports)
    app.add_source(boxes)
    pump_until(lambda: sum(d.connected for d in boxes.devices()) == 3, "three boxes")
    assert app.start_game(game_registry.load_ui("knives23"), dict(demo.SETUP))
    pump(4)
    to_the_vote(lambda cmd: _sent(app, cmd))
    pump(6)
    options = app.view["vote"]["options"]
    game_id = app.session.game_id

    # 3. Undo right after a box ballot
    seq = ann.press(options.index("exile"))
    pump_until(lambda: ann.leds[0] == "recorded" and app.view["vote"]["voted"] == ["Ann"],
               "Ann's box ballot recorded")
    app.undo()
    pump(4)
    voted_after_undo = list(app.view["vote"]["voted"])
    end = time.monotonic() + 3                # Ann's box told to vote again (not on main)
    while ann.leds[0] == "recorded" and time.monotonic() < end:
        pump(1)
    led_after_undo = ann.leds[0]
    heard = len(ann.acks)
    ann.unplug()
    ann.plug(power_up=False)                 # back on the cable: its HELLO
    pump_for(1.5)
    with ann._lock:
        recorded_after_hello = [a.acked for a in ann.acks[heard:] if a.status == P.ACK_RECORDED]
    led_after_hello = ann.leds[0]
    shot_undo = screenshot(ARTIFACTS / "undo_box_ballot_vote.png")
    seq = ann.press(options.index("remain"))  # Ann votes again
    pump_until(lambda: ann.is_acked(seq) and app.view["vote"]["voted"] == ["Ann"],
               "Ann's new ballot")
    undo = {"voted_after_undo": voted_after_undo, "led_after_undo": led_after_undo,
            "recorded_after_hello": recorded_after_hello, "led_after_hello": led_after_hello,
            "voted_after_revote": list(app.view["vote"]["voted"])}

    # 1. The journal locked by another program for 7 s as Cy votes
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(app.journal.path), "7"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    seq = cy.press(options.index("exile"))
    # What the box heard while the lock was held (the main thread blocks in the journal's
    # 5 s busy wait, so each look is timed and compared with the holder's release).
    looks, shot_lock = [], None
    end = time.monotonic() + 6.5               # the lock is held 7 s from before the press
    while time.monotonic() < end:
        pump(1)
        looks.append((time.monotonic(), answers(cy, seq), bool(cy.pending),
                      app.root.ids.toast.message))
        if shot_lock is None and looks[-1][3]:
            shot_lock = screenshot(ARTIFACTS / "journal_locked_box_press_waiting.png")
    pump_until(lambda: cy.is_acked(seq), "Cy's press once the lock is gone", timeout=15)
    released = float(holder.stdout.readline().split()[1])
    holder.wait(timeout=10)
    looks = [look for look in looks if look[0] < released]
    answers_locked = sorted({a for look in looks for a in look[1]})
    pending_locked = bool(looks) and all(look[2] for look in looks)
    toasts = [look[3] for look in looks]
    pump(6)
    lock = {"answers_locked": answers_locked, "pending_locked": pending_locked,
            "answers_after": sorted(set(answers(cy, seq))),
            "toasts": sorted({t for t in toasts if t}), "looks": len(looks),
            "voted": list(app.view["vote"]["voted"])}

    # 4. Pairing Di's seat during the vote: Ann's press stays Ann's ballot
    app.goto("devices")
    pump(4)
    devices = app.screen("devices")
    devices.pair(4)
    pump(6)
    panel = [w.text for w in devices.walk() if isinstance(getattr(w, "text", None), str)]
    shot_pairing = screenshot(ARTIFACTS / "pairing_during_a_vote.png")
    seq = ann.press(options.index("exile"))
    pump_until(lambda: ann.is_acked(seq), "Ann's press during the pairing")
    pump(6)
    pairing = {"answers": sorted(set(answers(ann, seq))), "waiting": boxes.manager.pairing_seat,
               "seats": {"%s/%d" % k: s for k, s in boxes.manager.seats().items()},
               "hint_shown": has("devices.pairing_in_vote")
               and any(tr("devices.pairing_in_vote") in t for t in panel)}
    devices.cancel_pairing()
    app.go_home()
    pump(4)

    # 2. Leaving to the game picker mid-vote
    app.leave_game()
    pump(6)
    seq = bo.press(options.index("exile"))
    pump_for(2.0)                            # 8 retransmissions at the picker
    answers_at_picker = answers(bo, seq)
    pending_at_picker = bool(bo.pending)
    shot_picker = screenshot(ARTIFACTS / "picker_box_press_waiting.png")
    assert app.resume_game(game_id)
    pump_until(lambda: bo.is_acked(seq), "Bo's press answered after the resume")
    pump(10)
    leave = {"answers_at_picker": answers_at_picker, "pending_at_picker": pending_at_picker,
             "answers_after_resume": sorted(set(answers(bo, seq))),
             "journal": [[e.data.get("voter"), e.data.get("choice"), e.source]
                         for e in Journal(data / "journal.sqlite3", readonly=True).events(game_id)
                         if e.kind == "ballot_cast" and e.seq not in _undone(app)]}
    result = {"undo": undo, "leave": leave, "lock": lock, "pairing": pairing,
              "shots": [shot_undo, shot_lock, shot_pairing, shot_picker],
              "counters": dict(boxes.manager.counters)}
    return report_and_quit(result, app, boxes, sim)


def _sent(app, cmd):
    assert app.send_command(cmd), cmd


def _undone(app) -> set:
    from companion.core.rules import undone_seqs
    return undone_seqs(app.session.events)


if __name__ == "__main__":
    run_as_script(main, sys.argv[1])
