"""Admission: which phones the server knows, and what each may do.

The one record of the phones that joined (:class:`PhoneRecord`) and of the seat codes, kept
under one lock that the scans and ballots of :mod:`.server` share. Nothing here reads a request:
the routes of :mod:`.endpoints` pass in the token, seat code and address they read.

- joining needs the per-game secret (checked by the route); a phone is then issued its id and a
  session token, and nothing a request says about its own id is believed;
- a phone that joined only *waits*: it counts Curia cards once the narrator allows it
  (:meth:`Admission.allow`; a player cannot count a card from their hand from their own phone);
  waiting phones are capped per address and in all (when full, a new address takes the place of
  a crowded address's oldest), and allowed and seat phones are never pushed out by new ones nor
  counted as waiting;
- a refused phone (:meth:`Admission.refuse`) is forgotten at once and its address waits
  ``refused_seconds`` before joining again to wait;
- each player's seat code (:meth:`Admission.seat_token`) gives one phone the right to vote for
  that player; when the narrator frees the seat (:meth:`Admission.free_seat`) or refuses its
  phone, the seat gets a new code and the old one answers that it is no longer valid.
"""
from __future__ import annotations

import itertools
import secrets
import threading
from collections import Counter, OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from companion.core.clock import SYSTEM_CLOCK, Clock

from .httpd import Refused

MAX_PHONES = 32          # allowed and waiting phones together
MAX_WAITING = 8          # phones waiting for the narrator, in all ...
MAX_WAITING_PER_ADDRESS = 2  # ... and from one address
REFUSED_SECONDS = 300.0  # a refused phone's address may not join again as a waiting phone
HISTORY = 50
MAX_IN_FLIGHT = 3        # requests with a body (scans, photos, ballots) under way per phone
MAX_OLD_SEAT_CODES = 256  # retired seat codes remembered, to say "no longer valid"

_ids = itertools.count(1)


@dataclass
class PhoneRecord:
    """A phone as the server knows it: ``id`` is what the tablet shows ("Phone 3"), issued by
    the server; ``token`` is the session cookie only that phone holds."""

    id: str
    token: str
    address: str
    allowed: bool = False        # may count Curia cards
    lang: str = "en"             # the language its answers are in (its browser's, see words.py)
    seat: str | None = None      # the player this phone votes for (joined with their seat code)
    scans: int = 0
    failed_checks: int = 0
    # the answers it was given (JSON for the page), newest last
    history: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    # scan or ballot id -> the reply it got (a retry gets it again), oldest first
    answers: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    # scan_id -> Event, while it is answered
    inflight: dict[str, threading.Event] = field(default_factory=dict)
    next_ballot: float = float("-inf")            # when its next ballot may be recorded
    requests: int = 0                             # its requests with a body under way
    polls: int = 0                                # its table long polls so far (the last one waits)


class Admission:
    """The phones that joined, by id and by token, and the seat codes. ``lock`` guards them and
    every :class:`PhoneRecord`'s fields (the server's scans and ballots take it too)."""

    def __init__(self, *, clock: Clock = SYSTEM_CLOCK, auto_allow: bool = False,
                 refused_seconds: float = REFUSED_SECONDS) -> None:
        self.clock = clock
        self.auto_allow = auto_allow   # every phone counts as soon as it joins (the headless demo)
        self.refused_seconds = refused_seconds
        self.lock = threading.Lock()
        self._phones: OrderedDict[str, PhoneRecord] = OrderedDict()   # by id
        self._tokens: dict[str, str] = {}                              # token -> id
        self._refused: dict[str, float] = {}   # address -> until when it may not join to wait
        self._seat_tokens: dict[str, str] = {}   # seat code token -> player
        self._seat_phone: dict[str, str] = {}    # player -> id of the phone voting for them
        # codes of freed seats and refused seat phones -> player: "no longer valid"
        self._old_seat_tokens: OrderedDict[str, str] = OrderedDict()

    # --- the narrator, on the tablet ---------------------------------------------------------

    def devices(self) -> list[dict]:
        """The phones that joined: id, scans sent, allowed or waiting (for the tablet)."""
        with self.lock:
            return [{"id": p.id, "scans": p.scans, "allowed": p.allowed, "seat": p.seat}
                    for p in self._phones.values()]

    def allow(self, phone_id: str) -> bool:
        with self.lock:
            p = self._phones.get(phone_id)
            if p is None:
                return False
            p.allowed, p.failed_checks = True, 0
            return True

    def refuse(self, phone_id: str) -> bool:
        """Forget a phone: its token stops working, a scan of it still being answered does not
        count, and its address may not join as a waiting phone for ``refused_seconds`` (a
        phone refused to keep it out does not come straight back)."""
        with self.lock:
            p = self._phones.get(phone_id)
            if p is None:
                return False
            self._forget(p)
            if p.seat is not None:   # its seat code goes with it: the seat waits for a new scan
                self._new_seat_code(p.seat)
            now = self.clock.now()
            self._refused = {a: t for a, t in self._refused.items() if t > now}
            self._refused[p.address] = now + self.refused_seconds
            return True

    def _forget(self, p: PhoneRecord) -> None:
        del self._phones[p.id]
        self._tokens.pop(p.token, None)
        p.allowed = False
        if p.seat is not None and self._seat_phone.get(p.seat) == p.id:
            del self._seat_phone[p.seat]

    def seat_token(self, player: str) -> str:
        """The secret in ``player``'s own seat code: the phone that opens it votes for them."""
        with self.lock:
            token = next((t for t, p in self._seat_tokens.items() if p == player), None)
            if token is None:
                token = secrets.token_urlsafe(16)
                self._seat_tokens[token] = player
            return token

    def seats(self) -> dict[str, str]:
        """Player -> id of the phone that votes for them."""
        with self.lock:
            return dict(self._seat_phone)

    def free_seat(self, player: str) -> None:
        """The narrator frees a seat (a player changed phones): the seat goes to the next phone
        that scans its *new* code (the tablet shows it); the old code is no longer valid, so
        whoever photographed it cannot take the seat back."""
        with self.lock:
            pid = self._seat_phone.pop(player, None)
            if pid is not None and pid in self._phones:
                self._phones[pid].seat = None
            self._new_seat_code(player)

    def _new_seat_code(self, player: str) -> None:
        """Retire ``player``'s seat code (under the lock); :meth:`seat_token` makes a new one."""
        for token in [t for t, p in self._seat_tokens.items() if p == player]:
            del self._seat_tokens[token]
            self._old_seat_tokens[token] = player
        while len(self._old_seat_tokens) > MAX_OLD_SEAT_CODES:
            self._old_seat_tokens.popitem(last=False)

    def join_seat(self, seat_token: str | None, token: str | None, address: str) -> PhoneRecord:
        with self.lock:
            player = self._seat_tokens.get(seat_token or "")
            if player is None:
                if (seat_token or "") in self._old_seat_tokens:
                    raise Refused(403, "seat_code_old")
                raise Refused(403, "seat_code_wrong")
            pid = self._tokens.get(token or "")
            phone = self._phones.get(pid) if pid is not None else None
            holder = self._seat_phone.get(player)
            if holder is not None and (phone is None or holder != phone.id):
                raise Refused(409, "seat_taken", player=player, phone=holder)
            if phone is not None and phone.seat not in (None, player):
                raise Refused(409, "votes_for_other", player=phone.seat)
            if phone is None:
                if len(self._phones) >= MAX_PHONES:
                    raise Refused(429, "too_many_phones")
                phone = PhoneRecord(str(next(_ids)), secrets.token_urlsafe(24), address)
                self._phones[phone.id] = phone
                self._tokens[phone.token] = phone.id
            phone.seat = player
            self._seat_phone[player] = phone.id
            return phone

    def join(self, token: str | None, address: str) -> PhoneRecord:
        """The phone holding ``token`` (a rejoin keeps its id and history), or a new phone with
        a new id and token, waiting for the narrator.

        Waiting phones are capped in all and per address. When they are full, a phone from an
        address with none waiting takes the place of the oldest waiting phone of an address
        with the most (two): whoever holds the join code cannot fill the list from a few
        addresses and keep a real phone out. An address the narrator refused a phone from
        waits ``refused_seconds`` before it may join again. Seat phones (voting only) and
        allowed phones are never waiting and never pushed out."""
        with self.lock:
            pid = self._tokens.get(token or "")
            if pid is not None:
                return self._phones[pid]
            if self._refused.get(address, float("-inf")) > self.clock.now():
                raise Refused(429, "refused_recently")
            waiting = [p for p in self._phones.values() if not p.allowed and p.seat is None]
            mine = sum(p.address == address for p in waiting)
            if mine >= MAX_WAITING_PER_ADDRESS:
                raise Refused(429, "too_many_waiting")
            if len(self._phones) >= MAX_PHONES or len(waiting) >= MAX_WAITING:
                crowd, most = Counter(p.address for p in waiting).most_common(1)[0] \
                    if waiting else (None, 0)
                if mine or most < MAX_WAITING_PER_ADDRESS:
                    raise Refused(429, "too_many_waiting")
                self._forget(next(p for p in waiting if p.address == crowd))
            p = PhoneRecord(str(next(_ids)), secrets.token_urlsafe(24), address,
                            allowed=self.auto_allow)
            self._phones[p.id] = p
            self._tokens[p.token] = p.id
            return p

    def phone_by_token(self, token: str | None) -> PhoneRecord | None:
        with self.lock:
            pid = self._tokens.get(token or "")
            return self._phones.get(pid) if pid is not None else None

    def may_count_now(self, phone: PhoneRecord) -> bool:
        with self.lock:
            return self.may_count(phone)

    @contextmanager
    def in_flight(self, phone: PhoneRecord) -> Iterator[None]:
        """One of the phone's few requests with a body under way (refused beyond
        ``MAX_IN_FLIGHT``): one phone's token cannot hold many connections."""
        with self.lock:
            if phone.requests >= MAX_IN_FLIGHT:
                raise Refused(429, "too_many_requests", n=MAX_IN_FLIGHT)
            phone.requests += 1
        try:
            yield
        finally:
            with self.lock:
                phone.requests -= 1

    @contextmanager
    def polling(self, phone: PhoneRecord) -> Iterator[Callable[[], bool]]:
        """The phone's one table long poll: a newer one ends the one waiting (a reloaded page),
        so one phone's token holds at most one waiting connection. Yields ``mine()``: whether
        this poll is still the phone's latest."""
        with self.lock:
            phone.polls += 1
            mine = phone.polls
        yield lambda: phone.polls == mine

    def may_count(self, phone: PhoneRecord) -> bool:
        """Whether the phone may count now (under the lock): allowed, and not refused since
        its request came in (a request holds on to the phone's record while it waits)."""
        return phone.allowed and self._phones.get(phone.id) is phone
