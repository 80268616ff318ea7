"""`python -m companion` starts the app; `python -m companion demo` plays a scripted segment
headless.

One argparse parser for every command line of the app, so `--help` lists every option.
"""
from __future__ import annotations

import argparse
import os
import sys


def _text(value: str) -> str:
    """An option's value as text: a path or port name in an unknown encoding (bytes that are not
    UTF-8) is refused in one line, before a label, the log or OpenCV fails on it."""
    from companion.core.i18n import is_text, tr
    if not is_text(value):
        raise argparse.ArgumentTypeError(tr("cli.not_text", value=ascii(value)))
    return value


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m companion",
        description="The table companion: narration, timers, secret votes and board totals for "
                    "physical hidden-role games.")
    ap.add_argument("--data", metavar="DIR", type=_text,
                    help="the data folder (journal, settings, keys); default: the platform's "
                         "user data folder")
    ap.add_argument("--boxes", metavar="PORTS", type=_text,
                    help="serial vote boxes: 'auto' (find plugged-in boxes and watch for more), "
                         "'off', or a comma-separated list of ports such as /dev/ttyUSB0,/dev/pts/3 "
                         "(default: the Devices setting)")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="play a scripted 23 Knives segment headless",
                          add_help=False)
    demo.add_argument("demo_args", nargs=argparse.REMAINDER)
    check = sub.add_parser("check", help="verify the journal: integrity, every game replays, "
                                         "no finished game left playing", add_help=False)
    check.add_argument("check_args", nargs=argparse.REMAINDER)
    export = sub.add_parser("export", help="write one game of the journal (votes, totals, winners, "
                                           "duration) to the data folder's exports/ as JSON or CSV")
    export.add_argument("game_id", metavar="GAME_ID", type=int, help="the game's number (Past games, "
                        "or `python -m companion check`)")
    export.add_argument("--format", choices=("json", "csv"), default="json", help="default: json")
    export.add_argument("--data", metavar="DIR", dest="export_data", type=_text,
                        help="the data folder (default: the app's)")
    return ap


def export_main(args: argparse.Namespace) -> int:
    """The Past games screen's Export, from the command line: prints the file it wrote, or one
    line saying why it could not."""
    from pathlib import Path

    from companion.core.events import BadInput
    from companion.export import export_game
    from companion.core.i18n import error_text
    from companion.core.journal import (DataLock, Journal, JournalError, StorageFull, StorageUnavailable,
                                        default_data_dir)
    data = Path(args.export_data or args.data or default_data_dir())
    path = data / "journal.sqlite3"
    if not path.exists():
        print(f"no journal at {path}", file=sys.stderr)
        return 1
    try:
        # read-only while the app holds the folder, as `check` does
        held = DataLock(data).held_elsewhere()
        try:
            journal = Journal(path, readonly=held)
        except (StorageUnavailable, StorageFull):
            if held:
                raise
            journal = Journal(path, readonly=True)  # a read-only folder, a full disk: exporting only reads the journal
    except JournalError as exc:
        print(error_text(exc), file=sys.stderr)
        return 1
    try:
        print(export_game(journal, args.game_id, args.format, data))
        return 0
    except BadInput as exc:
        print(error_text(exc), file=sys.stderr)
        return 1
    finally:
        journal.close()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The subcommands own their options (each has its own parser and --help).
    if argv[:1] == ["demo"]:
        from companion.demo import cli as demo_cli
        return demo_cli(argv[1:])   # its errors in one line, as `python -m companion.demo` says them
    if argv[:1] == ["check"]:
        from companion.check import main as check_main
        return check_main(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "export":
        return export_main(args)
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    from kivy.config import Config
    from kivy.utils import platform
    if platform not in ("android", "ios"):
        # On a desktop, open at a landscape tablet's size (Android runs full screen).
        Config.set("graphics", "width", "1280")
        Config.set("graphics", "height", "800")
    from companion.app.main import CompanionApp
    app = CompanionApp(data_dir=args.data, boxes=args.boxes)
    app.run()
    return 1 if app.refused else 0  # another copy held the data folder


if __name__ == "__main__":
    sys.exit(main())
