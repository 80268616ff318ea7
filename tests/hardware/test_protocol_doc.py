"""docs/protocol.md matches the code: every example block is decoded and re-encoded here."""
import re
from pathlib import Path

import pytest

from hardware import protocol as P

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
TEXT = DOC.read_text(encoding="utf-8")


def blocks(tag):
    return re.findall(r"```%s\n(.*?)```" % re.escape(tag), TEXT, flags=re.S)


def hexbytes(s):
    return bytes.fromhex(s.replace(" ", ""))


def parse_frame_block(block):
    lines = dict(line.split(":", 1) for line in block.strip().splitlines()[1:])
    head = block.strip().splitlines()[0].split()
    kv = dict(w.split("=", 1) for w in head[1:])
    box, seq = int(kv.pop("box"), 16), int(kv.pop("seq"))
    msg = P.make(head[0], box, seq, **{k: int(v) for k, v in kv.items()})
    return msg, hexbytes(lines["body"]), int(lines["crc"], 16), hexbytes(lines["wire"])


def test_the_document_has_an_example_of_every_message_type():
    names = {b.strip().split()[0] for b in blocks("frame")}
    assert names == set(P.NAMES.values())
    assert len(blocks("bad-frame")) >= 3


@pytest.mark.parametrize("block", blocks("frame"), ids=lambda b: b.split("\n")[0][:40])
def test_example_frame_matches_the_code(block):
    msg, body, crc, wire = parse_frame_block(block)
    assert P.body(msg) == body
    assert P.crc16_ccitt_false(body) == crc
    assert P.encode(msg) == wire
    assert P.decode(wire[:-1]) == msg


@pytest.mark.parametrize("block", blocks("bad-frame"), ids=lambda b: b.split("\n")[-2][:40])
def test_example_bad_frame_is_dropped_with_the_documented_error(block):
    lines = dict(line.split(":", 1) for line in block.strip().splitlines())
    items = list(P.FrameReader().feed(hexbytes(lines["wire"])))
    assert len(items) == 1 and isinstance(items[0], P.FrameError)
    assert str(items[0]).startswith(lines["error"].strip())


def test_documented_numbers_are_the_code_numbers():
    assert "CRC of the ASCII bytes `123456789` is **0x29B1**" in TEXT
    assert P.crc16_ccitt_false(b"123456789") == 0x29B1
    assert "at most **64 bytes**" in TEXT and P.MAX_FRAME == 64
    assert "# Vote-box serial protocol, version %d" % P.PROTOCOL_VERSION in TEXT
    for code, name in P.NAMES.items():
        assert "| 0x%02X | %s |" % (code, name) in TEXT
    layout_rows = re.findall(r"\| 0x([0-9A-F]{2}) \| (\w+) \| `([^`]*)` \|", TEXT)
    for code, name, layout in layout_rows:
        _, names = P.PAYLOADS[int(code, 16)]
        assert tuple(f.split(":")[0] for f in layout.split()) == names, name
    assert "COBS" in TEXT and "`11 00 22` encodes to `02 11 02 22`" in TEXT
    assert P.cobs_encode(b"\x11\x00\x22") == b"\x02\x11\x02\x22"


# ---------------------------------------------------------------------------------------------
# The host's rules, as the document states them: each test quotes its sentence from the document
# and plays a box frame by frame (written from the document, not the project's simulator) on an
# in-process wire against the real host.

def says(sentence):
    """The document states ``sentence`` (line breaks and emphasis aside)."""
    flat = " ".join(TEXT.replace("**", "").split())
    assert " ".join(sentence.split()) in flat, "docs/protocol.md no longer says: " + sentence


class DocBox:
    """A box played by the test: raw frames on a VirtualWire."""

    _n = 0

    def __init__(self, box_id=0xD0C00001, boot=1):
        from hardware.transport import VirtualWire
        DocBox._n += 1
        name = "doc%d-%d" % (id(self), DocBox._n)
        self.wire, self.url = VirtualWire(name), "vbox://" + name
        self.box, self.boot, self.seq = box_id, boot, 0
        self.reader = P.FrameReader()
        self.heard = []

    def send(self, kind, seq=None, **fields):
        if seq is None:
            self.seq = (self.seq + 1) & 0xFFFF
            seq = self.seq
        self.wire.box_write(P.encode(P.make(kind, self.box, seq, **fields)))
        return seq

    def hello(self, reason=1, version=1):
        return self.send("HELLO", version=version, fw_major=1, fw_minor=0, keypads=1,
                         buttons=4, reason=reason, boot=self.boot)

    def press(self, button, seq=None):
        return self.send("PRESS", seq=seq, keypad=0, button=button)

    def listen(self):
        data = self.wire.box_read(0.01)
        self.heard += [m for m in self.reader.feed(data) if isinstance(m, P.Message)]
        return self.heard

    def acks(self, seq):
        return [m.status for m in self.listen() if m.type == P.ACK and m.acked == seq]


class DocHost:
    """The real BoxManager on the boxes' wires, its commands drained like the app does."""

    def __init__(self, tmp_path, *boxes, seats=((0xD0C00001, 1),)):
        import json
        import threading
        from companion.core.inputs import CommandQueue
        from hardware.manager import BoxManager
        data = tmp_path / "data"
        data.mkdir(exist_ok=True)
        (data / "boxes.json").write_text(json.dumps({"version": 1, "seats": [
            {"box": "%08X" % b, "keypad": 0, "seat": s} for b, s in seats]}))
        self.q, self.handled, self.refuse = CommandQueue(), [], None
        self.m = BoxManager(str(data), ports=[b.url for b in boxes])
        self.m.start(self.q.post)
        self.boxes = boxes
        self.lock = threading.Lock()

    def drain(self):
        def handle(cmd):
            if self.refuse and cmd.kind == "cast_ballot":
                raise self.refuse
            self.handled.append(cmd)
        self.q.drain(handle)
        return self.handled

    def ballots(self):
        return [(c.data["seat"], c.data["option"]) for c in self.drain() if c.kind == "cast_ballot"]

    def until(self, pred, what, timeout=5.0, drain=True):
        import time
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for b in self.boxes:
                b.listen()
            if drain:
                self.drain()
            if pred():
                return
            time.sleep(0.01)
        raise AssertionError("timed out waiting for " + what)

    def greet(self, box):
        self.until(lambda: any(m.type == P.WELCOME for m in box.listen()), "the WELCOME")
        box.hello()
        self.until(lambda: any(u.url == box.url and u.connected for u in self.m.units()),
                   "the box to be listed")

    def close(self):
        self.m.stop()
        for b in self.boxes:
            b.wire.unplug()


@pytest.fixture
def doc_host(tmp_path):
    made = []

    def make(*boxes, **kw):
        h = DocHost(tmp_path, *boxes, **kw)
        made.append(h)
        for b in boxes:
            h.greet(b)
        return h
    yield make
    for h in made:
        h.close()


def test_doc_every_dropped_frame_is_logged(doc_host, caplog):
    import logging
    says("The host logs every frame it drops, one line each, naming why")
    box = DocBox()
    host = doc_host(box)
    caplog.set_level(logging.INFO, logger="hardware.boxes")
    bad = bytes.fromhex("04 02 B0 C5 02 01 02 07 04 01 55 1B 00".replace(" ", ""))
    for _ in range(7):
        box.wire.box_write(bad)
    host.until(lambda: host.m.counters["bad_frames"] == 7, "seven bad frames")
    lines = [r.getMessage() for r in caplog.records if "wrong checksum" in r.getMessage()]
    assert len(lines) == 7 and len({r.levelno for r in caplog.records
                                    if "wrong checksum" in r.getMessage()}) == 2


def test_doc_a_ballot_is_answered_only_once_in_the_journal(doc_host):
    says("A ballot is answered only once it is in the app's journal.")
    says("retransmissions meanwhile get no answer and are not posted again")
    box = DocBox()
    host = doc_host(box)
    host.m.vote_opened(2)
    seq = box.press(1)
    for _ in range(3):                       # the box retransmits; the app has not drained
        host.until(lambda: host.m.counters["frames"] > 0, "frames", drain=False)
        box.press(1, seq=seq)
    import time
    time.sleep(0.2)
    assert box.acks(seq) == [] and not host.q.empty()
    assert host.ballots() == [(1, 1)]        # posted once
    host.until(lambda: box.acks(seq) == [P.ACK_RECORDED], "the answer after the journal")
    host.refuse = __import__("companion.core.events", fromlist=["RuleError"]).RuleError("no")
    seq = box.press(0)
    host.until(lambda: box.acks(seq) == [P.ACK_IGNORED], "a refused ballot answered ignored")
    assert host.m.acked_ballots() == {1: 1}   # the earlier ballot stands


def test_doc_the_newer_choice_wins_whatever_order_frames_arrive_in(doc_host):
    says("The newer choice wins whatever order frames arrive in")
    box = DocBox()
    host = doc_host(box)
    host.m.vote_opened(2)
    older, newer = box.seq + 1, box.seq + 2
    box.seq = newer
    box.press(1, seq=newer)
    host.until(lambda: box.acks(newer) == [P.ACK_RECORDED], "the newer press")
    box.press(0, seq=older)                  # the older press arrives late: a WELCOME
    host.until(lambda: sum(m.type == P.WELCOME for m in box.listen()) >= 2, "a WELCOME")
    states = sum(m.type == P.VOTE_STATE for m in box.listen())
    box.hello()                              # the same boot: no restart
    host.until(lambda: sum(m.type == P.VOTE_STATE for m in box.listen()) > states,
               "the host's answer to the HELLO")
    box.press(0, seq=older)                  # sent again: now it has its answer
    host.until(lambda: box.acks(older) == [P.ACK_IGNORED], "the stale press answered ignored")
    assert host.ballots() == [(1, 1)] and host.m.acked_ballots() == {1: 1}


def test_doc_a_restart_on_an_open_port_is_seen_by_the_seq_going_back(doc_host):
    says("A restart on an open port")
    says("So a restarted box never has a new press taken for a repeat of an old one.")
    box = DocBox()
    host = doc_host(box)
    host.m.vote_opened(2)
    old = [box.press(k % 2) for k in range(3)]
    host.until(lambda: all(box.acks(s) for s in old), "three ballots")
    box.send("HEARTBEAT", battery=255, pending=0)
    box.seq, box.boot = 1, box.boot + 1      # restarted; its power-up HELLO (seq 1) lost
    seq = box.press(0)                       # the number of an earlier press, another button
    assert seq in old
    host.until(lambda: sum(m.type == P.WELCOME for m in box.listen()) >= 2, "a WELCOME")
    assert box.acks(seq) == [P.ACK_RECORDED]  # only the old answer: the new press waits
    box.hello()
    box.press(0, seq=seq)                    # its retransmission
    host.until(lambda: box.acks(seq).count(P.ACK_RECORDED) == 2, "the new press answered")
    assert host.ballots() == [(1, 0), (1, 1), (1, 0), (1, 0)]


def test_doc_a_box_of_another_version_is_answered_ignored(doc_host):
    says("answers every PRESS of a box whose version it does not speak with ACK `ignored`")
    box = DocBox()
    host = doc_host(box)
    box.hello(version=2)
    host.until(lambda: "speaks protocol v2" in host.m.units()[0].detail, "the v2 box listed")
    host.m.vote_opened(2)
    seq = box.press(1)
    host.until(lambda: box.acks(seq) == [P.ACK_IGNORED], "the answer")
    assert host.ballots() == []


def test_doc_two_boxes_with_one_id_count_only_once_the_table_keeps_one(doc_host):
    says("neither counts until the table keeps one")
    a, b = DocBox(), DocBox()
    host = doc_host(a, b)
    news = [c for c in host.drain() if c.kind == "box_conflict"]
    assert len(news) == 1 and sorted(news[0].data["ports"]) == sorted([a.url, b.url])
    host.m.vote_opened(2)
    sa, sb = a.press(1), b.press(0)
    host.until(lambda: a.acks(sa) == [P.ACK_IGNORED] and b.acks(sb) == [P.ACK_IGNORED],
               "both ignored")
    host.m.keep("D0C00001", b.url)
    sa, sb = a.press(1), b.press(0)
    host.until(lambda: a.acks(sa) == [P.ACK_IGNORED] and b.acks(sb) == [P.ACK_RECORDED],
               "the kept one counted")
    assert host.ballots() == [(1, 0)]


def test_doc_the_standing_ballot_ack_names_the_hello_not_a_press(doc_host):
    says("then `acked` is the seq of that HELLO, never a press's number")
    box = DocBox()
    host = doc_host(box)
    host.m.vote_opened(2)
    seq = box.press(1)
    host.until(lambda: box.acks(seq) == [P.ACK_RECORDED], "the ballot")
    hello = box.hello()
    host.until(lambda: box.acks(hello) == [P.ACK_RECORDED], "the standing ballot told again")
    assert box.acks(seq) == [P.ACK_RECORDED]


def test_doc_numbers_of_the_host_rules_are_the_codes():
    from hardware import manager as M
    says("The host remembers the last 256 sequence numbers")
    assert M.SEEN_WINDOW == 256
    says("at most one per 0.2 s")
    assert M.WELCOME_GAP == 0.2
    says("heard nothing from it for 3.5 s")
    assert M.HEARTBEAT_TIMEOUT == 3.5
    says("must not send more than 30 PRESS frames and 30 other frames per second on average (each with a "
         "burst of 60)")
    assert (M.FLOOD_RATE, M.FLOOD_BURST) == (30.0, 60.0)
    says("The box retransmits a PRESS every 250 ms")
    fw = (DOC.parents[1] / "firmware_stubs" / "box.c").read_text()
    assert "#define RETRY_MS 250" in fw and "#define DEBOUNCE_MS 20" in fw
    says("one debounced button press (contact stable for 20 ms)")


def test_doc_no_answer_until_the_app_has_a_game(doc_host):
    says("Until the restarted app has a game again (the table resumes it), the host leaves a "
         "paired keypad's press unanswered too, and sends no VOTE_STATE")
    box = DocBox()
    host = doc_host(box)                     # a fresh host: no game attached yet
    seq = box.press(1)
    for _ in range(3):
        box.press(1, seq=seq)                # retransmitted
    import time
    time.sleep(0.3)
    assert box.acks(seq) == [] and host.ballots() == []
    assert not [m for m in box.listen() if m.type == P.VOTE_STATE]
    host.m.vote_opened(2)                    # the table resumed a game in its vote
    box.press(1, seq=seq)
    host.until(lambda: box.acks(seq) == [P.ACK_RECORDED], "the press counted")
    assert host.ballots() == [(1, 1)]
