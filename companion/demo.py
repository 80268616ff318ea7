"""`python -m companion demo`: a scripted 23 Knives game played headless.

Tablet taps and ballots arrive through input sources onto the command queue (the ballots from
simulated vote boxes, tagged with their box), the narration is spoken by espeak-ng into one WAV
file (captions only when espeak-ng is missing), and the console shows what the table would see
(the table view: never a ballot before its reveal) and hear (each spoken line).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

from companion.core.audio import RecordingAudioOut
from companion.core.clock import FakeClock
from companion.core.events import BadInput, Command, RuleError
from companion.core.inputs import CommandQueue, ScriptedSource
from companion.core.journal import DataLock, Journal
from companion.core.narration import Narrator
from companion.core.rules import fold_step
from companion.core.session import GameSession, repair
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker


def _speaker(cache: Path):
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion demo", description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="folder for the journal, narration.wav and transcript.txt "
                    "(default: a new temporary folder)")
    ap.add_argument("--quiet", action="store_true", help="print only the summary")
    args = ap.parse_args(argv)
    from companion.games.knives23 import cues as knives_cues
    from companion.games.knives23 import demo as script
    from companion.games.knives23.rules import Knives23Rules

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="companion-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    # The journal stays in the folder: a demo run again (after being killed, say) adds its game
    # next to the earlier ones, and `python -m companion check --data DIR` can verify them all.
    lock = DataLock(out).acquire()
    clock = FakeClock(0.0)
    audio = RecordingAudioOut(str(out / "narration.wav"), clock)
    say = (lambda *a: None) if args.quiet else print
    narrator = Narrator(_speaker(out / "voice-cache"), audio, clock, rng_seed=23,
                        on_caption=lambda text: text and say(f"    🔊 {text}"))
    rules = Knives23Rules()
    journal = Journal(out / "journal.sqlite3")
    repair(journal)  # what the app mends on open (an older demo killed between its last event and its end)
    session = GameSession.start(journal, rules, script.SETUP)

    queue = CommandQueue()
    tablet, boxes = ScriptedSource(), ScriptedSource()
    tablet.start(queue.post)
    boxes.start(queue.post)
    seats = list(script.SETUP["players"])

    def handle(cmd: Command):
        before = session.state
        events = session.execute(cmd)
        state = before
        for ev in events:
            after = fold_step(rules, state, ev)
            for name, context in knives_cues.cues(state, ev, after):
                narrator.enqueue_script(knives_cues.load(name), context)
            state = after
        view = session.view("table")
        say(f"[{cmd.source:>8}] {cmd.kind:<18} {_table_line(view)}")
        if view.get("prompt"):
            say(f"    screen: {view['prompt']}")
        if view.get("vote") is None and view["vote_history"] and events and any(e.kind == "vote_revealed" for e in events):
            last = view["vote_history"][-1]
            say(f"    revealed at once: {last['counts']} — " + ", ".join(f"{v}: {c}" for v, c in last["ballots"].items()))
        # Let the narrator finish before the next action, as a table would.
        for _ in range(100_000):
            narrator.tick()
            if not narrator.busy and not narrator.pending():
                break
            clock.advance(0.1)

    refused = 0
    for cmd in script.commands():
        if cmd.kind == "cast_ballot":
            # The ballot arrives from the voter's simulated box: seat number and option index.
            box = seats.index(cmd.data["voter"]) + 1
            boxes.send(Command("cast_ballot", dict(cmd.data), source=f"box:{box:02d}"))
        else:
            tablet.send(cmd)
        for bad_cmd, exc in queue.drain(handle):
            refused += 1
            say(f"    refused {bad_cmd.kind}: {exc}")
    narrator.tick()
    wav = audio.write()
    (out / "transcript.txt").write_text(narrator.transcript(), encoding="utf-8")
    outcome = rules.outcome(session.state)
    winners, summary = (outcome["winners"], outcome["summary"]) if outcome else ([], "")
    print(f"winners: {', '.join(winners) or 'none yet'} — {summary}")
    print(f"events in the journal: {len(session.events)}; commands refused: {refused}")
    print(f"narration: {wav} ({len(narrator.history)} lines, {clock.now():.0f} s of table time)")
    print(f"transcript: {out / 'transcript.txt'}")
    print(f"journal: {out / 'journal.sqlite3'} (game {session.game_id})")
    journal.close()
    lock.release()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BadInput, RuleError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
