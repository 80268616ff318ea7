"""Virtual vote boxes: the virtual twin of firmware_stubs/box.c, speaking docs/protocol.md over
real pseudo-terminals (``transport="pty"``) or in-process virtual wires (``transport="vbox"``).

    sim = SimulatedBoxes(n=8); sim.start()
    manager = BoxManager(data_dir, ports=[sim.pattern]); manager.start(queue.put)
    sim.press(0, button=1); sim.unplug(3); sim.replug(3)

Faults (noise, corruption, drops, truncation, slow bytes, floods, duplicates) are injected per box
with a seeded random generator so a failing test can be replayed.
"""
from __future__ import annotations

import functools
import os
import random
import select
import tempfile
import threading
import time
import tty
from dataclasses import dataclass, replace
from typing import Callable, Protocol, Self, TypedDict

from hardware import protocol as P
from hardware.transport import VirtualWire

FW_MAJOR, FW_MINOR = 1, 0
FIRST_ID = 0xB0C50001
WRITE_WAIT = 0.1   # seconds a write waits for a host that does not read before its bytes are lost

# What a keypad's LEDs show (the firmware drives green/yellow/red the same way).
LED_OFF = "off"               # no vote
LED_OPEN = "open"             # vote open, no ballot yet (yellow)
LED_SENDING = "sending"       # pressed, waiting for the tablet (yellow blinking)
LED_RECEIVED = "received"     # tablet has the ballot (green blinking)
LED_RECORDED = "recorded"     # app recorded it: "vote received" (green)
LED_IGNORED = "ignored"       # press was not a ballot (red blink)
LED_PAIRED = "paired"         # press paired this keypad (green+yellow)
LED_REVEALED = "revealed"     # votes revealed (all on)


@dataclass
class Faults:
    noise: float = 0.0       # chance per frame of a burst of random bytes before it
    corrupt: float = 0.0     # chance per frame of one flipped byte (the CRC must catch it)
    drop: float = 0.0        # chance per frame (either direction) of being lost
    truncate: float = 0.0    # chance per frame of losing its tail (a partial frame)
    duplicate: float = 0.0   # chance per frame of being sent twice
    byte_delay: float = 0.0  # seconds between bytes: a slow box, frames arrive in pieces
    flood: float = 0.0       # extra heartbeat frames per second: a babbling box
    wrong_type: float = 0.0  # chance per heartbeat of a valid frame of unknown type 0x7F


class _Link(Protocol):
    """The box's end of its cable: a pseudo-terminal (_PtyLink) or a virtual wire (_WireLink)."""
    url: str     # what the host opens

    def read(self, timeout: float) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class _PtyLink:
    def __init__(self, link_path: str) -> None:
        self.link_path = link_path
        self.master, self.slave = os.openpty()
        os.set_blocking(self.master, False)
        self.stalled = False
        # Raw at once: before the host opens the port, the line discipline would echo and
        # mangle bytes (pyserial sets raw mode only when it opens its end).
        tty.setraw(self.slave)
        self.device = os.ttyname(self.slave)
        tmp = link_path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(self.device, tmp)
        os.replace(tmp, link_path)
        self.url = link_path

    def read(self, timeout: float) -> bytes:
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:
            return b""

    def write(self, data: bytes) -> None:
        # Non-blocking with a short wait: when the host does not read, the pty fills and its
        # bytes are lost, as on a wire, instead of blocking the box (and its lock) for good. After
        # one wait ran out, writes try once only until the host reads again.
        end = time.monotonic() + (0 if self.stalled else WRITE_WAIT)
        while data:
            try:
                data = data[os.write(self.master, data):]
            except BlockingIOError:
                if time.monotonic() >= end:
                    self.stalled = True
                    return
                time.sleep(0.002)     # select() cannot tell: a pty master always looks writable
            except OSError:
                return     # the host has not opened the port or went away: bytes are lost
        self.stalled = False

    def close(self) -> None:
        if os.path.lexists(self.link_path) and os.readlink(self.link_path) == self.device:
            os.unlink(self.link_path)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class _WireLink:
    def __init__(self, name: str) -> None:
        self.wire = VirtualWire(name)
        self.url = "vbox://" + name

    def read(self, timeout: float) -> bytes:
        return self.wire.box_read(timeout)

    def write(self, data: bytes) -> None:
        self.wire.box_write(data)

    def close(self) -> None:
        self.wire.unplug()


class SimBox:
    """One vote box (or a hub of ``keypads`` keypads) behaving like the firmware."""

    def __init__(self, box_id: int, make_link: Callable[[], _Link], keypads: int = 1,
                 buttons: int = 12, heartbeat: float = 1.0, retry: float = 0.25,
                 faults: Faults | None = None, seed: int = 0, version: int = P.PROTOCOL_VERSION,
                 battery: int | None = None) -> None:
        # HELLO and HEARTBEAT carry these in one byte each: a bad value would fail later, in the
        # box's thread, and only that box would die.
        if not 1 <= keypads <= 255:
            raise ValueError("keypads must be 1..255, got %d" % keypads)
        if battery is not None and not 0 <= battery <= 100:
            raise ValueError("battery must be a percentage 0..100, got %d" % battery)
        self.box_id = box_id
        self.keypads = keypads
        self.buttons = buttons
        self.heartbeat = heartbeat
        self.retry = retry
        self.faults = faults or Faults()
        self.version = version
        self.battery = battery
        self._make_link = make_link
        self._rng = random.Random(seed ^ box_id)
        self._lock = threading.RLock()
        self._link: _Link | None = None   # None until plugged
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.seq = 0
        self.boot = 0          # power-ups so far (the firmware keeps it in EEPROM)
        self.pending: dict[int, tuple[int, int, bytes, float]] = {}   # keypad -> (seq, button,..)
        self.leds = [LED_OFF] * keypads
        self.vote_state = P.STATE_IDLE
        self.options = 0
        self.acks: list[P.Message] = []
        self.last_press: dict[int, int] = {}
        self.received: list[P.Message] = []
        self.plugged = False

    @property
    def url(self) -> str:
        assert self._link is not None, "plug() the box first"
        return self._link.url

    # power and cable
    def plug(self, power_up: bool = True) -> None:
        with self._lock:
            self._link = self._make_link()
            self.plugged = True
            self._stop.clear()
            if power_up:
                # USB powers the box: a replug is a power-up, sequence from 0, pending lost.
                self._power_up()
            thread = self._thread = threading.Thread(target=self._run, name="simbox %08X" % self.box_id,
                                                     daemon=True)
            thread.start()
            self._send_hello(P.REASON_POWER_UP if power_up else P.REASON_ANSWER)

    def restart(self, lose_hello: bool = True) -> None:
        """A reset while the cable stays in (a brown-out, the reset button): the sequence starts
        at 0 again, the boot count goes up, a waiting press is lost, and the power-up HELLO is
        sent, or with ``lose_hello`` lost to noise, so the host sees only what follows."""
        with self._lock:
            self._power_up()
            if lose_hello:
                self._next_seq()       # the HELLO took its number, as on the box
            else:
                self._send_hello(P.REASON_POWER_UP)

    def _power_up(self) -> None:
        self.seq = 0
        self.boot = (self.boot + 1) & 0xFFFF   # kept in EEPROM on the firmware
        self.pending.clear()
        self.acks.clear()
        self.leds = [LED_OFF] * self.keypads
        self.vote_state, self.options = P.STATE_IDLE, 0

    def unplug(self) -> None:
        self._stop.set()     # first: a slow write holding the lock gives up at once
        with self._lock:
            self.plugged = False
            thread, link = self._thread, self._link
        if thread is not None:
            thread.join(timeout=2)
        if link is not None:
            link.close()

    # buttons
    def press(self, button: int, keypad: int = 0) -> int:
        """A debounced press: sent now and retried every ``retry`` s until acknowledged."""
        if not 0 <= keypad < self.keypads:
            raise ValueError("keypad %d out of range 0..%d" % (keypad, self.keypads - 1))
        if not 0 <= button < self.buttons:
            raise ValueError("button %d out of range 0..%d" % (button, self.buttons - 1))
        with self._lock:
            seq = self._next_seq()
            frame = P.encode(P.make("PRESS", self.box_id, seq, keypad=keypad, button=button))
            self.pending[keypad] = (seq, button, frame, time.monotonic() + self.retry)
            self.last_press[keypad] = seq
            self.leds[keypad] = LED_SENDING
            self._write(frame)
            return seq

    def is_acked(self, seq: int) -> bool:
        with self._lock:
            return any(a.acked == seq for a in self.acks)

    # internals
    def _next_seq(self) -> int:
        self.seq = (self.seq + 1) & 0xFFFF
        return self.seq

    def _send_hello(self, reason: int) -> None:
        self._write(P.encode(P.make("HELLO", self.box_id, self._next_seq(), version=self.version,
                                    fw_major=FW_MAJOR, fw_minor=FW_MINOR, keypads=self.keypads,
                                    buttons=self.buttons, reason=reason, boot=self.boot)))

    def _send_heartbeat(self) -> None:
        pending = len(self.pending)
        battery = P.NO_BATTERY if self.battery is None else self.battery
        if self.faults.wrong_type and self._rng.random() < self.faults.wrong_type:
            raw = P.HEADER.pack(0x7F, self.box_id, self._next_seq()) + b"\x01\x02"
            self._write(P.cobs_encode(raw + P.crc16_ccitt_false(raw).to_bytes(2, "big")) + b"\0")
        self._write(P.encode(P.make("HEARTBEAT", self.box_id, self._next_seq(),
                                    battery=battery, pending=pending)))

    def _write(self, frame: bytes) -> None:
        f, rng = self.faults, self._rng
        link = self._link
        if link is None or not self.plugged:
            return
        if f.drop and rng.random() < f.drop:
            return
        data = bytearray(frame)
        if f.corrupt and rng.random() < f.corrupt:
            i = rng.randrange(len(data) - 1)
            data[i] ^= 1 << rng.randrange(8)
            if data[i] == 0:          # a flip to 0x00 would split the frame: still corrupt
                data[i] = 0x55
        if f.truncate and rng.random() < f.truncate:
            data = data[:rng.randrange(1, len(data) - 1)]   # the tail and its delimiter lost
        if f.noise and rng.random() < f.noise:
            data[0:0] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        if f.duplicate and rng.random() < f.duplicate:
            data = data + data
        if f.byte_delay:
            for b in data:
                link.write(bytes([b]))
                if self._stop.wait(f.byte_delay):
                    break     # unplugged mid-frame: the rest is lost
        else:
            link.write(bytes(data))

    def _run(self) -> None:
        reader = P.FrameReader()
        next_hb = time.monotonic() + self.heartbeat
        flood_from, flooded = time.monotonic(), 0
        link = self._link
        assert link is not None   # plug() made it before starting this thread
        while not self._stop.is_set():
            data = link.read(0.005 if self.faults.flood else 0.02)
            for item in reader.feed(data) if data else ():
                if isinstance(item, P.Message) and item.type & 0x80:
                    if self.faults.drop and self._rng.random() < self.faults.drop:
                        continue
                    with self._lock:
                        self._on_host(item)
            now = time.monotonic()
            with self._lock:
                if self._stop.is_set():
                    break
                if now >= next_hb:
                    next_hb = now + self.heartbeat
                    self._send_heartbeat()
                if self.faults.flood:
                    # exactly `flood` extra frames per second, however late this loop runs
                    due = int((now - flood_from) * self.faults.flood) - flooded
                    for _ in range(min(due, 1000)):
                        self._send_heartbeat()
                    flooded += max(due, 0)
                else:
                    flood_from, flooded = now, 0
                for keypad, (seq, button, frame, resend_at) in list(self.pending.items()):
                    if now >= resend_at:
                        self.pending[keypad] = (seq, button, frame, now + self.retry)
                        self._write(frame)

    def _on_host(self, msg: P.Message) -> None:
        if msg.box not in (self.box_id, P.BROADCAST):
            return
        self.received.append(msg)
        if msg.type == P.WELCOME:
            self._send_hello(P.REASON_ANSWER)
        elif msg.type == P.VOTE_STATE:
            if msg.state == self.vote_state and msg.options == self.options:
                return      # the same state, told again (after a HELLO): keep ballots and LEDs
            self.vote_state, self.options = msg.state, msg.options
            look = {P.STATE_IDLE: LED_OFF, P.STATE_OPEN: LED_OPEN,
                    P.STATE_REVEALED: LED_REVEALED}.get(msg.state, LED_OFF)
            for k in range(self.keypads):
                if msg.keypad in (P.ALL_KEYPADS, k):
                    if msg.state == P.STATE_OPEN and k in self.pending:
                        continue     # pressed just as the vote opened: that press stands
                    self.leds[k] = look
                    self.pending.pop(k, None)
        elif msg.type == P.ACK:
            k = msg.keypad
            if k >= self.keypads:
                self.acks.append(msg)
                return
            pend = self.pending.get(k)
            if pend and pend[0] == msg.acked:
                del self.pending[k]
            if msg.status == P.ACK_RECORDED:
                if self.vote_state != P.STATE_REVEALED:   # "revealed" outranks "recorded"
                    self.leds[k] = LED_RECORDED
            elif pend and pend[0] == msg.acked:
                self.leds[k] = {P.ACK_RECEIVED: LED_RECEIVED, P.ACK_IGNORED: LED_IGNORED,
                                P.ACK_PAIRED: LED_PAIRED}.get(msg.status, LED_IGNORED)
            elif msg.status == P.ACK_IGNORED and msg.acked == self.last_press.get(k):
                self.leds[k] = LED_IGNORED     # a ballot the app refused after receiving it
            self.acks.append(msg)     # last, so whoever waits for the ACK sees its LED too


class SimOptions(TypedDict, total=False):
    """SimulatedBoxes' options after ``n`` and ``transport`` (BoxSource.simulated hands them
    on)."""
    directory: str | None
    keypads: int
    faults: Faults | None
    heartbeat: float
    retry: float
    seed: int
    first_id: int
    battery: int | None


class SimulatedBoxes:
    """N virtual boxes, each on its own port: pty links live in ``directory`` as box01, box02...
    (``pattern`` globs them all), vbox links are ``vbox://<prefix>01``..."""

    def __init__(self, n: int = 8, transport: str = "pty", directory: str | None = None,
                 keypads: int = 1, faults: Faults | None = None, heartbeat: float = 1.0,
                 retry: float = 0.25, seed: int = 0, first_id: int = FIRST_ID,
                 battery: int | None = None) -> None:
        if transport not in ("pty", "vbox"):
            raise ValueError("transport must be 'pty' or 'vbox', got %r" % transport)
        self.transport = transport
        self._own_dir = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="boxes-")
        self._prefix = "sim%x-" % id(self) if transport == "vbox" else "box"
        self.boxes: list[SimBox] = []
        for i in range(n):
            name = "%s%02d" % (self._prefix, i + 1)
            make: Callable[[], _Link]
            if transport == "pty":
                make = functools.partial(_PtyLink, os.path.join(self.directory, name))
            else:
                make = functools.partial(_WireLink, name)
            self.boxes.append(SimBox(first_id + i, make, keypads=keypads, heartbeat=heartbeat,
                                     retry=retry, faults=replace(faults) if faults else None,
                                     seed=seed + i, battery=battery))

    @property
    def pattern(self) -> str:
        return os.path.join(self.directory, "box*") if self.transport == "pty" else ""

    @property
    def urls(self) -> list[str]:
        if self.transport == "pty":
            return [os.path.join(self.directory, "%s%02d" % (self._prefix, i + 1))
                    for i in range(len(self.boxes))]
        return ["vbox://%s%02d" % (self._prefix, i + 1) for i in range(len(self.boxes))]

    @property
    def ports(self) -> list[str]:
        """What to give BoxManager(ports=...)."""
        return [self.pattern] if self.transport == "pty" else self.urls

    def start(self) -> Self:
        for b in self.boxes:
            b.plug()
        return self

    def stop(self) -> None:
        for b in self.boxes:
            b.unplug()
        if self._own_dir:
            for f in os.listdir(self.directory):
                os.unlink(os.path.join(self.directory, f))
            os.rmdir(self.directory)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def press(self, i: int, button: int, keypad: int = 0) -> int:
        return self.boxes[i].press(button, keypad)

    def unplug(self, i: int) -> None:
        self.boxes[i].unplug()

    def replug(self, i: int, power_up: bool = True) -> None:
        self.boxes[i].plug(power_up=power_up)

    def wait(self, predicate: Callable[[], object], timeout: float = 5.0,
             what: str = "condition") -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return
            time.sleep(0.01)
        raise TimeoutError("timed out after %.1f s waiting for %s" % (timeout, what))
