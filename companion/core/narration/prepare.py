"""Speech prepared ahead of time on the narrator's preparation thread (and each line's sound loaded
there by the audio output), so the main thread never waits for synthesis or a WAV file."""
from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from companion.core.audio import AudioOut
from companion.core.speakers import Speaker, Utterance

from .script import Say

log = logging.getLogger("companion.core.narration")


class _Prefetch:
    """Speech prepared ahead of time, off the caller's thread.

    Each queued line is handed to one worker thread as soon as it is queued; the narrator starts
    a line only once its utterance is ready, so the main thread never waits for synthesis. With
    ``threaded=False`` (tests, the CLI) or a speaker that prepares instantly (captions, the
    platform voice's estimate), lines are prepared inline when they start.
    """

    def __init__(self, threaded: bool, audio_out: Callable[[], AudioOut] | None = None):
        self._pool = (ThreadPoolExecutor(max_workers=1, thread_name_prefix="narration-prepare")
                      if threaded else None)
        self._jobs: dict[tuple, Future] = {}
        self._audio_out = audio_out  # the narrator's output now (a test may swap it)
        if self._pool is not None:  # its thread starts now, not when the first line is queued:
            self._pool.submit(int)   # starting a thread waits for it to run (8-16 ms under load)

    def _prepare(self, speaker: Speaker, step: Say, pace: float) -> Utterance:
        """On the worker: the speech, then its sound file loaded by the audio output (loading a
        WAV on the main thread took 5-10 ms at every line's start)."""
        utterance = speaker.prepare(step.line_id, step.text, pace)
        if utterance.wav_path is not None and self._audio_out is not None:
            try:
                self._audio_out().prepare(utterance.wav_path)
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

    def take(self, speaker: Speaker, step: Say, pace: float) -> tuple[bool, Utterance | BaseException | None]:
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
