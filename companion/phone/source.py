"""Phones as an input source of the app: the phone server and the Curia bridge behind the one
:class:`~companion.core.inputs.InputSource` interface.

A phone needs the rules' verdict in its reply ("counted, the total is 8", "already counted"), so
its scans do not go through the fire-and-forget command queue: the server's thread waits on the
:class:`CuriaBridge`, whose queue :meth:`PhoneSource.poll` answers on the main thread (the app
polls every source each tick). The command then runs through ``app.execute_from_device``: the
same journal, screens, narration and device feedback as a card tapped on the tablet.
No Kivy here.
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Protocol, TypeVar, Unpack

from companion.core.clock import SYSTEM_CLOCK, Clock
from companion.core import i18n
from companion.core.i18n import text_of, tr
from companion.core.events import Command
from companion.core.inputs import DeviceInfo, InputSource, Post
from companion.core.rules import GameRules
from companion.core.session import GameSession
from companion.core.timers import Countdown
from vision.qr import payload as qrpayload

from .bridge import CuriaBridge
from .server import HISTORY, PhoneServer, RateLimiter, ServerOptions, is_local_peer, lan_address
from .table import seat_payload

# The same file name the sticker printer uses (vision.qr.payload.default_key_path); the app's
# default data dir is that printer's default folder, so stickers printed with the defaults work.
KEY_FILE = "23-knives.deck-key"
LOOPBACK = "127.0.0.1"
TOAST_SECONDS = 4.0  # at most one line about refused scans this often: a phone cannot flood the table
T = TypeVar("T")


class PhoneApp(Protocol):
    """What :meth:`PhoneSource.for_app` uses of the running app (companion.app's CompanionApp)."""
    data_dir: Path
    session: GameSession | None

    def execute_from_device(self, command: Command) -> object: ...

    def toast(self, message: str) -> object: ...


class SourceOptions(ServerOptions, total=False):
    """PhoneSource's keyword options that :meth:`PhoneSource.for_app` hands on as they are."""
    port: int
    rate: RateLimiter | None
    decoder: Callable[[bytes], list[str]] | None
    timeout: float
    clock: Clock


def key_path(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir) / KEY_FILE


def choose_host(requested: str | None = None, lan: Callable[[], str] = lan_address
                ) -> tuple[str, str | None, str]:
    """Where to serve: ``(address to bind, why phones cannot reach it or None, LAN address seen)``.

    Phones reach the tablet only on a local-network address. With none (no Wi-Fi) or only a
    public one (which the server refuses to serve on), the server binds loopback and the tablet
    says plainly that phones cannot reach it: ``"no_lan"``, ``"not_local"`` or, when loopback
    was asked for (tests), ``"loopback"``.
    """
    if requested:
        return requested, ("loopback" if requested in (LOOPBACK, "::1") else None), requested
    seen = lan()
    if seen.startswith("127.") or seen == "::1":
        return LOOPBACK, "no_lan", seen
    if not is_local_peer(seen):
        return LOOPBACK, "not_local", seen
    return seen, None, seen


def phone_name(phone_id: str) -> str:
    return tr("phone.name", id=phone_id)


def scans_words(n: int) -> str:
    return tr("phone.scans_one") if n == 1 else tr("phone.scans", n=n)


REASONS = {"check_failed", "not_code", "not_fate", "typing_off", "not_printed", "unreadable",
           "blocked"}


def answer_line(answer: dict) -> str:
    """One line for the tablet about one answer a phone got. Never the phone's own text: a
    label and serial come from a card the deck's check (or printed deck) vouched for, a refusal
    from the rules' words, anything else from a fixed sentence for its reason."""
    who = phone_name(str(answer.get("phone", "?")))
    status = answer.get("status")
    label = answer.get("label", "")
    if status == "counted":
        return tr("phone.answer.counted", phone=who, card=label, total=answer.get("total"))
    if status in ("duplicate", "claimed"):
        return tr(f"phone.answer.{status}", phone=who, card=label, serial=answer.get("serial", ""))
    reason = answer.get("reason")
    if reason == "rules":
        # the rules' words in the tablet's language, where they came as data
        error = " ".join(text_of(answer.get("message") or answer.get("error", "")).split())
        return tr("phone.answer.refused", phone=who, error=error)
    return tr(f"phone.reason.{reason if reason in REASONS else 'other'}", phone=who, card=label)


def in_language(lang: str, fn: Callable[[], T]) -> T:
    """``fn()`` with its words in ``lang`` (a phone's), on the main thread: the tablet's own
    words are made on this thread too, so nothing else speaks while it runs."""
    if lang == i18n.language():
        return i18n.texts(fn())   # the same shape, its messages said
    with i18n.speaking(lang):
        return i18n.texts(fn())   # the view holds keys: said here, in the phone's language


class PhoneSource(InputSource):
    """Owns the phone server (started by :meth:`start`, stopped by :meth:`stop`) and the bridge.

    ``execute(command)`` records a command (``app.execute_from_device``), ``state()`` gives the
    current game state or None, ``rules()`` that game's rules or None, ``notify(line)`` tells the table about a scan that was not
    counted (``app.toast``), on the main thread.
    """

    name = "phone"

    def __init__(self, key: bytes, *, execute: Callable[[Command], object],
                 state: Callable[[], Any], rules: Callable[[], GameRules | None],
                 notify: Callable[[str], object] | None = None, host: str | None = None,
                 port: int = 0, rate: RateLimiter | None = None,
                 decoder: Callable[[bytes], list[str]] | None = None,
                 timeout: float = 10.0, lan: Callable[[], str] = lan_address,
                 clock: Clock = SYSTEM_CLOCK, vote: Callable[[], dict | None] | None = None,
                 timers: Callable[[], list[Countdown]] | None = None,
                 **server_options: Unpack[ServerOptions]) -> None:
        self.host, self.unreachable, self.lan_seen = choose_host(host, lan)
        bridge = self.bridge = CuriaBridge(execute=execute, state=state, rules=rules,
                                                 timeout=timeout)
        # a seat's phone votes: the vote's table view and the ballot both run on the main thread
        self.server = PhoneServer(bridge.submit, key, status=bridge.status,
                                  host=self.host, port=port, rate=rate, decoder=decoder,
                                  vote=(lambda lang: bridge.run(lambda: in_language(lang, vote))
                                        ) if vote else None,
                                  cast=lambda cmd: bridge.run(lambda: execute(cmd)),
                                  **server_options)
        self.notify = notify
        self.clock = clock
        self._told = 0
        self._unsaid: list[dict] = []   # refused answers not yet told to the table
        self._next_toast = 0.0
        # each seat's view of the game for its phone (.table): built here on the main thread
        # when the state, the timers or the phones asking change, never per request
        self._state, self._rules = state, rules
        self._timers = timers or (lambda: [])
        self._ends: dict[str, float] = {}   # a running timer's end, kept while it runs on
        self._published: tuple = ()

    @classmethod
    def for_app(cls, app: PhoneApp, secure: bool = False, *, host: str | None = None,
                lan: Callable[[], str] = lan_address,
                **kwargs: Unpack[SourceOptions]) -> "PhoneSource":
        """The source for the running app: its deck key under ``app.data_dir`` (made on first
        use; the sticker printer must be given the same file), its rules and its journal.
        ``secure``: https with the table's own certificate (:mod:`.tls`), so phones may scan live."""
        key = qrpayload.load_or_create_key(key_path(app.data_dir))
        if secure:
            from .tls import server_context
            kwargs["tls"] = server_context(app.data_dir, choose_host(host, lan)[0])
        return cls(key, execute=app.execute_from_device,
                   state=lambda: app.session.state if app.session is not None else None,
                   rules=lambda: app.session.rules if app.session is not None else None,
                   vote=lambda: app.session.view("table").get("vote") if app.session else None,
                   # the game's own timers (one per name, left behind with the game)
                   timers=lambda: [c for c, _ in getattr(app, "_timers", {}).values() if not c.ended],
                   notify=app.toast, host=host, lan=lan, **kwargs)

    # --- InputSource ------------------------------------------------------------------------
    def start(self, post: Post) -> None:
        # ``post`` is not used: a phone waits for the verdict, which poll() gives (see above).
        self.server.start()

    def stop(self) -> None:
        self.server.stop()

    @property
    def serving(self) -> bool:
        return self.server.serving

    def poll(self) -> None:
        self.bridge.drain()
        self.publish_table()
        self._told, new = self.server.recent_since(self._told)
        # a counted card is shown and spoken already; the rest is told, one line at a time
        self._unsaid.extend(a for a in new if a.get("status") != "counted")
        now = self.clock.now()
        if self.notify is not None and self._unsaid and now >= self._next_toast:
            more = len(self._unsaid) - 1
            line = answer_line(self._unsaid[-1]) + (tr("phone.and_more", n=more) if more else "")
            self._unsaid.clear()
            self._next_toast = now + TOAST_SECONDS
            self.notify(line)

    def _timer_list(self) -> list[dict]:
        """The running countdowns as the phones get them: a running one by when it ends (kept
        as it was while it runs on, so the payload does not change each tick), a paused one
        by what is left."""
        out, now, ends = [], time.time(), {}
        for c in self._timers():   # companion.core.timers.Countdown
            name = getattr(c, "name", "") or ""
            left = c.remaining()
            end = now + left
            if c.running and name in self._ends and abs(self._ends[name] - end) < 1.0:
                end = self._ends[name]
            if c.running:
                ends[name] = end
            label = f"phone.table.timer.{name}"
            out.append({"id": name, "name": i18n.keyed(label) if i18n.has(label) else name,
                        "running": c.running, "ends_at": round(end, 1), "remaining": left})
        self._ends = ends
        return out

    def publish_table(self) -> None:
        """Each seat's phone view, where something it shows may have changed (main thread)."""
        wanted = self.server.table.wanted()
        if not wanted:
            return
        rules, state = self._rules(), self._state()
        timers = self._timer_list()
        key = (rules, state, [(t["name"], t["running"], t["ends_at"] if t["running"]
                               else round(t["remaining"])) for t in timers], wanted)
        if len(key) == len(self._published) and all(
                a is b or a == b for a, b in zip(key, self._published)):
            return
        self._published = key
        if rules is None or state is None:
            payloads = {w: {"game": None} for w in wanted}
        else:
            players = set(getattr(state, "players", ()))
            payloads = {(seat, lang): seat_payload(rules, state, seat, lang, timers)
                        for seat, lang in wanted if seat in players}
        self.server.table.publish(payloads)

    def devices(self) -> list[DeviceInfo]:
        if not self.serving:
            return []
        return [DeviceInfo("phone", p["id"], phone_name(p["id"]), detail=" · ".join(
                    [tr("phone.votes_for", player=p["seat"])] * bool(p.get("seat"))
                    + [tr("phone.allowed") if p["allowed"] else tr("phone.waiting"),
                       scans_words(p["scans"])]))
                for p in self.server.devices()]

    def recent(self, n: int = 6) -> list[str]:
        """The last answers phones were given, newest first, as lines for the tablet."""
        return [answer_line(a) for a in self.server.recent(min(n, HISTORY))]
