"""python -m hardware.sim — N virtual vote boxes on pseudo-terminals, for the demo, the tests and
anyone without hardware. Point the app at the printed pattern (or the links it lists).

Commands on stdin, one per line (box numbers from 1):
  press BOX BUTTON [KEYPAD]   a debounced press
  unplug BOX | replug BOX     pull the USB cable / put it back (a power-up)
  reset BOX                   a power cycle with the cable in; its power-up HELLO lost to noise
  status                      each box: link, sequence, LEDs, pending press
  quit
"""
from __future__ import annotations

import argparse
import io
import math
import os
import random
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeVar

from hardware.sim import Faults, SimulatedBoxes

MAX_BOXES = 100   # each box is a pty (two file descriptors) and a thread
N = TypeVar("N", int, float)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # one line that names what was wrong, not a usage dump
        self.exit(2, "error: %s (see --help)\n" % message)


def _ranged(kind: type[N], lo: float, hi: float, unit: str = "") -> Callable[[str], N]:
    """An argparse type: a finite number of ``kind`` (int or float) from lo to hi."""
    def parse(text: str) -> N:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a %s" % (
                text, "whole number" if kind is int else "number")) from None
        if not (math.isfinite(value) and lo <= value <= hi):
            raise argparse.ArgumentTypeError("%s is out of range %s..%s%s" % (text, lo, hi, unit))
        return value
    return parse


def _directory(text: str) -> str:
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError("%r is not a directory" % text)
    if not os.access(text, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError("cannot make the port links in %r (not writable)" % text)
    return text


_CHANCE = _ranged(float, 0, 1)
_SECONDS = _ranged(float, 0, 86400, " seconds")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m hardware.sim", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    # Ranges: what the protocol's one-byte fields carry (keypads, battery %) and what one process
    # can serve (a pty and a thread per box).
    p.add_argument("-n", "--boxes", type=_ranged(int, 1, MAX_BOXES), default=8,
                   help="number of boxes, 1..%d (default 8)" % MAX_BOXES)
    p.add_argument("--dir", type=_directory,
                   help="directory for the port links box01.. (default: a new temp dir)")
    p.add_argument("--keypads", type=_ranged(int, 1, 255), default=1,
                   help="keypads per box, 1..255: >1 makes hubs")
    p.add_argument("--heartbeat", type=_ranged(float, 0.01, 3600, " seconds"), default=1.0,
                   help="seconds between heartbeats")
    p.add_argument("--battery", type=_ranged(int, 0, 100),
                   help="battery percent the boxes report, 0..100 (default: no gauge)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the fault injection")
    f = p.add_argument_group("fault injection (chances per frame, 0..1)")
    f.add_argument("--noise", type=_CHANCE, default=0.0, help="random bytes before a frame")
    f.add_argument("--corrupt", type=_CHANCE, default=0.0, help="one flipped bit in a frame")
    f.add_argument("--drop", type=_CHANCE, default=0.0, help="frame lost (both directions)")
    f.add_argument("--truncate", type=_CHANCE, default=0.0, help="frame loses its tail")
    f.add_argument("--duplicate", type=_CHANCE, default=0.0, help="frame sent twice")
    f.add_argument("--slow", type=_ranged(float, 0, 1, " seconds"), default=0.0, metavar="SECONDS",
                   help="delay between bytes, 0..1 (a slow box)")
    f.add_argument("--flood", type=_ranged(float, 0, 100000), default=0.0, metavar="PER_SECOND",
                   help="extra frames per second (a flooding box)")
    f.add_argument("--faulty", default="", metavar="1,3",
                   help="apply the faults only to these boxes (default: all)")
    p.add_argument("--press-every", type=_SECONDS, default=0.0, metavar="SECONDS",
                   help="each box presses a random button this often (a demo table)")
    p.add_argument("--for", dest="duration", type=_SECONDS, default=0.0, metavar="SECONDS",
                   help="stop after this long (default: until quit, Ctrl-C or SIGTERM)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    faults = Faults(noise=args.noise, corrupt=args.corrupt, drop=args.drop,
                    truncate=args.truncate, duplicate=args.duplicate, byte_delay=args.slow,
                    flood=args.flood)
    try:
        faulty = {int(x) - 1 for x in args.faulty.split(",") if x.strip()}
    except ValueError:
        print("error: --faulty wants box numbers like 1,3; got %r" % args.faulty, file=sys.stderr)
        return 2
    if not all(0 <= i < args.boxes for i in faulty):
        print("error: --faulty %s: the boxes are 1..%d" % (args.faulty, args.boxes), file=sys.stderr)
        return 2
    sim = SimulatedBoxes(n=args.boxes, directory=args.dir, keypads=args.keypads,
                         heartbeat=args.heartbeat, seed=args.seed, battery=args.battery,
                         faults=None if faulty else faults)
    for i in faulty:
        sim.boxes[i].faults = faults
    try:
        sim.start()
    except OSError as e:     # no pty left, or a directory that takes no links (/proc)
        sim.stop()
        print("error: cannot make the box ports in %s: %s" % (sim.directory, e.strerror or e),
              file=sys.stderr)
        return 2
    # SIGTERM (the demo stopping us) cleans up the links like Ctrl-C does; set before the
    # pattern is printed, so whoever read it can stop us cleanly.
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    rng = random.Random(args.seed)
    end = time.monotonic() + args.duration if args.duration else None
    next_press = time.monotonic() + args.press_every if args.press_every else None
    stdin_open = True
    if isinstance(sys.stdin, io.TextIOWrapper):     # a line of junk is an unknown command
        sys.stdin.reconfigure(errors="backslashreplace")
    try:
        print("pattern %s" % sim.pattern)
        for b in sim.boxes:
            print("box %08X %s -> %s" % (b.box_id, b.url, getattr(b._link, "device", b.url)))
        sys.stdout.flush()
        while end is None or time.monotonic() < end:
            if next_press and time.monotonic() >= next_press:
                box = rng.randrange(args.boxes)
                sim.press(box, rng.randrange(2))
                next_press = time.monotonic() + args.press_every
            if not stdin_open:
                time.sleep(0.05)
                continue
            r, _, _ = select.select([sys.stdin], [], [], 0.05)
            if not r:
                continue
            line = sys.stdin.readline()
            if not line:
                stdin_open = False     # run on (until --for, Ctrl-C or SIGTERM) without stdin
                continue
            if not _command(sim, line.split()):
                break
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ValueError("%s %r is not a whole number" % (what, word)) from None


def _box(sim: SimulatedBoxes, word: str) -> int:
    """The index of box number ``word`` (numbered from 1), or ValueError naming the range."""
    n = _int(word, "box")
    if not 1 <= n <= len(sim.boxes):
        raise ValueError("no box %d: the boxes are 1..%d" % (n, len(sim.boxes)))
    return n - 1


def _command(sim: SimulatedBoxes, words: list[str]) -> bool:
    try:
        if not words:
            return True
        if words[0] == "quit":
            return False
        if words[0] == "press":
            if len(words) not in (3, 4):
                raise ValueError("want press BOX BUTTON [KEYPAD]")
            i, button = _box(sim, words[1]), _int(words[2], "button")
            keypad = _int(words[3], "keypad") if len(words) > 3 else 0
            seq = sim.press(i, button, keypad)     # ValueError when the box has no such key
            print("box %d pressed %d (seq %d)" % (i + 1, button, seq))
        elif words[0] in ("unplug", "replug", "reset"):
            if len(words) != 2:
                raise ValueError("want %s BOX" % words[0])
            i = _box(sim, words[1])
            if words[0] == "unplug":
                sim.unplug(i)
                print("box %d unplugged" % (i + 1))
            elif words[0] == "reset":
                sim.boxes[i].restart(lose_hello=True)
                print("box %d reset" % (i + 1))
            elif sim.boxes[i].plugged:     # a second link and thread would talk over the first
                print("error: replug %d: box %d is plugged in already" % (i + 1, i + 1))
            else:
                sim.replug(i)
                print("box %d plugged back" % (i + 1))
        elif words[0] == "status":
            for i, b in enumerate(sim.boxes, 1):
                print("box %d %08X %s seq=%d leds=%s pending=%s" % (
                    i, b.box_id, "plugged" if b.plugged else "unplugged", b.seq,
                    ",".join(b.leds), sorted(b.pending)))
        else:
            print("error: unknown command %r (press, unplug, replug, reset, status, quit)"
                  % words[0])
    except ValueError as e:
        print("error: %s: %s" % (" ".join(words), e))
    sys.stdout.flush()
    return True


if __name__ == "__main__":
    sys.exit(main())
