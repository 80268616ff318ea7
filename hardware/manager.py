"""The box manager: opens ports, discovers boxes by their HELLO, pairs keypads to seats, turns
presses into Commands, acknowledges them, and tells boxes the vote's state for their LEDs.

Threads: per port, one reader and one writer (plus one scanner for glob patterns). They never
touch app state; everything they learn leaves as a Command through ``post`` (a CommandQueue's
post). The manager's bookkeeping is guarded by one lock; frames to a box are queued to its port's
writer, so nothing ever writes to a port (1 s write timeout) while holding that lock, and the main
thread's calls (vote opened, revealed) never wait for a slow port.

A ballot is acknowledged only once the app has it in its journal: the cast_ballot Command is
posted with a completion that the app's queue calls after the session committed it (or refused
it); only then does the box get its ACK.
"""
from __future__ import annotations

import collections
import functools
import glob
import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import serial

from companion.core.events import BadInput, Command, RuleError
from companion.core.inputs import Done, Post
from companion.core.journal import JournalError
from hardware import protocol as P
from hardware.transport import SerialPort, open_port

log = logging.getLogger("hardware.boxes")

SEEN_WINDOW = 256          # sequence numbers remembered per box for de-duplication
SEEN_AGE = 0x6000          # ...and forgotten once the box's counter is this far past them: a
                           # 16-bit counter wraps after 65,536 frames (~18 h of heartbeats), and
                           # a new press reusing an old number must not be taken for a repeat
HEARTBEAT_TIMEOUT = 3.5    # seconds without any frame before a box is shown as missing
FLOOD_RATE = 30.0          # frames per second a box may send on average...
FLOOD_BURST = 60.0         # ...with this burst; a firmware sends ~1 heartbeat/s and 4 retries/s
REOPEN_INTERVAL = 0.25
WELCOME_GAP = 0.2          # at most one WELCOME per box this often
PAIRING_FILE = "boxes.json"
PENDING = -1               # a ballot posted to the app, not yet in its journal: no answer yet
RETRY = -2                 # a ballot the app could not record (storage, no game): no answer;
                           # the box's retransmission is posted again
RETRY_GAP = 1.0            # ...at most this often (a full disk is not tried 4 times a second)
MAX_KEYPADS = 16           # a hub has one keypad per seat; no game has more than 8 seats
MAX_BOXES = 64             # box records at most (one box per port): a hard cap, whatever the ports
FORGET_AFTER = 600.0       # a box silent this long is forgotten (its seat and ballot stay)
OUTBOX_MAX = 64            # frames queued per port; a box that does not read loses the oldest


@dataclass
class Seen:
    """A PRESS the host has taken: its answer, and what it said (a retransmission repeats it)."""
    status: int
    keypad: int
    button: int
    settled: bool = False   # a later HEARTBEAT said nothing waits: it cannot come again
    failed_at: float = 0.0  # RETRY: when the app could not record it


@dataclass
class BoxRecord:
    """One box identity as heard on one port (two boxes with the same id are two records)."""
    box: int
    url: str
    version: int = 0
    firmware: str | None = None
    keypads: int = 1
    buttons: int = 0
    battery: int | None = None
    boot: int | None = None
    confirmed: bool = True           # has said HELLO since its port was (re)opened / a doubt
    welcomed_at: float = -1.0
    last_seen: float | None = None
    last_seq: int | None = None      # the newest sequence number heard from the box
    port_alive: bool = True
    # seq -> the PRESS taken under that number (oldest first)
    seen: collections.OrderedDict[int, Seen] = field(default_factory=collections.OrderedDict)
    # seq -> (keypad, button) of presses in doubt
    held: dict[int, tuple[int, int]] = field(default_factory=dict)
    vetted: set[int] = field(default_factory=set)   # older seqs a HELLO showed to be no restart
    # flood buckets ("press", "other"): tokens left, and when they were last filled
    tokens: dict[str, float] = field(
        default_factory=lambda: {"press": FLOOD_BURST, "other": FLOOD_BURST})
    tokens_at: dict[str, float] = field(default_factory=lambda: {"press": 0.0, "other": 0.0})
    flood_dropped: int = 0
    # (keypad, button, secret) shown on the devices panel; secret: pressed while a vote was open
    # (or not known yet), so the button is never shown: it may be a ballot
    last_press: tuple[int, int, bool] | None = None
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
    conflict: bool = False


@dataclass
class Ballot:
    option: int
    box: int
    keypad: int
    seq: int
    url: str
    boot: int | None = None   # the box's boot when it pressed: a restarted box reuses numbers


class _Outbox:
    """Frames for a port's writer thread, at most ``size``: a box that does not read its port
    loses the oldest (it hears the vote state again after its next HELLO), the host no memory."""

    def __init__(self, size: int = OUTBOX_MAX) -> None:
        self._frames: collections.deque[bytes] = collections.deque(maxlen=size)
        self._cond = threading.Condition()
        self._closed = False
        self.dropped = 0

    def put(self, frame: bytes) -> None:
        with self._cond:
            if len(self._frames) == self._frames.maxlen:
                self.dropped += 1
            self._frames.append(frame)
            self._cond.notify()

    def get(self) -> bytes | None:
        """The oldest frame, waiting for one; None once closed."""
        with self._cond:
            while not self._frames and not self._closed:
                self._cond.wait()
            return None if self._closed else self._frames.popleft()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def qsize(self) -> int:
        return len(self._frames)


class _Port:
    def __init__(self, url: str) -> None:
        self.url = url
        # the open port, None while closed; stop() may close it under a reader that outlived
        # its join, which the reader catches as the port lost.
        self.serial: SerialPort | None = None
        self.reader = P.FrameReader()
        self.write_lock = threading.Lock()
        self.outbox = _Outbox()
        self.thread: threading.Thread | None = None
        self.writer: threading.Thread | None = None
        self.problem = ""
        self.welcomed_at = -10.0
        # the last WELCOME to an id never introduced here: one clock per port, not per id, so
        # a box inventing ids gets no more WELCOMEs and takes no more memory than one box
        self.stranger_welcomed_at = -10.0


class BoxManager:
    def __init__(self, data_dir: str, ports: Iterable[str] = (),
                 clock: Callable[[], float] = time.monotonic,
                 heartbeat_timeout: float = HEARTBEAT_TIMEOUT, scan_interval: float = 0.5) -> None:
        self.data_dir = data_dir
        self.clock = clock
        self.heartbeat_timeout = heartbeat_timeout
        self.scan_interval = scan_interval
        self._patterns = list(ports)
        self._lock = threading.RLock()
        self._ports: dict[str, _Port] = {}
        self._boxes: dict[tuple[int, str], BoxRecord] = {}   # (box id, port url) -> record
        self._kept: dict[int, str] = {}      # box id -> the port the table chose among twins
        self._announced: set[int] = set()    # box ids whose duplicate was announced
        self._seats: dict[tuple[int, int], int] = {}      # (box, keypad) -> seat
        self._pair_seat: int | None = None
        # None until the app says what vote its game is in (no game attached yet, e.g. just
        # restarted): a ballot press is then left unanswered, so the box keeps it and retries.
        self._vote_state: int | None = None
        self._n_options = 0
        self._ballots: dict[int, Ballot] = {}   # seat -> its standing ballot (in the journal)
        self._withdrawn: dict[int, Ballot] = {}  # seat -> its box ballot the table undid (a redo)
        self._host_seq = 0
        self._post: Post | None = None
        self._running = threading.Event()
        self._stopping = threading.Event()
        self._scanner: threading.Thread | None = None
        self._rate_logged: dict[str, float] = {}
        self.problems: collections.deque[str] = collections.deque(maxlen=50)
        self.counters: collections.Counter[str] = collections.Counter()
        # (file, why, where it is kept) when boxes.json could not be read: the app says so
        self.pairing_problem: tuple[str, str, str] | None = None
        self._load_pairing()

    # ---------------------------------------------------------------- lifecycle
    def start(self, post: Post) -> None:
        """``post(command, done=None)``: a CommandQueue's post (ballots come with ``done``)."""
        self._post = post
        self._stopping.clear()
        self._running.set()
        self._scan_once()
        self._scanner = threading.Thread(target=self._scan_loop, name="box-scan", daemon=True)
        self._scanner.start()

    def stop(self) -> None:
        self._running.clear()
        self._stopping.set()
        for p in self._ports.values():
            p.outbox.close()
        threads = [t for p in self._ports.values() for t in (p.thread, p.writer) if t]
        if self._scanner:
            threads.append(self._scanner)
        for t in threads:
            t.join(timeout=2)
        for p in self._ports.values():
            if p.serial is not None:
                p.serial.close()
                p.serial = None

    def add_port(self, url_or_glob: str) -> None:
        with self._lock:
            self._patterns.append(url_or_glob)
        if self._running.is_set():
            self._scan_once()

    def _scan_loop(self) -> None:
        while not self._stopping.wait(self.scan_interval):
            self._scan_once()

    def _scan_once(self) -> None:
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
            port.writer = threading.Thread(target=self._write_loop, args=(port,),
                                           name="box-write " + url, daemon=True)
            port.writer.start()
            port.thread.start()

    # ---------------------------------------------------------------- reading
    def _port_loop(self, port: _Port) -> None:
        while self._running.is_set():
            if port.serial is None:
                try:
                    port.serial = open_port(port.url)
                except (serial.SerialException, OSError, ValueError) as e:
                    port.problem = _one_line(e)
                    self._stopping.wait(REOPEN_INTERVAL)
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
                self._welcome(port, P.BROADCAST)
                port.welcomed_at = self.clock()
            now = self.clock()
            if now - port.welcomed_at >= 1.0 and not self._confirmed_on(port.url):
                # Nobody has introduced itself here yet (a box still booting missed the first
                # WELCOME, or lost its answer): ask again, once a second.
                port.welcomed_at = now
                self._welcome(port, P.BROADCAST)
            ser = port.serial
            if ser is None:     # stop() closed it: the loop ends
                continue
            try:
                data = ser.read(max(1, ser.in_waiting))
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

    def _port_lost(self, port: _Port, err: BaseException) -> None:
        self._problem("port %s lost: %s" % (port.url, _one_line(err)))
        try:
            if port.serial is not None:
                port.serial.close()
        except Exception:   # a vanished device may fail to close; it is gone either way
            pass
        port.serial = None
        with self._lock:
            for b in self._boxes.values():
                if b.url == port.url:
                    b.port_alive = False
        self._stopping.wait(REOPEN_INTERVAL)

    def _dropped(self, port: _Port, why: str, warn: bool = False) -> None:
        """Every dropped frame is logged, one line naming why (docs/protocol.md); with ``warn``,
        the first of a burst is a warning people see on the devices panel, at most one a second
        per port (keyed by port, never by box id: a box inventing ids must not grow the keys)."""
        self.counters["dropped"] += 1
        line = "dropped a frame on %s: %s" % (port.url, why)
        if warn and self._due("dropped:" + port.url):
            log.warning(line)
            self.problems.append(line)
        else:
            log.info(line)

    def _handle(self, port: _Port, item: P.Message | P.FrameError) -> None:
        if isinstance(item, P.FrameError):
            self.counters["bad_frames"] += 1
            self._dropped(port, str(item), warn=True)
            return
        msg = item
        self.counters["frames"] += 1
        if msg.type & 0x80:
            # Host-to-box types are our own frames echoed (loop://) or another host: not ours.
            self.counters["echo"] += 1
            return
        now = self.clock()
        with self._lock:
            if msg.type == P.HELLO:
                self._hello(port, msg, now)
                return
            box = self._boxes.get((msg.box, port.url))
            if box is None or not box.confirmed:
                # Not acknowledged, so the box sends it again after its HELLO; nothing is lost.
                self.counters["unknown_box"] += 1
                # A box never heard of is news for the panel; one asked again after a port
                # reopening or a doubt is routine.
                self._dropped(port, "%s from %s box 0x%08X (no HELLO here yet): asking it to "
                              "introduce itself" % (msg.name, "unknown" if box is None else
                                                    "unconfirmed", msg.box),
                              warn=box is None)
                self._welcome_box(port, box, msg.box, now)
                return
            kind = self._classify(box, msg)
            if kind == "doubt":
                # Its number goes backwards (or repeats with other content): the box may have
                # restarted with its power-up HELLO lost. Its HELLO's boot count will tell.
                self.counters["seq_doubts"] += 1
                box.confirmed = False
                # bounded: a press not held here is retransmitted and held after the HELLO
                if msg.type == P.PRESS and len(box.held) < SEEN_WINDOW:
                    box.held[msg.seq] = (msg.keypad, msg.button)
                self._dropped(port, "%s seq %d from box %s goes back from seq %d: asking for "
                              "its HELLO" % (msg.name, msg.seq, box.ident, box.last_seq or 0))
                self._welcome_box(port, box, msg.box, now)
                return
            if kind == "same frame":
                self.counters["duplicates"] += 1
                self._dropped(port, "%s seq %d from box %s again (the same frame twice)"
                              % (msg.name, msg.seq, box.ident))
                return
            if not self._admit(box, now, "press" if msg.type == P.PRESS else "other"):
                self._flooded(port, box)
                return
            box.last_seen = now
            box.port_alive = True
            if kind == "new" and (box.last_seq is None
                                  or (msg.seq - box.last_seq) & 0xFFFF < 0x8000):
                self._advance(box, msg.seq)
            if box.version != P.PROTOCOL_VERSION:
                if msg.type == P.PRESS:
                    # Answered, so the box stops retransmitting; never read as a ballot.
                    if kind == "new":
                        self._remember(box, msg.seq, P.ACK_IGNORED, msg.keypad, msg.button)
                    self._dropped(port, "PRESS from box %s, which speaks protocol v%d: answered "
                                  "ignored" % (box.ident, box.version))
                    self._ack(port, box, msg.seq, msg.keypad, P.ACK_IGNORED)
                return
            if msg.type == P.HEARTBEAT:
                box.battery = None if msg.battery == P.NO_BATTERY else min(msg.battery, 100)
                if msg.pending == 0:
                    for entry in box.seen.values():
                        entry.settled = True
                return
            if msg.type == P.PRESS:
                self._press(port, box, msg, now)

    @staticmethod
    def _classify(box: BoxRecord, msg: P.Message) -> str:
        """"new", "repeat" (a PRESS retransmitted), "same frame" (a non-PRESS twice on the
        line) or "doubt" (the sequence went backwards: a restart, or a stale frame)."""
        entry = box.seen.get(msg.seq) if msg.type == P.PRESS else None
        if msg.type == P.PRESS and msg.seq in box.vetted:
            return "new" if entry is None else "repeat"
        if entry is not None:
            same = (entry.keypad, entry.button) == (msg.keypad, msg.button)
            # A box retransmits only a press still waiting; after a HEARTBEAT with pending 0
            # the same frame again can only be a restarted box reusing the number.
            return "repeat" if same and not entry.settled else "doubt"
        if box.last_seq is None:
            return "new"
        behind = (box.last_seq - msg.seq) & 0xFFFF
        if behind == 0 and msg.type != P.PRESS:
            return "same frame"
        return "doubt" if behind < 0x8000 else "new"

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
        return False

    def _flooded(self, port: _Port, box: BoxRecord) -> None:
        self._dropped(port, "box %s floods the line: %d frames dropped so far"
                      % (box.ident, box.flood_dropped), warn=True)

    def _hello(self, port: _Port, msg: P.Message, now: float) -> None:
        box = self._boxes.get((msg.box, port.url))
        if box is None:
            if not self._make_room(port, msg.box, now):
                return
            box = self._boxes[(msg.box, port.url)] = BoxRecord(msg.box, port.url)
            box.tokens_at = {"press": now, "other": now}
            log.info("box %s found on %s", box.ident, port.url)
        elif not self._admit(box, now):
            self._flooded(port, box)
            return
        stale = self._stale_hello(port, box, msg, now)
        if stale:
            # A frame of the past (replayed, or held up on the line): believing it would forget
            # the numbers that keep old presses from counting again. The box's own answer to
            # this WELCOME tells where it is.
            self.counters["stale_hellos"] += 1
            self._dropped(port, "HELLO seq %d boot %d from box %s is stale (%s): asking again"
                          % (msg.seq, msg.boot, box.ident, stale))
            self._welcome_box(port, box, msg.box, now)
            return
        if box.boot is None or msg.boot != box.boot:
            # A box that restarted counts its sequence from 0 again; old numbers mean nothing.
            # (Its power-up HELLO is often lost to the port opening: the boot count tells.)
            if box.seen or box.held:
                log.info("box %s restarted (boot %s -> %d): its old sequence numbers are "
                         "forgotten", box.ident, box.boot, msg.boot)
            box.seen.clear()
            # A press held in doubt is the restarted box's own (an older one died with it).
            box.vetted = set(box.held)
        else:
            # The same boot: a press whose number went backwards is stale when a newer press of
            # its keypad was taken (the newer choice is the ballot): answered "ignored", never
            # counted. Any other (a hub's other keypad) is taken when it comes again.
            for seq, (keypad, button) in box.held.items():
                newer = any(e.keypad == keypad and 0 < (s - seq) & 0xFFFF < 0x8000
                            for s, e in box.seen.items())
                if newer or (msg.seq - seq) & 0xFFFF >= SEEN_AGE:   # or older than remembered
                    log.info("PRESS seq %d from box %s is older than a press taken from its "
                             "keypad: not counted", seq, box.ident)
                    self._remember(box, seq, P.ACK_IGNORED, keypad, button)
                else:
                    box.vetted.add(seq)
        box.held.clear()
        # (a HELLO of this boot whose number is behind is only believed in answer to our
        # WELCOME: _stale_hello; then the box's counter went round while we did not hear it)
        box.boot = msg.boot
        self._advance(box, msg.seq, look=True)
        box.port_alive, box.last_seen, box.confirmed = True, now, True
        box.version = msg.version
        box.firmware = "%d.%d" % (msg.fw_major, msg.fw_minor)
        # A hub has one keypad per seat: more than MAX_KEYPADS is a fault (or a lie), and
        # would only make rows on the devices panel. Keypads beyond are answered "ignored".
        box.keypads, box.buttons = min(max(1, msg.keypads), MAX_KEYPADS), msg.buttons
        if msg.keypads > MAX_KEYPADS:
            box.problem = "says %d keypads, the tablet serves %d" % (msg.keypads, MAX_KEYPADS)
            self._problem("box %s %s" % (box.ident, box.problem), key="keypads:" + port.url)
        elif box.problem.startswith("says "):
            box.problem = ""
        if msg.version != P.PROTOCOL_VERSION:
            box.problem = "speaks protocol v%d, tablet speaks v%d: ignored" % (
                msg.version, P.PROTOCOL_VERSION)
            self._problem("box %s %s" % (box.ident, box.problem), key="version:" + port.url)
            return
        if box.problem.startswith("speaks protocol"):
            box.problem = ""
        if self._twin_problem(box, now):
            return
        # Let a box that comes (back) show the vote's current state and its keypads' ballots.
        # That ACK names the HELLO's seq, no press's number: a restarted box reuses numbers,
        # and the old ballot's must not answer a new press still waiting.
        if self._vote_state is not None:   # unknown (no game yet): the box keeps its own
            self._send(port, P.make("VOTE_STATE", box.box, self._next_seq(),
                                    keypad=P.ALL_KEYPADS, state=self._vote_state,
                                    options=self._n_options))
        for ballot in self._ballots.values():
            if ballot.box == box.box:
                self._send(port, P.make("ACK", box.box, self._next_seq(), acked=msg.seq,
                                        keypad=ballot.keypad, status=P.ACK_RECORDED))

    def _stale_hello(self, port: _Port, box: BoxRecord, msg: P.Message, now: float) -> str:
        """Why a HELLO cannot be the box as it is now, or "". The boot count only goes up (one
        per power-up), and a power-up HELLO is the first frame of its boot: a power-up HELLO of
        a boot already heard, a boot count going back, or a HELLO of this boot whose number
        goes back is an old frame. Believed all the same when it answers a WELCOME we sent
        within the last second (a box whose EEPROM was rewritten, a counter that went round)."""
        if box.boot is None:
            return ""
        answering = (msg.reason == P.REASON_ANSWER
                     and now - max(box.welcomed_at, port.welcomed_at) <= 1.0)
        ahead = (msg.boot - box.boot) & 0xFFFF
        if ahead == 0 and msg.reason == P.REASON_POWER_UP:
            return "a power-up HELLO of boot %d, which was heard before" % msg.boot
        if answering:
            return ""
        if ahead >= 0x8000:
            return "its boot count goes back from %d" % box.boot
        if ahead == 0 and box.last_seq is not None and \
                0 < (box.last_seq - msg.seq) & 0xFFFF < 0x8000:
            return "its number goes back from seq %d" % box.last_seq
        return ""

    @staticmethod
    def _advance(box: BoxRecord, seq: int, look: bool = False) -> None:
        """``seq`` is the box's newest number: numbers SEEN_AGE or more behind it are forgotten
        (a press's number, once the 16-bit counter comes round to it again, is a new press)."""
        crossed = look or box.last_seq is None or (box.last_seq >> 8) != (seq >> 8)
        box.last_seq = seq
        if not crossed:     # a look every 256 numbers is plenty (SEEN_AGE is far from the wrap)
            return
        for old in [s for s in box.seen if (seq - s) & 0xFFFF >= SEEN_AGE]:
            del box.seen[old]
        box.vetted = {s for s in box.vetted if (seq - s) & 0xFFFF < SEEN_AGE}

    def _make_room(self, port: _Port, box_id: int, now: float) -> bool:
        """Before a new box is listed: a port carries one box (a hub is one box), so a HELLO
        with a new id replaces the box the port had (swapped on the cable, or a faulty box
        changing ids: never a growing list); boxes silent for FORGET_AFTER are forgotten; past
        MAX_BOXES the newcomer is refused. False when refused. Seats and ballots are kept by
        box id: a box that comes back finds them."""
        self._forget_gone(now)
        for key, old in list(self._boxes.items()):
            if old.url == port.url:
                del self._boxes[key]
                self._problem("box %08X on %s replaces box %s there (one box per port)"
                              % (box_id, port.url, old.ident), key="replaced:" + port.url)
        if len(self._boxes) >= MAX_BOXES:
            self._problem("box %08X on %s not listed: the tablet already lists %d boxes"
                          % (box_id, port.url, MAX_BOXES), key="full:" + port.url)
            return False
        return True

    def _forget_gone(self, now: float) -> None:
        for key, box in list(self._boxes.items()):
            if box.last_seen is None or now - box.last_seen > FORGET_AFTER:
                del self._boxes[key]
        # the twin bookkeeping follows the records (a box inventing ids must not grow it)
        self._announced &= {b for b, _ in self._boxes}

    # ---------------------------------------------------------------- same id on two ports
    def _live(self, box: BoxRecord, now: float) -> bool:
        return (box.port_alive and box.last_seen is not None
                and now - box.last_seen <= self.heartbeat_timeout)

    def _twin_problem(self, box: BoxRecord, now: float) -> str:
        """Why this box's presses may not count because another box has its id, or ""."""
        kept = self._kept.get(box.box)
        if kept is not None:
            return "" if kept == box.url else "same id as the box on %s, which the table kept: " \
                                              "ignored" % kept
        twins = sorted(r.url for (b, url), r in self._boxes.items()
                       if b == box.box and url != box.url and self._live(r, now))
        if not twins:
            self._announced.discard(box.box)
            return ""
        problem = ("same id as the box on %s: neither counts until the table keeps one"
                   % ", ".join(twins))
        if box.box not in self._announced:
            self._announced.add(box.box)
            message = "Two boxes say they are %s (on %s): neither counts until one is kept" % (
                box.ident, ", ".join(sorted(twins + [box.url])))
            self._problem(message)
            self._emit(Command("box_conflict", {"box": box.ident, "ports": sorted(
                twins + [box.url]), "message": message}, "box:%s" % box.ident))
        return problem

    def keep(self, box: int | str, url: str) -> None:
        """The table resolves a duplicate id: the box on ``url`` is that id; the others with the
        same id are ignored (shown so) until the app restarts."""
        box_id = int(box, 16) if isinstance(box, str) else box
        with self._lock:
            if (box_id, url) not in self._boxes:
                raise ValueError("no box %08X on %s" % (box_id, url))
            self._kept[box_id] = url
            self._announced.discard(box_id)
        log.info("box %08X: the table kept the one on %s", box_id, url)

    # ---------------------------------------------------------------- presses
    def _press(self, port: _Port, box: BoxRecord, msg: P.Message, now: float) -> None:
        keypad, button = msg.keypad, msg.button
        entry = box.seen.get(msg.seq)
        if entry is not None and entry.status == RETRY:
            # The app could not record it (its storage failed, or it had no game): the box
            # kept it and sends it again; post it again, at most once every RETRY_GAP.
            if now - entry.failed_at < RETRY_GAP:
                log.info("PRESS seq %d from box %s again: its ballot is posted again shortly",
                         msg.seq, box.ident)
                return
            del box.seen[msg.seq]
            entry = None
        if entry is not None:
            # A retransmission (our ACK was lost, or not sent yet): answer, never count again.
            self.counters["duplicates"] += 1
            if entry.status == PENDING:
                log.info("PRESS seq %d from box %s again: its ballot waits for the journal",
                         msg.seq, box.ident)
            else:
                log.info("duplicate PRESS seq %d from box %s: acknowledged again, not counted",
                         msg.seq, box.ident)
                self._ack(port, box, msg.seq, keypad, entry.status)
            return
        # While a vote is open (or the app has no game yet: it may be open) a press may be a
        # ballot: no screen may show its button, only that the box pressed (``secret``).
        secret = self._vote_state in (None, P.STATE_OPEN)
        box.last_press = (keypad, button, secret)
        box.vetted.discard(msg.seq)
        source = "box:%s" % box.ident
        data = {"box": box.ident, "keypad": keypad, "button": button, "secret": secret}
        twin = self._twin_problem(box, now)
        reason, why = None, ""     # why: the reason's code, for the app's words
        if keypad >= box.keypads:
            reason, why = "keypad %d but the box has %d" % (keypad, box.keypads), "keypad"
        elif twin:
            reason, why = "duplicate id", "duplicate"
            box.problem = twin
        elif self._pair_seat is not None and self._pairing_press(box, keypad):
            self._pair(port, box, msg, data, source)
            return
        seat = self._seats.get((box.box, keypad))
        if reason is None and seat is None:
            reason, why = "unpaired", "unpaired"
        elif reason is None and self._vote_state is None:
            self._dropped(port, "PRESS seq %d from box %s: the app has no game yet, not answered "
                          "(the box retries)" % (msg.seq, box.ident))
            box.vetted.add(msg.seq)      # its retry is this press again, not a doubt
            return
        elif reason is None and self._vote_state != P.STATE_OPEN:
            reason, why = "no vote open", "no_vote"
        elif reason is None and button >= self._n_options:
            reason = "button %d but the vote has %d options" % (button, self._n_options)
            why = "not_option"
        if reason:
            self.counters["ignored"] += 1
            log.info("press of box %s keypad %d button %s ignored: %s", box.ident, keypad,
                     "(secret)" if secret else button, reason)
            if reason == "unpaired":
                box.problem = "unpaired: presses ignored"
            self._remember(box, msg.seq, P.ACK_IGNORED, keypad, button)
            self._emit(Command("box_pressed", dict(data, seat=seat, ignored=reason, why=why),
                               source))
            self._ack(port, box, msg.seq, keypad, P.ACK_IGNORED)
            return
        if box.problem in ("unpaired: presses ignored",) or box.problem.startswith("same id"):
            box.problem = ""
        # Posted first: if posting fails the box's retry is a fresh attempt. No answer now; the
        # box hears "recorded" once the app has committed the ballot to its journal (_settled).
        assert seat is not None  # an unpaired press was answered "ignored" above
        done = functools.partial(self._settled, box.box, box.url, msg.seq, seat, keypad, button)
        self._emit(Command("cast_ballot", {"seat": seat, "option": button}, source), done)
        self._remember(box, msg.seq, PENDING, keypad, button)

    def _pairing_press(self, box: BoxRecord, keypad: int) -> bool:
        """While the tablet waits for a seat's pairing press: is this press it? A keypad paired
        to no seat (or to that seat) pairs at any time. A keypad paired to another seat is a
        voter's: while a vote is open, or the app has no game yet (its vote may be open), its
        press stays a ballot; it is moved to another seat only while no vote is open."""
        seat = self._seats.get((box.box, keypad))
        return seat is None or seat == self._pair_seat or \
            self._vote_state in (P.STATE_IDLE, P.STATE_REVEALED)

    def _pair(self, port: _Port, box: BoxRecord, msg: P.Message, data: dict[str, object],
              source: str) -> None:
        seat, unit = self._pair_seat, (box.box, msg.keypad)
        assert seat is not None  # called only while a seat waits for its press
        self._pair_seat = None
        for u in [u for u, s in self._seats.items() if s == seat or u == unit]:
            del self._seats[u]
        self._seats[unit] = seat
        self._save_pairing()
        log.info("box %s keypad %d paired to seat %d", box.ident, msg.keypad, seat)
        self._remember(box, msg.seq, P.ACK_PAIRED, msg.keypad, msg.button)
        self._emit(Command("box_pressed", dict(data, seat=seat, paired=True), source))
        self._ack(port, box, msg.seq, msg.keypad, P.ACK_PAIRED)

    def _settled(self, box_id: int, url: str, seq: int, seat: int, keypad: int, button: int,
                 error: Exception | None) -> None:
        """The app's queue settled a posted ballot (main thread): in the journal -> ACK
        "recorded"; refused by the rules -> ACK "ignored"; not recorded at all (a storage
        fault: JournalError is a BadInput to the app, but no rule refused the ballot; or the
        table left the game, so no game took it) -> no answer: the box keeps retransmitting and
        its retry is posted again (RETRY), so the press counts once the storage is back."""
        with self._lock:
            box = self._boxes.get((box_id, url))
            entry = box.seen.get(seq) if box is not None else None
            waiting = entry is not None and entry.status == PENDING
            if error is None:
                self.counters["ballots"] += 1
                self._ballots[seat] = Ballot(button, box_id, keypad, seq, url,
                                             box.boot if box is not None else None)
                self._withdrawn.pop(seat, None)
                status = P.ACK_RECORDED
            elif isinstance(error, (RuleError, BadInput)) and not isinstance(error, JournalError) \
                    and self._vote_state is not None:
                status = P.ACK_IGNORED
            else:
                self.counters["not_recorded"] += 1
                log.info("ballot of box %08X (seq %d) not recorded (%s): not answered, the box "
                         "retries", box_id, seq, _one_line(error))
                if waiting and entry is not None:
                    entry.status, entry.failed_at = RETRY, self.clock()
                return
            if not waiting or box is None or entry is None:
                return      # the box restarted meanwhile: it no longer waits for this number
            entry.status = status
            port = self._ports.get(url)
        if port is not None:
            self._ack(port, box, seq, keypad, status)

    def _remember(self, box: BoxRecord, seq: int, status: int, keypad: int, button: int) -> None:
        box.seen[seq] = Seen(status, keypad, button)
        while len(box.seen) > SEEN_WINDOW:
            box.seen.popitem(last=False)

    # ---------------------------------------------------------------- writing
    def _next_seq(self) -> int:
        with self._lock:
            self._host_seq = (self._host_seq + 1) & 0xFFFF
            return self._host_seq

    def _ack(self, port: _Port | None, box: BoxRecord, seq: int, keypad: int, status: int) -> None:
        self._send(port, P.make("ACK", box.box, self._next_seq(), acked=seq, keypad=keypad,
                                status=status))

    def _welcome(self, port: _Port, box_id: int) -> None:
        self._send(port, P.make("WELCOME", box_id, self._next_seq(), version=P.PROTOCOL_VERSION))

    def _welcome_box(self, port: _Port, box: BoxRecord | None, box_id: int, now: float) -> None:
        last = box.welcomed_at if box else port.stranger_welcomed_at
        if now - last >= WELCOME_GAP:
            if box:
                box.welcomed_at = now
            else:
                port.stranger_welcomed_at = now
            self._welcome(port, box_id)

    def _send(self, port: _Port | None, msg: P.Message) -> None:
        """Queues a frame for the port's writer thread: callers may hold the lock."""
        if port is not None:
            port.outbox.put(P.encode(msg))

    def _write_loop(self, port: _Port) -> None:
        while True:
            frame = port.outbox.get()
            if frame is None:
                return
            ser = port.serial
            if ser is None:
                continue     # the port is closed: a box that missed this hears it after HELLO
            try:
                with port.write_lock:
                    ser.write(frame)
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                # The reader thread notices the loss and reopens; a box that missed this frame
                # gets the vote state again in answer to its next HELLO.
                log.info("write to %s failed: %s", port.url, _one_line(e))

    def _broadcast(self, msg_for_box: Callable[[BoxRecord], P.Message]) -> None:
        with self._lock:
            for box in self._boxes.values():
                if box.port_alive:
                    self._send(self._ports.get(box.url), msg_for_box(box))

    def _emit(self, command: Command, done: Done | None = None) -> None:
        if self._post is not None:
            if done is None:
                self._post(command)
            else:
                self._post(command, done)

    def _problem(self, msg: str, key: str | None = None) -> None:
        """A problem people should see (warning + devices panel); a repeating one (a flood, an
        unknown box) at most once a second."""
        if key is None or self._due(key):
            log.warning(msg)
            self.problems.append(msg)

    def _due(self, key: str) -> bool:
        """True at most once a second (by the injected clock) per key."""
        now = self.clock()
        if now - self._rate_logged.get(key, -10.0) < 1.0:
            return False
        self._rate_logged[key] = now
        return True

    # ---------------------------------------------------------------- app-facing
    def pair(self, seat: int) -> None:
        """The next press of any box's keypad binds that keypad to ``seat`` (until changed)."""
        if seat < 1:
            raise ValueError("seats are numbered from 1, got %d" % seat)
        with self._lock:
            self._pair_seat = seat

    def cancel_pairing(self) -> None:
        with self._lock:
            self._pair_seat = None

    @property
    def pairing_seat(self) -> int | None:
        return self._pair_seat

    def unpair(self, seat: int) -> None:
        with self._lock:
            for u in [u for u, s in self._seats.items() if s == seat]:
                del self._seats[u]
            self._save_pairing()

    def seats(self) -> dict[tuple[str, int], int]:
        with self._lock:
            return {("%08X" % b, k): s for (b, k), s in self._seats.items()}

    def vote_opened(self, n_options: int) -> None:
        """A new vote: earlier ballots are forgotten; boxes light "vote open"."""
        if not 1 <= n_options <= 254:
            raise ValueError("a vote needs 1..254 options, got %d" % n_options)
        with self._lock:
            self._ballots.clear()
            self._withdrawn.clear()
            self._vote_state, self._n_options = P.STATE_OPEN, n_options
            self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                             keypad=P.ALL_KEYPADS, state=P.STATE_OPEN,
                                             options=n_options))

    def revealed(self) -> None:
        """Ballots are shown: boxes light "revealed" and take no more ballots."""
        with self._lock:
            self._vote_state = P.STATE_REVEALED
            self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                             keypad=P.ALL_KEYPADS, state=P.STATE_REVEALED,
                                             options=self._n_options))

    def vote_closed(self) -> None:
        with self._lock:
            self._vote_state, self._n_options = P.STATE_IDLE, 0
            self._ballots.clear()
            self._withdrawn.clear()
            self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                             keypad=P.ALL_KEYPADS, state=P.STATE_IDLE,
                                             options=0))

    def detached(self) -> None:
        """The table left its game (back to the game picker): as after a restart, no game takes
        a ballot, so presses are left unanswered (the boxes keep them) and no VOTE_STATE is
        sent until a game is attached again (vote_opened / revealed / vote_closed / resync)."""
        with self._lock:
            self._vote_state, self._n_options = None, 0
            self._ballots.clear()
            self._withdrawn.clear()

    def resync(self, state: int, n_options: int, standing: set[int]) -> None:
        """After an undo or a redo: the vote is in ``state`` and the seats in ``standing`` have
        a ballot in it. A box ballot the table took back is answered ``ignored`` (its box shows
        that it must vote again, and is not told "recorded" again after a HELLO); one brought
        back by a redo is answered ``recorded`` again. Both name the press's own number, and
        only while the box has not restarted since (a restarted box reuses numbers)."""
        if state == P.STATE_OPEN and not 1 <= n_options <= 254:
            raise ValueError("a vote needs 1..254 options, got %d" % n_options)
        with self._lock:
            changed = (state, n_options) != (self._vote_state, self._n_options)
            self._vote_state, self._n_options = state, n_options
            if state == P.STATE_IDLE:
                self._ballots.clear()
                self._withdrawn.clear()
            tell: list[tuple[Ballot, int]] = []
            for seat in [s for s in self._ballots if s not in standing]:
                ballot = self._withdrawn[seat] = self._ballots.pop(seat)
                tell.append((ballot, P.ACK_IGNORED))
                log.info("box %08X: its ballot for seat %d was taken back at the tablet", ballot.box,
                         seat)
            for seat in [s for s in standing if s in self._withdrawn]:
                self._ballots[seat] = self._withdrawn.pop(seat)
                tell.append((self._ballots[seat], P.ACK_RECORDED))
            if changed and state != P.STATE_IDLE:
                self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                                 keypad=P.ALL_KEYPADS, state=state,
                                                 options=n_options))
                if state == P.STATE_OPEN:   # the boxes lit "open" again: their ballots stand
                    tell += [(b, P.ACK_RECORDED) for b in self._ballots.values()
                             if (b, P.ACK_RECORDED) not in tell]
            elif changed:
                self._broadcast(lambda b: P.make("VOTE_STATE", b.box, self._next_seq(),
                                                 keypad=P.ALL_KEYPADS, state=state, options=0))
            for ballot, status in tell:
                box = self._boxes.get((ballot.box, ballot.url))
                if box is None or box.boot != ballot.boot or not box.port_alive:
                    continue   # gone or restarted: it hears the vote's state after its HELLO
                entry = box.seen.get(ballot.seq)
                if entry is not None:   # a retransmission of that press is answered the same
                    entry.status = status
                self._ack(self._ports.get(ballot.url), box, ballot.seq, ballot.keypad, status)

    def acked_ballots(self) -> dict[int, int]:
        """seat -> option of every box ballot in the app's journal, in the current vote."""
        with self._lock:
            return {seat: b.option for seat, b in self._ballots.items()}

    def repost(self) -> None:
        """Posts every acknowledged ballot again (e.g. after the app restarted its queue); the
        vote engine treats a repeat of the same ballot as the same ballot."""
        with self._lock:
            ballots = sorted(self._ballots.items())
        for seat, ballot in ballots:
            self._emit(Command("cast_ballot", {"seat": seat, "option": ballot.option},
                               "box:%08X" % ballot.box))

    def units(self) -> list[UnitStatus]:
        """One row per keypad (the devices panel, every second, on the main thread): the lock
        is held only to copy a few fields of each box (at most MAX_BOXES), not to build rows."""
        now = self.clock()
        with self._lock:
            self._forget_gone(now)
            seat_of = dict(self._seats)
            boxes = []
            for box in self._boxes.values():
                alive = self._live(box, now)
                twin = self._twin_problem(box, now) if alive else ""
                boxes.append((box.box, box.url, box.ident, box.keypads, alive, box.port_alive,
                              twin, box.problem, box.last_press, box.last_seen, box.firmware,
                              box.battery))
        out, known = [], set()
        for (box_id, url, ident, keypads, alive, port_alive, twin, problem, last_press,
             last_seen, firmware, battery) in sorted(boxes, key=lambda b: (b[0], b[1])):
            for k in range(keypads):
                known.add((box_id, k))
                detail = twin or problem or (
                    "" if alive else "unplugged" if not port_alive else "no heartbeat")
                if last_press and last_press[0] == k and not detail:
                    # the button helps find a box when pairing, but never while it may be a ballot
                    detail = ("pressed during a vote" if last_press[2]
                              else "last press: button %d" % last_press[1])
                out.append(UnitStatus(
                    box_id, k, ident if keypads == 1 else "%s/%d" % (ident, k), url,
                    seat_of.get((box_id, k)), alive, last_seen, firmware, battery, detail,
                    conflict=bool(twin)))
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

    def _load_pairing(self) -> None:
        path = self.pairing_path
        if not os.path.exists(path):
            return
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            seats = _pairing_seats(doc)
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:
            # Keep the damaged file for a human, start unpaired rather than crash. RecursionError:
            # arrays nested too deep for the JSON reader.
            bad = _unused_name(path + ".bad")   # an older damaged copy is kept too
            try:
                os.replace(path, bad)
            except OSError:  # a read-only folder: the file stays where it is, unread
                bad = path
            self.pairing_problem = (path, _one_line(e), bad)
            self._problem("pairing file %s is unreadable (%s); kept as %s, boxes start unpaired"
                          % (path, _one_line(e), bad))
            return
        self._seats = seats

    def _save_pairing(self) -> None:
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


def _pairing_seats(doc: object) -> dict[tuple[int, int], int]:
    """(box, keypad) -> seat from boxes.json as _save_pairing writes it; ValueError (or
    KeyError) for anything else, so a wrong value never pairs a box to a seat."""
    if not isinstance(doc, dict):
        raise ValueError("the file holds %s, not an object" % type(doc).__name__)
    rows = doc["seats"]
    if not isinstance(rows, list):
        raise ValueError("its seats are %s, not a list" % type(rows).__name__)
    seats: dict[tuple[int, int], int] = {}
    for row in rows:
        if not isinstance(row, dict):
            raise ValueError("a seat entry is not an object: %.40r" % (row,))
        box, keypad, seat = row["box"], row.get("keypad", 0), row["seat"]
        if not (isinstance(box, str) and re.fullmatch(r"[0-9A-Fa-f]{1,8}", box)):
            raise ValueError("box %.40r is not a box id of up to 8 hex digits" % (box,))
        # bool is an int to Python, and int() would take 2.5 or "3": only whole numbers here
        if type(keypad) is not int or not 0 <= keypad <= 255:
            raise ValueError("keypad %.40r is not a number from 0 to 255" % (keypad,))
        if type(seat) is not int or seat < 1:
            raise ValueError("seat %.40r is not a seat number" % (seat,))
        if seat in seats.values():  # pairing gives a seat one keypad: two would both vote for it
            raise ValueError("seat %d is paired twice" % seat)
        seats[(int(box, 16), keypad)] = seat
    return seats


def _unused_name(path: str) -> str:
    """``path``, or ``path`` with a number after it when that is taken."""
    candidate, n = path, 1
    while os.path.exists(candidate):
        n += 1
        candidate = "%s%d" % (path, n)
    return candidate


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
