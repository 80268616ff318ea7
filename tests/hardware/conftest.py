"""Fixtures of the vote-box tests: virtual boxes on real pseudo-terminals or in-process wires,
and a manager that reads them, its commands collected in a queue."""
from __future__ import annotations

import queue

import pytest

from hardware.manager import BoxManager
from hardware.sim import SimulatedBoxes


class Rig:
    """Simulated boxes + a started BoxManager + the commands it posted."""

    def __init__(self, tmp_path, transport, n=3, faults=None, keypads=1, **sim_options):
        self.sim = SimulatedBoxes(n=n, transport=transport, directory=None, faults=faults,
                                  keypads=keypads, **sim_options).start()
        self.data_dir = str(tmp_path / "data")
        self.commands: "queue.Queue" = queue.Queue()
        self.manager = BoxManager(self.data_dir, ports=self.sim.ports)
        self.manager.start(self.commands.put)
        self.wait(lambda: sum(u.connected for u in self.manager.units()) == n * keypads,
                  "all %d boxes to be discovered" % n)

    def wait(self, predicate, what, timeout=10.0):
        self.sim.wait(predicate, timeout=timeout, what=what)

    def taken(self, kind=None):
        out = []
        while True:
            try:
                c = self.commands.get_nowait()
            except queue.Empty:
                return out
            if kind is None or c.kind == kind:
                out.append(c)

    def press_acked(self, i, button, keypad=0):
        seq = self.sim.press(i, button, keypad)
        self.wait(lambda: self.sim.boxes[i].is_acked(seq), "box %d's press to be acked" % i)
        return seq

    def pair_all(self):
        for i in range(len(self.sim.boxes)):
            for k in range(self.sim.boxes[i].keypads):
                self.manager.pair(i * self.sim.boxes[i].keypads + k + 1)
                self.press_acked(i, 0, k)
        self.taken()

    def close(self):
        self.manager.stop()
        self.sim.stop()


@pytest.fixture(params=["pty", "vbox"])
def transport(request):
    return request.param


@pytest.fixture
def make_rig(tmp_path, transport):
    rigs = []

    def make(**kw):
        rig = Rig(tmp_path, transport, **kw)
        rigs.append(rig)
        return rig

    yield make
    for r in rigs:
        r.close()


@pytest.fixture
def rig(make_rig):
    return make_rig()

