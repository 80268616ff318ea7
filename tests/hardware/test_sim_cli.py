"""`python -m hardware.sim`: the box simulator as a separate process, as the demo and anyone
without hardware run it, read by the real box manager through the pattern it prints."""
import queue
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hardware.manager import BoxManager, auto_ports

ROOT = Path(__file__).resolve().parents[2]


def test_help_names_the_fault_injection_options():
    out = subprocess.run([sys.executable, "-m", "hardware.sim", "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    for option in ("--boxes", "--noise", "--corrupt", "--drop", "--truncate", "--duplicate",
                   "--slow", "--flood", "--faulty", "--keypads", "unplug BOX", "replug BOX"):
        assert option in out


def test_bad_arguments_get_one_line():
    r = subprocess.run([sys.executable, "-m", "hardware.sim", "--faulty", "x,y"], cwd=ROOT,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["error: --faulty wants box numbers like 1,3; "
                                             "got 'x,y'"]


def test_the_simulator_process_serves_boxes_to_the_manager(tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "hardware.sim", "-n", "3", "--dir",
                             str(links), "--noise", "0.2", "--faulty", "2"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    q = queue.Queue()
    m = BoxManager(str(tmp_path / "data"), ports=[str(links / "box*")])
    try:
        assert proc.stdout.readline().strip() == "pattern %s/box*" % links
        m.start(q.put)
        end = time.monotonic() + 10
        while sum(u.connected for u in m.units()) < 3:
            assert time.monotonic() < end, m.units()
            time.sleep(0.02)
        m.pair(2)
        proc.stdin.write("press 3 4\n")
        end = time.monotonic() + 5
        while m.seats() != {("B0C50003", 0): 2}:
            assert time.monotonic() < end
            time.sleep(0.02)
        proc.stdin.write("reset 3\n")               # power cycle, HELLO lost: noticed by seq
        end = time.monotonic() + 5
        while m.counters["seq_doubts"] < 1:
            assert time.monotonic() < end
            time.sleep(0.02)
        proc.stdin.write("unplug 1\n")
        end = time.monotonic() + 5
        while m.units()[0].connected:
            assert time.monotonic() < end
            time.sleep(0.02)
        proc.stdin.write("bogus\nquit\n")
        proc.stdin.flush()
        out = proc.communicate(timeout=10)[0]
        assert "error: unknown command 'bogus'" in out
        assert "box 3 reset" in out
        assert proc.returncode == 0
        assert list(links.iterdir()) == []          # the simulator removed its links
    finally:
        m.stop()
        if proc.poll() is None:
            proc.kill()


def test_auto_discovery_skips_ports_without_usb_ids():
    # /dev/ttyS0 here has no USB vendor id: probing it could hang on a modem, so "auto" skips it
    from serial.tools import list_ports
    no_ids = {p.device for p in list_ports.comports() if p.vid is None}
    assert not no_ids & set(auto_ports())


def _sim(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "hardware.sim", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_bad_commands_get_one_line_each_and_the_simulator_goes_on():
    # Box 0 and -1 used to be the last box (a negative index); a key beyond a byte ended the
    # simulator with struct.error.
    proc = _sim("-n", "2", "--heartbeat", "60", stdin=subprocess.PIPE)
    bad = ["press 0 1", "press 1 300", "press 1 -1", "press 1 12", "press 1 1 300",
           "press 99999999999999999999 1", "unplug 0", "reset -1", "replug 3", "replug 1",
           "press 1", "press x 1", "unplug"]
    out, err = proc.communicate("\n".join(bad + ["press 1 1", "status", "quit"]) + "\n",
                                timeout=20)
    assert proc.returncode == 0 and err == ""
    lines = out.splitlines()[3:]                 # after the pattern and the two boxes
    assert lines == [
        "error: press 0 1: no box 0: the boxes are 1..2",
        "error: press 1 300: button 300 out of range 0..11",
        "error: press 1 -1: button -1 out of range 0..11",
        "error: press 1 12: button 12 out of range 0..11",
        "error: press 1 1 300: keypad 300 out of range 0..0",
        "error: press 99999999999999999999 1: no box 99999999999999999999: the boxes are 1..2",
        "error: unplug 0: no box 0: the boxes are 1..2",
        "error: reset -1: no box -1: the boxes are 1..2",
        "error: replug 3: no box 3: the boxes are 1..2",
        "error: replug 1: box 1 is plugged in already",
        "error: press 1: want press BOX BUTTON [KEYPAD]",
        "error: press x 1: box 'x' is not a whole number",
        "error: unplug: want unplug BOX",
        "box 1 pressed 1 (seq 2)",
        "box 1 B0C50001 plugged seq=2 leds=sending pending=[0]",
        "box 2 B0C50002 plugged seq=1 leds=off pending=[]",   # untouched by "box 0" and "-1"
    ]


@pytest.mark.parametrize("option", [
    ["--slow", "-1"], ["--slow", "5"], ["--keypads", "300"], ["--battery", "300"],
    ["--battery", "-5"], ["--heartbeat", "nan"], ["--heartbeat", "0"], ["--noise", "5"],
    ["--flood", "-5"], ["--for", "inf"], ["-n", "0"], ["--boxes", "3000"], ["--keypads", "x"],
    ["--dir", "FILE"], ["--faulty", "5"]])
def test_bad_options_are_one_line_usage_errors(tmp_path, option):
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    option = [str(a_file) if x == "FILE" else x for x in option]
    # --for 2: a bad --battery used to kill only the box's thread, and the process ran on
    argv = ["-n", "2", *option] + ([] if "--for" in option else ["--for", "2"])
    r = subprocess.run([sys.executable, "-m", "hardware.sim", *argv], cwd=ROOT,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=20)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith("error: ") and option[0] in line and option[-1] in line, line


def test_a_host_that_does_not_read_cannot_hang_the_simulator(tmp_path):
    # A flooding box fills its pty when nobody reads it; the box's thread used to block in the
    # write holding the box's lock, so neither --for nor SIGTERM could stop the simulator.
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "hardware.sim", "-n", "1", "--flood", "1000",
                        "--for", "2", "--dir", str(tmp_path)], cwd=ROOT, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=30)
    assert r.returncode == 0 and r.stderr == ""
    assert time.monotonic() - t0 < 8
    assert list(tmp_path.iterdir()) == []
    proc = _sim("-n", "1", "--flood", "1000", "--dir", str(tmp_path), stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout.readline().startswith("pattern ")
        time.sleep(2.5)                       # the pty is full after about a second
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - t0 < 3
        assert list(tmp_path.iterdir()) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
