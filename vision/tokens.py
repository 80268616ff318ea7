"""Camera-read voting tokens: the command line.

    python -m vision.tokens sheet --players N --out FILE [--paper a4|letter] [--kind token|pick|all]
    python -m vision.tokens read IMAGE [IMAGE ...] [--json] [--players N] [--kind token|pick|all]
    python -m vision.tokens calibrate IMAGE [IMAGE ...] --players N   (every side seen once?)
    python -m vision.tokens watch SOURCE [--players N] [--json]   (a video file, camera number or stream URL)

``read --json`` prints one JSON object per image and line:
``{"image": path, "tokens": [{"player": seat, "side": "exile"|"remain"|"player3"|"center"}],
"warnings": [...]}``. An image that is missing or unreadable gets one error line on stderr (the other
images are still read) and the exit status is 1.

``watch --json`` prints ``{"t": seconds, "seat": K, "side": "exile"|"remain"}`` each time a seat's
settled reading appears or changes, then ``{"final": {"K": side}, "frames": N, "ms_per_frame": M}``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from companion.core.events import BadInput

from . import markers
from .cvlog import quiet_opencv


def _players(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= n <= markers.MAX_SEATS:
        raise argparse.ArgumentTypeError(f"{n} players: the sheet has markers for 1 to {markers.MAX_SEATS}")
    return n


def _seconds(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < s <= 3600:
        raise argparse.ArgumentTypeError(f"{text} s: give more than 0 and at most 3600 seconds")
    return s


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m vision.tokens", description="Camera-read voting tokens.")
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheet", help="write the printable marker sheet (PDF or PNG by extension)")
    s.add_argument("--players", type=_players, required=True)
    s.add_argument("--out", required=True, help="FILE.pdf or FILE.png (PNG: pages after the first go to FILE-2.png …)")
    s.add_argument("--paper", choices=("a4", "letter"), default="a4")
    s.add_argument("--kind", choices=("token", "pick", "all"), default="all",
                   help="voting tokens (Exile/Remain), pick-a-player cards, or both (default)")
    r = sub.add_parser("read", help="read the tokens in photos")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.add_argument("--json", action="store_true", help="one JSON object per image and line")
    r.add_argument("--players", type=_players, default=markers.MAX_SEATS)
    r.add_argument("--kind", choices=("token", "pick", "all"), default="all")
    c = sub.add_parser("calibrate", help="check that every side of every token was seen")
    c.add_argument("images", nargs="+", metavar="IMAGE")
    c.add_argument("--players", type=_players, required=True)
    c.add_argument("--kind", choices=("token", "pick", "all"), default="token")
    w = sub.add_parser(
        "watch", help="read a vote's tokens from a video file, a camera or a stream, as the app does",
        description="Reads the voting tokens from video through the app's own camera path (tracking, "
                    "and the stabiliser: a seat's side counts once it holds over 5 frames) and prints "
                    "each seat's side when it settles or changes, then the final sides. A video file "
                    "is read to its end, every frame; a camera or stream until Ctrl-C.",
        epilog="With --json, one JSON object a line: {\"t\": SECONDS, \"seat\": K, \"side\": "
               "\"exile\"|\"remain\"} per change (t: frame index / frame rate for a file, seconds "
               "since the start for a camera or stream), and last {\"final\": {\"K\": SIDE, ...}, "
               "\"frames\": N, \"ms_per_frame\": MEDIAN} (the median CPU milliseconds the reader took "
               "a frame). A file that is not a video, a camera that does not answer or a stream that "
               "stops is one line on stderr and exit status 1, after what was read. "
               "Example: python -m vision.tokens watch vote.mp4 --players 6 --json")
    w.add_argument("source", metavar="SOURCE",
                   help="a video file, a camera number (0 is the first webcam) or a stream URL "
                        "(http://…/video.mjpg, rtsp://…)")
    w.add_argument("--players", type=_players, default=markers.MAX_SEATS,
                   help="seats at the table (default 8)")
    w.add_argument("--json", action="store_true", help="one JSON object per line")
    w.add_argument("--silence", type=_seconds, default=None, metavar="SECONDS",
                   help="a camera or stream sending no frame for this long has stopped (default 5)")
    return ap


def _error(msg: str | Exception) -> None:
    print(f"vision.tokens: error: {msg}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Imported here so `--help` stays quick and a broken OpenCV install names itself once.
    quiet_opencv()
    if args.command == "watch":
        return _watch(args)
    from .capture import load_image
    from .reader import TokenReader
    if args.command == "sheet":
        from .sheet import write_sheet
        try:
            written = write_sheet(args.out, args.players, args.paper, args.kind)
        except (BadInput, OSError) as exc:
            _error(exc if isinstance(exc, BadInput) else f"cannot write {args.out!r}: {exc.strerror or exc}")
            return 1
        for path in written:
            print(path)
        return 0
    if args.command == "read":
        reader = TokenReader(args.players, args.kind)
        failed = 0
        for path in args.images:
            try:
                reading = reader.read(load_image(path))
            except BadInput as exc:
                _error(exc)
                failed += 1
                continue
            if args.json:
                print(json.dumps(reading.to_json(path)), flush=True)
            else:
                seats = ", ".join(f"seat {s}: {f}" for s, f in sorted(reading.tokens.items())) or "no tokens"
                print(f"{path}: {seats}", flush=True)
                for w in reading.warnings:
                    print(f"  warning: {w.detail}", flush=True)
        return 1 if failed else 0
    # calibrate
    from .calibration import Calibration
    reader = TokenReader(args.players, "all")
    cal = Calibration(args.players, args.kind, frames=1)  # still photos: one clear photo is enough
    failed = 0
    for path in args.images:
        try:
            cal.feed(reader.read(load_image(path)))
        except BadInput as exc:
            _error(exc)
            failed += 1
    report = cal.report()
    print(json.dumps(report.to_json()))
    return 1 if failed or not report.complete else 0


def _watch(args: argparse.Namespace) -> int:
    from .watch import Settled, Summary, Watch, WatchFailed

    def emit(change: Settled) -> None:
        if args.json:
            print(json.dumps(change.to_json()), flush=True)
        else:
            print(f"{change.t:8.2f} s  seat {change.seat}: {change.side}", flush=True)

    def done(summary: Summary) -> None:
        if args.json:
            print(json.dumps(summary.to_json()), flush=True)
            return
        sides = ", ".join(f"seat {k}: {v}" for k, v in sorted(summary.final.items())) or "no seat settled"
        ms = "no frame" if summary.ms_per_frame is None else f"{summary.ms_per_frame:.1f} ms a frame (median)"
        print(f"final: {sides} ({summary.frames} frames, {ms})", flush=True)

    try:
        watch = Watch(args.source, args.players, **({} if args.silence is None else {"silence": args.silence}))
    except BadInput as exc:
        _error(exc)
        return 1
    status = 0
    try:
        done(watch.run(emit))
    except WatchFailed as exc:
        done(exc.summary)
        _error(exc)
        status = 1
    except KeyboardInterrupt:  # a camera or stream is watched until stopped
        watch.stop()
        done(watch.summary())
    if not watch.ended:
        # The reading thread is still inside OpenCV's read of a stream; were that read to return
        # while Python shuts down, the thread's exit would abort the process ("FATAL: exception
        # not rethrown"). Everything is printed: leave at once.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    sys.exit(main())
