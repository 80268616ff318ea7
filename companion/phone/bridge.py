"""The ``submit``/``status`` callbacks the phone server needs, backed by the real 23 Knives game.

Server threads must not touch the game session, so each call is put on a queue and waits for
the main thread to run it (the app's :class:`companion.phone.source.PhoneSource` calls
:meth:`CuriaBridge.drain` from its ``poll()``, which the app runs every tick; tests call it in a
loop). The answer comes from the rules and the journal: "counted" once the
``curia_card_revealed`` event is recorded, "duplicate" for a serial the Curia has already shown,
"claimed" for the scan of a card tapped in on the tablet without its serial (it names that
card's serial; the card is not added twice),
"refused" with the rule's words for anything the rules forbid.

``execute(command)`` runs a command through the rules and records it. In the app it is
``app.execute_from_device``, so a scanned card is journalled *and* published like a tapped one
(screens refresh, the narrator speaks the card and the running total, other sources hear of
it). Without an app (the tests, the benchmark) it is the session's own ``execute``.
"""
from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, TypeVar

from companion.core.events import BadInput, Command, RuleError
from companion.core.i18n import keyed, text_of
from companion.core.rules import GameRules
from companion.core.session import GameSession
from companion.games.knives23 import RULES as CURIA_RULES
from companion.games.knives23 import running_total

from .words import say

# The game whose Curia phones scan, named by its rules' declared ``game_id`` (its public API):
# the bridge asks which game is on the tablet, never guesses from the state's fields.
GAME = CURIA_RULES.game_id
T = TypeVar("T")


class TabletSilent(TimeoutError):
    """The tablet's main thread did not answer in time. A TimeoutError (the server tells the
    phone to try again); ``key`` says it in any language, ``str()`` in English."""

    def __init__(self) -> None:
        self.key = "phone.tablet_no_answer"
        self.values: dict = {}
        super().__init__(text_of(keyed(self.key), "en"))


class CuriaBridge:
    def __init__(self, session: GameSession | None = None, timeout: float = 10.0, *,
                 execute: Callable[[Command], object] | None = None,
                 state: Callable[[], Any] | None = None,
                 rules: Callable[[], GameRules | None] | None = None,
                 on_answer: Callable[[Command, dict], None] | None = None) -> None:
        self.session = session
        if session is not None:
            execute = execute or session.execute
            # a getter, not a state: the app's session changes (a new game, a resume)
            state = state or (lambda: session.state)
            rules = rules or (lambda: session.rules)
        if execute is None or state is None or rules is None:
            raise ValueError("CuriaBridge needs a session, or execute, state and rules")
        self.execute = execute
        # the game's state (a 23 Knives state, or another game's): GameRules' states are Any
        self.state: Callable[[], Any] = state
        self.rules = rules   # the game's rules, or None
        self.on_answer = on_answer  # main thread: the tablet shows what the phones were told
        self.timeout = timeout
        self._q: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._main = threading.current_thread()

    # --- any thread ----------------------------------------------------------------------

    def submit(self, command: Command) -> dict:
        return self.run(lambda: self._answer(command))

    def status(self) -> dict:
        return self.run(lambda: self._answer(None))

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` run on the main thread (a vote's view, a phone's ballot); its result, or
        its exception raised here."""
        if threading.current_thread() is self._main:
            return fn()  # already on the main thread: no queue, no deadlock
        fut: Future[T] = Future()
        self._q.put((fn, fut))
        try:
            return fut.result(self.timeout)
        except FutureTimeout:
            fut.cancel()  # not run yet: it never will be; running: it still counts once
            raise TabletSilent() from None

    # --- the main thread -------------------------------------------------------------------

    def drain(self, *_dt: float) -> int:
        """Answer every waiting request; returns how many (Kivy passes ``dt``)."""
        n = 0
        while True:
            try:
                fn, fut = self._q.get_nowait()
            except queue.Empty:
                return n
            if not fut.set_running_or_notify_cancel():
                continue  # its caller gave up waiting
            try:
                fut.set_result(fn())
            except Exception as exc:  # a refusal or a bug reaches the caller, not the Clock
                fut.set_exception(exc)
            n += 1

    def _curia_state(self) -> Any:
        """The 23 Knives state, or None when no 23 Knives game is on the tablet."""
        rules = self.rules()
        if rules is None or rules.game_id != GAME:
            return None
        return self.state()

    def _totals(self, state: Any) -> dict:
        return {"total": running_total(state), "count": len(state.curia_revealed),
                "of": state.curia_count}

    def _answer(self, command: Command | None) -> dict:
        state = self._curia_state()
        if command is None:
            return self._totals(state) if state is not None else {}
        if state is None:
            answer = {"status": "refused", "error": say("en", "phone.server.no_game"),
                      "message": keyed("phone.server.no_game")}
        else:
            answer = self._decide(state, command)
        if self.on_answer is not None:
            self.on_answer(command, answer)
        return answer

    def _decide(self, state: Any, command: Command) -> dict:
        serial = command.data.get("serial")
        if serial is not None and any(r.get("serial") == serial for r in state.curia_revealed):
            return {"status": "duplicate", **self._totals(state)}
        status = "counted"
        card = command.data.get("card")
        if serial is not None and any(r.get("serial") is None and r.get("card") == card
                                      for r in state.curia_revealed):
            # the card was tapped in on the tablet before its scan came: the scan claims it
            command = Command("curia_claim", dict(command.data), source=command.source)
            status = "claimed"
        try:
            self.execute(command)
        except (RuleError, BadInput) as exc:
            # the rules' words as data too, so the phone says them in its own language
            return {"status": "refused", "error": " ".join(str(exc).split()),
                    **({"message": keyed(exc.key, **exc.values)} if exc.key else {}),
                    **self._totals(self._curia_state() or state)}
        return {"status": status, **self._totals(self._curia_state())}
