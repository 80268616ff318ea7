"""Framing, CRC and message layouts of docs/protocol.md, and a receiver that survives noise."""
import random

import pytest

from hardware import protocol as P


def test_crc16_ccitt_false_check_value():
    # The catalogue's check value: CRC-16/CCITT-FALSE of "123456789" is 0x29B1.
    assert P.crc16_ccitt_false(b"123456789") == 0x29B1


def _crc_by_definition(data: bytes) -> int:
    """CRC-16/CCITT-FALSE bit by bit, as the catalogue defines it (poly 0x1021, init 0xFFFF,
    MSB first, no reflection, no final XOR): the reference the library's CRC is checked against."""
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_the_standard_librarys_crc_is_ccitt_false_on_random_data():
    rng = random.Random(20261130)
    for _ in range(3000):
        data = rng.randbytes(rng.randrange(0, 70))
        assert P.crc16_ccitt_false(data) == _crc_by_definition(data), data.hex()
    for data in (b"", b"\x00" * 64, b"\xff" * 64, b"123456789"):
        assert P.crc16_ccitt_false(data) == _crc_by_definition(data)


@pytest.mark.parametrize("data", [b"", b"\x00", b"\x11\x00\x22", b"\x00\x00", bytes(range(1, 255)),
                                  bytes(range(256)) * 2, b"\xff" * 300])
def test_cobs_round_trip_and_no_zero_inside(data):
    enc = P.cobs_encode(data)
    assert 0 not in enc
    assert P.cobs_decode(enc) == data


def every_message():
    return [
        P.make("HELLO", 0xB0C50001, 1, version=1, fw_major=1, fw_minor=0, keypads=1, buttons=12,
               reason=0, boot=0xFFFF),
        P.make("PRESS", 0x00000000, 0, keypad=0, button=0),
        P.make("PRESS", 0xFFFFFFFE, 0xFFFF, keypad=3, button=11),
        P.make("HEARTBEAT", 0x01000100, 256, battery=0, pending=1),
        P.make("WELCOME", P.BROADCAST, 9, version=1),
        P.make("ACK", 0xB0C50001, 2, acked=0x0100, keypad=0, status=P.ACK_PAIRED),
        P.make("VOTE_STATE", 0xB0C50001, 3, keypad=P.ALL_KEYPADS, state=P.STATE_OPEN, options=9),
    ]


@pytest.mark.parametrize("msg", every_message(), ids=str)
def test_every_message_type_round_trips(msg):
    wire = P.encode(msg)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert len(wire) - 1 <= P.MAX_FRAME
    assert P.decode(wire[:-1]) == msg


def test_a_stream_split_anywhere_gives_the_same_frames():
    msgs = every_message()
    stream = b"".join(P.encode(m) for m in msgs)
    for cut in range(1, len(stream)):
        r = P.FrameReader()
        got = list(r.feed(stream[:cut])) + list(r.feed(stream[cut:]))
        assert got == msgs, "split at byte %d" % cut
    r = P.FrameReader()
    got = [m for b in stream for m in r.feed(bytes([b]))]     # one byte at a time
    assert got == msgs


def errors_and_messages(stream):
    r = P.FrameReader()
    items = list(r.feed(stream))
    return ([str(i) for i in items if isinstance(i, P.FrameError)],
            [i for i in items if isinstance(i, P.Message)])


def test_garbage_before_a_frame_is_dropped_with_one_line_and_the_frame_survives():
    press = P.make("PRESS", 0xB0C50001, 7, keypad=0, button=1)
    errors, msgs = errors_and_messages(b"\x13\x37garbage\x00" + P.encode(press))
    assert msgs == [press]
    assert len(errors) == 1 and "\n" not in errors[0]


def test_noise_without_a_delimiter_glued_to_a_frame_loses_only_that_frame():
    a = P.make("PRESS", 1, 1, keypad=0, button=0)
    b = P.make("PRESS", 1, 2, keypad=0, button=1)
    errors, msgs = errors_and_messages(b"\x05\x99\x12" + P.encode(a) + P.encode(b))
    assert msgs == [b]
    assert len(errors) == 1


def test_wrong_checksum_names_both_values():
    wire = bytearray(P.encode(P.make("PRESS", 0xB0C50001, 7, keypad=0, button=1)))
    wire[-2] ^= 0x01
    errors, msgs = errors_and_messages(bytes(wire))
    assert msgs == [] and errors[0].startswith("wrong checksum (got 0x551B, computed 0x551A)")


def test_truncated_frame_unknown_type_and_bad_payload_length_are_named():
    press = P.encode(P.make("PRESS", 0xB0C50001, 7, keypad=0, button=1))
    assert "truncated" in errors_and_messages(press[:5] + b"\x00")[0][0]
    raw = P.HEADER.pack(0x55, 0xB0C50001, 7) + b"\x01\x02"
    unknown = P.cobs_encode(raw + P.crc16_ccitt_false(raw).to_bytes(2, "big")) + b"\x00"
    assert errors_and_messages(unknown)[0] == ["unknown message type 0x55 from box 0xB0C50001"]
    raw = P.HEADER.pack(P.PRESS, 1, 7) + b"\x01\x02\x03"
    long_press = P.cobs_encode(raw + P.crc16_ccitt_false(raw).to_bytes(2, "big")) + b"\x00"
    assert errors_and_messages(long_press)[0] == ["PRESS payload is 3 bytes, expected 2"]


def test_a_babbling_line_never_grows_the_buffer_and_recovers():
    r = P.FrameReader()
    items = list(r.feed(b"\x01" * 10_000))
    assert items == [] and len(r._buf) <= P.MAX_FRAME
    press = P.make("PRESS", 1, 3, keypad=0, button=1)
    items = list(r.feed(b"\x00" + P.encode(press)))
    assert [str(i) for i in items if isinstance(i, P.FrameError)] == [
        "frame too long (no delimiter within 64 bytes)"]
    assert items[-1] == press


def test_single_bit_flips_never_yield_a_wrong_message():
    # CRC-16 detects every single-bit error; COBS may turn a flip into a framing error instead.
    rng = random.Random(7)
    for msg in every_message():
        wire = P.encode(msg)
        for _ in range(200):
            bad = bytearray(wire)
            i = rng.randrange(len(bad) - 1)
            bad[i] ^= 1 << rng.randrange(8)
            _, msgs = errors_and_messages(bytes(bad))
            assert msgs == [] or msgs == [msg] and bytes(bad) == wire
