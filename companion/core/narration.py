"""Narration scripts as data, and the narrator that plays them one step at a time.

A script is a plain-text file, one step per line (see companion/narration/README.txt):

    slot 5                      # from here on, each line takes at least 5 seconds
    say check_allegiance: Everyone, check your allegiance. Then close your eyes.
    say@6 {group}_open: {group_spoken}, open your eyes and look around.
    pause 4                     # fixed
    pause 6 to 9                # random, drawn once each time the step is queued
    wait for ballots_in         # until narrator.notify("ballots_in")
    mark discussion_starts      # tells the app (on_mark) that the script got here

Identical timing: a ``say`` step occupies max(slot, speech length), and pauses are drawn from
the narrator's own RNG, never from the game, so the time between steps depends only on the
script text and the pace, never on which roles are in play. ``script_timeline`` computes the
schedule so tests can prove it for every context a game uses.

Pace scales everything: speech is spoken ``pace`` times faster, and slots and pauses last
``1 / pace`` as long, so "slower" also gives the table more time to act with eyes closed.
"""
from __future__ import annotations

import logging
import os
import random
import re
import string
import subprocess
from collections import deque
from dataclasses import dataclass, replace

from companion.core.audio import AudioOut, default_masking_loop
from companion.core.events import BadInput
from companion.core.speakers import (CaptionSpeaker, Speaker, SpeechError, Utterance,
                                     check_pace)

log = logging.getLogger(__name__)

MAX_SECONDS = 3600.0  # no single step longer than an hour: a typo like "pause 600000"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LINE_ID = re.compile(r"[A-Za-z0-9_.{}-]+\Z")
_SAY = re.compile(r"say(?:@(?P<slot>\S+))?\s+(?P<id>[^:\s]+)\s*:\s*(?P<text>.*)\Z", re.S)
_COMMENT = re.compile(r"(?:^|(?<=\s))(?<!\\)#.*\Z")


# --- steps ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Say:
    line_id: str        # may hold {placeholders}; also the clip name in a voice pack
    text: str
    slot: float = 0.0   # seconds at pace 1; 0 means "as long as the speech"
    lineno: int = 0


@dataclass(frozen=True)
class Pause:
    low: float
    high: float         # equal to low for a fixed pause
    lineno: int = 0


@dataclass(frozen=True)
class WaitFor:
    event: str
    lineno: int = 0


@dataclass(frozen=True)
class Mark:
    name: str
    lineno: int = 0


Step = Say | Pause | WaitFor | Mark


@dataclass(frozen=True)
class Script:
    name: str           # the file path (or a given name): error messages name it
    steps: tuple

    def placeholders(self) -> set[str]:
        found: set[str] = set()
        for step in self.steps:
            if isinstance(step, Say):
                found |= _fields(step.line_id) | _fields(step.text)
        return found

    def resolve(self, context: dict | None = None, rng: random.Random | None = None) -> list:
        """The steps with placeholders filled and random pauses drawn (validated up front,
        so a missing value fails before anything is queued)."""
        context = dict(context or {})
        for step in self.steps:
            if isinstance(step, Say):
                for name in sorted(_fields(step.line_id) | _fields(step.text)):
                    if name not in context:
                        raise BadInput(f"{self.name} line {step.lineno}: no value for "
                                       f"{{{name}}} (context has: {', '.join(sorted(context)) or 'nothing'})")
        rng = rng or random.Random(0)
        out: list = []
        for step in self.steps:
            if isinstance(step, Say):
                out.append(replace(step, line_id=slug(step.line_id.format_map(context)),
                                   text=step.text.format_map(context)))
            elif isinstance(step, Pause):
                seconds = step.low if step.high == step.low else rng.uniform(step.low, step.high)
                out.append(Pause(seconds, seconds, step.lineno))
            else:
                out.append(step)
        return out

    def line_ids(self, context: dict | None = None) -> list[str]:
        """The filled line ids, e.g. to check a voice pack covers them all."""
        return [s.line_id for s in self.resolve(context) if isinstance(s, Say)]


def slug(line_id: str) -> str:
    """A filled line id made safe as a clip file name ("Royal Spies_open" -> "Royal_Spies_open")."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", line_id).strip("_") or "line"


def _fields(template: str) -> set[str]:
    return {f for _lit, f, _spec, _conv in string.Formatter().parse(template) if f}


# --- parsing -------------------------------------------------------------------------------

def _seconds(word: str, what: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise ValueError(f"{what} needs a number of seconds, got {word!r}") from None
    if not 0 <= value <= MAX_SECONDS:  # also refuses nan and inf
        raise ValueError(f"{what} must be between 0 and {MAX_SECONDS:g} seconds, got {word!r}")
    return value


def _check_template(template: str, what: str) -> None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{what} has unbalanced braces ({exc}); write {{{{ or }}}} for a brace") from None
    for _lit, name, spec, conv in parts:
        if name is None:
            continue
        if not _NAME.match(name) or spec or conv:
            raise ValueError(f"{what} has a bad placeholder {{{name}{'!' + conv if conv else ''}"
                             f"{':' + spec if spec else ''}}}: use a plain name like {{group}}")


def _parse_step(line: str, lineno: int, default_slot: float):
    word = line.split(None, 1)[0].lower()
    rest = line[len(word):].strip()
    if word == "say" or word.startswith("say@"):
        m = _SAY.match(line)
        if not m:
            raise ValueError("a say step is written 'say line_id: the words to speak'")
        line_id, text = m["id"], m["text"].strip()
        if not _LINE_ID.match(line_id):
            raise ValueError(f"line id {line_id!r} may hold only letters, digits, _ . - and {{placeholders}}")
        if not text:
            raise ValueError(f"line {line_id!r} has no words to speak")
        _check_template(line_id, "the line id")
        _check_template(text, "the text")
        slot = default_slot if m["slot"] is None else _seconds(m["slot"], "say@")
        return Say(line_id, text.replace("\\#", "#"), slot, lineno)
    if word == "pause":
        m = re.fullmatch(r"(\S+)(?:\s+to\s+(\S+))?", rest)
        if not m:
            raise ValueError("a pause is written 'pause 4' or 'pause 6 to 9'")
        low = _seconds(m[1], "pause")
        high = low if m[2] is None else _seconds(m[2], "pause ... to")
        if high < low:
            raise ValueError(f"pause {m[1]} to {m[2]}: the second number must not be smaller")
        return Pause(low, high, lineno)
    if word == "wait":
        m = re.fullmatch(r"for\s+(\S+)", rest)
        if not m or not _NAME.match(m[1]):
            raise ValueError("a wait is written 'wait for event_name' (letters, digits, _)")
        return WaitFor(m[1], lineno)
    if word == "mark":
        if not _NAME.match(rest):
            raise ValueError("a mark is written 'mark name' (letters, digits, _)")
        return Mark(rest, lineno)
    raise ValueError(f"unknown step {word!r} (steps are: say, pause, wait for, mark, slot)")


def parse_script(text: str, name: str = "<script>") -> Script:
    """Parse script text; a bad line raises a one-line BadInput naming the file and line."""
    steps: list = []
    default_slot = 0.0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        try:
            if line.split(None, 1)[0].lower() == "slot":
                parts = line.split()
                if len(parts) != 2:
                    raise ValueError("a slot setting is written 'slot 5'")
                default_slot = _seconds(parts[1], "slot")
                continue
            steps.append(_parse_step(line, lineno, default_slot))
        except ValueError as exc:
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise BadInput(f"{name} line {lineno}: {exc} (in: {shown})") from None
    if not steps:
        raise BadInput(f"{name}: the script has no steps")
    return Script(name, tuple(steps))


def load_script(path: str) -> Script:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: cannot read the script ({type(exc).__name__}: {exc})") from None
    return parse_script(text, path)


SHARED_SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "narration")


def shared_script(name: str) -> Script:
    """A script from companion/narration/ by file stem, e.g. ``shared_script("ready_set_go")``."""
    return load_script(os.path.join(SHARED_SCRIPTS, f"{name}.txt"))


# --- timing --------------------------------------------------------------------------------

def say_length(step: Say, utterance: Utterance, pace: float) -> float:
    """How long a say step holds the floor: its slot (scaled by pace) or its speech."""
    return max(step.slot / pace, utterance.duration_s)


def script_timeline(script: Script, context: dict | None, speaker: Speaker, pace: float = 1.0,
                    rng_seed: int = 0) -> list[tuple[float, float, str]]:
    """``(start, end, label)`` for every step, from 0, as the narrator would play it.

    Labels: the line id for a say, "pause", "wait for NAME" and "mark NAME" (waits count as
    zero: their length is the table's, not the script's).
    """
    pace = check_pace(pace)
    t, out = 0.0, []
    for step in script.resolve(context, random.Random(rng_seed)):
        if isinstance(step, Say):
            length = say_length(step, speaker.prepare(step.line_id, step.text, pace), pace)
            out.append((t, t + length, step.line_id))
        elif isinstance(step, Pause):
            length = step.low / pace
            out.append((t, t + length, "pause"))
        elif isinstance(step, WaitFor):
            length = 0.0
            out.append((t, t, f"wait for {step.event}"))
        else:
            length = 0.0
            out.append((t, t, f"mark {step.name}"))
        t += length
    return out


# --- the narrator --------------------------------------------------------------------------

@dataclass
class Spoken:
    """One line in the narrator's history (a transcript). Times are the clock's."""

    line_id: str
    text: str
    at: float                 # when its slot began on the schedule
    started_at: float         # when it actually started sounding
    ended_at: float | None = None
    skipped: bool = False
    interrupted: bool = False  # paused mid-line; it is said again in full on resume


@dataclass
class _Running:
    step: object
    start: float                      # scheduled start
    end: float | None = None          # scheduled end (None: a wait not yet satisfied)
    utterance: Utterance | None = None
    entry: Spoken | None = None
    overran: bool = False             # the audio outlasted the slot


@dataclass
class _Queued:
    step: object
    satisfied: bool = False           # a wait whose event came before it was reached
    satisfied_at: float = 0.0


class Narrator:
    """Plays steps from ONE strict FIFO queue: a line never starts while another sounds.

    Call ``tick()`` often (the app: Kivy Clock every ~50 ms; tests: after moving a FakeClock).
    Main thread only: a device thread that learns of an event posts a Command, and the main
    thread calls ``notify``.
    """

    def __init__(self, speaker: Speaker, audio_out: AudioOut, clock, on_caption=None,
                 rng_seed: int | None = None, on_mark=None, on_idle=None,
                 pace: float = 1.0, volume: float = 1.0, loop_volume: float = 0.3):
        self.speaker, self.audio_out, self.clock = speaker, audio_out, clock
        self.on_caption = on_caption or (lambda text: None)
        self.on_mark = on_mark or (lambda name: None)
        self.on_idle = on_idle or (lambda: None)
        self._rng = random.Random(rng_seed)
        self._queue: deque[_Queued] = deque()
        self._current: _Running | None = None
        self._anchor: float | None = None     # scheduled end of the last step: next start
        self._paused_at: float | None = None
        self._last_say: Say | None = None
        self._ticking = False
        self._loop_path: str | None = None
        self.history: list[Spoken] = []
        self.errors: list[str] = []           # one line each: what failed and for which line
        self.last_error: str | None = None
        self.pace, self.volume, self.loop_volume = pace, volume, loop_volume

    # settings
    @property
    def pace(self) -> float:
        return self._pace

    @pace.setter
    def pace(self, value: float) -> None:
        self._pace = check_pace(value)  # applies from the next step

    @property
    def volume(self) -> float:
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        self._volume = _unit(value, "volume")

    @property
    def loop_volume(self) -> float:
        return self._loop_volume

    @loop_volume.setter
    def loop_volume(self, value: float) -> None:
        self._loop_volume = _unit(value, "loop volume")
        if self._loop_path is not None:
            self.audio_out.loop(self._loop_path, self._loop_volume)

    # background masking sound
    def start_background(self, wav_path: str | None = None) -> str:
        """Start the loop under the narration (default: the generated pink noise)."""
        self._loop_path = wav_path or default_masking_loop()
        self.audio_out.loop(self._loop_path, self._loop_volume)
        return self._loop_path

    def stop_background(self) -> None:
        if self._loop_path is not None:
            self._loop_path = None
            self.audio_out.stop_loop()

    # state
    @property
    def busy(self) -> bool:
        return self._current is not None or bool(self._queue)

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    @property
    def current_line(self) -> Utterance | None:
        cur = self._current
        return cur.utterance if cur is not None and isinstance(cur.step, Say) else None

    @property
    def waiting_for(self) -> str | None:
        cur = self._current
        return cur.step.event if cur is not None and isinstance(cur.step, WaitFor) else None

    def next_change_in(self) -> float | None:
        """Seconds until the current step is due to end: when the app should tick next
        (``Clock.schedule_once``), so lines start on time rather than up to a tick late.
        None when idle, paused or waiting for an event."""
        cur = self._current
        if cur is None or cur.end is None or self._paused_at is not None:
            return None
        return max(0.0, cur.end - self.clock.now())

    def pending(self) -> list:
        return [q.step for q in self._queue]

    def transcript(self) -> str:
        if not self.history:
            return ""
        origin = self.history[0].at
        rows = []
        for e in self.history:
            flags = " (skipped)" if e.skipped else " (interrupted)" if e.interrupted else ""
            rows.append(f"{e.at - origin:8.2f}  {e.line_id}: {e.text}{flags}")
        return "\n".join(rows) + "\n"

    # queueing
    def enqueue_script(self, script: Script, context: dict | None = None,
                       prefetch: bool = False) -> None:
        """Queue a whole script. Validated first: a missing value queues nothing."""
        steps = script.resolve(context, self._rng)
        if prefetch:  # synthesise now rather than as each line starts
            for s in steps:
                if isinstance(s, Say):
                    try:
                        self.speaker.prepare(s.line_id, s.text, self._pace)
                    except (SpeechError, BadInput, OSError, subprocess.SubprocessError):
                        pass  # reported, with its caption fallback, when the line starts
        self.enqueue_steps(steps)

    def enqueue_steps(self, steps) -> None:
        """Queue resolved steps (text spoken as given; pauses already drawn: low == high)."""
        steps = list(steps)
        for s in steps:
            if not isinstance(s, (Say, Pause, WaitFor, Mark)):
                raise BadInput(f"not a narration step: {s!r}")
            if isinstance(s, Pause) and s.low != s.high:
                raise BadInput("a random pause must be drawn first; use enqueue_script")
        self._queue.extend(_Queued(s) for s in steps)
        self.tick()

    def say(self, line_id: str, text: str, slot: float = 0.0, interject: bool = False) -> None:
        """Queue one line after everything already queued.

        ``interject=True`` (a timer warning, say) puts it right after the current step
        instead; if the narrator is waiting for an event, the wait (which makes no sound)
        steps aside for the line and resumes after it, still taking the event.
        """
        if not text.strip():
            raise BadInput(f"line {line_id!r} has no words to speak")
        step = Say(slug(line_id), text, _seconds_or_bad(slot))
        if not interject:
            self.enqueue_steps([step])
            return
        self._queue.appendleft(_Queued(step))
        cur = self._current
        if cur is not None and isinstance(cur.step, WaitFor) and cur.end is None:
            self._queue.insert(1, _Queued(cur.step))
            self._current = None
            self._anchor = self.clock.now()
        self.tick()

    # control
    def notify(self, event: str) -> bool:
        """An awaited event happened. True if a wait (current or queued) took it."""
        now = self.clock.now()
        cur = self._current
        if cur is not None and isinstance(cur.step, WaitFor) and cur.step.event == event \
                and cur.end is None:
            cur.end = now
            self.tick()
            return True
        for q in self._queue:  # came early: the wait is already satisfied when reached
            if isinstance(q.step, WaitFor) and q.step.event == event and not q.satisfied:
                q.satisfied, q.satisfied_at = True, now
                return True
        return False

    def pause(self) -> None:
        if self._paused_at is not None:
            return
        self._paused_at = self.clock.now()
        cur = self._current
        if cur is not None and isinstance(cur.step, Say) and cur.entry is not None:  # a Say has its entry
            self._silence()
            cur.entry.interrupted = True
            cur.entry.ended_at = self._paused_at

    def resume(self) -> None:
        if self._paused_at is None:
            return
        now = self.clock.now()
        gap = now - self._paused_at
        self._paused_at = None
        cur = self._current
        if cur is None:
            if self._anchor is not None:
                self._anchor = now
        elif isinstance(cur.step, Say):  # said again in full: half a line is no use
            self._current = None
            self._begin(cur.step, now, now)
        elif isinstance(cur.step, Pause):
            cur.end += gap
        elif isinstance(cur.step, WaitFor) and cur.end is not None:
            cur.end = max(cur.end, now)
        self.tick()

    def skip(self) -> None:
        """Drop the current step (cut the line short, end the pause, stop waiting)."""
        cur = self._current
        if cur is None:
            return
        now = self.clock.now()
        if isinstance(cur.step, Say) and cur.entry is not None:
            self._silence()
            self.on_caption(None)
            if not cur.entry.interrupted:
                cur.entry.ended_at = now
            cur.entry.skipped = True
        self._current = None
        self._anchor = now
        self.tick()

    def repeat_last(self) -> bool:
        """Say the last line again, right after the current step."""
        if self._last_say is None:
            return False
        self._queue.appendleft(_Queued(self._last_say))
        self.tick()
        return True

    def cancel(self) -> None:
        """Drop everything queued and stop the current step (a new phase or game)."""
        self._queue.clear()
        if self._current is not None and isinstance(self._current.step, Say) and self._current.entry is not None:
            self._silence()
            self.on_caption(None)
            self._current.entry.ended_at = self.clock.now()
            self._current.entry.skipped = True
        self._current = None
        self._anchor = None

    # the state machine
    def tick(self) -> None:
        if self._ticking or self._paused_at is not None:
            return  # a callback that queues a line re-enters here: the loop below takes it
        self._ticking = True
        try:
            self._advance(self.clock.now())
        finally:
            self._ticking = False

    def _advance(self, now: float) -> None:
        while self._paused_at is None:
            cur = self._current
            if cur is None:
                if not self._queue:
                    if self._anchor is not None:
                        self._anchor = None
                        self.on_idle()
                    return
                queued = self._queue.popleft()
                start = self._anchor if self._anchor is not None else now
                self._begin(queued.step, start, now, queued)
                continue
            if not self._done(cur, now):
                return
            self._finish(cur, now)

    def _begin(self, step, start: float, now: float, queued: _Queued | None = None) -> None:
        run = _Running(step, start)
        self._current = run
        if isinstance(step, Say):
            utt = self._prepare(step)
            run.utterance = utt
            # The slot runs from the schedule; the sound from now (a late tick starts it late).
            run.end = max(start + say_length(step, utt, self._pace), now + utt.duration_s)
            run.entry = Spoken(step.line_id, step.text, start, now)
            self.history.append(run.entry)
            self._last_say = step
            self.on_caption(step.text)
            if utt.wav_path is not None:
                try:
                    self.audio_out.play(utt.wav_path, self._volume)
                except (BadInput, OSError) as exc:  # the caption still shows; the slot holds
                    self._report(step, exc)
            else:
                self.speaker.speak(utt)
        elif isinstance(step, Pause):
            run.end = start + step.low / self._pace
        elif isinstance(step, WaitFor):
            if queued is not None and queued.satisfied:
                run.end = max(start, queued.satisfied_at)
        else:
            run.end = start
            self.on_mark(step.name)

    def _prepare(self, step: Say) -> Utterance:
        """The speaker's utterance, or a silent caption of the estimated length when the
        backend fails: a game in progress must not stop for a broken voice."""
        try:
            return self.speaker.prepare(step.line_id, step.text, self._pace)
        except (SpeechError, BadInput, OSError, subprocess.SubprocessError) as exc:
            self._report(step, exc)
            return CaptionSpeaker().prepare(step.line_id, step.text, self._pace)

    def _report(self, step: Say, exc: Exception) -> None:
        self.last_error = " ".join(f"line {step.line_id!r}: {exc}".split())
        self.errors.append(self.last_error)
        log.warning("narration: %s", self.last_error)

    def _done(self, cur: _Running, now: float) -> bool:
        if cur.end is None or now < cur.end - 1e-9:  # float sums of clock steps
            return False
        if isinstance(cur.step, Say) and cur.utterance is not None and cur.utterance.wav_path is not None \
                and self.audio_out.is_playing():
            cur.overran = True  # never start the next line over this one
            return False
        return True

    def _finish(self, cur: _Running, now: float) -> None:
        end = now if cur.overran else cur.end
        if isinstance(cur.step, Say) and cur.entry is not None:
            self.on_caption(None)
            cur.entry.ended_at = end
        self._current = None
        self._anchor = end

    def _silence(self) -> None:
        self.audio_out.stop()
        self.speaker.stop()


def _seconds_or_bad(value) -> float:
    try:
        return _seconds(str(value), "slot")
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _unit(value: float, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BadInput(f"{what} must be a number between 0 and 1, got {value!r}") from None
    if not 0.0 <= v <= 1.0:
        raise BadInput(f"{what} must be between 0 and 1, got {value!r}")
    return v


# --- rendering and checking scripts without the app ----------------------------------------

def record_narration(script: Script, context: dict | None, speaker: Speaker, wav_path: str,
                     pace: float = 1.0, rng_seed: int = 0, loop_wav: str | None = None,
                     loop_volume: float = 0.15, events: dict | None = None):
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
    args = parser.parse_args(argv)
    try:
        context = {}
        for item in args.values:
            name, sep, value = item.partition("=")
            if not sep or not _NAME.match(name):
                raise BadInput(f"placeholder values are written name=value, got {item!r}")
            context[name] = value
        script = load_script(args.script)
        speaker = make_speaker(args.speaker)
        timeline = script_timeline(script, context, speaker, args.pace, args.seed)
        for start, end, label in timeline:
            print(f"{start:8.2f} {end:8.2f}  {label}")
        print(f"total {timeline[-1][1]:.2f} s (waits not counted)")
        if args.record:
            record_narration(script, context, speaker, args.record, args.pace, args.seed)
            print(f"recorded {args.record}")
    except (BadInput, SpeechError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
