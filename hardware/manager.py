"""The box manager: opens ports, discovers boxes by their HELLO, pairs keypads to seats, turns
presses into Commands, acknowledges them, and tells boxes the vote's state for their LEDs.

Threads: one reader thread per port (plus one scanner for glob patterns). They never touch app
state; everything they learn leaves as a Command through ``post`` (a CommandQueue's put), and the
manager's own bookkeeping is guarded by one lock.
"""
from __future__ import annotations

import collections
import glob
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import serial

from companion.core.events import Command
from hardware import protocol as P
from hardware.transport import open_port

log = logging.getLogger("hardware.boxes")

SEEN_WINDOW = 256          # sequence numbers remembered per box for de-duplication
HEARTBEAT_TIMEOUT = 3.5    # seconds without any frame before a box is shown as missing
FLOOD_RATE = 30.0          # frames per second a box may send on average...
FLOOD_BURST = 60.0         # ...with this burst; a firmware sends ~1 heartbeat/s and 4 retries/s
REOPEN_INTERVAL = 0.25
PAIRING_FILE = "boxes.json"


@dataclass
class BoxRecord:
    box: int
    url: str
    version: int = 0
    firmware: str | None = None
    keypads: int = 1
    buttons: int = 0
    battery: int | None = None
    boot: int | None = None
    confirmed: bool = True           # has said HELLO since its port was last (re)opened
    welcomed_at: float = -1.0
    last_seen: float | None = None
    port_alive: bool = True
    seen: collections.OrderedDict = field(default_factory=collections.OrderedDict)
    tokens: dict = field(default_factory=lambda: {"press": FLOOD_BURST, "other": FLOOD_BURST})
    tokens_at: dict = field(default_factory=lambda: {"press": 0.0, "other": 0.0})
    flood_dropped: int = 0
    last_press: tuple | None = None   # (keypad, button, at) shown on the devices panel
    problem: str = ""

    @property
    def ident(self) -> str:
        return "%08X" % self.box


@dataclass(frozen=True)
class UnitStatus:
    """One keypad as the devices panel shows it (a plain box has one keypad, a hub several)."""
    box: int
    keypad: int
    ident: str
    url: str
    seat: int | None
    connected: bool
    last_seen: float | None
    firmware: str | None
    battery: int | None
    detail: str


@dataclass
class Ballot:
    option: int
    box: int
    keypad: int
    seq: int
    status: int = P.ACK_RECEIVED


class _Port:
    def __init__(self, url: str):
        self.url = url
        self.serial = None
        self.reader = P.FrameReader()
        self.write_lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.problem = ""
        self.welcomed_at = -10.0


class BoxManager:
    def __init__(self, data_dir: str, ports=(), clock: Callable[[], float] = time.monotonic,
                 heartbeat_timeout: float = HEARTBEAT_TIMEOUT, scan_interval: float = 0.5):
        self.data_dir = data_dir
        self.clock = clock
        self.heartbeat_timeout = heartbeat_timeout
        self.scan_interval = scan_interval
        self._patterns = list(ports)
        self._lock = threading.RLock()
        self._ports: dict[str, _Port] = {}
        self._boxes: dict[int, BoxRecord] = {}
        self._seats: dict[tuple[int, int], int] = {}      # (box, keypad) -> seat
        self._pair_seat: int | None = None
        self._vote_open = False
        self._vote_state = P.STATE_IDLE
        self._n_options = 0
        self._ballots: dict[int, Ballot] = {}
        self._host_seq = 0
        self._post: Callable[[Command], None] | None = None
        self._running = threading.Event()
        self._stopping = threading.Event()
        self._scanner: threading.Thread | None = None
        self._rate_logged: dict[str, float] = {}
        self.problems: collections.deque[str] = collections.deque(maxlen=50)
        self.counters = collections.Counter()
        self._load_pairing()

    # ---------------------------------------------------------------- lifecycle
    def start(self, post: Callable[[Command], None]):
        self._post = post
        self._stopping.clear()
        self._running.set()
        self._scan_once()
        self._scanner = threading.Thread(target=self._scan_loop, name="box-scan", daemon=True)
        self._scanner.start()

    def stop(self):
        self._running.clear()
        self._stopping.set()
        threads = [p.thread for p in self._ports.values() if p.thread]
        if self._scanner:
            threads.append(self._scanner)
        for t in threads:
            t.join(timeout=2)
        for p in self._ports.values():
            if p.serial is not None:
                p.serial.close()
                p.serial = None

    def add_port(self, url_or_glob: str):
        with self._lock:
            self._patterns.append(url_or_glob)
        if self._running.is_set():
            self._scan_once()

    def _scan_loop(self):
        while not self._stopping.wait(self.scan_interval):
            self._scan_once()

    def _scan_once(self):
        """Globs are re-read on every scan, so a box plugged in later (a new /dev/ttyACM*, a new
        simulator link) is found; each port gets a reader thread that reopens it after unplugs."""
        urls = []
        for pat in list(self._patterns):
            if pat == "auto":
                urls += auto_ports()
            elif any(c in pat for c in "*?[") and "://" not in pat:
                urls += sorted(glob.glob(pat))
            else:
                urls.append(pat)
        for url in urls:
            with self._lock:
                if url in self._ports:
                    continue
                port = self._ports[url] = _Port(url)
            port.thread = threading.Thread(target=self._port_loop, args=(port,),
                                           name="box-port " + url, daemon=True)
            port.thread.start()

    # ---------------------------------------------------------------- reading
    def _port_loop(self, port: _Port):
        while self._running.is_set():
            if port.serial is None:
                try:
                    port.serial = open_port(port.url)
                except (serial.SerialException, OSError, ValueError) as e:
                    port.problem = _one_line(e)
                    time.sleep(REOPEN_INTERVAL)
                    continue
                port.reader = P.FrameReader()     # a partial frame from before is stale
                port.problem = ""
                log.info("port %s open", port.url)
                with self._lock:
                    for b in self._boxes.values():
                        if b.url == port.url:
                            # Until it says HELLO again we cannot tell a box that kept its
                            # sequence numbers from one that restarted and counts from 0 again.
                            b.port_alive, b.confirmed = True, False
                # The host starts the handshake: an Arduino resets on open and a box that was
                # already talking may have missed nothing or everything.
                self._send(port, P.make("WELCOME", P.BROADCAST, self._next_seq(),
                                        version=P.PROTOCOL_VERSION))
                port.welcomed_at = time.monotonic()
            now = time.monotonic()
            if now - port.welcomed_at >= 1.0 and not self._confirmed_on(port.url):
                # Nobody has introduced itself here yet (a box still booting missed the first
                # WELCOME, or lost its answer): ask again, once a second.
                port.welcomed_at = now
                self._send(port, P.make("WELCOME", P.BROADCAST, self._next_seq(),
                                        version=P.PROTOCOL_VERSION))
            try:
                data = port.serial.read(max(1, port.serial.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                self._port_lost(port, e)
                continue
            if data:
                self.counters["bytes"] += len(data)
                for item in port.reader.feed(data):
                    try:
                        self._handle(port, item)
                    except Exception as e:   # a fault of ours must not stop this port's reader
                        log.exception("handling %s on %s", item, port.url)
                        self._problem("could not handle a frame on %s: %s"
                                      % (port.url, _one_line(e)), key="internal:" + port.url)
        if port.serial is not None:
            port.serial.close()
            port.serial = None

    def _confirmed_on(self, url: str) -> bool:
        with self._lock:
            return any(b.url == url and b.confirmed for b in self._boxes.values())

    def _port_lost(self, port: _Port, err):
        self._problem("port %s lost: %s" % (port.url, _one_line(err)))
        try:
            port.serial.close()
        except Exception:   # a vanished device may fail to close; it is gone either way
            pass
        port.serial = None
        with self._lock:
            for b in self._boxes.values():
                if b.url == port.url:
                    b.port_alive = False
        time.sleep(REOPEN_INTERVAL)

    def _handle(self, port: _Port, item):
        if isinstance(item, P.FrameError):
            self.counters["bad_frames"] += 1
            self._problem("dropped a frame on %s: %s" % (port.url, item), key="bad:" + port.url)
            return
        msg: P.Message = item
        self.counters["frames"] += 1
        if msg.type & 0x80:
            # Host-to-box types are our own frames echoed (loop://) or another host: not ours.
            self.counters["echo"] += 1
            return
        now = self.clock()
        with self._lock:
            box = self._boxes.get(msg.box)
            if msg.type == P.HELLO:
                self._hello(port, msg, now)
                return
            if box is None or not box.confirmed or box.url != port.url:
                # Not acknowledged, so the box sends it again after its HELLO; nothing is lost.
                self.counters["unknown_box"] += 1
                if box is None:
                    self._problem("dropped %s from unknown box 0x%08X on %s (no HELLO yet); "
                                  "asking it to introduce itself" % (msg.name, msg.box, port.url),
                                  key="unknown:%d" % msg.box)
                last = box.welcomed_at if box else self._rate_logged.get("welcome:%d" % msg.box,
                                                                         -1.0)
                if now - last >= 0.2:
                    if box:
                        box.welcomed_at = now
                    else:
                        self._rate_logged["welcome:%d" % msg.box] = now
                    self._send(port, P.make("WELCOME", msg.box, self._next_seq(),
                                            version=P.PROTOCOL_VERSION))
                return
            if not self._admit(box, now, "press" if msg.type == P.PRESS else "other"):
                return
            box.last_seen = now
            box.url, box.port_alive = port.url, True
            if box.version != P.PROTOCOL_VERSION:
                return
            if msg.type == P.HEARTBEAT:
                box.battery = None if msg.battery == P.NO_BATTERY else min(msg.battery, 100)
                return
            if msg.type == P.PRESS:
                self._press(port, box, msg, now)

    def _admit(self, box: BoxRecord, now: float, kind: str = "other") -> bool:
        """Token buckets per box: a flooding box loses its excess frames, the others lose none.
        Presses have their own bucket, so a box babbling heartbeats can still vote."""
        box.tokens[kind] = min(FLOOD_BURST,
                               box.tokens[kind] + (now - box.tokens_at[kind]) * FLOOD_RATE)
        box.tokens_at[kind] = now
        if box.tokens[kind] >= 1:
            box.tokens[kind] -= 1
            return True
        box.flood_dropped += 1
        self.counters["flood_dropped"] += 1
        box.problem = "flooding: %d frames dropped" % box.flood_dropped
        self._problem("box %s floods the line: %d frames dropped so far"
                      % (box.ident, box.flood_dropped), key="flood:%d" % box.box)
        return False

    def _hello(self, port: _Port, msg: P.Message, now: float):
        box = self._boxes.get(msg.box)
        if box is None:
            box = self._boxes[msg.box] = BoxRecord(msg.box, port.url)
            box.tokens_at = {"press": now, "other": now}
            log.info("box %s found on %s", box.ident, port.url)
        elif not self._admit(box, now):
            return
        if msg.reason == P.REASON_POWER_UP or (box.boot is not None and msg.boot != box.boot):
            # A box that restarted counts its sequence from 0 again; old numbers mean nothing.
            # (Its power-up HELLO is often lost to the port opening: the boot count tells.)
            box.seen.clear()
        box.boot = msg.boot
        box.url, box.port_alive, box.last_seen, box.confirmed = port.url, True, now, True
        box.version = msg.version
        box.firmware = "%d.%d" % (msg.fw_major, msg.fw_minor)
        box.keypads, box.buttons = max(1, msg.keypads), msg.buttons
        if msg.version != P.PROTOCOL_VERSION:
            box.problem = "speaks protocol v%d, tablet speaks v%d: ignored" % (
                msg.version, P.PROTOCOL_VERSION)
            self._problem("box %s %s" % (box.ident, box.problem))
            return
        if box.problem.startswith("speaks protocol"):
            box.problem = ""
        # Let a box that comes (back) show the vote's current state and its keypads' ballots.
        self._send(port, P.make("VOTE_STATE", box.box, self._next_seq(), keypad=P.ALL_KEYPADS,
                                state=self._vote_state, options=self._n_options))
        for seat, ballot in self._ballots.items():
            if ballot.box == box.box and ballot.status == P.ACK_RECORDED:
                self._send(port, P.make("ACK", box.box, self._next_seq(), acked=ballot.seq,
                                        keypad=ballot.keypad, status=P.ACK_RECORDED))

    def _press(self, port: _Port, box: BoxRecord, msg: P.Message, now: float):
        keypad, button = msg.keypad, msg.button
        if msg.seq in box.seen:
            # A retransmission (our ACK was lost) or a replayed frame: answer, never count again.
            self.counters["duplicates"] += 1
            log.info("duplicate PRESS seq %d from box %s: acknowledged again, not counted",
                     msg.seq, box.ident)
            self._ack(port, box, msg.seq, keypad, box.seen[msg.seq])
            return
        if keypad >= box.keypads:
            self._remember(box, msg.seq, P.ACK_IGNORED)
            self._problem("box %s pressed on keypad %d but has %d keypad(s): ignored"
                          % (box.ident, keypad, box.keypads))
            self._ack(port, box, msg.seq, keypad, P.ACK_IGNORED)
            return
        box.last_press = (keypad, button, now)
        unit = (box.box, keypad)
        source = "box:%s" % box.ident
        data = {"box": box.ident, "keypad": keypad, "button": button}
        if self._pair_seat is not None:
            seat = self._pair_seat
            self._pair_seat = None
            for u in [u for u, s in self._seats.items() if s == seat or u == unit]:
                del self._seats[u]
            self._seats[unit] = seat
            self._save_pairing()
            log.info("box %s keypad %d paired to seat %d", box.ident, keypad, seat)
            self._remember(box, msg.seq, P.ACK_PAIRED)
            self._emit(Command("box_pressed", dict(data, seat=seat, paired=True), source))
            self._ack(port, box, msg.seq, keypad, P.ACK_PAIRED)
            return
        seat = self._seats.get(unit)
        reason = None
        if seat is None:
            reason = "unpaired"
        elif self._vote_state != P.STATE_OPEN:
            reason = "no vote open"
        elif button >= self._n_options:
            reason = "button %d but the vote has %d options" % (button, self._n_options)
        if reason:
            self.counters["ignored"] += 1
            log.info("press of box %s keypad %d button %d ignored: %s",
                     box.ident, keypad, button, reason)
            if seat is None:
                box.problem = "unpaired: presses ignored"
            self._remember(box, msg.seq, P.ACK_IGNORED)
            self._emit(Command("box_pressed", dict(data, seat=seat, ignored=reason), source))
            self._ack(port, box, msg.seq, keypad, P.ACK_IGNORED)
            return
        if box.problem == "unpaired: presses ignored":
            box.problem = ""
        # Posted before anything is remembered or acknowledged: if posting fails, the box's
        # retry is a fresh attempt; once the box sees "received" the app has the ballot.
        self._emit(Command("cast_ballot", {"seat": seat, "option": button}, source))
        self._ballots[seat] = Ballot(button, box.box, keypad, msg.seq)
        self._remember(box, msg.seq, P.ACK_RECEIVED)
        self.counters["ballots"] += 1
        self._ack(port, box, msg.seq, keypad, P.ACK_RECEIVED)

    def _remember(self, box: BoxRecord, seq: int, status: int):
        box.seen[seq] = status
        while len(box.seen) > SEEN_WINDOW:
            box.seen.popitem(last=False)

    # ---------------------------------------------------------------- writing
    def _next_seq(self) -> int:
        with self._lock:
            self._host_seq = (self._host_seq + 1) & 0xFFFF
            return self._host_seq

    def _ack(self, port: _Port, box: BoxRecord, seq: int, keypad: int, status: int):
        self._send(port, P.make("ACK", box.box, self._next_seq(), acked=seq, keypad=keypad,
                                status=status))

    def _send(self, port: _Port, msg: P.Message):
        ser = port.serial
        if ser is None:
            return
        try:
            with port.write_lock:
                ser.write(P.encode(msg))
        except (serial.SerialException, OSError) as e:
            # The reader thread notices the loss and reopens; a box that missed this frame gets
            # the vote state again in answer to its next HELLO.
            log.info("write to %s failed: %s", port.url, _one_line(e))

    def _broadcast(self, msg_for_box: Callable[[BoxRecord], P.Message]):
        with self._lock:
            targets = [(self._ports.get(b.url), b) for b in self._boxes.values() if b.port_alive]
        for port, box in targets:
            if port is not None:
                self._send(port, msg_for_box(box))

    def _emit(self, command: Command):
        if self._post is not None:
            self._post(command)

    def _problem(self, msg: str, key: str | None = None):
        """Log one line; a repeating fault (noise, a flood) is logged at most once a second."""
        now = time.monotonic()
        if key is not None:
            if now - self._rate_logged.get(key, -10.0) < 1.0:
                return
            self._rate_logged[key] = now
        log.warning(msg)
        self.problems.append(msg)

    # ---------------------------------------------------------------- app-facing
    def pair(self, seat: int):
        """The next press of any box's keypad binds that keypad to ``seat`` (until changed)."""
        if seat < 1:
            raise ValueError("seats are numbered from 1, got %d" % seat)
        with self._lock:
            self._pair_seat = seat

    def cancel_pairing(self):
        with self._lock:
            self._pair_seat = None

    @property
    def pairing_seat(self) -> int | None:
        return self._pair_seat

    def unpair(self, seat: int):
        with self._lock:
            for u in [u for u, s in self._seats.items() if s == seat]:
                del self._seats[u]
            self._save_pairing()

    def seats(self) -> dict[tuple[str, int], int]:
        with self._lock:
            return {("%08X" % b, k): s for (b, k), s in self._seats.items()}

    def vote_opened(self, n_options: int):
        """A new vote: earlier ballots are forgotten; boxes light "vote open"."""
        if not 1 <= n_options <= 254:
            raise ValueError("a vote needs 1..254 options, got %d" % n_options)
        with self._lock:
            self._ballots.clear()
            self._vote_state, self._n_options = P.STATE_OPEN, n_options
        self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                         keypad=P.ALL_KEYPADS, state=P.STATE_OPEN,
                                         options=n_options))

    def ballot_acknowledged(self, seat: int):
        """The app recorded seat's ballot: that keypad lights "vote received"."""
        with self._lock:
            ballot = self._ballots.get(seat)
            # Once revealed, the boxes show "revealed"; a repeated call changes nothing.
            if (ballot is None or ballot.status == P.ACK_RECORDED
                    or self._vote_state != P.STATE_OPEN):
                if ballot is not None:
                    ballot.status = P.ACK_RECORDED
                return
            ballot.status = P.ACK_RECORDED
            box = self._boxes.get(ballot.box)
            port = self._ports.get(box.url) if box else None
        if port is not None:
            self._send(port, P.make("ACK", ballot.box, self._next_seq(), acked=ballot.seq,
                                    keypad=ballot.keypad, status=P.ACK_RECORDED))

    def ballot_refused(self, seat: int):
        """The app refused seat's box ballot: it no longer stands, and the box flashes red."""
        with self._lock:
            ballot = self._ballots.pop(seat, None)
            box = self._boxes.get(ballot.box) if ballot else None
            port = self._ports.get(box.url) if box else None
        if port is not None:
            self._send(port, P.make("ACK", ballot.box, self._next_seq(), acked=ballot.seq,
                                    keypad=ballot.keypad, status=P.ACK_IGNORED))

    def revealed(self):
        """Ballots are shown: boxes light "revealed" and take no more ballots."""
        with self._lock:
            self._vote_state = P.STATE_REVEALED
        self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                         keypad=P.ALL_KEYPADS, state=P.STATE_REVEALED,
                                         options=self._n_options))

    def vote_closed(self):
        with self._lock:
            self._vote_state, self._n_options = P.STATE_IDLE, 0
            self._ballots.clear()
        self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                         keypad=P.ALL_KEYPADS, state=P.STATE_IDLE, options=0))

    def acked_ballots(self) -> dict[int, int]:
        """seat -> option of every ballot a box was told was received, in the current vote."""
        with self._lock:
            return {seat: b.option for seat, b in self._ballots.items()}

    def repost(self):
        """Posts every acknowledged ballot again (e.g. after the app restarted its queue); the
        vote engine treats a repeat of the same ballot as the same ballot."""
        for seat, option in sorted(self.acked_ballots().items()):
            box = self._ballots[seat].box
            self._emit(Command("cast_ballot", {"seat": seat, "option": option},
                               "box:%08X" % box))

    def units(self) -> list[UnitStatus]:
        now = self.clock()
        out = []
        with self._lock:
            seat_of = dict(self._seats)
            known = set()
            for box in sorted(self._boxes.values(), key=lambda b: b.box):
                alive = (box.port_alive and box.last_seen is not None
                         and now - box.last_seen <= self.heartbeat_timeout)
                for k in range(box.keypads):
                    known.add((box.box, k))
                    detail = box.problem or ("" if alive else "unplugged" if not
                                             box.port_alive else "no heartbeat")
                    if box.last_press and box.last_press[0] == k and not detail:
                        detail = "last press: button %d" % box.last_press[1]
                    out.append(UnitStatus(
                        box.box, k, box.ident if box.keypads == 1 else "%s/%d" % (box.ident, k),
                        box.url, seat_of.get((box.box, k)), alive, box.last_seen, box.firmware,
                        box.battery, detail))
            # Paired keypads whose box has not been seen since start still hold their seat.
            for (b, k), seat in seat_of.items():
                if (b, k) not in known:
                    out.append(UnitStatus(b, k, "%08X" % b if k == 0 else "%08X/%d" % (b, k),
                                          "", seat, False, None, None, None, "not seen yet"))
        return out

    # ---------------------------------------------------------------- pairing file
    @property
    def pairing_path(self) -> str:
        return os.path.join(self.data_dir, PAIRING_FILE)

    def _load_pairing(self):
        path = self.pairing_path
        if not os.path.exists(path):
            return
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            seats = {}
            for row in doc["seats"]:
                seats[(int(row["box"], 16), int(row.get("keypad", 0)))] = int(row["seat"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            # Keep the damaged file for a human, start unpaired rather than crash.
            bad = path + ".bad"
            os.replace(path, bad)
            self._problem("pairing file %s is unreadable (%s); moved to %s, boxes start unpaired"
                          % (path, _one_line(e), bad))
            return
        self._seats = seats

    def _save_pairing(self):
        os.makedirs(self.data_dir, exist_ok=True)
        doc = {"version": 1, "seats": [{"box": "%08X" % b, "keypad": k, "seat": s}
                                       for (b, k), s in sorted(self._seats.items())]}
        tmp = self.pairing_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.pairing_path)   # never a half-written pairing file


def auto_ports() -> list[str]:
    """Serial ports that look like USB vote boxes (USB CDC/FTDI/CH340/CP210x have a VID); ports
    without USB ids (/dev/ttyS0 on this machine) are skipped so probing never hangs on them."""
    from serial.tools import list_ports
    return sorted(p.device for p in list_ports.comports() if p.vid is not None)


def _one_line(e) -> str:
    return " ".join(str(e).split()) or type(e).__name__
