"""Vote-box wire protocol, version 1 (docs/protocol.md is the specification; this module is its
reference implementation and tests/hardware/test_protocol_doc.py keeps the two in step).

A frame on the wire is COBS(body + CRC) followed by one 0x00 delimiter. COBS means the delimiter
never occurs inside a frame, so a receiver that joins mid-stream, or sees noise, resynchronises at
the next 0x00; the CRC-16/CCITT-FALSE catches corrupted frames that still decode.

body = type:u8 | box:u32 BE | seq:u16 BE | payload
"""
from __future__ import annotations

import binascii
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
DELIMITER = 0x00
MAX_FRAME = 64          # encoded bytes before the delimiter; anything longer is noise
HEADER = struct.Struct(">BIH")
BROADCAST = 0xFFFFFFFF  # host -> every box on the port

# box -> host
HELLO = 0x01
PRESS = 0x02
HEARTBEAT = 0x03
# host -> box
WELCOME = 0x81   # host hello: asks every box on the port to answer with HELLO
ACK = 0x82
VOTE_STATE = 0x83

# HELLO.reason
REASON_POWER_UP = 0
REASON_ANSWER = 1
# ACK.status
ACK_RECEIVED = 0    # the ballot was handed to the app: stop retransmitting
ACK_RECORDED = 1    # the app recorded the ballot: "vote received" LED
ACK_IGNORED = 2     # not a ballot (no open vote, button out of range, unpaired): blink
ACK_PAIRED = 3      # the press paired this keypad to a seat
# VOTE_STATE.state
STATE_IDLE = 0
STATE_OPEN = 1
STATE_REVEALED = 2
# PRESS / VOTE_STATE keypad "all keypads"
ALL_KEYPADS = 0xFF
# HEARTBEAT.battery when the box has no battery gauge
NO_BATTERY = 0xFF

NAMES = {HELLO: "HELLO", PRESS: "PRESS", HEARTBEAT: "HEARTBEAT",
         WELCOME: "WELCOME", ACK: "ACK", VOTE_STATE: "VOTE_STATE"}
CODES = {v: k for k, v in NAMES.items()}

# payload layout per type: (struct, field names)
PAYLOADS: dict[int, tuple[struct.Struct, tuple[str, ...]]] = {
    HELLO: (struct.Struct(">BBBBBBH"),
            ("version", "fw_major", "fw_minor", "keypads", "buttons", "reason", "boot")),
    PRESS: (struct.Struct(">BB"), ("keypad", "button")),
    HEARTBEAT: (struct.Struct(">BB"), ("battery", "pending")),
    WELCOME: (struct.Struct(">B"), ("version",)),
    ACK: (struct.Struct(">HBB"), ("acked", "keypad", "status")),
    VOTE_STATE: (struct.Struct(">BBB"), ("keypad", "state", "options")),
}


class FrameError(ValueError):
    """A frame that cannot be accepted; the message is one line naming what was wrong."""


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no xor-out; check 0x29B1.
    The standard library's crc_hqx is this CRC with the initial value as its argument."""
    return binascii.crc_hqx(data, crc)


def cobs_encode(data: bytes) -> bytes:
    out = bytearray([0])
    code_at, code = 0, 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at, code = len(out), 1
                out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0:
            raise FrameError("COBS: zero byte inside a frame")
        end = i + code
        if end > len(data):
            raise FrameError("COBS: truncated frame (code %d runs past the end)" % code)
        out += data[i + 1:end]
        i = end
        if code != 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Message:
    type: int
    box: int
    seq: int
    fields: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return NAMES.get(self.type, "0x%02X" % self.type)

    def __getattr__(self, item: str) -> int:
        try:
            return self.__dict__["fields"][item]
        except KeyError:
            raise AttributeError(item) from None

    def __str__(self) -> str:
        extra = " ".join("%s=%d" % kv for kv in self.fields.items())
        return "%s box=0x%08X seq=%d %s" % (self.name, self.box, self.seq, extra)


def make(kind: str | int, box: int, seq: int, **fields: int) -> Message:
    code = CODES[kind] if isinstance(kind, str) else kind
    return Message(code, box, seq, fields)


def body(msg: Message) -> bytes:
    layout, names = PAYLOADS[msg.type]
    missing = [n for n in names if n not in msg.fields]
    if missing:
        raise ValueError("%s needs %s" % (msg.name, ", ".join(missing)))
    return HEADER.pack(msg.type, msg.box, msg.seq & 0xFFFF) + layout.pack(
        *(msg.fields[n] for n in names))


def encode(msg: Message) -> bytes:
    """Message -> bytes on the wire, delimiter included."""
    raw = body(msg)
    return cobs_encode(raw + struct.pack(">H", crc16_ccitt_false(raw))) + b"\x00"


def decode(frame: bytes) -> Message:
    """One frame (without the 0x00 delimiter) -> Message, or FrameError naming the fault."""
    if len(frame) > MAX_FRAME:
        raise FrameError("frame too long (%d bytes, limit %d)" % (len(frame), MAX_FRAME))
    raw = cobs_decode(frame)
    if len(raw) < HEADER.size + 2:
        raise FrameError("truncated frame (%d bytes, need at least %d)"
                         % (len(raw), HEADER.size + 2))
    got = struct.unpack(">H", raw[-2:])[0]
    want = crc16_ccitt_false(raw[:-2])
    if got != want:
        raise FrameError("wrong checksum (got 0x%04X, computed 0x%04X)" % (got, want))
    kind, box, seq = HEADER.unpack_from(raw)
    if kind not in PAYLOADS:
        raise FrameError("unknown message type 0x%02X from box 0x%08X" % (kind, box))
    layout, names = PAYLOADS[kind]
    payload = raw[HEADER.size:-2]
    if len(payload) != layout.size:
        raise FrameError("%s payload is %d bytes, expected %d"
                         % (NAMES[kind], len(payload), layout.size))
    return Message(kind, box, seq, dict(zip(names, layout.unpack(payload))))


class FrameReader:
    """Splits a byte stream into frames at 0x00. Partial frames wait for more bytes; an over-long
    run without a delimiter is dropped (counted as noise) so a babbling line cannot grow memory."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> Iterator[Message | FrameError]:
        """Yields Message or FrameError for each complete frame in data (plus what was buffered)."""
        for chunk in _split_keep(data):
            if chunk is None:          # a delimiter
                if self._overflow:
                    self._overflow = False
                    self._buf.clear()
                    yield FrameError("frame too long (no delimiter within %d bytes)" % MAX_FRAME)
                    continue
                frame, self._buf = bytes(self._buf), bytearray()
                if not frame:
                    continue           # back-to-back delimiters are allowed as line idle fill
                try:
                    yield decode(frame)
                except FrameError as e:
                    yield e
            elif not self._overflow:
                self._buf += chunk
                if len(self._buf) > MAX_FRAME:
                    self._overflow = True
                    self._buf.clear()


def _split_keep(data: bytes) -> Iterator[bytes | None]:
    start = 0
    while True:
        i = data.find(b"\x00", start)
        if i < 0:
            if start < len(data):
                yield data[start:]
            return
        if i > start:
            yield data[start:i]
        yield None
        start = i + 1
