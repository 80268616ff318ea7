"""The phone server: phones scan Fate cards at the Curia reveal and cast their seat's ballots.

A device thread like the serial reader: it never touches game state or widgets. Each scan it
reads and validates becomes ``Command("curia_card", {"card": {"knives": n} | {"doves": n},
"serial": s}, source="phone:<id>")`` handed to ``submit`` (supplied by the app, which runs it on
the main thread against the game's rules and journal and returns ``{"status": "counted" |
"duplicate" | "claimed" | ..., "total": int, "count": int}``). A seat's ballot becomes a
``cast_ballot`` command handed to ``cast``. The server keeps no total of its own: what a phone is
told comes from that reply, so the journal stays the one truth.

This module holds :class:`PhoneServer` (its settings and lifecycle, what the tablet asks of it)
and what scans and ballots do once a request is in:
- typed codes (the sticker's small type, which has no check) count only while the narrator
  allows typing, and only if that deck printed that card under that serial; a phone sending
  codes that fail the deck's check goes back to waiting;
- photos are read in a worker process with a time, memory and codes-per-photo cap
  (:mod:`.decoder`), first come first served, one per phone at a time (:class:`PhotoLine`); a text
  scan never waits for a photo; a seat's phone records at most one ballot a second;
- a retry carrying the same ``scan_id`` gets the first answer again instead of being counted twice.

The rest is in its own module: the HTTP layer (connections, deadlines, caps, refusals) in
:mod:`.httpd`, which phones may do what in :mod:`.admission`, the routes in :mod:`.endpoints`.
"""
from __future__ import annotations

import logging
import secrets
import ssl
import threading
import urllib.parse
from collections import deque
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypedDict

from companion.core import i18n, votes
from companion.core.clock import SYSTEM_CLOCK, Clock
from companion.core.events import BadInput, Command
from vision.qr import payload as qrpayload

from .admission import (HISTORY, MAX_PHONES, MAX_WAITING, MAX_WAITING_PER_ADDRESS,  # noqa: F401
                        REFUSED_SECONDS, Admission, PhoneRecord)
from .endpoints import STATIC, Handler
from .httpd import (HEAD_SECONDS, REQUEST_SECONDS, CappedServer, RateLimiter,  # noqa: F401
                    Refused, ServerSettings, is_local_peer, lan_address)
from .table import TableFeed
from .words import say

if TYPE_CHECKING:
    from .decoder import DecodeWorker

log = logging.getLogger(__name__)

MAX_PHOTO = 4 * 1024 * 1024
MAX_FAILED_CHECKS = 5    # codes failing the deck's check before a phone must be allowed again
BALLOT_SECONDS = 1.0     # a seat's phone records at most one ballot this often
PHOTO_REST_SECONDS = 10.0  # a phone whose photo ran past the reader's time cap waits this long


class PhotoLine:
    """Phones' photos go to the one photo reader first come, first served, one photo per phone
    at a time (a phone sending many at once does not push the others back), and a phone whose
    photo ran past the reader's time cap rests a little before its next one."""

    def __init__(self, wait: float, rest: float, clock: Clock = SYSTEM_CLOCK) -> None:
        self.wait, self.rest, self.clock = wait, rest, clock
        self._cond = threading.Condition()
        self._line: deque[str] = deque()        # phone ids, the one being read first
        self._resting: dict[str, float] = {}    # phone id -> when it may send again

    @contextmanager
    def turn(self, phone_id: str) -> Iterator[Callable[[], None]]:
        """Waits for this phone's turn at the reader; yields a ``rest()`` to call when its
        photo ran past the time cap."""
        with self._cond:
            if phone_id in self._line:
                raise Refused(429, "photo_pending")
            now = self.clock.now()
            self._resting = {p: t for p, t in self._resting.items() if t > now}
            if phone_id in self._resting:
                raise Refused(429, "photo_rest", seconds=int(self._resting[phone_id] - now) + 1)
            self._line.append(phone_id)
            if not self._cond.wait_for(lambda: self._line[0] == phone_id, self.wait):
                self._line.remove(phone_id)
                self._cond.notify_all()
                raise Refused(503, "reader_busy")

        def rest() -> None:
            with self._cond:
                self._resting[phone_id] = self.clock.now() + self.rest
        try:
            yield rest
        finally:
            with self._cond:
                self._line.popleft()
                self._cond.notify_all()



class ServerOptions(TypedDict, total=False):
    """PhoneServer's keyword options that a PhoneSource hands on as they are."""
    secret: str | None
    max_photo: int
    deck: list[qrpayload.Card] | None
    auto_allow: bool
    typing: bool
    head_seconds: float
    request_seconds: float
    answer_seconds: float
    tls: ssl.SSLContext | None
    language: Callable[[], str]
    ballot_seconds: float
    refused_seconds: float
    photo_rest_seconds: float


class PhoneServer(ServerSettings):
    """Serve the scanning page; turn valid scans into ``curia_card`` commands for ``submit``.

    ``submit(command) -> reply dict`` and ``status() -> {"total": int, "count": int}`` come from
    the app (both run the game's rules on the main thread). ``decoder(photo bytes) -> [texts]``
    reads an uploaded photo, raising BadInput for one it will not read (default: a
    :class:`~companion.phone.decoder.DecodeWorker`). ``auto_allow`` lets every phone count as
    soon as it joins (the headless demo, where no narrator watches a tablet).

    It is the HTTP layer's ServerSettings by name, not only by shape: its settings then have
    the declared types when mypy checks the routes' handler (types inferred in __init__ are not
    known yet in the import cycle server -> endpoints -> server).
    """

    def __init__(self, submit: Callable[[Command], dict], key: bytes, *,
                 status: Callable[[], dict] | None = None, host: str | None = None,
                 port: int = 0, secret: str | None = None, clock: Clock = SYSTEM_CLOCK,
                 max_photo: int = MAX_PHOTO, rate: RateLimiter | None = None,
                 decoder: Callable[[bytes], list[str]] | None = None,
                 deck: list[qrpayload.Card] | None = None,
                 auto_allow: bool = False, typing: bool = False,
                 vote: Callable[[str], dict | None] | None = None,
                 cast: Callable[[Command], object] | None = None,
                 head_seconds: float = HEAD_SECONDS, request_seconds: float = REQUEST_SECONDS,
                 answer_seconds: float = 30.0, tls: ssl.SSLContext | None = None,
                 language: Callable[[], str] = i18n.language,
                 ballot_seconds: float = BALLOT_SECONDS, refused_seconds: float = REFUSED_SECONDS,
                 photo_rest_seconds: float = PHOTO_REST_SECONDS) -> None:
        self.submit = submit
        self.status = status
        self.key = key
        self.host = host or lan_address()
        if not is_local_peer(self.host):
            raise BadInput(i18n.keyed("phone.not_local_host", host=self.host))
        self.port = port
        self.secret = secret or secrets.token_urlsafe(16)
        self.max_photo = max_photo
        self.rate = rate or RateLimiter(clock=clock)
        self.clock = clock
        self.ballot_seconds = ballot_seconds
        # which phones may do what; its lock guards every phone's record here too
        self.phones = Admission(clock=clock, auto_allow=auto_allow,
                                refused_seconds=refused_seconds)
        self._lock = self.phones.lock
        self._worker: DecodeWorker | None = None
        if decoder is None:
            from .decoder import DecodeWorker
            self._worker = DecodeWorker()
            decoder = self._worker.decode
        self.decoder = decoder
        if deck is None:
            deck = qrpayload.deck_cards(qrpayload.load_deck(), kinds=("fate", "sway"))
        self.deck = {c.serial: c for c in deck}
        self.typing = typing   # the narrator allows typed codes (damaged stickers)
        self.head_seconds, self.request_seconds = head_seconds, request_seconds
        self.answer_seconds = answer_seconds  # to read a photo and answer, after the request
        self.tls = tls  # the table's certificate (companion.phone.tls): https, a secure context
        self.language = language  # the tablet's language: a phone's when its browser's is not known
        # Phones vote: ``vote(lang)`` is the table view of the vote in progress (who voted,
        # never what), its question in ``lang``; ``cast(command)`` records a ballot or raises
        # the rules' refusal.
        self.vote_view, self.cast = vote, cast
        # (phone id, answer), newest last, for the tablet
        self._recent: deque[tuple[str, dict]] = deque(maxlen=HISTORY)
        self._answered = 0  # answers given since start: the tablet asks for the ones it has not shown
        self.photos = PhotoLine(answer_seconds, photo_rest_seconds, clock)
        # each seat's view of the game, published by the tablet, long-polled by its phone
        self.table = TableFeed()
        self._httpd: CappedServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> "PhoneServer":
        server = self

        class ServerHandler(Handler):
            phone_server = server

        self._httpd = CappedServer((self.host, self.port), ServerHandler)
        self.port = self._httpd.server_address[1]
        # a short poll so stop() returns at once: the table stops it from the phone screen, and
        # the app stops every source when it closes, both on the main thread
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name="phone-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        self.table.clear()
        if self._worker is not None:
            self._worker.close()

    @property
    def serving(self) -> bool:
        return self._httpd is not None

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    @property
    def join_url(self) -> str:
        """What the tablet's QR code holds."""
        return f"{self.base_url}/join?k={urllib.parse.quote(self.secret)}"

    @property
    def cookie_name(self) -> str:
        # Browsers send a host's cookies to all its ports: one name per port keeps this
        # server's token away from anything else listening on the tablet, and theirs from it.
        return f"tc_{self.port}"

    # --- the narrator, on the tablet (see .admission) ---------------------------------------

    @property
    def auto_allow(self) -> bool:
        return self.phones.auto_allow

    @property
    def refused_seconds(self) -> float:
        return self.phones.refused_seconds

    def devices(self) -> list[dict]:
        return self.phones.devices()

    def allow(self, phone_id: str) -> bool:
        return self.phones.allow(phone_id)

    def refuse(self, phone_id: str) -> bool:
        return self.phones.refuse(phone_id)

    def seat_url(self, player: str) -> str:
        """The link in ``player``'s own seat code: the phone that opens it votes for them."""
        return f"{self.base_url}/seat?k={self.phones.seat_token(player)}"

    def seats(self) -> dict[str, str]:
        return self.phones.seats()

    def free_seat(self, player: str) -> None:
        self.phones.free_seat(player)

    def join(self, token: str | None, address: str) -> PhoneRecord:
        return self.phones.join(token, address)

    def join_seat(self, seat_token: str | None, token: str | None, address: str) -> PhoneRecord:
        return self.phones.join_seat(seat_token, token, address)

    def phone_by_token(self, token: str | None) -> PhoneRecord | None:
        return self.phones.phone_by_token(token)

    # --- scans and ballots ------------------------------------------------------------------


    def _vote_for(self, phone: PhoneRecord) -> dict | None:
        """What a seat's phone may know of the vote in progress: the question, its choices,
        its weight, and whether its own ballot is in; never any ballot, its own included."""
        if phone.seat is None or self.vote_view is None:
            return None
        try:
            vote = self.vote_view(phone.lang)
        except Exception as exc:
            log.warning("phone server: vote() failed: %s", exc)
            return None
        if not vote or vote.get("revealed") or phone.seat not in vote.get("voters", ()):
            return None
        options = [{"option": i, "label": option_words(o, phone.lang)}
                   for i, o in enumerate(vote["options"])
                   if votes.may_choose(phone.seat, o, vote.get("allow_self", True))]
        weights = vote.get("weights") or {}
        return {"vote_id": vote["vote_id"], "question": i18n.text_of(vote.get("question", "")),
                "options": options, "abstain": bool(vote.get("allow_abstain")),
                "weight": weights.get(phone.seat), "voted": phone.seat in vote.get("voted", ())}

    def ballot(self, phone: PhoneRecord, vote_id: str, option: int | None,
               ballot_id: str | None) -> dict:
        with self._lock:
            if ballot_id and ballot_id in phone.answers:
                return dict(phone.answers[ballot_id], replayed=True)
            # Each ballot is a journal write on the tablet's main thread: at most one a
            # ``ballot_seconds`` per phone (the page sends one per vote; a change of mind
            # a second later is still recorded).
            now = self.clock.now()
            if now < phone.next_ballot:
                raise Refused(429, "ballot_too_fast")
            phone.next_ballot = now + self.ballot_seconds
        if phone.seat is None or self.cast is None:
            raise Refused(403, "no_seat")
        vote = self._vote_for(phone)
        if vote is None or vote["vote_id"] != vote_id:
            raise Refused(409, "vote_closed")
        data: dict[str, Any] = {"vote_id": vote_id, "voter": phone.seat}
        data.update({"choice": None} if option is None else {"option": option})
        try:
            self.cast(Command("cast_ballot", data, source=f"phone:{phone.id}"))
            reply = {"status": "recorded"}
        except TimeoutError as exc:
            return {"status": "refused", "error": say(phone.lang, "phone.server.tablet_busy"),
                    "retry": True}
        except Exception as exc:  # the rules' refusal, one line, in the phone's language
            reply = {"status": "refused", "error": " ".join(i18n.text_of(exc, phone.lang).split())}
        if ballot_id:
            with self._lock:
                phone.answers[ballot_id] = reply
                while len(phone.answers) > HISTORY:
                    phone.answers.popitem(last=False)
        return reply

    def recent(self, n: int = 10) -> list[dict]:
        """The last ``n`` answers given to any phone, newest first: what the tablet shows so the
        table sees a forged or duplicate scan too, not only the phone that sent it."""
        with self._lock:
            items = list(self._recent)[-n:]
        return [{"phone": pid, **a} for pid, a in reversed(items)]

    def recent_since(self, seen: int) -> tuple[int, list[dict]]:
        """The answers given after the first ``seen`` ones (oldest first, at most ``HISTORY``),
        and how many have been given in all: pass that back next time."""
        with self._lock:
            n = min(self._answered - seen, len(self._recent))
            items = list(self._recent)[len(self._recent) - n:] if n > 0 else []
            return self._answered, [{"phone": pid, **a} for pid, a in items]

    # --- what requests do ------------------------------------------------------------------

    def replay(self, phone: PhoneRecord, scan_id: str | None) -> dict | None:
        """The answer already given to this scan, if any. A retry of a scan still being
        answered (the page gave up waiting and sent it again) waits for that answer rather
        than counting the card a second time."""
        if not scan_id:
            return None
        with self._lock:
            ev = phone.inflight.get(scan_id)
        if ev is not None:
            ev.wait(self.request_seconds)
        with self._lock:
            if scan_id in phone.answers:
                return dict(phone.answers[scan_id], replayed=True)
            if scan_id in phone.inflight:
                raise Refused(503, "scan_in_progress")
        return None

    def answer_texts(self, phone: PhoneRecord, texts: list[str], scan_id: str | None,
                     typed: bool = False) -> dict:
        """Validate and submit each decoded (or typed) text; the reply a phone shows."""
        replayed = self.replay(phone, scan_id)
        if replayed is not None:
            return replayed
        with self._lock:
            if not self.phones.may_count(phone):
                raise Refused(403, "waiting")
            if scan_id:
                if scan_id in phone.inflight:   # two copies at once: the later one waits
                    raise Refused(503, "scan_in_progress")
                phone.inflight[scan_id] = threading.Event()
        try:
            return self._answer_texts(phone, texts, scan_id, typed)
        finally:
            if scan_id:
                with self._lock:
                    phone.inflight.pop(scan_id).set()


    def _answer_texts(self, phone: PhoneRecord, texts: list[str], scan_id: str | None,
                      typed: bool) -> dict:
        answers = [self._one(phone, t, typed) for t in texts] or [
            {"status": "unreadable", "reason": "unreadable",
             "error": say(phone.lang, "phone.server.unreadable")}]
        reply = {"answers": answers, **self._totals(answers)}
        with self._lock:
            phone.scans += 1
            phone.history.extend(answers)
            self._recent.extend((phone.id, a) for a in answers)
            self._answered += len(answers)
            phone.failed_checks += sum(a.get("reason") == "check_failed" for a in answers)
            if phone.failed_checks >= MAX_FAILED_CHECKS and not self.phones.auto_allow:
                # guessing the check: the narrator must allow this phone again
                phone.allowed = False
                self._recent.append((phone.id, {"status": "blocked", "reason": "blocked"}))
                self._answered += 1
            if scan_id and not any(a.get("retry") for a in answers):
                phone.answers[scan_id] = reply
                while len(phone.answers) > HISTORY:
                    phone.answers.popitem(last=False)
        return reply

    def _card(self, text: str, typed: bool) -> qrpayload.Card:
        if typed:
            if not self.typing:
                raise _Answer("typing_off")
            try:
                return qrpayload.parse_printed(text, self.deck)
            except BadInput:
                raise _Answer("not_printed") from None
        try:
            return qrpayload.parse(text, self.key)
        except (BadInput, ValueError) as exc:
            # A text claiming to be one of this game's codes that is not a genuine one counts
            # as a failed check (and so toward sending the phone back to the narrator), whatever
            # is wrong with it; any other text is just not a card code.
            claimed = text.strip().upper().startswith(qrpayload.GAME)
            raise _Answer("check_failed" if claimed or "check failed" in str(exc)
                          else "not_code") from None

    def _one(self, phone: PhoneRecord, text: str, typed: bool) -> dict:
        try:
            card = self._card(text, typed)
        except _Answer as a:
            return {"status": "not_fate", "reason": a.reason,
                    "error": i18n.text_of(i18n.keyed(f"phone.server.answer.{a.reason}"), phone.lang)}
        if card.kind != "fate":
            return {"status": "not_fate", "reason": "not_fate", "serial": card.serial,
                    "label": card.label,
                    "error": say(phone.lang, "phone.server.answer.not_fate", serial=card.serial)}
        cmd = Command("curia_card", {"card": card.command_card(), "serial": card.serial},
                      source=f"phone:{phone.id}")
        with self._lock:   # the narrator may have refused it while its photo was read
            if not self.phones.may_count(phone):
                return {"status": "refused", "reason": "waiting", "serial": card.serial,
                        "label": card.label, "error": say(phone.lang, "phone.server.waiting")}
        try:
            reply = dict(self.submit(cmd))
        except Exception as exc:  # the rules' refusal (RuleError/BadInput), one line
            busy = isinstance(exc, TimeoutError)
            error = say(phone.lang, "phone.server.tablet_busy") if busy else i18n.text_of(exc, phone.lang)
            answer: dict[str, Any] = {"status": "refused", "reason": "rules", "serial": card.serial,
                      "label": card.label, "error": " ".join(error.split()) or type(exc).__name__}
            if busy:
                answer["retry"] = True  # the tablet was busy: a retry must really run again
            return answer
        reply.setdefault("status", "refused")
        if reply["status"] == "refused" and reply.get("message"):   # the rules' words, keyed
            reply["error"] = " ".join(i18n.text_of(reply["message"], phone.lang).split())
        return {**reply, "card": card.command_card(), "serial": card.serial,
                "label": card.label}

    def _totals(self, answers: list[dict]) -> dict:
        for a in reversed(answers):
            if "total" in a:
                return _totals_of(a)
        return self.current_totals()

    def current_totals(self) -> dict:
        if self.status is None:
            return {}
        try:
            s = self.status()
        except Exception as exc:
            log.warning("phone server: status() failed: %s", exc)
            return {}
        return _totals_of(s)

    def state(self, phone: PhoneRecord) -> dict:
        with self._lock:
            history = list(phone.history)
            allowed = phone.allowed
        out = {"phone": phone.id, "allowed": allowed, "typing": self.typing, "seat": phone.seat,
               "vote": self._vote_for(phone), "history": history}
        if allowed or phone.seat is None:
            out.update(self.current_totals())
        return out



def option_words(option: str, lang: str) -> str:
    """How a vote's option reads in ``lang``: the catalogue's words for exile/remain/red/grey/
    center, a player's name as it is."""
    key = f"vote.option.{option}"
    return say(lang, key) if i18n.has(key) else option


class _Answer(Exception):
    """A code that does not count, with the reason's key: what the tablet shows, and (as
    ``phone.server.answer.<reason>``) what the phone shows."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _totals_of(reply: dict) -> dict:
    """The running total and cards revealed (and of how many, when the rules say) for a phone."""
    out = {"total": reply.get("total"), "count": reply.get("count")}
    if reply.get("of") is not None:
        out["of"] = reply["of"]
    return out

