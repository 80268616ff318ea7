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
