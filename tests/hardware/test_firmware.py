"""The real firmware (firmware_stubs/box.c, built with avr-gcc) running in simavr, talking over
the pseudo-terminal its harness (simbox.c) opens for it. Buttons are pressed and the box is
power-cycled through the harness's stdin; LEDs are read from its stdout.

Three checks speak the protocol to the firmware directly: it retransmits an unanswered press,
it debounces contact chatter, it counts its power-ups. Each is shown to catch a firmware without
that feature: the mutation test builds box.c with the feature cut out and expects the check to
fail. Every run builds into and runs from its own temporary folder (the harness makes no fixed
link), so two runs at once do not collide."""
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from hardware import protocol as P
from hardware.manager import BoxManager
from hardware.transport import open_port
from tests.hardware.conftest import AppQueue

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_stubs"
BOX_ID = "A0000001"


def toolchain_missing():
    need = [shutil.which("avr-gcc"), shutil.which("make"), shutil.which("cc"),
            os.path.exists("/usr/include/simavr/avr_uart.h")]
    return not all(need)


pytestmark = pytest.mark.skipif(
    toolchain_missing(), reason="needs gcc-avr, avr-libc, libsimavr-dev "
    "(scripts/setup.sh test installs them)")


def make(source_dir: Path, out: Path, target: str = "all") -> Path:
    r = subprocess.run(["make", "-C", str(source_dir), "BUILD=%s" % out, "BOX_ID=0x" + BOX_ID,
                        target], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return make(FIRMWARE, tmp_path_factory.mktemp("fw"))


class SimAvr:
    """simbox running an elf; ``port`` is the pty its UART is on."""

    def __init__(self, build, elf=None, boots=None):
        args = [str(build / "simbox"), str(elf or build / "box.elf")]
        args += [str(boots)] if boots is not None else []
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.leds = {"green": 0, "yellow": 0, "red": 0}
        self.lines = []
        self.port = None
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.ready.wait(10), "simbox did not start: %s" % self.lines

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.strip())
            words = line.split()
            if words[:1] == ["READY"]:
                self.port = words[1]
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


class RawHost:
    """The test as the host, frame by frame (no BoxManager): what exactly does the box send?"""

    def __init__(self, port):
        self.ser = open_port(port, timeout=0.02)
        self.reader = P.FrameReader()
        self.seq = 0

    def send(self, kind, box=int(BOX_ID, 16), **fields):
        self.seq += 1
        self.ser.write(P.encode(P.make(kind, box, self.seq, **fields)))

    def frames(self, seconds, until=None):
        """Box frames heard for ``seconds`` (or until ``until(frames)`` holds)."""
        got, end = [], time.monotonic() + seconds
        while time.monotonic() < end and not (until and until(got)):
            got += [m for m in self.reader.feed(self.ser.read(256)) if isinstance(m, P.Message)]
        return got

    def greet(self):
        """WELCOME until the box answers (bytes sent before its UART is up are lost, as on an
        Arduino that resets when its port opens); returns its answering HELLO."""
        for _ in range(10):
            self.send("WELCOME", box=P.BROADCAST, version=1)
            got = hellos(self.frames(0.5, until=lambda f: any(m.reason == 1 for m in hellos(f))))
            answers = [m for m in got if m.reason == P.REASON_ANSWER]
            if answers:
                return answers[0]
        raise AssertionError("the box never answered a WELCOME")

    def close(self):
        self.ser.close()


def wait(pred, what, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


def hellos(frames):
    return [m for m in frames if m.type == P.HELLO]


def presses(frames):
    return [m for m in frames if m.type == P.PRESS]


# ------------------------------------------------------------------ the three checks
def check_retransmission(avr, host):
    """An unanswered PRESS is sent again, with its seq, about every 250 ms; the ACK stops it."""
    avr.send("press 2")
    got = presses(host.frames(1.3))
    assert got, "no PRESS at all"
    seq = got[0].seq
    assert all(m.seq == seq and m.button == 2 for m in got)
    assert len(got) >= 4, "sent %d time(s) in 1.3 s without an ACK: no retransmission" % len(got)
    host.send("ACK", acked=seq, keypad=0, status=P.ACK_RECORDED)
    host.frames(0.1)
    after = host.frames(0.8)
    assert not presses(after), "still retransmitting after the ACK"
    beats = [m for m in after if m.type == P.HEARTBEAT]
    assert all(m.pending == 0 for m in beats)


def check_debounce(avr, host):
    """25 ms of contact chatter, then a press: one PRESS, not one per bounce."""
    avr.send("bounce 4")
    got = presses(host.frames(1.0))
    seqs = sorted({m.seq for m in got})
    assert seqs, "no PRESS at all"
    assert len(seqs) == 1, "one bouncy press sent %d presses" % len(seqs)
    assert {m.button for m in got} == {4}
    host.send("ACK", acked=seqs[0], keypad=0, status=P.ACK_RECORDED)


def check_boot_count(avr, host, boots):
    """Each power-up counts in EEPROM: boot is one more than the last, also on a reset with
    the port left open."""
    first = host.greet()
    assert first.boot == boots + 1, "first boot %s, expected %d" % (first.boot, boots + 1)
    for n in (2, 3):
        avr.send("reset")
        got = hellos(host.frames(3, until=lambda f: hellos(f)))
        assert got and got[0].reason == P.REASON_POWER_UP
        assert got[0].boot == boots + n, "boot %d after %d resets, expected %d" % (
            got[0].boot, n - 1, boots + n)


CHECKS = {"retransmission": check_retransmission, "debounce": check_debounce,
          "boot count": check_boot_count}

# Each feature cut out of box.c: (what to replace, by what); every text must be found once.
MUTANTS = {
    "retransmission": [("            pending_due = t + RETRY_MS;\n            send_press();\n",
                        "            pending_due = t + RETRY_MS;\n")],
    "debounce": [("#define DEBOUNCE_MS 20", "#define DEBOUNCE_MS 1")],
    "boot count": [("boot = eeprom_read_word((const uint16_t *)4) + 1;\n"
                    "    eeprom_update_word((uint16_t *)4, boot);",
                    "boot = eeprom_read_word((const uint16_t *)4);")],
}


# what each check says about its mutant (it fails for that reason, not by accident)
WHY = {"retransmission": "without an ACK: no retransmission",
       "debounce": r"one bouncy press sent [2-9] presses",
       "boot count": "first boot 41, expected 42"}


def run_check(build, name, elf=None):
    avr = SimAvr(build, elf=elf, boots=41)
    host = RawHost(avr.port)
    try:
        if name == "boot count":
            check_boot_count(avr, host, 41)
        else:
            host.greet()
            CHECKS[name](avr, host)
    finally:
        host.close()
        avr.stop()


@pytest.mark.parametrize("name", list(CHECKS))
def test_the_firmware_passes_its_check(build, name):
    run_check(build, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MUTANTS))
def test_each_check_fails_on_a_firmware_without_its_feature(build, tmp_path, name):
    src = tmp_path / "src"
    src.mkdir()
    for f in ("box.c", "Makefile"):
        shutil.copy(FIRMWARE / f, src / f)
    text = (src / "box.c").read_text()
    for old, new in MUTANTS[name]:
        assert text.count(old) == 1, "box.c changed: the %s mutant no longer applies" % name
        text = text.replace(old, new)
    (src / "box.c").write_text(text)
    out = make(src, tmp_path / "out", target=str(tmp_path / "out" / "box.elf"))
    with pytest.raises(AssertionError, match=WHY[name]):
        run_check(build, name, elf=out / "box.elf")


def test_two_simulators_run_at_once_each_on_its_own_pty(build):
    a, b = SimAvr(build, boots=1), SimAvr(build, boots=7)
    try:
        assert a.port != b.port
        for avr, boots in ((a, 1), (b, 7)):
            host = RawHost(avr.port)
            try:
                assert host.greet().boot == boots + 1
            finally:
                host.close()
    finally:
        a.stop()
        b.stop()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="needs root and unshare for a private /tmp")
def test_the_harness_writes_nothing_at_a_fixed_path(build):
    """simbox runs with a /tmp of its own (a private mount namespace) and must leave it empty:
    simavr's uart_pty would put its fixed link /tmp/simavr-uart0 there."""
    script = ('exec 3<"$0" 4<"$1"; mount -t tmpfs simbox-tmp /tmp || exit 3; '
              'exec /proc/self/fd/3 /proc/self/fd/4 7')
    proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                             str(build / "simbox"), str(build / "box.elf")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        line = ""
        while not line.startswith("READY"):
            line = proc.stdout.readline()
            assert line, "simbox did not start: %s" % proc.stderr.read()[-500:]
        host = RawHost(line.split()[1])
        try:
            assert host.greet().boot == 8
        finally:
            host.close()
        assert os.listdir("/proc/%d/root/tmp" % proc.pid) == []
    finally:
        proc.stdin.close()
        proc.wait(5)


# ------------------------------------------------------------------ with the real host
def test_the_firmware_builds_small_enough_for_an_atmega328p(build):
    size = subprocess.run(["avr-size", str(build / "box.elf")], capture_output=True,
                          text=True).stdout.split("\n")[1].split()
    text, data, bss = map(int, size[:3])
    assert text + data <= 32 * 1024 - 512       # flash, leaving the Optiboot bootloader room
    assert data + bss <= 2048 - 256             # RAM, leaving room for the stack


@pytest.fixture
def avr(build):
    sim = SimAvr(build)
    yield sim
    sim.stop()


@pytest.fixture
def host(avr, tmp_path):
    app = AppQueue()
    m = BoxManager(str(tmp_path), ports=[avr.port])
    m.start(app.post)
    m.app = app
    yield m
    m.stop()
    app.close()


def test_real_firmware_votes_through_the_host(avr, host):
    m = host
    wait(lambda: any(u.connected for u in m.units()), "the box's HELLO")
    [unit] = m.units()
    assert unit.ident == BOX_ID and unit.firmware == "1.0" and unit.battery is None

    m.pair(2)
    avr.send("press 5")
    wait(lambda: m.seats() == {(BOX_ID, 0): 2}, "pairing by a press")
    wait(lambda: avr.leds["green"] and avr.leds["yellow"], "the paired LEDs")

    m.vote_opened(3)
    wait(lambda: avr.leds == {"green": 0, "yellow": 1, "red": 0}, "the vote-open LED")
    m.app.taken()
    avr.send("bounce 2")     # contact chatter first: the debounce must make it one press
    wait(lambda: m.acked_ballots() == {2: 2}, "the ballot")
    # answered once the app had it: "recorded", the vote-received LED
    wait(lambda: avr.leds == {"green": 1, "yellow": 0, "red": 0}, "the vote-received LED")
    time.sleep(0.6)          # room for a wrongly counted second press or a retry
    assert [c.data for c in m.app.taken("cast_ballot")] == [{"seat": 2, "option": 2}]

    seen = m.units()[0].last_seen
    wait(lambda: m.units()[0].last_seen > seen + 0.5, "heartbeats", timeout=3)

    m.revealed()
    wait(lambda: avr.leds == {"green": 1, "yellow": 1, "red": 1}, "the revealed LEDs")
    avr.send("press 0")      # after the reveal: answered "ignored", red flash
    wait(lambda: any(c.data.get("ignored") == "no vote open"
                     for c in m.app.taken("box_pressed")), "the late press ignored")
    assert m.acked_ballots() == {2: 2}      # the late press changed no ballot


def test_real_firmware_told_its_ballot_was_taken_back_shows_vote_open_again(avr, host):
    """Issue 34, item 3: after an Undo at the tablet the host answers the recorded press again
    with ACK "ignored" (docs/protocol.md): the firmware flashes red, then shows "vote open"; a
    Redo's ACK "recorded" lights green again."""
    m = host
    wait(lambda: any(u.connected for u in m.units()), "the box's HELLO")
    m.pair(1)
    avr.send("press 0")
    wait(lambda: m.seats() == {(BOX_ID, 0): 1}, "pairing by a press")
    m.vote_opened(2)
    wait(lambda: avr.leds == {"green": 0, "yellow": 1, "red": 0}, "the vote-open LED")
    avr.send("press 1")
    wait(lambda: avr.leds == {"green": 1, "yellow": 0, "red": 0}, "the vote-received LED")
    m.resync(P.STATE_OPEN, 2, set())          # the table undid the ballot
    wait(lambda: avr.leds["red"] == 1 and avr.leds["green"] == 0, "the red flash")
    wait(lambda: avr.leds == {"green": 0, "yellow": 1, "red": 0}, "vote open again", timeout=3)
    m.resync(P.STATE_OPEN, 2, {1})            # ...and redid it
    wait(lambda: avr.leds == {"green": 1, "yellow": 0, "red": 0}, "recorded again")
    assert m.acked_ballots() == {1: 1}


def test_real_firmware_survives_noise_from_the_host_side(avr):
    host = RawHost(avr.port)
    try:
        host.greet()                               # the box is up and listening
        host.frames(0.2)
        host.ser.write(b"\x07\x42noise\xff" * 5 + b"\x00")
        bad = bytearray(P.encode(P.make("WELCOME", P.BROADCAST, 1, version=1)))
        bad[3] ^= 0x10
        host.ser.write(bytes(bad))                 # wrong checksum: must be ignored
        host.send("ACK", box=0x12345678, acked=1, keypad=0, status=1)
        host.send("WELCOME", box=P.BROADCAST, version=1)
        got = host.frames(3, until=lambda f: any(m.type == P.HELLO and m.reason == 1
                                                 for m in f))
        got += host.frames(0.3)
        # the WELCOME got exactly one answer
        answers = [m for m in hellos(got) if m.reason == P.REASON_ANSWER]
        assert len(answers) == 1
        assert answers[0].box == int(BOX_ID, 16) and answers[0].buttons == 12
        assert avr.leds["green"] == 0           # the ACK for another box changed nothing
    finally:
        host.close()


def test_a_box_reset_with_its_port_open_and_its_hello_lost_still_votes(build, tmp_path):
    avr = SimAvr(build, boots=10)
    app = AppQueue()
    m = BoxManager(str(tmp_path), ports=[avr.port])
    m.start(app.post)
    try:
        m.pair(1)
        wait(lambda: any(u.connected for u in m.units()), "the first HELLO")
        avr.send("press 1")
        wait(lambda: m.seats() == {(BOX_ID, 0): 1}, "pairing")
        m.vote_opened(2)
        for k in range(4):
            avr.send("press %d" % (k % 2))
            wait(lambda: len(app.taken("cast_ballot")) == 1, "ballot %d" % k)
        time.sleep(1.2)                           # a heartbeat: nothing waits in the box
        avr.send("reset-quiet")                   # power cycle; its power-up HELLO is lost
        for k in range(4):                        # the same sequence numbers as before
            avr.send("press %d" % ((k + 1) % 2))
            wait(lambda: len(app.taken("cast_ballot")) == 1, "ballot %d after the reset" % k,
                 timeout=8)
        assert m.counters["seq_doubts"] >= 1
        assert m.acked_ballots() == {1: 0}
        wait(lambda: avr.leds == {"green": 1, "yellow": 0, "red": 0}, "the vote-received LED")
    finally:
        m.stop()
        app.close()
        avr.stop()
