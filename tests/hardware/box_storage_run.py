"""Run by test_box_ballots_34.py in its own process (for the full disk: inside a private mount
namespace with a small tmpfs on DIR): a 23 Knives game in its vote in a real journal in DIR, a
simulated box on a real pseudo-terminal paired to Ann, the real host driver (BoxSource) and the
app's CommandQueue drained as the app's main thread does (session.execute, then on_events).

``full``: the disk is filled before Ann presses and freed 3 s later. ``lock``: another process
holds the journal's write lock for 7 s from just before Ann presses. Prints one JSON line: the
box's answers to the press while the storage failed and after, and the journal's ballots."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from companion.core.events import BadInput, RuleError  # noqa: E402
from companion.core.inputs import CommandQueue  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from hardware.sim import SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402
from tests.hardware.knives_vote import pair_boxes, session_in_the_vote  # noqa: E402

HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
print("releasing", time.monotonic(), flush=True)   # the system's monotonic clock: comparable
db.execute("ROLLBACK")
"""


def fill(folder: Path) -> Path:
    """Writes a file until the disk is full; returns it (delete it to free the disk)."""
    filler = folder / "filler"
    for n in (4096, 512, 1):     # to the last bytes
        try:
            with open(filler, "ab") as f:
                while True:
                    f.write(b"\0" * n)
                    f.flush()
        except OSError:
            pass
    return filler


def main(mode: str, folder: str) -> int:
    data = Path(folder)
    session, _journal = session_in_the_vote(data / "journal.sqlite3")
    options = session.view("table")["vote"]["options"]
    pair_boxes(data / "boxes", "B0C50001")
    sim = SimulatedBoxes(n=1).start()
    box = sim.boxes[0]
    queue = CommandQueue()
    source = BoxSource(str(data / "boxes"), ports=sim.ports)
    source.start(queue.post)
    errors: list[str] = []

    def handle(command):
        source.on_events(session.execute(command))

    def drain_for(seconds, until=lambda: False):
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            for _cmd, error in queue.drain(handle, wait=0.05):
                errors.append(type(error).__name__)
    try:
        sim.wait(lambda: any(d.connected for d in source.devices()), what="the box")
        source.on_attach(session.events)
        holder = filler = None
        if mode == "full":
            filler = fill(data)
        else:
            holder = subprocess.Popen([sys.executable, "-c", HOLDER,
                                       str(data / "journal.sqlite3"), "7"],
                                      stdout=subprocess.PIPE, text=True)
            assert holder.stdout.readline().strip() == "held"
        pressed = time.monotonic()
        seq = sim.press(0, options.index("exile"))
        if mode == "full":
            drain_for(3.0)
        else:
            drain_for(6.5)                    # the lock is held 7 s from before the press
        with box._lock:
            during = [a.status for a in box.acks if a.acked == seq]
        still_pending = bool(box.pending)
        if filler is not None:
            filler.unlink()                   # the table frees the disk
        drain_for(15.0, until=lambda: box.is_acked(seq))
        drain_for(1.0)
        with box._lock:
            after = [a.status for a in box.acks if a.acked == seq]
        if holder is not None:
            holder.wait(timeout=10)
        cast = [(e.data["voter"], e.data["choice"], e.source)
                for e in Journal(data / "journal.sqlite3", readonly=True).events(session.game_id)
                if e.kind == "ballot_cast"]
        result = {"during": during, "pending_during": still_pending, "after": after,
                  "journal": cast, "errors": sorted(set(errors)),
                  "failed_posts": errors.count("StorageFull") + errors.count("StorageUnavailable")
                  + errors.count("JournalError"),
                  "seconds": round(time.monotonic() - pressed, 1), "led": box.leds[0]}
    finally:
        source.stop()
        sim.stop()
    print("RESULT " + json.dumps(result))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except (BadInput, RuleError, Exception):
        import traceback
        traceback.print_exc()
        sys.exit(1)
