"""`python -m hardware.sim`: the box simulator as a separate process, as the demo and anyone
without hardware run it, read by the real box manager through the pattern it prints."""
import queue
import subprocess
import sys
import time
from pathlib import Path

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
