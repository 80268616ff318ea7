"""The narrator: plays resolved steps from one queue, one at a time, on a clock (the scheduler)."""
from __future__ import annotations

import logging
import random
import subprocess
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from companion.core import i18n
from companion.core.audio import AudioOut, default_masking_loop
from companion.core.clock import Clock
from companion.core.events import BadInput
from companion.core.speakers import (CaptionSpeaker, Speaker, SpeechError, Utterance,
                                     check_pace)

from .prepare import _Prefetch
from .script import Mark, Pause, Say, Script, Step, WaitFor, _seconds, say_length, slug

log = logging.getLogger("companion.core.narration")

POLL_WHILE_PREPARING = 0.02  # seconds: how soon to look again at speech still being made


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
    step: Step
    start: float                      # scheduled start
    end: float | None = None          # scheduled end (None: a wait not yet satisfied)
    utterance: Utterance | None = None
    entry: Spoken | None = None
    overran: bool = False             # the audio outlasted the slot
    still_true: Callable[[], bool] | None = None  # a report: cut short once it is not
    topic: str | None = None                      # see drop_topic


@dataclass
class _Queued:
    step: Step
    satisfied: bool = False           # a wait whose event came before it was reached
    satisfied_at: float = 0.0
    still_true: Callable[[], bool] | None = None  # a report: checked when its turn comes
    urgent: bool = False              # goes before reports (timer warnings)
    topic: str | None = None          # what the line is about (a game's phase): see drop_topic
    finish: bool = False              # once started, said to the end even if no longer true


class Narrator:
    """Plays steps from ONE queue: a line never starts while another sounds.

    Call ``tick()`` when ``next_change_in()`` says (the app schedules it on Kivy's Clock; tests
    call it after moving a FakeClock). ``on_change()`` is called after every change of state so
    the app can reschedule its wake-up and show the one pause state.
    Main thread only: a device thread that learns of an event posts a Command, and the main
    thread calls ``notify``.
    """

    def __init__(self, speaker: Speaker, audio_out: AudioOut, clock: Clock,
                 on_caption: Callable[[str | None], object] | None = None,
                 rng_seed: int | None = None, on_mark: Callable[[str], object] | None = None,
                 on_idle: Callable[[], object] | None = None,
                 pace: float = 1.0, volume: float = 1.0, loop_volume: float = 0.3,
                 threaded: bool = False, on_change: Callable[[], object] | None = None,
                 on_error: Callable[[BaseException], object] | None = None):
        self.speaker, self.audio_out, self.clock = speaker, audio_out, clock
        self.on_error = on_error or (lambda exc: None)  # a line the voice could not say
        self.on_caption = on_caption or (lambda text: None)
        self.on_mark = on_mark or (lambda name: None)
        self.on_idle = on_idle or (lambda: None)
        self.on_change = on_change or (lambda: None)
        self._rng = random.Random(rng_seed)
        self._queue: deque[_Queued] = deque()
        self._prefetch = _Prefetch(threaded, lambda: self.audio_out)
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

    def line_left(self, line_id: str) -> float | None:
        """Seconds until the line ``line_id``, sounding now, is due to end on the schedule (0 once
        its audio runs over its slot); None while it is not the line sounding (waiting, said, or
        paused). A screen that shows what the voice counts (the reveal's 3, 2, 1) follows it."""
        cur = self._current
        if cur is None or self._paused_at is not None or not isinstance(cur.step, Say) \
                or cur.step.line_id != slug(line_id) or cur.end is None:
            return None
        return 0.0 if cur.overran else max(0.0, cur.end - self.clock.now())

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
                       prefetch: bool = True, still_true: Callable[[], bool] | None = None,
                       topic: str | None = None) -> None:
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

    def enqueue_steps(self, steps: Iterable[Step], still_true: Callable[[], bool] | None = None,
                      urgent: bool = False,
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

    def report(self, key: str, line_id: str, text: str, still_true: Callable[[], bool] | None = None,
               urgent: bool = False,
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

    def _drop_queued(self, which: Callable[[_Queued], bool], why: str) -> None:
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
            assert cur.end is not None   # _begin() gives every pause its end
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

    def _begin(self, step: Step, start: float, now: float, queued: _Queued | None = None,
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

    def _utterance(self, step: Say, result: Utterance | BaseException | None) -> Utterance:
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

    def _report(self, step: Say, exc: BaseException) -> None:
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


def _seconds_or_bad(value: Any) -> float:
    return _seconds(str(value), "slot")   # a BadInput when it is not


def _unit(value: float, what: dict) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise BadInput(i18n.keyed("script.unit_number", what=what, got=repr(value))) from None
    if not 0.0 <= v <= 1.0:
        raise BadInput(i18n.keyed("script.unit_range", what=what, got=repr(value)))
    return v
