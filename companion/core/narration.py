"""Narration scripts as data, and the narrator that plays them one step at a time.

A script is a plain-text file, one step per line (see companion/narration/README.txt):

    slot 5                      # from here on, each line takes at least 5 seconds
    say check_allegiance: Everyone, check your allegiance. Then close your eyes.
    say@6 {group}_open: {group_spoken}, open your eyes and look around.
    report curia_total: The total is {total}.   # a report of state, keyed "curia_total"
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

Two kinds of line. A ``say`` is part of a script that must be spoken whole (an eyes-closed
sequence, a count-in). A ``report`` tells the table a fact of the current state (a running
total, whose turn it is, a timer warning) and is keyed by its line id: a newer report with the
same key replaces one still waiting, and a report whose ``still_true`` check fails when its
turn comes is dropped, so the voice never says what is no longer so.
"""
from __future__ import annotations

import logging
import os
import random
import re
import string
import subprocess
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from companion.core import i18n
from companion.core.audio import AudioOut, default_masking_loop
from companion.core.events import BadInput
from companion.core.speakers import (CaptionSpeaker, Speaker, SpeechError, Utterance,
                                     check_pace)

log = logging.getLogger(__name__)

POLL_WHILE_PREPARING = 0.02  # seconds: how soon to look again at speech still being made
MAX_SECONDS = 3600.0  # no single step longer than an hour: a typo like "pause 600000"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LINE_ID = re.compile(r"[A-Za-z0-9_.{}-]+\Z")
_SAY = re.compile(r"(?P<kind>say|report)(?:@(?P<slot>\S+))?\s+(?P<id>[^:\s]+)\s*:\s*(?P<text>.*)\Z", re.S)
_COMMENT = re.compile(r"(?:^|(?<=\s))(?<!\\)#.*\Z")


# --- steps ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Say:
    line_id: str        # may hold {placeholders}; also the clip name in a voice pack
    text: str
    slot: float = 0.0   # seconds at pace 1; 0 means "as long as the speech"
    lineno: int = 0
    key: str | None = None  # a report's key (what fact it reports); None: a script line

    @property
    def is_report(self) -> bool:
        return self.key is not None


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
        # a value that is a message as data (i18n.keyed) is said in the language spoken now
        context = {k: i18n.text_of(v) if i18n.is_message(v) else v for k, v in (context or {}).items()}
        for step in self.steps:
            if isinstance(step, Say):
                for name in sorted(_fields(step.line_id) | _fields(step.text)):
                    if name not in context:
                        raise BadInput(i18n.keyed(
                            "script.no_value", script=self.name, line=step.lineno, placeholder="{" + name + "}",
                            names=", ".join(sorted(context)) or i18n.keyed("script.nothing")))
        rng = rng or random.Random(0)
        out: list = []
        for step in self.steps:
            if isinstance(step, Say):
                out.append(replace(step, line_id=slug(step.line_id.format_map(context)),
                                   text=step.text.format_map(context),
                                   key=None if step.key is None else slug(step.key.format_map(context))))
            elif isinstance(step, Pause):
                seconds = step.low if step.high == step.low else rng.uniform(step.low, step.high)
                out.append(Pause(seconds, seconds, step.lineno))
            else:
                out.append(step)
        return out

    def from_mark(self, name: str) -> "Script":
        """The script from ``mark NAME`` to its end: a script cut short goes on from the step
        it had reached (the journal keeps the mark's name)."""
        for i, s in enumerate(self.steps):
            if isinstance(s, Mark) and s.name == name:
                return Script(self.name, self.steps[i:])
        raise BadInput(i18n.keyed("script.no_mark", script=self.name, mark=name))

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
    """``word`` as seconds; ``what`` is the script's own word for it (``pause``, ``slot``)."""
    try:
        value = float(word)
    except ValueError:
        raise BadInput(i18n.keyed("script.seconds_number", what=what, got=repr(word))) from None
    if not 0 <= value <= MAX_SECONDS:  # also refuses nan and inf
        raise BadInput(i18n.keyed("script.seconds_range", what=what, most=format(MAX_SECONDS, "g"), got=repr(word)))
    return value


def _check_template(template: str, what: dict) -> None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise BadInput(i18n.keyed("script.unbalanced", what=what, problem=str(exc))) from None
    for _lit, name, spec, conv in parts:
        if name is None:
            continue
        if not _NAME.match(name) or spec or conv:
            shown = "{" + name + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}"
            raise BadInput(i18n.keyed("script.bad_placeholder", what=what, placeholder=shown))


def _parse_step(line: str, lineno: int, default_slot: float):
    word = line.split(None, 1)[0].lower()
    rest = line[len(word):].strip()
    if word in ("say", "report") or word.startswith(("say@", "report@")):
        m = _SAY.match(line)
        if not m:
            raise BadInput(i18n.keyed("script.say_shape", step=word.split("@")[0]))
        line_id, text = m["id"], m["text"].strip()
        if not _LINE_ID.match(line_id):
            raise BadInput(i18n.keyed("script.line_id_chars", line=repr(line_id)))
        if not text:
            raise BadInput(i18n.keyed("script.no_words", line=repr(line_id)))
        _check_template(line_id, i18n.keyed("script.the_line_id"))
        _check_template(text, i18n.keyed("script.the_text"))
        slot = default_slot if m["slot"] is None else _seconds(m["slot"], "say@")
        return Say(line_id, text.replace("\\#", "#"), slot, lineno,
                   key=line_id if m["kind"] == "report" else None)
    if word == "pause":
        m = re.fullmatch(r"(\S+)(?:\s+to\s+(\S+))?", rest)
        if not m:
            raise BadInput(i18n.keyed("script.pause_shape"))
        low = _seconds(m[1], "pause")
        high = low if m[2] is None else _seconds(m[2], "pause ... to")
        if high < low:
            raise BadInput(i18n.keyed("script.pause_order", low=m[1], high=m[2]))
        return Pause(low, high, lineno)
    if word == "wait":
        m = re.fullmatch(r"for\s+(\S+)", rest)
        if not m or not _NAME.match(m[1]):
            raise BadInput(i18n.keyed("script.wait_shape"))
        return WaitFor(m[1], lineno)
    if word == "mark":
        if not _NAME.match(rest):
            raise BadInput(i18n.keyed("script.mark_shape"))
        return Mark(rest, lineno)
    raise BadInput(i18n.keyed("script.unknown_step", step=repr(word)))


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
                    raise BadInput(i18n.keyed("script.slot_shape"))
                default_slot = _seconds(parts[1], "slot")
                continue
            steps.append(_parse_step(line, lineno, default_slot))
        except ValueError as exc:   # a BadInput (keyed) from the step's parser
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise BadInput(i18n.keyed("script.bad_line", script=name, line=lineno,
                                      problem=i18n.message_of(exc), shown=shown)) from None
    if not steps:
        raise BadInput(i18n.keyed("script.no_steps", script=name))
    return Script(name, tuple(steps))


def script_path(path: str, lang: str | None = None) -> str:
    """The script in ``lang`` (default: the app's language): ``<folder>/<lang>/<name>.txt``
    beside the English ``<folder>/<name>.txt``, or the English one if there is no translation."""
    lang = lang or i18n.language()
    if lang != "en":
        own = os.path.join(os.path.dirname(path), lang, os.path.basename(path))
        if os.path.isfile(own):
            return own
    return path


def load_script(path: str, lang: str | None = None) -> Script:
    """``path`` names the English script; the current language's own file is read if present."""
    path = script_path(path, lang)
    try:
        return _load_script(path, os.stat(path).st_mtime_ns)
    except OSError as exc:
        raise BadInput(i18n.keyed("script.unreadable", path=path, problem=f"{type(exc).__name__}: {exc}")) from None


@lru_cache(maxsize=256)
def _load_script(path: str, mtime_ns: int) -> Script:  # parsed once per file version
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(i18n.keyed("script.unreadable", path=path, problem=f"{type(exc).__name__}: {exc}")) from None
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
    key: str | None = None     # a report's key; None for a script line


@dataclass
class Dropped:
    """A report that was never spoken: a newer one overtook it, or it was no longer true."""

    at: float
    line_id: str
    text: str
    why: str                  # "overtaken" | "no longer true" | "cut"


@dataclass
class _Running:
    step: object
    start: float                      # scheduled start
    end: float | None = None          # scheduled end (None: a wait not yet satisfied)
    utterance: Utterance | None = None
    entry: Spoken | None = None
    overran: bool = False             # the audio outlasted the slot
    still_true: Callable[[], bool] | None = None  # a report: cut short once it is not
    topic: str | None = None                      # see drop_topic


@dataclass
class _Queued:
    step: object
    satisfied: bool = False           # a wait whose event came before it was reached
    satisfied_at: float = 0.0
    still_true: Callable[[], bool] | None = None  # a report: checked when its turn comes
    urgent: bool = False              # goes before reports (timer warnings)
    topic: str | None = None          # what the line is about (a game's phase): see drop_topic
    finish: bool = False              # once started, said to the end even if no longer true


class _Prefetch:
    """Speech prepared ahead of time, off the caller's thread.

    Each queued line is handed to one worker thread as soon as it is queued; the narrator starts
    a line only once its utterance is ready, so the main thread never waits for synthesis. With
    ``threaded=False`` (tests, the CLI) or a speaker that prepares instantly (captions, the
    platform voice's estimate), lines are prepared inline when they start.
    """

    def __init__(self, threaded: bool, audio_out: AudioOut | None = None):
        self._pool = (ThreadPoolExecutor(max_workers=1, thread_name_prefix="narration-prepare")
                      if threaded else None)
        self._jobs: dict[tuple, Future] = {}
        self._audio_out = audio_out
        if self._pool is not None:  # its thread starts now, not when the first line is queued:
            self._pool.submit(int)   # starting a thread waits for it to run (8-16 ms under load)

    def _prepare(self, speaker: Speaker, step: Say, pace: float) -> Utterance:
        """On the worker: the speech, then its sound file loaded by the audio output (loading a
        WAV on the main thread took 5-10 ms at every line's start)."""
        utterance = speaker.prepare(step.line_id, step.text, pace)
        if utterance.wav_path is not None and self._audio_out is not None:
            try:
                self._audio_out.prepare(utterance.wav_path)
            except Exception as exc:  # noqa: BLE001 - play() loads it again and reports a failure
                log.debug("narration: %s not loaded ahead: %r", utterance.wav_path, exc)
        return utterance

    def _inline(self, speaker: Speaker) -> bool:
        return self._pool is None or getattr(speaker, "instant", False)

    def request(self, speaker: Speaker, step: Say, pace: float) -> None:
        key = (id(speaker), step.line_id, step.text, pace)
        if self._inline(speaker) or key in self._jobs:
            return
        assert self._pool is not None  # no pool: every line is prepared inline
        self._jobs[key] = self._pool.submit(self._prepare, speaker, step, pace)

    def take(self, speaker: Speaker, step: Say, pace: float):
        """``(True, Utterance | Exception)`` when ready, ``(False, None)`` while preparing."""
        if self._inline(speaker):
            try:
                return True, speaker.prepare(step.line_id, step.text, pace)
            except Exception as exc:  # reported by the narrator with its caption fallback
                return True, exc
        key = (id(speaker), step.line_id, step.text, pace)
        job = self._jobs.get(key)
        if job is None:
            self.request(speaker, step, pace)
            return False, None
        if not job.done():
            return False, None
        del self._jobs[key]
        error = job.exception()
        return True, error if error is not None else job.result()

    def clear(self) -> None:
        for job in self._jobs.values():
            job.cancel()
        self._jobs.clear()


class Narrator:
    """Plays steps from ONE queue: a line never starts while another sounds.

    Call ``tick()`` when ``next_change_in()`` says (the app schedules it on Kivy's Clock; tests
    call it after moving a FakeClock). ``on_change()`` is called after every change of state so
    the app can reschedule its wake-up and show the one pause state.
    Main thread only: a device thread that learns of an event posts a Command, and the main
    thread calls ``notify``.
    """

    def __init__(self, speaker: Speaker, audio_out: AudioOut, clock, on_caption=None,
                 rng_seed: int | None = None, on_mark=None, on_idle=None,
                 pace: float = 1.0, volume: float = 1.0, loop_volume: float = 0.3,
                 threaded: bool = False, on_change=None, on_error=None):
        self.speaker, self.audio_out, self.clock = speaker, audio_out, clock
        self.on_error = on_error or (lambda exc: None)  # a line the voice could not say
        self.on_caption = on_caption or (lambda text: None)
        self.on_mark = on_mark or (lambda name: None)
        self.on_idle = on_idle or (lambda: None)
        self.on_change = on_change or (lambda: None)
        self._rng = random.Random(rng_seed)
        self._queue: deque[_Queued] = deque()
        self._prefetch = _Prefetch(threaded, audio_out)
        self._current: _Running | None = None
        self._anchor: float | None = None     # scheduled end of the last step: next start
        self._paused_at: float | None = None
        self._preparing = False               # the next line's speech is not ready yet
        self._last_say: Say | None = None
        self._ticking = False
        self._loop_path: str | None = None
        self.history: list[Spoken] = []
        self.dropped: list[Dropped] = []
        self.errors: list[str] = []           # one line each: what failed and for which line
        self.last_error: str | None = None
        self.pace, self.volume, self.loop_volume = pace, volume, loop_volume

    # settings: each applies from the next line; nothing queued is lost or restarted
    @property
    def pace(self) -> float:
        return self._pace

    @pace.setter
    def pace(self, value: float) -> None:
        self._asked_pace = check_pace(value)
        self._pace = min(self._asked_pace, self.speaker.max_pace)
        self._prefetch_queued()

    @property
    def volume(self) -> float:
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        self._volume = _unit(value, i18n.keyed("script.what_volume"))

    @property
    def loop_volume(self) -> float:
        return self._loop_volume

    @loop_volume.setter
    def loop_volume(self, value: float) -> None:
        self._loop_volume = _unit(value, i18n.keyed("script.what_loop_volume"))
        if self._loop_path is not None:
            self.audio_out.loop(self._loop_path, self._loop_volume)

    def set_speaker(self, speaker: Speaker) -> None:
        """A new voice for the lines still to come; the one sounding now finishes."""
        if speaker is self.speaker:
            return
        self.speaker = speaker
        self._prefetch.clear()
        self.pace = self._asked_pace  # within what the new voice can follow

    def _prefetch_queued(self) -> None:
        for q in getattr(self, "_queue", ()):
            if isinstance(q.step, Say):
                self._prefetch.request(self.speaker, q.step, self._pace)

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
        """Seconds until the narrator next needs a ``tick()``: when the current step is due to
        end, or soon when the next line's speech is being prepared or the audio ran over its
        slot. None when idle, paused or waiting for an event."""
        if self._paused_at is not None:
            return None
        cur = self._current
        if cur is None:
            return POLL_WHILE_PREPARING if self._queue else None
        if cur.end is None:
            return None
        if cur.overran:
            return POLL_WHILE_PREPARING
        return max(0.0, cur.end - self.clock.now())

    def pending(self) -> list:
        return [q.step for q in self._queue]

    def has_pending_mark(self, name: str) -> bool:
        """True while a ``mark NAME`` is still to come (a screen waiting for the voice)."""
        return any(isinstance(q.step, Mark) and q.step.name == name for q in self._queue)

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
                       prefetch: bool = True, still_true=None, topic: str | None = None) -> None:
        """Queue a whole script. Validated first: a missing value queues nothing.
        ``still_true()`` is asked of the script's report lines when their turn comes;
        ``topic`` names what its lines are about, for ``drop_topic``."""
        steps = script.resolve(context, self._rng)
        self.enqueue_steps(steps, still_true=still_true, topic=topic)

    def drop_topic(self, topic: str) -> int:
        """The state has moved on from ``topic`` (a game's phase): its lines still waiting are
        dropped, never spoken late, and a line of it sounding now stops (its caption with it):
        the caption never shows a past phase. Returns how many waiting lines were dropped."""
        before = len(self._queue)
        self._drop_queued(lambda q: q.topic == topic, "overtaken")
        cur = self._current
        if cur is not None and cur.topic == topic and not self.paused:
            if isinstance(cur.step, Say) and cur.entry is not None:
                self._cut_current("overtaken")
            else:
                self._current, self._anchor = None, self.clock.now()
            self.tick()
        return before - len(self._queue)

    def enqueue_steps(self, steps, still_true=None, urgent: bool = False,
                      topic: str | None = None, finish: bool = False) -> None:
        """Queue resolved steps (text spoken as given; pauses already drawn: low == high).

        A report among them overtakes every report with its key still waiting in the queue.
        ``urgent`` steps (timer warnings) go before everything else waiting, and cut short a
        report being spoken; a script line being spoken is always finished first.
        """
        steps = list(steps)
        for s in steps:
            if not isinstance(s, (Say, Pause, WaitFor, Mark)):
                raise BadInput(i18n.keyed("script.not_a_step", step=repr(s)))
            if isinstance(s, Pause) and s.low != s.high:
                raise BadInput(i18n.keyed("script.undrawn_pause"))
        keys = {s.key for s in steps if isinstance(s, Say) and s.is_report}
        if keys:
            self._drop_queued(lambda q: isinstance(q.step, Say) and q.step.key in keys, "overtaken")
        items = [_Queued(s, still_true=still_true if isinstance(s, Say) and s.is_report else None,
                         urgent=urgent, topic=topic, finish=finish) for s in steps]
        if urgent:
            cur = self._current
            if cur is not None and isinstance(cur.step, Say) and cur.step.is_report \
                    and self._paused_at is None:
                self._cut_current()
            elif cur is not None and isinstance(cur.step, WaitFor) and cur.end is None:
                # the wait (which makes no sound) steps aside and still takes its event after
                self._queue.appendleft(_Queued(cur.step))
                self._current = None
                self._anchor = self.clock.now()
            at = 0
            while at < len(self._queue) and self._queue[at].urgent:
                at += 1
            for offset, item in enumerate(items):
                self._queue.insert(at + offset, item)
        else:
            self._queue.extend(items)
        for s in steps:
            if isinstance(s, Say):
                self._prefetch.request(self.speaker, s, self._pace)
        self.tick()

    def say(self, line_id: str, text: str, slot: float = 0.0, interject: bool = False) -> None:
        """Queue one script line after everything already queued (``interject``: before
        everything waiting, right after the step under way)."""
        if not text.strip():
            raise BadInput(i18n.keyed("script.no_words", line=repr(line_id)))
        self.enqueue_steps([Say(slug(line_id), text, _seconds_or_bad(slot))], urgent=interject)

    def report(self, key: str, line_id: str, text: str, still_true=None, urgent: bool = False,
               slot: float = 0.0, finish: bool = False) -> None:
        """Queue a report of state: it replaces any waiting report with the same ``key`` and is
        dropped if ``still_true()`` says False when its turn comes (and cut short if it stops
        being true while said, unless ``finish``: a timer warning true when it began is said
        whole). ``urgent`` (a timer warning): before other waiting lines, cutting short a
        report being spoken."""
        if not text.strip():
            raise BadInput(i18n.keyed("script.no_words", line=repr(line_id)))
        step = Say(slug(line_id), text, _seconds_or_bad(slot), key=slug(key))
        self.enqueue_steps([step], still_true=still_true, urgent=urgent, finish=finish)

    def _drop_queued(self, which, why: str) -> None:
        now = self.clock.now()
        kept: deque[_Queued] = deque()
        for q in self._queue:
            if which(q):
                if isinstance(q.step, Say):
                    self.dropped.append(Dropped(now, q.step.line_id, q.step.text, why))
            else:
                kept.append(q)
        self._queue = kept

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
            self.on_caption(None)  # nothing is being said: the line shows again when it is
            cur.entry.interrupted = True
            cur.entry.ended_at = self._paused_at
        self.on_change()

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
            self._begin(cur.step, now, now, utterance=cur.utterance)
            assert self._current is not None  # _begin sets it
            self._current.still_true = cur.still_true
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

    def _cut_current(self, why: str = "cut") -> None:
        """A report overtaken by an urgent line, or no longer true, stops at once (its caption
        with it)."""
        cur = self._current
        # only a report being said is cut (its still_true, or an urgent line overtaking it)
        assert cur is not None and isinstance(cur.step, Say) and cur.entry is not None
        now = self.clock.now()
        self._silence()
        self.on_caption(None)
        cur.entry.ended_at, cur.entry.skipped = now, True
        self.dropped.append(Dropped(now, cur.step.line_id, cur.step.text, why))
        self._current = None
        self._anchor = now

    def repeat_last(self) -> bool:
        """Say the last line again, right after the current step."""
        if self._last_say is None:
            return False
        self._queue.appendleft(_Queued(self._last_say))
        self.tick()
        return True

    def cancel(self) -> None:
        """Drop everything queued, stop the current step and end any pause (a phase ended or
        was left: its pause ends with it)."""
        self._queue.clear()
        self._prefetch.clear()
        if self._current is not None and isinstance(self._current.step, Say):
            self._silence()
            self.on_caption(None)
            entry = self._current.entry
            if entry is not None:
                if entry.ended_at is None:
                    entry.ended_at = self.clock.now()
                entry.skipped = True
        self._current = None
        self._anchor = None
        self._paused_at = None
        self.on_change()

    # the state machine
    def tick(self) -> None:
        if self._ticking:
            return  # a callback that queues a line re-enters here: the loop below takes it
        if self._paused_at is None:
            self._ticking = True
            try:
                self._advance(self.clock.now())
            finally:
                self._ticking = False
        self.on_change()

    def _advance(self, now: float) -> None:
        while self._paused_at is None:
            cur = self._current
            if cur is None:
                if not self._queue:
                    if self._anchor is not None:
                        self._anchor = None
                        self.on_idle()
                    return
                queued = self._queue[0]
                utterance = None
                if isinstance(queued.step, Say):
                    ready, result = self._prefetch.take(self.speaker, queued.step, self._pace)
                    if not ready:
                        return  # next_change_in() asks for a tick again shortly
                    if queued.still_true is not None and not queued.still_true():
                        self._queue.popleft()  # checked as it would sound: true when spoken
                        self.dropped.append(Dropped(now, queued.step.line_id, queued.step.text,
                                                    "no longer true"))
                        continue
                    utterance = self._utterance(queued.step, result)
                self._queue.popleft()
                start = self._anchor if self._anchor is not None else now
                self._begin(queued.step, start, now, queued, utterance)
                continue
            if cur.still_true is not None and not cur.still_true():
                self._cut_current("no longer true")  # the state moved on while it was said
                continue
            if not self._done(cur, now):
                return
            self._finish(cur, now)

    def _begin(self, step, start: float, now: float, queued: _Queued | None = None,
               utterance: Utterance | None = None) -> None:
        run = _Running(step, start, still_true=queued.still_true
                       if queued is not None and not queued.finish else None,
                       topic=queued.topic if queued is not None else None)
        self._current = run
        if isinstance(step, Say):
            utt = utterance or self._utterance(step, *self._prefetch.take(self.speaker, step, self._pace)[1:])
            run.utterance = utt
            # The slot runs from the schedule; the sound from now (a late tick starts it late).
            run.end = max(start + say_length(step, utt, self._pace), now + utt.duration_s)
            run.entry = Spoken(step.line_id, step.text, start, now, key=step.key)
            self.history.append(run.entry)
            self._last_say = step
            self.on_caption(step.text)
            if utt.wav_path is not None:
                try:
                    self.audio_out.play(utt.wav_path, self._volume)
                except (BadInput, OSError) as exc:  # the caption still shows; the slot holds
                    self._report(step, exc)
            else:
                set_pace = getattr(self.speaker, "set_pace", None)
                if set_pace is not None:  # a platform voice follows the pace itself
                    set_pace(self._pace)
                self.speaker.speak(utt)
        elif isinstance(step, Pause):
            run.end = start + step.low / self._pace
        elif isinstance(step, WaitFor):
            if queued is not None and queued.satisfied:
                run.end = max(start, queued.satisfied_at)
        else:
            run.end = start
            self.on_mark(step.name)

    def _utterance(self, step: Say, result) -> Utterance:
        """The speaker's utterance, or a silent caption of the estimated length when the
        backend failed: a game in progress must not stop for a broken voice."""
        if isinstance(result, Utterance):
            return result
        if result is None or isinstance(result, (SpeechError, BadInput, OSError,
                                                 subprocess.SubprocessError)):
            self._report(step, result or SpeechError(i18n.keyed("speakers.not_prepared")))
        else:
            log.error("narration: line %r: unexpected %r", step.line_id, result)
            self._report(step, result)
        return CaptionSpeaker().prepare(step.line_id, step.text, self._pace)

    def _report(self, step: Say, exc: Exception) -> None:
        self.last_error = " ".join(f"line {step.line_id!r}: {exc}".split())
        self.errors.append(self.last_error)
        log.warning("narration: %s", self.last_error)
        self.on_error(exc)

    def _done(self, cur: _Running, now: float) -> bool:
        if cur.end is None or now < cur.end - 1e-9:  # float sums of clock steps
            return False
        if isinstance(cur.step, Say) and cur.utterance is not None and (
                self.audio_out.is_playing() if cur.utterance.wav_path is not None
                else self.speaker.is_speaking()):
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
    return _seconds(str(value), "slot")   # a BadInput when it is not


def _unit(value: float, what: dict) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BadInput(i18n.keyed("script.unit_number", what=what, got=repr(value))) from None
    if not 0.0 <= v <= 1.0:
        raise BadInput(i18n.keyed("script.unit_range", what=what, got=repr(value)))
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


if __name__ == "__main__":
    raise SystemExit(main())
