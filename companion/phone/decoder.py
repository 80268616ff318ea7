"""Photos from phones are read in a worker process with a time cap, a memory cap and a cap on
the codes per photo, so a photo built to be expensive (a hundred codes on one PNG) costs the
tablet at most a few seconds of one core and a bounded amount of memory, and never its UI.

The worker is one long-lived process (started on the first photo: importing OpenCV costs about
a second) fed over a pipe. A photo that runs past the time cap gets its worker killed; the next
photo starts a fresh one. The worker is a fresh interpreter (``python -m companion.phone.decoder``), not a fork: the app
has threads (Kivy, the server) and a forked copy of them is not safe. The decoder itself is :func:`vision.qr.decode`'s
``image_from_bytes`` + ``decode_array``, unchanged. Where no worker can start (an Android build)
the same reader runs in-process, bounded by size, codes and time instead (:meth:`DecodeWorker._in_process`).
"""
from __future__ import annotations

import json
import logging
import os
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from companion.core.events import BadInput
from companion.core.i18n import keyed

log = logging.getLogger(__name__)

SECONDS = 4.0        # a single card photo reads in well under a second on this kind of tablet
MEMORY_MB = 768      # address space of the worker (OpenCV and numpy need ~300 MB of it idle)
MAX_CODES = 6        # "photograph one card at a time": a few cards in one frame are fine
MAX_SIDE = 2000      # in-process photos are shrunk to this (the page sends no bigger: page.js)
ROOT = Path(__file__).resolve().parents[2]


def _limit_memory(mb: int) -> None:
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (mb * 1024 * 1024, mb * 1024 * 1024))
    except (ImportError, ValueError, OSError):  # Android/others without RLIMIT_AS: time cap only
        pass


def _say(out: IO[bytes], kind: str, value: object) -> None:
    out.write(json.dumps([kind, value]).encode() + b"\n")
    out.flush()


def worker_main(memory_mb: int) -> None:
    """The worker: length-prefixed photos on stdin, one JSON line per photo on stdout."""
    _limit_memory(memory_mb)
    import cv2

    from vision.qr.decode import decode_array, image_from_bytes
    cv2.setNumThreads(1)  # one core: the tablet has few and its UI needs one
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    _say(out, "ready", None)
    while True:
        head = inp.read(4)
        if len(head) < 4:
            return
        data = inp.read(struct.unpack(">I", head)[0])
        try:
            _say(out, "ok", decode_array(image_from_bytes(data, "photo")))
        except BadInput as exc:
            _say(out, "bad", str(exc))
        except MemoryError:
            _say(out, "bad", f"photo needs more than the {memory_mb} MB a photo may use")
        except Exception as exc:  # an OpenCV error on a strange image: one line, keep serving
            _say(out, "bad", f"photo could not be read ({type(exc).__name__})")


class TooSlow(BadInput):
    """A photo stopped at the reader's time cap (the server makes its phone rest a little)."""


class _Deadline(list[object]):
    """``decode_array``'s trace, used as a clock: it is told after each stage, and stops the
    reading there once the time is up (the in-process reader cannot be killed mid-photo)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.end = time.monotonic() + seconds

    def append(self, item: object) -> None:
        if time.monotonic() > self.end:
            raise _TimeUp()


class _TimeUp(Exception):
    pass


class DecodeWorker:
    """``decode(data) -> [texts]``; raises :class:`BadInput` (one line) for a photo that is not
    an image, is too big, takes too long, or holds more than ``max_codes`` codes."""

    def __init__(self, seconds: float = SECONDS, memory_mb: int = MEMORY_MB,
                 max_codes: int = MAX_CODES, wait: float | None = None) -> None:
        self.seconds, self.memory_mb, self.max_codes = seconds, memory_mb, max_codes
        self.wait = 2 * seconds + 10 if wait is None else wait  # for the one before to finish
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self.killed = 0  # photos stopped at the time cap (the tablet's log and the tests)

    def _start(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "companion.phone.decoder", "--worker",
                 str(self.memory_mb)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        except OSError as exc:  # no interpreter to start (an Android build): read in-process
            log.warning("phone photos: no worker process (%s); reading them in-process", exc)
            self._proc = None
            raise _NoWorker() from None
        # importing OpenCV is not the photo's time: wait for the worker to say it is ready
        if self._answer(60)[0] != "ready":
            self._kill()
            raise BadInput(keyed("phone.server.reader_down"))

    def _answer(self, seconds: float) -> tuple[str, object]:
        """The worker's next line as (kind, value): ("ready", None), ("ok", [texts]),
        ("bad", why); ("slow", None) when none comes in ``seconds``, ("dead", None) at its end."""
        assert self._proc is not None and self._proc.stdout is not None  # started with pipes
        out = self._proc.stdout
        if not select.select([out], [], [], seconds)[0]:
            return "slow", None
        line = out.readline()
        if not line:
            return "dead", None
        kind, value = json.loads(line)
        return str(kind), value

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait(5)
            for f in (self._proc.stdin, self._proc.stdout):
                assert f is not None  # started with pipes
                f.close()
        self._proc = None

    def close(self) -> None:
        with self._lock:
            self._kill()

    def decode(self, data: bytes) -> list[str]:
        if not self._lock.acquire(timeout=self.wait):
            raise BadInput(keyed("phone.server.reader_busy"))
        try:
            if self._proc is None or self._proc.poll() is not None:
                self._kill()
                try:
                    self._start()
                except _NoWorker:
                    return self._in_process(data)
            assert self._proc is not None and self._proc.stdin is not None  # started with pipes
            try:
                self._proc.stdin.write(struct.pack(">I", len(data)) + data)
                self._proc.stdin.flush()
                kind, value = self._answer(self.seconds)
            except (BrokenPipeError, OSError, ValueError):
                kind, value = "dead", None
            if kind == "slow":
                self.killed += 1
                self._kill()
                raise TooSlow(keyed("phone.server.photo_slow", seconds=f"{self.seconds:g}"))
            if kind == "dead":
                self._kill()
                raise BadInput(keyed("phone.server.photo_memory", mb=self.memory_mb))
            if kind == "bad":   # the reader's words are English: the phone gets its own
                log.info("phone photo not read: %s", value)
                raise BadInput(keyed("phone.server.photo_bad"))
            assert isinstance(value, list)   # "ok": the worker's texts (worker_main)
            if len(value) > self.max_codes:
                raise BadInput(keyed("phone.server.photo_codes", n=len(value), most=self.max_codes))
            return [str(t) for t in value]
        finally:
            self._lock.release()


    def _in_process(self, data: bytes) -> list[str]:
        """Where no worker can be started: the same reader in the app's own process, bounded
        instead of killed. The photo is shrunk to ``MAX_SIDE`` (a 6000 px photo of finder
        patterns took 86 s and 285 MB read whole), the reading stops once more codes than
        allowed are read, and between stages once ``seconds`` are spent (one stage may
        overrun it: about a second on a 2000 px photo). No memory cap."""
        import cv2

        from vision.qr.decode import decode_array, image_from_bytes
        try:
            img = image_from_bytes(data, "photo")
        except BadInput as exc:
            log.info("phone photo not read: %s", exc)
            raise BadInput(keyed("phone.server.photo_bad")) from None
        h, w = img.shape[:2]
        if max(h, w) > MAX_SIDE:
            f = MAX_SIDE / max(h, w)
            img = cv2.resize(img, (max(1, round(w * f)), max(1, round(h * f))),
                             interpolation=cv2.INTER_AREA)
        try:
            texts = decode_array(img, max_codes=self.max_codes + 1,
                                 trace=_Deadline(self.seconds))
        except _TimeUp:
            self.killed += 1
            raise TooSlow(keyed("phone.server.photo_slow", seconds=f"{self.seconds:g}")) from None
        except Exception as exc:  # an OpenCV error on a strange image: one line
            log.info("phone photo not read: %s", exc)
            raise BadInput(keyed("phone.server.photo_bad")) from None
        if len(texts) > self.max_codes:
            raise BadInput(keyed("phone.server.photo_codes", n=len(texts), most=self.max_codes))
        return texts


class _NoWorker(Exception):
    pass


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    worker_main(int(sys.argv[2]))
