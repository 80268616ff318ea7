"""`python -m companion demo`: a scripted 23 Knives game played headless.

Tablet taps and ballots arrive through input sources onto the command queue (the ballots from
simulated vote boxes, tagged with their box), the narration is spoken by espeak-ng into one WAV
file (captions only when espeak-ng is missing), and the console shows what the table would see
(the table view: never a ballot before its reveal) and hear (each spoken line).

``--lang fr`` plays it in French (the catalogue, the narration scripts and espeak-ng's voice);
``--replay DIR`` replays the journal a demo recorded in DIR (``--out DIR``), in the language
given now: the journal holds keys and values, so a game recorded in French replays in German.
"""
from __future__ import annotations

import argparse
import errno
import logging
from itertools import groupby
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from companion.core import i18n
from companion.core.audio import RecordingAudioOut
from companion.core.clock import FakeClock
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.inputs import CommandQueue, ScriptedSource
from companion.core.journal import DataLock, Journal, JournalError, StorageFull
from companion.core.narration import Narrator
from companion.core.session import GameSession, repair
from companion.core.rules import GameRules
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker, Speaker

Say = Callable[..., None]
Said = Sequence[tuple[Event, list[tuple[str, dict]]]]


def _speaker(cache: Path) -> Speaker:
    if EspeakSpeaker.available():
        return EspeakSpeaker(cache_dir=str(cache))
    print("(espeak-ng not found: captions only)")
    return CaptionSpeaker()


def _table_line(view: Mapping[str, Any]) -> str:
    k, forum, curia = view["kalends"], view["forum"], view["curia"]
    vote = view.get("vote")
    dagger = "Dagger in the Curia" if k["dagger"] > k["spaces"] else f"Dagger {k['dagger']}/{k['spaces']}"
    parts = [dagger, f"Forum {forum['count']}", f"Curia {curia['count']}",
             f"Tribune {view['tribune']}"]
    if vote and not vote["revealed"]:
        parts.append(f"vote: {len(vote['voted'])}/{len(vote['voters'])} voted "
                     f"({', '.join(vote['voted']) or 'nobody yet'})")
    return " | ".join(parts)


def cli(argv: list[str] | None = None) -> int:
    """The command line: anything wrong (a missing folder, a full disk, a file where a folder
    should be) is one line ``error: ...`` and exit code 2, never a traceback."""
    # The demo says each refusal itself (none with --quiet): the queue's log would repeat it.
    logging.getLogger("companion.core.inputs").addHandler(logging.NullHandler())
    try:
        return main(argv)
    except (BadInput, RuleError) as exc:
        print(f"error: {i18n.error_text(exc)}", file=sys.stderr)   # in the demo's --lang
        return 2


def main(argv: list[str] | None = None) -> int:
    """Plays (or replays) the demo. Raises BadInput (a file it cannot write too) or RuleError."""
    try:
        return _play(argv)
    except OSError as exc:
        raise _file_error(exc) from None


def _file_error(exc: OSError) -> BadInput:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return StorageFull()
    why = i18n.reason_of(exc)
    return BadInput(i18n.keyed("demo.file_error", path=exc.filename, why=why) if exc.filename else why)


def _play(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion demo", description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="folder for the journal, narration.wav and transcript.txt "
                    "(default: a new temporary folder)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    ap.add_argument("--lang", default="en", choices=i18n.languages(),
                    help="the language shown and spoken (default: en)")
    ap.add_argument("--replay", metavar="DIR", help="replay the game a demo recorded in DIR "
                    "(its journal.sqlite3) instead of playing a new one")
    args = ap.parse_args(argv)
    i18n.set_language(args.lang)  # before the speaker: espeak-ng's voice follows it
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="companion-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    recorded = None
    if args.replay:
        recorded = Path(args.replay) / "journal.sqlite3"
        if not recorded.is_file():
            raise BadInput(i18n.keyed("demo.no_journal", folder=args.replay))
        if recorded.resolve().parent == out.resolve():
            raise BadInput(i18n.keyed("demo.same_folders"))
    # The journal stays in the folder: a demo run again (after being killed, say) adds its game
    # next to the earlier ones, and `python -m companion check --data DIR` can verify them all.
    lock = DataLock(out).acquire()
    try:
        return _run(args, out, recorded, lock)
    finally:
        lock.release()


def _run(args: argparse.Namespace, out: Path, recorded: Path | None, lock: DataLock) -> int:
    from companion.games.knives23 import Knives23Rules, said_after
    from companion.games.knives23 import demo as script
    clock = FakeClock(0.0)
    audio = RecordingAudioOut(str(out / "narration.wav"), clock)
    say = (lambda *a: None) if args.quiet else print
    narrator = Narrator(_speaker(out / "voice-cache"), audio, clock, rng_seed=23,
                        on_caption=lambda text: text and say(f"    🔊 {text}"))
    rules = Knives23Rules()
    if recorded is not None:
        return _replay(recorded, rules, narrator, clock, audio, out, say)
    journal = Journal(out / "journal.sqlite3", lock=lock)
    repair(journal)  # what the app mends on open (an older demo killed between its last event and its end)
    session = GameSession.start(journal, rules, script.SETUP)

    queue = CommandQueue()
    tablet, boxes = ScriptedSource(), ScriptedSource()
    tablet.start(queue.post)
    boxes.start(queue.post)
    seats = list(script.SETUP["players"])

    def handle(cmd: Command) -> None:
        before = session.state
        events = session.execute(cmd)
        earlier = session.events[:len(session.events) - len(events)]
        # what is said after the batch: the game's own cues (it folds its states, not the demo)
        said = said_after(session.setup, earlier, events, before)
        _show(session.view("table"), said, f"[{cmd.source:>8}] {cmd.kind:<18}", narrator, clock, say)

    refused = 0
    for cmd in script.commands():
        if cmd.kind == "cast_ballot":
            # The ballot arrives from the voter's simulated box: seat number and option index.
            box = seats.index(cmd.data["voter"]) + 1
            boxes.send(Command("cast_ballot", dict(cmd.data), source=f"box:{box:02d}"))
        else:
            tablet.send(cmd)
        for bad_cmd, exc in queue.drain(handle):
            if isinstance(exc, JournalError):  # a full disk, say: the script cannot go on without it
                raise exc
            refused += 1
            say(f"    refused {bad_cmd.kind}: {exc}")
    print(f"events in the journal: {len(session.events)}; commands refused: {refused}")
    print(f"journal: {out / 'journal.sqlite3'} (game {session.game_id})")
    try:
        return _summary(rules, session.state, narrator, clock, audio, out)
    finally:
        journal.close()


def _show(view: Mapping[str, Any], said: Said, label: str, narrator: Narrator, clock: FakeClock, say: Say) -> None:
    """Narrate a batch of recorded events (``said``: each event with the game's cues for it) and
    print what the table sees after it (``view``: the game's table view)."""
    from companion.games.knives23 import load_script
    for _ev, cues in said:
        for name, context in cues:
            narrator.enqueue_script(load_script(name), context)
    say(f"{label} {_table_line(view)}")
    if view.get("prompt"):
        say(f"    screen: {i18n.text_of(view['prompt'])}")
    if view.get("vote") is None and view["vote_history"] and any(ev.kind == "vote_revealed" for ev, _ in said):
        last = view["vote_history"][-1]
        say(f"    revealed at once: {last['counts']} — " + ", ".join(f"{v}: {c}" for v, c in last["ballots"].items()))
    # Let the narrator finish before the next action, as a table would.
    for _ in range(100_000):
        narrator.tick()
        if not narrator.busy and not narrator.pending():
            break
        clock.advance(0.1)


def _replay(recorded: Path, rules: GameRules, narrator: Narrator, clock: FakeClock, audio: RecordingAudioOut,
            out: Path, say: Say) -> int:
    """The last 23 Knives game of a recorded journal, event by event, in today's language: each
    batch's state is the rules' own replay of the journal up to it (``GameRules.fold``, as a
    resumed session does) and what is said after it the game's cues (``said_after``)."""
    from companion.games.knives23 import said_after
    journal = Journal(recorded)
    try:
        games = journal.games(rules.game_id)
        if not games:
            raise BadInput(i18n.keyed("demo.no_knives23", journal=str(recorded)))
        record = journal.game(games[0].id)  # newest first; JournalDamaged when its row cannot be read
        events = journal.events(record.id)
    finally:
        journal.close()
    print(f"replaying game {record.id} of {recorded} ({len(events)} events) in {i18n.native_name(i18n.language())}")
    state = rules.fold(record.setup, [])
    # one command's events were written together (one time stamp): shown as one step
    for _, grouped in groupby(enumerate(events), key=lambda ie: (ie[1].at, ie[1].source)):
        batch = list(grouped)
        first, last = batch[0][0], batch[-1][0]
        before, state = state, rules.fold(record.setup, events[:last + 1])
        if any(ev.kind == "undo" for _, ev in batch):   # re-folded: nothing to say, as the session
            continue
        label = f"[{batch[0][1].source:>8}] {batch[0][1].kind:<18}"
        said = said_after(record.setup, events[:first], [ev for _, ev in batch], before)
        _show(rules.view(state, "table"), said, label, narrator, clock, say)
    print(f"events replayed: {len(events)}")
    return _summary(rules, state, narrator, clock, audio, out)


def _summary(rules: GameRules, state: Any, narrator: Narrator, clock: FakeClock, audio: RecordingAudioOut,
             out: Path) -> int:
    narrator.tick()
    wav = audio.write()
    (out / "transcript.txt").write_text(narrator.transcript(), encoding="utf-8")
    outcome = rules.outcome(state)
    winners, summary = (outcome["winners"], outcome["summary"]) if outcome else ([], "")
    print(f"winners: {', '.join(winners) or 'none yet'} — {i18n.text_of(summary)}")
    print(f"narration: {wav} ({len(narrator.history)} lines, {clock.now():.0f} s of table time)")
    print(f"transcript: {out / 'transcript.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
