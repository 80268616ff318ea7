"""Input sources: everything that can cast a ballot or send a command, behind one interface.

A source runs wherever it likes (a serial reader thread, a camera loop, a web server) and hands
commands to ``post``. ``post`` only puts them on a :class:`CommandQueue`; the main thread drains
the queue (Kivy's ``Clock`` in the app, a direct ``drain()`` in tests), so no device thread ever
touches the game state or a widget.
"""
from __future__ import annotations

import logging
import queue
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

from .events import BadInput, Command, Event, RuleError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeviceInfo:
    """One line of the devices panel."""

    kind: str                 # "box", "camera", "phone", "tablet"
    ident: str                # unique within its kind
    label: str                # what the table reads
    seat: int | None = None   # 1-based seat it votes for, when paired
    connected: bool = True
    last_seen: float | None = None  # clock seconds of the last sign of life
    firmware: str | None = None
    battery: int | None = None      # percent, when reported
    detail: str = ""
    conflict: bool = False          # another device claims the same identity: not counted


class Post(Protocol):
    """Where a source hands its commands: CommandQueue.post (thread-safe). A source that must
    not confirm anything before the journal has it passes ``done`` (see CommandQueue)."""

    def __call__(self, command: Command, done: Done | None = None) -> None: ...


class InputSource(ABC):
    name: str = "source"

    @abstractmethod
    def start(self, post: Post) -> None:
        """Begin delivering commands to ``post`` (which is thread-safe)."""

    @abstractmethod
    def stop(self) -> None:
        ...

    def devices(self) -> list[DeviceInfo]:
        return []

    # Feedback to devices, called on the main thread (boxes light "vote received", a phone shows
    # "counted"). Defaults do nothing.
    def on_events(self, events: Sequence[Event]) -> None:
        """Every batch of events the session recorded, whatever their source."""

    def on_attach(self, events: Sequence[Event]) -> None:
        """A game was attached (started, resumed after a restart) or this source was added
        during one: every event of its journal so far, to catch up (boxes learn that a vote is
        open). Called on the main thread."""

    def on_detach(self) -> None:
        """The table left its game (back to the game picker); no game takes commands until the
        next on_attach. Called on the main thread."""

    def on_refused(self, command: Command, error: Exception) -> None:
        """A command from this (or any) source that the rules refused, with the reason."""

    def poll(self) -> None:
        """Main-thread work the source needs regularly (e.g. answering a phone that waits for
        the rules' verdict). Called with every drain of the command queue."""


# Called once a posted command is settled: with None once the rules accepted it and its events
# are committed to the journal, or with the exception that refused it or kept it out.
Done = Callable[[Exception | None], None]


class CommandQueue:
    """Thread-safe hand-over from device threads to the main thread.

    A device that must not confirm anything before the journal has it (a vote box's "received")
    posts with ``done``: ``drain`` calls it on the main thread right after ``handle`` returned
    (the session has committed the command's events) or raised."""

    def __init__(self) -> None:
        self._q: "queue.SimpleQueue[tuple[Command, Done | None]]" = queue.SimpleQueue()

    def post(self, command: Command, done: Done | None = None) -> None:
        self._q.put((command, done))

    def drain(self, handle: Callable[[Command], object], limit: int = 1000,
              wait: float = 0.0) -> list[tuple[Command, Exception]]:
        """Run ``handle`` on waiting commands, on the calling (main) thread; ``wait`` seconds for
        the first one. A refused or malformed command is logged and returned with its error; it
        never stops the others."""
        refused: list[tuple[Command, Exception]] = []
        for i in range(limit):
            try:
                cmd, done = self._q.get(timeout=wait) if i == 0 and wait > 0 else self._q.get_nowait()
            except queue.Empty:
                break
            try:
                handle(cmd)
            except (RuleError, BadInput) as exc:
                log.warning("refused %s from %s: %s", cmd.kind, cmd.source, exc)
                refused.append((cmd, exc))
                _settle(done, exc)
            except Exception as exc:   # not recorded (e.g. the journal failed): say so, then raise
                _settle(done, exc)
                raise
            else:
                _settle(done, None)
        return refused

    def empty(self) -> bool:
        return self._q.empty()


def _settle(done: Done | None, error: Exception | None) -> None:
    if done is None:
        return
    try:
        done(error)
    except Exception:  # a device's callback must not stop the queue
        log.exception("completion of a command failed")


class ScriptedSource(InputSource):
    """The virtual twin of any source: posts a prepared list of commands when asked."""

    name = "scripted"

    def __init__(self, commands: Iterable[Command] = ()):
        self._pending = list(commands)
        self._post: Callable[[Command], None] | None = None

    def start(self, post: Callable[[Command], None]) -> None:
        self._post = post

    def stop(self) -> None:
        self._post = None

    def send(self, command: Command) -> None:
        if self._post is None:
            raise RuntimeError("source not started")
        self._post(command)

    def send_all(self) -> None:
        while self._pending:
            self.send(self._pending.pop(0))

    def devices(self) -> list[DeviceInfo]:
        return [DeviceInfo("tablet", "scripted", "Scripted input", connected=self._post is not None)]
