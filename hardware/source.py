"""The vote boxes as one more input source for the vote engine (companion.core.inputs)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Iterable, Self, Sequence, Unpack

from companion.core.events import Event
from companion.core.inputs import DeviceInfo, InputSource, Post
from companion.core.rules import undone_seqs
from companion.core.votes import withdrawn_ballots
from hardware import protocol as P
from hardware.manager import BoxManager

if TYPE_CHECKING:
    from hardware.discovery import PortLister, PortWatcher
    from hardware.sim import SimOptions, SimulatedBoxes


class BoxSource(InputSource):
    """Serial vote boxes on ``ports`` (device paths, globs, pyserial URLs, ``vbox://``, or
    ``"auto"`` for USB serial ports). Presses arrive as ``cast_ballot`` {seat, option} and
    ``box_pressed`` commands, and ``box_conflict`` when two boxes claim one id; the app tells the
    boxes about the vote through the methods below. A ballot is posted with a completion
    (CommandQueue.post's ``done``): its box hears "recorded" only once the journal has it, or
    "ignored" when the rules refused it."""

    name = "boxes"

    def __init__(self, data_dir: str, ports: Iterable[str] = ("auto",),
                 clock: Callable[[], float] = time.monotonic, lister: PortLister | None = None,
                 **manager_options: float) -> None:
        ports = list(ports)
        self.watcher: PortWatcher | None = None
        if "auto" in ports:
            # "auto": the ports that look like boxes now and whenever one is plugged in
            # (hardware.discovery); the HELLO handshake then tells boxes from other devices.
            ports = [p for p in ports if p != "auto"]
            from hardware.discovery import PortWatcher, default_lister
            self.watcher = PortWatcher(lister or default_lister(), self._port_plugged)
        self.manager = BoxManager(data_dir, ports=ports, clock=clock, **manager_options)
        # the attached game's events (an undo is read against them)
        self._events: list[Event] = []

    def _port_plugged(self, device: str) -> None:
        self.manager.add_port(device)

    @classmethod
    def simulated(cls, data_dir: str, n: int = 8, transport: str = "pty",
                  **sim_options: Unpack[SimOptions]) -> Self:
        """The virtual twin for the demo and app tests: ``n`` simulated boxes (hardware.sim) that
        start and stop with this source. ``source.sim`` presses, unplugs and injects faults."""
        from hardware.sim import SimulatedBoxes
        sim = SimulatedBoxes(n=n, transport=transport, **sim_options)
        source = cls(data_dir, ports=sim.ports)
        source.sim = sim
        return source

    sim: SimulatedBoxes | None = None   # the virtual twin, when simulated()

    def start(self, post: Post) -> None:
        if self.sim is not None:
            self.sim.start()
        self.manager.start(post)
        if self.watcher is not None:
            self.watcher.start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        self.manager.stop()
        if self.sim is not None:
            self.sim.stop()

    def port_status(self) -> list[tuple[str, str]]:
        """Every port opened (or being reopened) and what is wrong with it ('' when open)."""
        return sorted((p.url, p.problem) for p in list(self.manager._ports.values()))

    def devices(self) -> list[DeviceInfo]:
        out = []
        for u in self.manager.units():
            label = "Box %s" % u.ident
            out.append(DeviceInfo(kind="box", ident=u.ident, label=label, seat=u.seat,
                                  connected=u.connected, last_seen=u.last_seen,
                                  firmware=u.firmware, battery=u.battery,
                                  detail=u.detail or u.url, conflict=u.conflict))
        return out

    def on_events(self, events: Sequence[Event]) -> None:
        """Follows the vote engine's recorded events (call it with every batch the session
        records, on the main thread) and tells the boxes the vote's state the batch ends in:
        open with N options, revealed, closed. (A box ballot's "recorded" goes out when the app's
        queue settles it.) An undo or a redo may take back a box ballot or bring it back, or
        reopen a vote: the boxes are told the vote as the journal now stands (_resync)."""
        self._events.extend(events)
        if any(event.kind == "undo" for event in events):
            self._resync()
            return
        last = None
        for event in events:
            if event.kind in ("vote_opened", "vote_revealed", "vote_cancelled"):
                last = event
        if last is None:
            return
        if last.kind == "vote_opened":
            self.manager.vote_opened(len(last.data.get("options", ())))
        elif last.kind == "vote_revealed":
            self.manager.revealed()
        else:
            self.manager.vote_closed()

    def on_attach(self, events: Sequence[Event]) -> None:
        """The game's journal so far: the boxes show the vote it is in (e.g. open after the app
        restarted mid-vote, so a ballot the box still retransmits is counted)."""
        self._events = list(events)
        if any(e.kind in ("vote_opened", "vote_revealed", "vote_cancelled") for e in events):
            self.on_events(events)
        else:
            self.manager.vote_closed()

    def on_detach(self) -> None:
        """The table left the game for the picker: presses wait unanswered until a game is
        attached again (never "ignored": the box keeps its ballot press)."""
        self._events = []
        self.manager.detached()

    def _resync(self) -> None:
        """The vote as the journal stands after an undo or redo: its state, its options, and
        the seats with a ballot in it (the voters' order is the seats' order)."""
        undone = undone_seqs(self._events)
        withdrawn = withdrawn_ballots(self._events, undone) | undone
        live = [e for e in self._events if e.seq not in withdrawn]
        last = next((e for e in reversed(live)
                     if e.kind in ("vote_opened", "vote_revealed", "vote_cancelled")), None)
        if last is None or last.kind == "vote_cancelled":
            self.manager.resync(P.STATE_IDLE, 0, set())
            return
        vote_id = last.data.get("vote_id")
        opened = next((e for e in reversed(live) if e.kind == "vote_opened"
                       and e.data.get("vote_id") == vote_id), None)
        if opened is None:
            self.manager.resync(P.STATE_IDLE, 0, set())
            return
        voters = list(opened.data.get("voters", ()))
        standing = {voters.index(e.data["voter"]) + 1 for e in live
                    if e.kind == "ballot_cast" and e.seq > opened.seq
                    and e.data.get("vote_id") == vote_id and e.data.get("voter") in voters}
        state = P.STATE_OPEN if last.kind == "vote_opened" else P.STATE_REVEALED
        self.manager.resync(state, len(opened.data.get("options", ())), standing)

    # the vote's life, called by the app when the vote engine's events happen
    def vote_opened(self, n_options: int) -> None:
        self.manager.vote_opened(n_options)

    def revealed(self) -> None:
        self.manager.revealed()

    def vote_closed(self) -> None:
        self.manager.vote_closed()

    # pairing, from the devices panel
    def pair(self, seat: int) -> None:
        self.manager.pair(seat)

    def cancel_pairing(self) -> None:
        self.manager.cancel_pairing()

    def unpair(self, seat: int) -> None:
        self.manager.unpair(seat)

    def keep(self, ident: str, url: str) -> None:
        """Two boxes say they are ``ident``: the one on ``url`` is; the other is ignored."""
        self.manager.keep(ident, url)

    def repost(self) -> None:
        self.manager.repost()
