"""Narration without the app: a whole script rendered into one WAV on a FakeClock, and the command
line ``python -m companion.core.narration SCRIPT [name=value ...]`` that checks a script."""
from __future__ import annotations

import os

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.speakers import Speaker, SpeechError

from .narrator import Narrator
from .script import _NAME, Script, load_script, script_path, script_timeline


def record_narration(script: Script, context: dict | None, speaker: Speaker, wav_path: str,
                     pace: float = 1.0, rng_seed: int = 0, loop_wav: str | None = None,
                     loop_volume: float = 0.15, events: dict | None = None) -> Narrator:
    """Render a whole script (voice over the masking loop) into ONE WAV, on a FakeClock, for
    the headless demo and for people checking a script by ear. ``events`` maps a ``wait for``
    event to the seconds the table takes before it happens (default: at once).
    Returns the narrator (its ``history`` and ``transcript()`` describe what was said).
    """
    from companion.core.audio import RecordingAudioOut
    from companion.core.clock import FakeClock

    clock = FakeClock(0.0)
    out = RecordingAudioOut(wav_path, clock)
    narrator = Narrator(speaker, out, clock, rng_seed=rng_seed, pace=pace,
                        loop_volume=loop_volume)
    narrator.enqueue_script(script, context)  # validates before any sound is made
    narrator.start_background(loop_wav)
    waited_since: dict[str, float] = {}
    for _ in range(1_000_000):  # a bound, not a wall-clock limit: scripts are finite
        if not narrator.busy:
            break
        event = narrator.waiting_for
        if event is not None:
            since = waited_since.setdefault(event, clock.now())
            delay = float((events or {}).get(event, 0.0))
            if clock.now() - since >= delay:
                waited_since.pop(event)
                narrator.notify(event)
                continue
            clock.advance(min(0.05, delay - (clock.now() - since)))
        else:
            due = narrator.next_change_in()
            clock.advance(0.05 if due is None else min(0.05, due))
        narrator.tick()
    narrator.stop_background()
    out.write()
    return narrator


def main(argv: list[str] | None = None) -> int:
    """``python -m companion.core.narration SCRIPT [name=value ...] [--speaker S]
    [--pace P] [--record OUT.wav]``: check a script, print its timeline (or one error line)."""
    import argparse
    import sys

    from companion.core.speakers import make_speaker

    parser = argparse.ArgumentParser(prog="python -m companion.core.narration",
                                     description="Check a narration script and show its timing.")
    parser.add_argument("script")
    parser.add_argument("values", nargs="*", help="placeholder values, e.g. group=spies")
    parser.add_argument("--speaker", default="captions", help="captions (default) or espeak")
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", metavar="OUT.wav", help="also render it to a WAV")
    parser.add_argument("--lang", default="en", help="the language: its scripts/<lang>/ file, "
                        "its catalogue and (with --speaker espeak) its espeak-ng voice (en, fr, de)")
    args = parser.parse_args(argv)
    try:
        context = {}
        for item in args.values:
            name, sep, value = item.partition("=")
            if not sep or not _NAME.match(name):
                raise BadInput(i18n.keyed("script.values_shape", got=repr(item)))
            context[name] = value
        if args.lang in i18n.languages():  # its words for counts; a script may come before them
            i18n.set_language(args.lang)
        elif script_path(args.script, args.lang) == args.script:
            # neither a catalogue nor this script in that language: a language we do not have
            # (the app refuses it the same way) — not English said as if it were asked for
            raise BadInput(i18n.keyed("i18n.no_catalogue", lang=repr(args.lang),
                                      folder=str(i18n.LOCALE_DIR / args.lang)))
        if args.record and os.path.isdir(args.record):  # said now, not after the rendering
            raise BadInput(i18n.keyed("cli.record_folder", path=args.record))
        script = load_script(args.script, args.lang)
        speaker = make_speaker(args.speaker, **({"voice": args.lang} if args.speaker == "espeak" else {}))
        timeline = script_timeline(script, context, speaker, args.pace, args.seed)
        for start, end, label in timeline:
            print(f"{start:8.2f} {end:8.2f}  {label}")
        print(f"total {timeline[-1][1]:.2f} s (waits not counted)")
        if args.record:
            try:
                record_narration(script, context, speaker, args.record, args.pace, args.seed)
            except OSError as exc:  # a folder that cannot be written, /proc, a full disk
                raise BadInput(i18n.keyed("cli.record_unwritable", path=args.record,
                                          problem=i18n.reason_of(exc))) from None
            print(f"recorded {args.record}")
    except (BadInput, SpeechError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0

