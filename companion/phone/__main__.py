"""``python -m companion.phone serve --demo``: the phone server without the app, on the scripted
23 Knives demo game stopped at the Curia reveal, so anyone can try phones.

The first line printed is the join URL (open it on a phone, or turn it into a QR code); then
one line per phone that joins and per answer a phone gets. The terminal plays the narrator:
every phone is allowed as it joins and typed codes are allowed (the sticker's small type, e.g.
``23K1.F.K5.042``, of any card of the default deck). ``--stickers FILE.pdf`` prints this run's
stickers; ``--key-file`` reuses a deck key (stickers printed with it are then read).
Ctrl-C stops it. No Kivy here.
"""
from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from companion.core import i18n
from companion.core.events import BadInput
from vision.qr import payload as qrpayload

if TYPE_CHECKING:
    from companion.core.journal import Journal
    from companion.core.session import GameSession


def _port(text: str) -> int:
    """A TCP port for --port: 0 (any free one) to 65535; argparse says anything else in one line."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(i18n.tr("cli.not_whole_number", value=repr(text))) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(i18n.tr("cli.not_a_port", port=port))
    return port


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m companion.phone",
                                description="The phone server of the table companion, headless.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve phones; prints the join URL on its first line",
                       description="Serve the phone page. With --demo: on the scripted 23 Knives "
                                   "demo game, stopped at the Curia reveal.")
    s.add_argument("--demo", action="store_true", required=True,
                   help="play the demo game (the only game headless: the app serves its own)")
    s.add_argument("--host", help="address to bind (default: this machine's LAN address, or "
                                  "127.0.0.1 without a network); a local-network address only")
    s.add_argument("--port", type=_port, default=0, help="port (default: any free one)")
    s.add_argument("--key-file", type=Path,
                   help="deck key of printed stickers (default: a new key for this run)")
    s.add_argument("--https", action="store_true",
                   help="serve https with a certificate made for this run (phones accept it "
                        "once; then they may scan live)")
    s.add_argument("--stickers", type=Path, metavar="PDF",
                   help="also write this run's Fate stickers (Avery L7160) to PDF")
    return p


def _demo_session(data_dir: Path) -> tuple[Journal, GameSession]:
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import DEMO_SETUP, Knives23Rules, demo_commands

    journal = Journal(data_dir / "journal.sqlite")
    session = GameSession.start(journal, Knives23Rules(), DEMO_SETUP)
    for cmd in demo_commands():
        session.execute(cmd)
        if cmd.kind == "abilities_done":
            break  # the Dagger is in the Curia: its Fate cards wait to be revealed
    return journal, session


def serve_demo(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    from .bridge import CuriaBridge
    from .server import PhoneServer
    from .source import answer_line, choose_host

    with tempfile.TemporaryDirectory(prefix="phone-demo-") as tmp_name:
        tmp = Path(tmp_name)
        key = qrpayload.load_key(args.key_file) if args.key_file else qrpayload.new_key()
        journal, session = _demo_session(tmp)
        bridge = CuriaBridge(session)
        host, _, _ = choose_host(args.host)
        context = None
        if args.https:
            from .tls import server_context
            context = server_context(tmp, host)
        server = PhoneServer(bridge.submit, key, status=bridge.status, host=host,
                             port=args.port, auto_allow=True, typing=True, tls=context).start()
        try:
            print(server.join_url, file=out, flush=True)
            state = session.state
            print(f"23 Knives demo at the Curia reveal: {state.curia_count} Fate cards to reveal."
                  " Every phone is allowed as it joins; typed codes are allowed.", file=out)
            cards = [c for c in server.deck.values() if c.kind == "fate"]
            print("Try typing: " + ", ".join(qrpayload.printed(c) for c in cards[::17][:4]),
                  file=out)
            if args.stickers:
                from vision.qr.stickers import LAYOUTS, write_pdf
                write_pdf(cards, key, LAYOUTS["L7160"], args.stickers)
                print(f"Stickers for this run: {args.stickers}", file=out)
            out.flush()
            told, known = 0, set()
            while True:
                bridge.drain()
                for d in server.devices():
                    if d["id"] not in known:
                        known.add(d["id"])
                        print(f"Phone {d['id']} joined", file=out, flush=True)
                told, new = server.recent_since(told)
                for answer in new:
                    print(answer_line(answer), file=out, flush=True)
                time.sleep(0.05)
        except KeyboardInterrupt:
            return 0
        finally:
            server.stop()
            journal.close()


def _stop(*_: object) -> NoReturn:
    raise KeyboardInterrupt  # SIGTERM stops as Ctrl-C does: the server closes, the temp folder goes


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # Ctrl-C stops it even when it was started from a shell job that ignores SIGINT (``nohup … &``,
    # a script's background job): Python keeps an inherited "ignore", so the handler is set here.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    try:
        return serve_demo(args)
    except (BadInput, OSError) as exc:
        print(f"phone server: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
