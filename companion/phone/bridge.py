"""The ``submit``/``status`` callbacks the phone server needs, backed by the real 23 Knives game.

Server threads must not touch the game session, so each call is put on a queue and waits for
the main thread to run it (the app calls :meth:`CuriaBridge.drain` from Kivy's ``Clock``; tests
call it in a loop). The answer comes from the rules and the journal: "counted" once the
``curia_card_revealed`` event is recorded, "duplicate" for a serial the Curia has already shown,
"refused" with the rule's words for anything the rules forbid.
"""
from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from companion.core.events import BadInput, Command, RuleError


class CuriaBridge:
    def __init__(self, session, timeout: float = 10.0):
        self.session = session
        self.timeout = timeout
        self._q: "queue.SimpleQueue[tuple[object, Future]]" = queue.SimpleQueue()
        self._main = threading.current_thread()

    # --- any thread ----------------------------------------------------------------------

    def submit(self, command: Command) -> dict:
        return self._call(command)

    def status(self) -> dict:
        return self._call(None)

    def _call(self, command):
        if threading.current_thread() is self._main:
            return self._answer(command)  # already on the main thread: no queue, no deadlock
        fut: Future = Future()
        self._q.put((command, fut))
        try:
            return fut.result(self.timeout)
        except FutureTimeout:
            fut.cancel()  # not run yet: it never will be; running: it still counts once
            raise TimeoutError("the tablet did not answer in time; scan the card again") from None

    # --- the main thread -------------------------------------------------------------------

    def drain(self, *_dt) -> int:
        """Answer every waiting request; returns how many (Kivy passes ``dt``)."""
        n = 0
        while True:
            try:
                command, fut = self._q.get_nowait()
            except queue.Empty:
                return n
            if not fut.set_running_or_notify_cancel():
                continue  # its caller gave up waiting
            try:
                fut.set_result(self._answer(command))
            except Exception as exc:  # a bug must reach the caller, not kill the Clock
                fut.set_exception(exc)
            n += 1

    def _totals(self) -> dict:
        from companion.games.knives23.rules import running_total

        state = self.session.state
        return {"total": running_total(state), "count": len(state.curia_revealed),
                "of": state.curia_count}

    def _answer(self, command) -> dict:
        if command is None:
            return self._totals()
        serial = command.data.get("serial")
        if serial is not None and any(r.get("serial") == serial
                                      for r in self.session.state.curia_revealed):
            return {"status": "duplicate", **self._totals()}
        try:
            self.session.execute(command)
        except (RuleError, BadInput) as exc:
            return {"status": "refused", "error": str(exc), **self._totals()}
        return {"status": "counted", **self._totals()}
