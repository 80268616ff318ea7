"""Fixtures of the vote-box tests: virtual boxes on real pseudo-terminals or in-process wires,
and a manager that reads them, its commands drained from the app's CommandQueue by a stand-in
for the app's main thread (which settles each command, so ballots get their ACK)."""
from __future__ import annotations

import queue
import threading
import time

import pytest

from companion.core.inputs import CommandQueue
from hardware import protocol as P
from hardware.manager import BoxManager
from hardware.sim import SimulatedBoxes


def hello_on_loop(m: BoxManager, deadline: float, **fields):
    """A box (id 0x1234) says HELLO into a manager's loop:// port, once it is open; returns the
    port when the manager lists the box."""
    while m._ports.get("loop://") is None or m._ports["loop://"].serial is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    port = m._ports["loop://"]
    hello = dict(version=1, fw_major=1, fw_minor=0, keypads=1, buttons=2, reason=1, boot=1)
    hello.update(fields)
    with port.write_lock:
        port.serial.write(P.encode(P.make("HELLO", 0x1234, 1, **hello)))
    while not m.units():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return port


class AppQueue:
    """The app's side of the box commands: a CommandQueue drained on a thread of its own (the
    app's main thread, stand-in), which settles each command so ballots get their ACK.
    ``refuse(command)`` may return an exception to raise (a refusal, or a storage fault)."""

    def __init__(self):
        self.queue = CommandQueue()
        self.post = self.queue.post
        self.commands: "queue.Queue" = queue.Queue()
        self.refuse = lambda command: None
        self._stop = threading.Event()
        self._draining = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _handle(self, command):
        error = self.refuse(command)
        if error is not None:
            raise error
        self.commands.put(command)

    def _loop(self):
        while not self._stop.is_set():
            with self._draining:
                try:
                    self.queue.drain(self._handle, wait=0.02)
                except OSError:
                    pass      # a storage fault the test injected: the app would show it

    def taken(self, kind=None):
        """What the app handled so far, once everything posted until now was handled."""
        while not self.queue.empty():
            self._stop.wait(0.005)
        with self._draining:
            pass
        out = []
        while True:
            try:
                c = self.commands.get_nowait()
            except queue.Empty:
                return out
            if kind is None or c.kind == kind:
                out.append(c)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)


class Rig:
    """Simulated boxes + a started BoxManager + the commands the "app" handled, in order.
    ``refuse(command)`` may return an exception for the stand-in to raise (a refusal)."""

    def __init__(self, tmp_path, transport, n=3, faults=None, keypads=1, **sim_options):
        self.sim = SimulatedBoxes(n=n, transport=transport, directory=None, faults=faults,
                                  keypads=keypads, **sim_options).start()
        self.data_dir = str(tmp_path / "data")
        self.app = AppQueue()
        self.manager = BoxManager(self.data_dir, ports=self.sim.ports)
        self.manager.start(self.app.post)
        self.wait(lambda: sum(u.connected for u in self.manager.units()) == n * keypads,
                  "all %d boxes to be discovered" % n)

    def wait(self, predicate, what, timeout=10.0):
        self.sim.wait(predicate, timeout=timeout, what=what)

    @property
    def refuse(self):
        return self.app.refuse

    @refuse.setter
    def refuse(self, fn):
        self.app.refuse = fn

    def taken(self, kind=None):
        return self.app.taken(kind)

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
        self.app.close()
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

