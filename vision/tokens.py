"""Camera-read voting tokens: the command line.

    python -m vision.tokens sheet --players N --out FILE [--paper a4|letter] [--kind token|pick|all]
    python -m vision.tokens read IMAGE [IMAGE ...] [--json] [--players N] [--kind token|pick|all]
    python -m vision.tokens calibrate IMAGE [IMAGE ...] --players N   (every side seen once?)

``read --json`` prints one JSON object per image and line:
``{"image": path, "tokens": [{"player": seat, "side": "exile"|"remain"|"player3"|"center"}],
"warnings": [...]}``. An image that is missing or unreadable gets one error line on stderr (the other
images are still read) and the exit status is 1.
"""
from __future__ import annotations

import argparse
import json
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
    return ap


def _error(msg: str | Exception) -> None:
    print(f"vision.tokens: error: {msg}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Imported here so `--help` stays quick and a broken OpenCV install names itself once.
    quiet_opencv()
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


if __name__ == "__main__":
    sys.exit(main())
