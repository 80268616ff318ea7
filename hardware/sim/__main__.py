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
import random
import select
import signal
import sys
import time

from hardware.sim import Faults, SimulatedBoxes


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # one line that names what was wrong, not a usage dump
        self.exit(2, "error: %s (see --help)\n" % message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m hardware.sim", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "--boxes", type=int, default=8, help="number of boxes (default 8)")
    p.add_argument("--dir", help="directory for the port links box01.. (default: a new temp dir)")
    p.add_argument("--keypads", type=int, default=1, help="keypads per box: >1 makes hubs")
    p.add_argument("--heartbeat", type=float, default=1.0, help="seconds between heartbeats")
    p.add_argument("--battery", type=int, help="battery percent the boxes report")
    p.add_argument("--seed", type=int, default=0, help="random seed of the fault injection")
    f = p.add_argument_group("fault injection (chances per frame, 0..1)")
    f.add_argument("--noise", type=float, default=0.0, help="random bytes before a frame")
    f.add_argument("--corrupt", type=float, default=0.0, help="one flipped bit in a frame")
    f.add_argument("--drop", type=float, default=0.0, help="frame lost (both directions)")
    f.add_argument("--truncate", type=float, default=0.0, help="frame loses its tail")
    f.add_argument("--duplicate", type=float, default=0.0, help="frame sent twice")
    f.add_argument("--slow", type=float, default=0.0, metavar="SECONDS",
                   help="delay between bytes (a slow box)")
    f.add_argument("--flood", type=float, default=0.0, metavar="PER_SECOND",
                   help="extra frames per second (a flooding box)")
    f.add_argument("--faulty", default="", metavar="1,3",
                   help="apply the faults only to these boxes (default: all)")
    p.add_argument("--press-every", type=float, default=0.0, metavar="SECONDS",
                   help="each box presses a random button this often (a demo table)")
    p.add_argument("--for", dest="duration", type=float, default=0.0, metavar="SECONDS",
                   help="stop after this long (default: until quit, Ctrl-C or SIGTERM)")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.boxes < 1 or args.keypads < 1:
        print("error: --boxes and --keypads must be at least 1", file=sys.stderr)
        return 2
    faults = Faults(noise=args.noise, corrupt=args.corrupt, drop=args.drop,
                    truncate=args.truncate, duplicate=args.duplicate, byte_delay=args.slow,
                    flood=args.flood)
    try:
        faulty = {int(x) - 1 for x in args.faulty.split(",") if x.strip()}
    except ValueError:
        print("error: --faulty wants box numbers like 1,3; got %r" % args.faulty, file=sys.stderr)
        return 2
    sim = SimulatedBoxes(n=args.boxes, directory=args.dir, keypads=args.keypads,
                         heartbeat=args.heartbeat, seed=args.seed, battery=args.battery,
                         faults=None if faulty else faults)
    for i in faulty:
        if 0 <= i < args.boxes:
            sim.boxes[i].faults = faults
    sim.start()
    print("pattern %s" % sim.pattern)
    for b in sim.boxes:
        print("box %08X %s -> %s" % (b.box_id, b.url, getattr(b._link, "device", b.url)))
    sys.stdout.flush()
    rng = random.Random(args.seed)
    end = time.monotonic() + args.duration if args.duration else None
    next_press = time.monotonic() + args.press_every if args.press_every else None
    stdin_open = True
    # SIGTERM (the demo stopping us) cleans up the links like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
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


def _command(sim: SimulatedBoxes, words: list[str]) -> bool:
    try:
        if not words:
            return True
        if words[0] == "quit":
            return False
        if words[0] == "press":
            keypad = int(words[3]) if len(words) > 3 else 0
            seq = sim.press(int(words[1]) - 1, int(words[2]), keypad)
            print("box %s pressed %s (seq %d)" % (words[1], words[2], seq))
        elif words[0] == "unplug":
            sim.unplug(int(words[1]) - 1)
            print("box %s unplugged" % words[1])
        elif words[0] == "replug":
            sim.replug(int(words[1]) - 1)
            print("box %s plugged back" % words[1])
        elif words[0] == "reset":
            sim.boxes[int(words[1]) - 1].restart(lose_hello=True)
            print("box %s reset" % words[1])
        elif words[0] == "status":
            for i, b in enumerate(sim.boxes, 1):
                print("box %d %08X %s seq=%d leds=%s pending=%s" % (
                    i, b.box_id, "plugged" if b.plugged else "unplugged", b.seq,
                    ",".join(b.leds), sorted(b.pending)))
        else:
            print("error: unknown command %r (press, unplug, replug, reset, status, quit)"
                  % words[0])
    except (IndexError, ValueError) as e:
        print("error: %s: %s" % (" ".join(words), e))
    sys.stdout.flush()
    return True


if __name__ == "__main__":
    sys.exit(main())
