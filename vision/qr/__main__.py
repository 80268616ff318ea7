"""``python -m vision.qr decode IMAGE...`` and ``python -m vision.qr stickers ...``.

decode: one JSON object per image on stdout, ``{"image": path, "texts": [...]}`` (an empty list
when no code can be read); a missing or non-image file gives one line on stderr naming it, the
other images are still read, and the exit status is 1.
stickers: writes the sticker sheet PDF for a deck file and a deck key (made if missing).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from companion.core.events import BadInput
from vision.cvlog import quiet_opencv


def _decode(args: argparse.Namespace) -> int:
    from .decode import decode_file

    quiet_opencv()
    status = 0
    for path in args.images:
        try:
            texts = decode_file(path, args.method)
        except BadInput as exc:
            print(f"decode: {exc}", file=sys.stderr)
            status = 1
            continue
        print(json.dumps({"image": path, "texts": texts}, ensure_ascii=False), flush=True)
    return status


def _stickers(args: argparse.Namespace) -> int:
    from . import payload, stickers

    layout = stickers.layout_named(args.layout)
    deck = payload.load_deck(args.deck)
    key_path = args.key_file or payload.default_key_path()
    # Every path checked before anything is written: a bad --preview must not come after the PDF.
    payload.check_writable(args.out, "sticker sheet")
    if args.preview:
        stickers.check_preview(args.preview)
    key = payload.load_or_create_key(key_path)   # checks its own path before making one
    kinds = ("fate", "sway") if args.sway else ("fate",)
    cards = payload.deck_cards(deck, kinds)
    pages = stickers.write_pdf(cards, key, layout, args.out, outline=args.outline)
    if args.preview:
        stickers.write_preview(pages[0], args.preview)
    print(json.dumps({"pdf": args.out, "pages": len(pages), "stickers": len(cards),
                      "layout": layout.name, "paper": layout.paper, "key_file": str(key_path)}))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.qr",
                                 description="23 Knives card stickers: print them, read them.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("decode", help="read the QR codes in images")
    d.add_argument("images", nargs="+", metavar="IMAGE")
    d.add_argument("--method", choices=("best", "zxing", "opencv", "opencv-raw"), default="best",
                   help="best (default): zxing-cpp, then fallbacks; zxing: zxing-cpp alone; "
                   "opencv: OpenCV with pre-processing; opencv-raw: OpenCV's detectors alone")
    d.set_defaults(run=_decode)
    s = sub.add_parser("stickers", help="write a printable sticker sheet PDF")
    s.add_argument("--out", required=True, help="PDF file to write")
    s.add_argument("--layout", default="L7160", help="label sheet: L7160, L7651 (A4), 5160 "
                   "(Letter)")
    s.add_argument("--deck", default=None, help="deck counts JSON (default: the built-in guess)")
    s.add_argument("--key-file", default=None, help="this print run's key (made if missing; "
                   "the tablet needs the same file)")
    s.add_argument("--sway", action="store_true", help="also print the Sway cards")
    s.add_argument("--outline", action="store_true", help="draw cut lines (plain paper)")
    s.add_argument("--preview", default=None, help="also save page 1 as this PNG")
    s.set_defaults(run=_stickers)
    args = ap.parse_args(argv)
    if getattr(args, "deck", "") is None:
        from .payload import DEFAULT_DECK
        args.deck = DEFAULT_DECK
    try:
        return args.run(args)
    except BadInput as exc:
        print(f"{args.cmd}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
