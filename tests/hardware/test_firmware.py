"""The real firmware (firmware_stubs/box.c, built with avr-gcc) running in simavr, talking to the
real host code over the pseudo-terminal simavr's uart_pty makes. Buttons are pressed through the
harness's stdin; LEDs are read from its stdout."""
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hardware import protocol as P
from hardware.manager import BoxManager
from hardware.transport import open_port

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_stubs"
UART_LINK = "/tmp/simavr-uart0"   # fixed by simavr's uart_pty: one simulator at a time
BOX_ID = "A0000001"


def toolchain_missing():
    need = [shutil.which("avr-gcc"), shutil.which("make"), shutil.which("cc"),
            os.path.exists("/usr/include/simavr/parts/uart_pty.h")]
    return not all(need)


pytestmark = pytest.mark.skipif(
    toolchain_missing(), reason="needs gcc-avr, avr-libc, libsimavr-dev, libsimavrparts1 "
    "(scripts/setup.sh test installs them)")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    out = tmp_path_factory.mktemp("fw")
    r = subprocess.run(["make", "-C", str(FIRMWARE), "BUILD=%s" % out, "BOX_ID=0x" + BOX_ID],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


class SimAvr:
    def __init__(self, build, boots=None):
        if os.path.lexists(UART_LINK):
            os.unlink(UART_LINK)      # stale link of an earlier run
        args = [str(build / "simbox"), str(build / "box.elf")] + ([str(boots)] if boots else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.leds = {"green": 0, "yellow": 0, "red": 0}
        self.lines = []
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.ready.wait(10), "simbox did not start: %s" % self.lines

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.strip())
            words = line.split()
            if words[:1] == ["READY"]:
                self.ready.set()
            elif words[:1] == ["LED"]:
                self.leds[words[1]] = int(words[2])

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self):
        if self.proc.poll() is None:
            self.send("quit")
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if os.path.lexists(UART_LINK):
            os.unlink(UART_LINK)      # simavr leaves its link behind


def wait(pred, what, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


@pytest.fixture
def avr(build):
    sim = SimAvr(build)
    yield sim
    sim.stop()


def commands_of(q, kind):
    out = []
    while not q.empty():
        c = q.get()
        if c.kind == kind:
            out.append(c)
    return out


def test_the_firmware_builds_small_enough_for_an_atmega328p(build):
    size = subprocess.run(["avr-size", str(build / "box.elf")], capture_output=True,
                          text=True).stdout.split("\n")[1].split()
    text, data, bss = map(int, size[:3])
    assert text + data <= 32 * 1024 - 512       # flash, leaving the Optiboot bootloader room
    assert data + bss <= 2048 - 256             # RAM, leaving room for the stack


def test_real_firmware_votes_through_the_host(avr, tmp_path):
    q = queue.Queue()
    m = BoxManager(str(tmp_path), ports=[UART_LINK])
    m.start(q.put)
    try:
        wait(lambda: any(u.connected for u in m.units()), "the box's HELLO")
        [unit] = m.units()
        assert unit.ident == BOX_ID and unit.firmware == "1.0" and unit.battery is None

        m.pair(2)
        avr.send("press 5")
        wait(lambda: m.seats() == {(BOX_ID, 0): 2}, "pairing by a press")
        wait(lambda: avr.leds["green"] and avr.leds["yellow"], "the paired LEDs")

        m.vote_opened(3)
        wait(lambda: avr.leds == {"green": 0, "yellow": 1, "red": 0}, "the vote-open LED")
        commands_of(q, "box_pressed")
        avr.send("bounce 2")     # contact chatter first: the debounce must make it one press
        wait(lambda: m.acked_ballots() == {2: 2}, "the ballot")
        time.sleep(0.6)          # room for a wrongly counted second press or a retry
        assert [c.data for c in commands_of(q, "cast_ballot")] == [{"seat": 2, "option": 2}]
        m.ballot_acknowledged(2)
        wait(lambda: avr.leds == {"green": 1, "yellow": 0, "red": 0}, "the vote-received LED")

        seen = m.units()[0].last_seen
        wait(lambda: m.units()[0].last_seen > seen + 0.5, "heartbeats", timeout=3)

        m.revealed()
        wait(lambda: avr.leds == {"green": 1, "yellow": 1, "red": 1}, "the revealed LEDs")
        avr.send("press 0")      # after the reveal: answered "ignored", red flash
        wait(lambda: any(c.data.get("ignored") == "no vote open"
                         for c in commands_of(q, "box_pressed")), "the late press ignored")
        assert m.acked_ballots() == {2: 2}      # the late press changed no ballot
    finally:
        m.stop()


def test_real_firmware_survives_noise_from_the_host_side(avr):
    port = open_port(UART_LINK, timeout=0.1)
    try:
        reader = P.FrameReader()
        port.write(b"\x07\x42noise\xff" * 5 + b"\x00")
        bad = bytearray(P.encode(P.make("WELCOME", P.BROADCAST, 1, version=1)))
        bad[3] ^= 0x10
        port.write(bytes(bad))                    # wrong checksum: must be ignored
        port.write(P.encode(P.make("ACK", 0x12345678, 2, acked=1, keypad=0, status=1)))
        port.write(P.encode(P.make("WELCOME", P.BROADCAST, 3, version=1)))
        got, end = [], time.monotonic() + 3
        while time.monotonic() < end and not any(m.type == P.HELLO and m.reason ==
                                                 P.REASON_ANSWER for m in got):
            got += [m for m in reader.feed(port.read(64)) if isinstance(m, P.Message)]
        time.sleep(0.3)
        got += [m for m in reader.feed(port.read(4096)) if isinstance(m, P.Message)]
        # the power-up HELLO may be there too; the WELCOME got exactly one answer
        hellos = [m for m in got if m.type == P.HELLO and m.reason == P.REASON_ANSWER]
        assert len(hellos) == 1
        assert hellos[0].box == int(BOX_ID, 16) and hellos[0].buttons == 12
        assert avr.leds["green"] == 0           # the ACK for another box changed nothing
    finally:
        port.close()


def test_a_restarted_box_is_recognised_by_its_boot_count(build, tmp_path):
    q = queue.Queue()
    m = BoxManager(str(tmp_path), ports=[UART_LINK])
    first = SimAvr(build, boots=10)
    m.start(q.put)
    try:
        m.pair(1)
        wait(lambda: any(u.connected for u in m.units()), "the first HELLO")
        first.send("press 1")
        wait(lambda: m.seats() == {(BOX_ID, 0): 1}, "pairing")
        m.vote_opened(2)
        time.sleep(0.2)                              # the pairing press is released by now
        first.send("press 1")
        wait(lambda: m.acked_ballots() == {1: 1}, "the first ballot")
        first.stop()                                 # power off...
        wait(lambda: not m.units()[0].connected, "the box shown missing")
        second = SimAvr(build, boots=11)             # ...and on: sequence numbers restart
        try:
            wait(lambda: m.units()[0].connected, "the box back")
            assert m.acked_ballots() == {1: 1}       # its ballot stands
            second.send("press 0")                   # same sequence number as before, new press
            wait(lambda: m.acked_ballots() == {1: 0}, "the new ballot")
            assert [c.data["option"] for c in commands_of(q, "cast_ballot")] == [1, 0]
        finally:
            second.stop()
    finally:
        m.stop()
