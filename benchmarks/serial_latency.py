"""Vote boxes over real pseudo-terminals: press-to-registered latency, sustained ballots per second,
and what 10% corrupted frames cost. Prints figures; it asserts nothing about time.

    .venv/bin/python benchmarks/serial_latency.py [--boxes 8] [--presses 400] [--seconds 5]

"Registered" is the moment the ballot is committed to the app's journal: a real SQLite journal
(WAL, synchronous=FULL) under a real GameSession, fed by the app's CommandQueue, which a thread
standing in for the app's main thread drains as soon as a command arrives. It is measured from the
moment the simulated box writes its PRESS frame to the pty; the box hears "recorded" after that.
(The app itself drains its queue from Kivy's Clock, 20 times a second: up to 50 ms more there.)
"""
from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.core import votes  # noqa: E402
from companion.core.events import Command, RuleError  # noqa: E402
from companion.core.inputs import CommandQueue  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.rules import GameRules  # noqa: E402
from companion.core.session import GameSession  # noqa: E402
from hardware.sim import Faults, SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402

from _args import parse_quick  # noqa: E402


class OneLongVote(GameRules):
    """A yes/no vote of the boxes' seats that stays open: one voter ("absent") never votes, so
    every press is a new ballot_cast event in the journal, changed as often as pressed."""

    game_id = "bench-vote"

    def initial_state(self, setup):
        return votes.VoteBook()

    def decide(self, state, command):
        if command.kind == "open_vote":
            seats = tuple("seat%d" % (i + 1) for i in range(command.data["seats"]))
            return votes.open_vote(state, votes.VoteSpec("bench", "binary", seats + ("absent",),
                                                         ("yes", "no")))
        if command.kind == "cast_ballot":
            return votes.cast(state, command.data, command.source)
        raise RuleError("not in this benchmark: %s" % command.kind)

    def evolve(self, state, event):
        return votes.apply_vote_event(state, event)

    def view(self, state, viewer):
        return {}


class Table:
    """The app's side: its CommandQueue, drained on a thread of its own into a real session; notes
    when each box ballot was committed."""

    def __init__(self, folder: str, source: BoxSource, n: int):
        self.queue = CommandQueue()
        self.source = source
        self.cond = threading.Condition()
        self.ballots = []          # (commit time, seat, option)
        self.commit_ms = []        # how long each session.execute (rules + SQLite commit) took
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(folder, n), daemon=True)
        self._thread.start()
        if not self._ready.wait(10) or self._failed is not None:
            raise SystemExit(f"the table's session did not start: {self._failed!r}")

    def _run(self, folder, n):
        # SQLite connections belong to their thread: the session is made where it is used.
        # The journal keeps a game's players as a list of names: one per box's seat.
        try:
            self.session = GameSession.start(Journal(Path(folder) / "journal.sqlite3"), OneLongVote(),
                                             {"players": ["seat%d" % (i + 1) for i in range(n)]})
            self.source.on_events(self.session.execute(Command("open_vote", {"seats": n})))
        except BaseException as exc:  # said by the main thread, not lost in this one
            self._failed = exc
            self._ready.set()
            raise
        self._ready.set()
        while not self._stop.is_set():
            self.queue.drain(self._handle, wait=0.05)

    def _handle(self, command):
        if command.kind != "cast_ballot":
            return
        began = time.perf_counter()
        events = self.session.execute(command)     # returns once the journal committed
        now = time.perf_counter()
        self.commit_ms.append((now - began) * 1000)
        with self.cond:
            self.ballots.append((now, command.data["seat"], command.data["option"]))
            self.cond.notify_all()
        self.source.on_events(events)

    def wait_count(self, n, timeout=10.0):
        end = time.monotonic() + timeout
        with self.cond:
            while len(self.ballots) < n:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def close(self):
        self._stop.set()
        self._thread.join(5)


class Rig:
    def __init__(self, n, faults=None, heartbeat=1.0, retry=0.25):
        self.folder = tempfile.mkdtemp(prefix="bench-")
        self.sim = SimulatedBoxes(n=n, faults=faults, heartbeat=heartbeat, retry=retry).start()
        self.source = BoxSource(self.folder, ports=self.sim.ports)
        self.manager = self.source.manager
        self.table = Table(self.folder, self.source, n)
        self.source.start(self.table.queue.post)
        sim = self.sim
        sim.wait(lambda: sum(u.connected for u in self.manager.units()) == n, timeout=20,
                 what="boxes discovered")
        for i, b in enumerate(sim.boxes):     # pairing happens on a clean line
            saved, b.faults = b.faults, Faults()
            self.manager.pair(i + 1)
            seq = b.press(0)
            sim.wait(lambda: b.is_acked(seq), timeout=10, what="pairing")
            b.faults = saved
        time.sleep(0.2)

    def close(self):
        self.source.stop()
        self.table.close()
        self.sim.stop()


def rig(n, faults=None, heartbeat=1.0, retry=0.25):
    r = Rig(n, faults, heartbeat, retry)
    return r.sim, r.manager, r.table, r


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def latency(n, presses, faults=None, label=""):
    """One press at a time, round-robin over the boxes, each alternating its button so every
    press is a new ballot; returns latencies in ms and whether the ballots were exactly right."""
    sim, manager, rec, rg = rig(n, faults)
    lat, expected, missed = [], [], 0
    try:
        for k in range(presses):
            i = k % n
            button = (k // n) % 2
            before = len(rec.ballots)
            t0 = time.perf_counter()
            sim.press(i, button)
            if not rec.wait_count(before + 1, timeout=10):
                missed += 1
                continue
            t1, seat, option = rec.ballots[before]
            lat.append((t1 - t0) * 1000)
            expected.append((i + 1, button))
        time.sleep(0.6)       # late retries that must not count again
        got = [(s, o) for _, s, o in rec.ballots]
        counters = dict(manager.counters)
    finally:
        rg.close()
    exact = got == expected and missed == 0
    print("%-34s presses=%d  median=%.2f ms  p99=%.2f ms  max=%.2f ms  registered=%d  "
          "exactly-once-and-right=%s  bad-frames=%d  duplicates=%d  (of which session+SQLite "
          "commit: median %.2f ms, p99 %.2f ms)"
          % (label, presses, statistics.median(lat), pct(lat, 99), max(lat), len(got), exact,
             counters.get("bad_frames", 0), counters.get("duplicates", 0),
             statistics.median(rec.commit_ms), pct(rec.commit_ms, 99)))
    return lat, exact


def simultaneous(n, rounds, faults=None, label=""):
    """All boxes press at the same moment (everyone votes on "now"); latency of each."""
    sim, manager, rec, rg = rig(n, faults)
    lat, ok = [], True
    try:
        for r in range(rounds):
            before = len(rec.ballots)
            t0 = {}
            for i in range(n):
                t0[i + 1] = time.perf_counter()
                sim.press(i, r % 2)
            if not rec.wait_count(before + n, timeout=10):
                ok = False
                continue
            for t1, seat, option in rec.ballots[before:before + n]:
                lat.append((t1 - t0[seat]) * 1000)
                ok &= option == r % 2
        time.sleep(0.6)
        ok &= len(rec.ballots) == rounds * n
    finally:
        rg.close()
    print("%-34s ballots=%d  median=%.2f ms  p99=%.2f ms  max=%.2f ms  exactly-once-and-right=%s"
          % (label, len(lat), statistics.median(lat), pct(lat, 99), max(lat), ok))


def throughput(n, seconds, heartbeat, faults=None, label=""):
    """Every box presses again as soon as its last press is acknowledged, while all boxes send
    heartbeats every `heartbeat` seconds."""
    sim, manager, rec, rg = rig(n, faults, heartbeat=heartbeat, retry=0.05)
    stop = threading.Event()
    sent = [0] * n

    def voter(i):
        b = sim.boxes[i]
        while not stop.is_set():
            seq = b.press(sent[i] % 2)
            sent[i] += 1
            end = time.monotonic() + 5
            while not b.is_acked(seq) and not stop.is_set() and time.monotonic() < end:
                time.sleep(0.0005)

    try:
        start_count = len(rec.ballots)
        threads = [threading.Thread(target=voter, args=(i,), daemon=True) for i in range(n)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        time.sleep(0.6)
        registered = len(rec.ballots) - start_count
        counters = dict(manager.counters)
    finally:
        rg.close()
    per_box = [sum(1 for _, s, _ in rec.ballots[start_count:] if s == i + 1) for i in range(n)]
    exact = per_box == sent
    print("%-34s %.0f ballots/s sustained over %.1f s (%d ballots, %d boxes, heartbeat every "
          "%.2f s, %d frames read, %d dropped as flood, %d bad)  every press counted once=%s"
          % (label, registered / elapsed, elapsed, registered, n, heartbeat,
             counters.get("frames", 0), counters.get("flood_dropped", 0),
             counters.get("bad_frames", 0), exact))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boxes", type=int, default=8)
    ap.add_argument("--presses", type=int, default=400)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = parse_quick(ap, argv, boxes=2, presses=6, seconds=0.5)
    # the manager logs every dropped frame (rate-limited); the figures are what matters here
    logging.getLogger("hardware.boxes").setLevel(logging.ERROR)
    print("serial vote boxes over pseudo-terminals: %d boxes, 115200-baud framing, Python %s"
          % (a.boxes, sys.version.split()[0]))
    clean, ok1 = latency(a.boxes, a.presses, label="press->registered, clean line")
    noisy, ok2 = latency(a.boxes, a.presses, faults=Faults(corrupt=0.10),
                         label="press->registered, 10% corrupted")
    print("effect of 10%% corrupted frames: median %+.2f ms, p99 %+.2f ms; correctness %s"
          % (statistics.median(noisy) - statistics.median(clean),
             pct(noisy, 99) - pct(clean, 99), "kept" if ok1 and ok2 else "LOST"))
    simultaneous(a.boxes, max(1, a.presses // a.boxes), label="all %d boxes press at once" % a.boxes)
    simultaneous(a.boxes, max(1, a.presses // a.boxes), faults=Faults(corrupt=0.10),
                 label="all at once, 10% corrupted")
    print("throughput: the host admits at most 30 PRESS frames/s per box (flood limit), i.e. "
          "%d/s for %d boxes; below that, the figure is what the simulated boxes and the host, "
          "together in this one Python process, reach on this machine" % (30 * a.boxes, a.boxes))
    throughput(a.boxes, a.seconds, heartbeat=1.0, label="throughput, heartbeats 1/s")
    throughput(a.boxes, a.seconds, heartbeat=0.05, label="throughput, heartbeats 20/s")
    throughput(a.boxes, a.seconds, heartbeat=0.05, faults=Faults(corrupt=0.10),
               label="throughput, 20/s + 10% corrupted")


if __name__ == "__main__":
    main()
