"""The small web server phones join to scan Fate cards at the Curia reveal.

A device thread like the serial reader: it never touches game state or widgets. Each scan it
reads and validates becomes ``Command("curia_card", {"card": {"knives": n} | {"doves": n},
"serial": s}, source="phone:<id>")`` handed to ``submit`` (supplied by the app, which runs it on
the main thread against the game's rules and journal and returns ``{"status": "counted" |
"duplicate" | "claimed" | ..., "total": int, "count": int}``). The server keeps no total of its
own: what a phone is told comes from that reply, so the journal stays the one truth.

Who may count (issue 15's attacks from the table's own Wi-Fi):
- joining needs the per-game secret from the tablet's join code (``/join?k=SECRET``); the server
  then issues the phone its id and a session token (a cookie named for this port only); nothing
  a request says about its own id is believed;
- a phone that joined only *waits*: its scans count once the narrator allows it on the tablet
  (a player cannot count a card from their hand from their own phone); a phone sending codes
  that fail the deck's check goes back to waiting; waiting phones are capped per address and in
  all (when full, a new address takes the place of a crowded address's oldest; a refused
  phone's address waits before joining again), and allowed and seat phones are never pushed
  out by new ones nor counted as waiting; a refused phone stops counting at once;
- typed codes (the sticker's small type, which has no check) count only while the narrator
  allows typing, and only if that deck printed that card under that serial.

What keeps the tablet answering:
- it binds one address (the LAN interface, or loopback) and answers only peers whose address is
  private or loopback, with a ``Host`` header naming this server (no DNS rebinding);
- each connection has one deadline for its request line and headers and one for its whole
  request, whatever it sends (a byte every few seconds does not hold a slot); connections are
  capped in all and per address, and when all are taken a new one takes the slot of an idle
  one that has sent no request head; the header block is capped in bytes and lines before anything
  is parsed, and cookies are read with a plain split (not ``http.cookies``);
- a token bucket per address limits the request rate; bodies need a plain decimal
  Content-Length under a per-route limit; only the expected types and JSON fields are accepted;
- photos are read in a worker process with a time, memory and codes-per-photo cap
  (:mod:`.decoder`), first come first served, one per phone at a time; a text scan never
  waits for a photo; a seat's phone records at most one ballot a second;
- a retry carrying the same ``scan_id`` gets the first answer again instead of being counted
  twice. Every refusal is one line; pages a person opens get a page, never raw JSON.
"""
from __future__ import annotations

import hmac
import html
import http.server
import ipaddress
import itertools
import json
import logging
import re
import secrets
import select
import socket
import ssl
import threading
import time
import urllib.parse
from collections import Counter, OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from companion.core import i18n
from companion.core.clock import SYSTEM_CLOCK
from companion.core.events import BadInput, Command
from vision.qr import payload as qrpayload

from .decoder import TooSlow
from .words import page_language, render_page, say

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PAGES = {"/": ("page.html", "text/html; charset=utf-8"),
         "/page.js": ("page.js", "text/javascript; charset=utf-8"),
         "/page.css": ("page.css", "text/css; charset=utf-8"),
         # live scanning where the browser has no BarcodeDetector (see static/vendor/README.txt)
         "/vendor/barcode-detector-ponyfill.js": ("vendor/barcode-detector-ponyfill.js",
                                                  "text/javascript; charset=utf-8"),
         "/vendor/zxing_reader.wasm": ("vendor/zxing_reader.wasm", "application/wasm")}
# answered in JSON, not as a page, when refused
API = {"/state", "/scan", "/photo", "/ballot", *(p for p in PAGES if p != "/")}
PHOTO_TYPES = {"image/jpeg", "image/png", "image/webp"}
MAX_PHOTO = 4 * 1024 * 1024
MAX_JSON = 1024
MAX_PHONES = 32          # allowed and waiting phones together
MAX_WAITING = 8          # phones waiting for the narrator, in all ...
MAX_WAITING_PER_ADDRESS = 2  # ... and from one address
MAX_FAILED_CHECKS = 5    # codes failing the deck's check before a phone must be allowed again
REFUSED_SECONDS = 300.0  # a refused phone's address may not join again as a waiting phone
BALLOT_SECONDS = 1.0     # a seat's phone records at most one ballot this often
PHOTO_REST_SECONDS = 10.0  # a phone whose photo ran past the reader's time cap waits this long
HISTORY = 50
MAX_HEAD = 8 * 1024      # request line + headers: a phone's browser sends under 2 KB
MAX_HEAD_LINES = 40
HEAD_SECONDS = 10.0      # to send the request line and headers
REQUEST_SECONDS = 60.0   # to send the whole request (a 4 MB photo on a slow Wi-Fi)
# a phone that hung up or stopped reading: its answer is dropped, with no traceback
HUNG_UP = (ConnectionError, TimeoutError, ssl.SSLError)
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_LENGTH = re.compile(r"^[0-9]{1,9}$")  # ASCII digits only: "²".isdigit() is True
SECURITY_HEADERS = {
    # the page loads nothing from anywhere but this server
    # ('wasm-unsafe-eval' lets the page compile the QR reader's WebAssembly, nothing else)
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; "
                               "img-src 'self' blob: data:; "
                               "media-src 'self' blob:; connect-src 'self'; "
                               "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the join link's secret must not leak in a Referer
    "Cache-Control": "no-store",
}


def lan_address() -> str:
    """This machine's address on the local network (the route a LAN packet would take).

    Connecting a UDP socket sends nothing; it only asks the kernel which interface it would use.
    Falls back to loopback when there is no network.
    """
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.168.255.255", 9))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


# What "the local network" means: RFC 1918 home/office ranges, link-local, loopback, and IPv6
# unique-local. Not ipaddress' is_private, which also counts documentation and other reserved
# ranges that are not anyone's LAN.
LOCAL_NETWORKS = [ipaddress.ip_network(n) for n in (
    "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
    "::1/128", "fc00::/7", "fe80::/10")]


def is_local_peer(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in net for net in LOCAL_NETWORKS)


class RateLimiter:
    """A token bucket per client address: ``burst`` requests at once, ``per_second`` after."""

    def __init__(self, burst: float = 30, per_second: float = 5, clock=SYSTEM_CLOCK,
                 max_clients: int = 256):
        self.burst, self.rate, self.clock = burst, per_second, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_clients

    def allow(self, client: str, cost: float = 1.0) -> bool:
        now = self.clock.now()
        with self._lock:
            tokens, last = self._buckets.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            ok = tokens >= cost
            if ok:
                tokens -= cost
            self._buckets[client] = (tokens, now)
            while len(self._buckets) > self._max:
                self._buckets.popitem(last=False)
            return ok


class _Refused(Exception):
    """A request we answer with an HTTP error and a one-line reason: the catalogue's
    ``phone.server.<reason>`` in the phone's language (``str()`` is English, for logs)."""

    def __init__(self, code: int, reason: str, **values):
        self.message = i18n.keyed(f"phone.server.{reason}", **values)
        super().__init__(i18n.text_of(self.message, "en"))
        self.code, self.reason = code, reason

    def text(self, lang: str) -> str:
        return i18n.text_of(self.message, lang)


class _Late(Exception):
    """A connection past its deadline: closed without an answer."""


class _Reader:
    """The connection's input with deadlines: ``recv`` never waits past the deadline in force,
    however slowly the peer trickles bytes (a per-read timeout alone lets one byte every 10 s
    hold the connection for ever). Offers what http.server reads with: readline and read."""

    def __init__(self, sock: socket.socket, deadline: float):
        self.sock, self.deadline = sock, deadline
        self.buf = bytearray()

    def _fill(self) -> bool:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Late()
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except (socket.timeout, TimeoutError):
            raise _Late() from None
        self.buf += chunk
        return bool(chunk)

    def head(self, limit: int, lines: int) -> bytes:
        """The request line and headers, up to the blank line; refused beyond the caps before
        any of it is parsed."""
        while True:
            end = self.buf.find(b"\r\n\r\n")
            end = end + 4 if end >= 0 else -1
            if end < 0 and self.buf.find(b"\n\n") >= 0:
                end = self.buf.find(b"\n\n") + 2
            if end >= 0:
                head = bytes(self.buf[:end])
                if end > limit:
                    raise _Refused(431, "headers_too_big", limit=limit)
                if head.count(b"\n") > lines + 1:
                    raise _Refused(431, "too_many_headers", lines=lines)
                return head
            if len(self.buf) > limit:
                raise _Refused(431, "headers_too_big", limit=limit)
            if not self._fill():
                return bytes(self.buf)  # the peer closed: http.server sees a short request

    def readline(self, limit: int = -1) -> bytes:
        while True:
            i = self.buf.find(b"\n")
            if i >= 0 or (0 <= limit <= len(self.buf)):
                n = i + 1 if i >= 0 else limit
                if 0 <= limit < n:
                    n = limit
                out = bytes(self.buf[:n])
                del self.buf[:n]
                return out
            if not self._fill():
                out = bytes(self.buf)
                self.buf.clear()
                return out

    def read(self, n: int = -1) -> bytes:
        while n < 0 or len(self.buf) < n:
            if not self._fill():
                break
        n = len(self.buf) if n < 0 else min(n, len(self.buf))
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def close(self):
        pass


class _Conn:
    """A connection as the slot keeper sees it: ``head`` once its request head is in (from then
    on it is never dropped for another), ``gone`` once it was dropped."""

    __slots__ = ("addr", "sock", "head", "gone")

    def __init__(self, addr: str, sock: socket.socket):
        self.addr, self.sock, self.head, self.gone = addr, sock, False, False

    def drop(self) -> None:
        self.gone = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)   # its thread's read ends at once
        except OSError:
            pass


class _CappedServer(http.server.ThreadingHTTPServer):
    """At most ``MAX_CONNECTIONS`` connections at once, and ``PER_ADDRESS`` from one address: a
    flood of connections from one device neither starts hundreds of threads nor takes the
    slots of the other phones; the extra ones are closed at once.

    When every slot is taken, a new connection takes the slot of one that has not sent its
    request head yet (idle, or trickling it): the oldest of the address holding the most of
    those. Connections that only sit there (a few addresses each reopening 6 the moment they
    are closed) cannot keep a phone out, since a phone sends its head as soon as it connects;
    a request being answered is never dropped."""

    daemon_threads = True
    MAX_CONNECTIONS = 32
    PER_ADDRESS = 6
    request_queue_size = 64  # a burst of phones connecting is queued, not dropped and retried

    def __init__(self, *args, **kwargs):
        self._conns: dict[Any, _Conn] = {}   # by accepted socket, oldest first
        self._conns_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def _idlest(self) -> Any:
        """The socket of the connection to drop for a new one, or None."""
        idle = [(sock, c) for sock, c in self._conns.items() if not c.head]
        if not idle:
            return None
        crowd = Counter(c.addr for _, c in idle).most_common(1)[0][0]
        return next(sock for sock, c in idle if c.addr == crowd)

    def process_request(self, request, client_address):
        addr = client_address[0]
        with self._conns_lock:
            full = len(self._conns) >= self.MAX_CONNECTIONS
            victim = self._idlest() if full else None
            if (sum(c.addr == addr for c in self._conns.values()) >= self.PER_ADDRESS
                    or (full and victim is None)):
                self.shutdown_request(request)
                return
            if victim is not None:
                self._conns.pop(victim).drop()
            self._conns[request] = _Conn(addr, request)
        try:
            super().process_request(request, client_address)
        except Exception:
            self._release(request)
            raise

    def conn_of(self, request) -> _Conn | None:
        with self._conns_lock:
            return self._conns.get(request)

    def head_in(self, conn: _Conn) -> bool:
        """Its request head is in: the connection keeps its slot (False: it was dropped)."""
        with self._conns_lock:
            conn.head = True
            return not conn.gone

    def moved(self, conn: _Conn, sock) -> None:
        with self._conns_lock:
            conn.sock = sock

    def _release(self, request):
        with self._conns_lock:
            self._conns.pop(request, None)   # a dropped one is gone already

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(request)


class _PhotoLine:
    """Phones' photos go to the one photo reader first come, first served, one photo per phone
    at a time (a phone sending many at once does not push the others back), and a phone whose
    photo ran past the reader's time cap rests a little before its next one."""

    def __init__(self, wait: float, rest: float, clock=SYSTEM_CLOCK):
        self.wait, self.rest, self.clock = wait, rest, clock
        self._cond = threading.Condition()
        self._line: deque[str] = deque()        # phone ids, the one being read first
        self._resting: dict[str, float] = {}    # phone id -> when it may send again

    @contextmanager
    def turn(self, phone_id: str):
        """Waits for this phone's turn at the reader; yields a ``rest()`` to call when its
        photo ran past the time cap."""
        with self._cond:
            if phone_id in self._line:
                raise _Refused(429, "photo_pending")
            now = self.clock.now()
            self._resting = {p: t for p, t in self._resting.items() if t > now}
            if phone_id in self._resting:
                raise _Refused(429, "photo_rest", seconds=int(self._resting[phone_id] - now) + 1)
            self._line.append(phone_id)
            if not self._cond.wait_for(lambda: self._line[0] == phone_id, self.wait):
                self._line.remove(phone_id)
                self._cond.notify_all()
                raise _Refused(503, "reader_busy")

        def rest():
            with self._cond:
                self._resting[phone_id] = self.clock.now() + self.rest
        try:
            yield rest
        finally:
            with self._cond:
                self._line.popleft()
                self._cond.notify_all()


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
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))
    answers: OrderedDict = field(default_factory=OrderedDict)
    inflight: dict = field(default_factory=dict)   # scan_id -> Event, while it is answered
    next_ballot: float = float("-inf")            # when its next ballot may be recorded


class PhoneServer:
    """Serve the scanning page; turn valid scans into ``curia_card`` commands for ``submit``.

    ``submit(command) -> reply dict`` and ``status() -> {"total": int, "count": int}`` come from
    the app (both run the game's rules on the main thread). ``decoder(photo bytes) -> [texts]``
    reads an uploaded photo, raising BadInput for one it will not read (default: a
    :class:`~companion.phone.decoder.DecodeWorker`). ``auto_allow`` lets every phone count as
    soon as it joins (the headless demo, where no narrator watches a tablet).
    """

    def __init__(self, submit: Callable[[Command], dict], key: bytes, *,
                 status: Callable[[], dict] | None = None, host: str | None = None,
                 port: int = 0, secret: str | None = None, clock=SYSTEM_CLOCK,
                 max_photo: int = MAX_PHOTO, rate: RateLimiter | None = None,
                 decoder: Callable | None = None, deck: list | None = None,
                 auto_allow: bool = False, typing: bool = False,
                 vote: Callable[[str], dict | None] | None = None,
                 cast: Callable[[Command], object] | None = None,
                 head_seconds: float = HEAD_SECONDS, request_seconds: float = REQUEST_SECONDS,
                 answer_seconds: float = 30.0, tls: ssl.SSLContext | None = None,
                 language: Callable[[], str] = i18n.language,
                 ballot_seconds: float = BALLOT_SECONDS, refused_seconds: float = REFUSED_SECONDS,
                 photo_rest_seconds: float = PHOTO_REST_SECONDS):
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
        self.ballot_seconds, self.refused_seconds = ballot_seconds, refused_seconds
        self._refused: dict[str, float] = {}   # address -> until when it may not join to wait
        self._worker = None
        if decoder is None:
            from .decoder import DecodeWorker
            self._worker = DecodeWorker()
            decoder = self._worker.decode
        self.decoder = decoder
        if deck is None:
            deck = qrpayload.deck_cards(qrpayload.load_deck(), kinds=("fate", "sway"))
        self.deck = {c.serial: c for c in deck}
        self.auto_allow = auto_allow
        self.typing = typing   # the narrator allows typed codes (damaged stickers)
        self.head_seconds, self.request_seconds = head_seconds, request_seconds
        self.answer_seconds = answer_seconds  # to read a photo and answer, after the request
        self.tls = tls  # the table's certificate (companion.phone.tls): https, a secure context
        self.language = language  # the tablet's language: a phone's when its browser's is not known
        # Phones vote: ``vote(lang)`` is the table view of the vote in progress (who voted,
        # never what), its question in ``lang``; ``cast(command)`` records a ballot or raises
        # the rules' refusal.
        self.vote_view, self.cast = vote, cast
        self._seat_tokens: dict[str, str] = {}   # seat code token -> player
        self._seat_phone: dict[str, str] = {}    # player -> id of the phone voting for them
        self._lock = threading.Lock()
        self._phones: OrderedDict[str, PhoneRecord] = OrderedDict()   # by id
        self._tokens: dict[str, str] = {}                              # token -> id
        self._recent: deque = deque(maxlen=HISTORY)  # (phone, answer), newest last, for the tablet
        self._answered = 0  # answers given since start: the tablet asks for the ones it has not shown
        self.photos = _PhotoLine(answer_seconds, photo_rest_seconds, clock)
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> "PhoneServer":
        server = self

        class Handler(_Handler):
            phone_server = server

        self._httpd = _CappedServer((self.host, self.port), Handler)
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

    # --- the narrator, on the tablet ---------------------------------------------------------

    def devices(self) -> list[dict]:
        """The phones that joined: id, scans sent, allowed or waiting (for the tablet)."""
        with self._lock:
            return [{"id": p.id, "scans": p.scans, "allowed": p.allowed, "seat": p.seat}
                    for p in self._phones.values()]

    def allow(self, phone_id: str) -> bool:
        with self._lock:
            p = self._phones.get(phone_id)
            if p is None:
                return False
            p.allowed, p.failed_checks = True, 0
            return True

    def refuse(self, phone_id: str) -> bool:
        """Forget a phone: its token stops working, a scan of it still being answered does not
        count, and its address may not join as a waiting phone for ``refused_seconds`` (a
        phone refused to keep it out does not come straight back)."""
        with self._lock:
            p = self._phones.get(phone_id)
            if p is None:
                return False
            self._forget(p)
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

    def seat_url(self, player: str) -> str:
        """The link in ``player``'s own seat code: the phone that opens it votes for them."""
        with self._lock:
            token = next((t for t, p in self._seat_tokens.items() if p == player), None)
            if token is None:
                token = secrets.token_urlsafe(16)
                self._seat_tokens[token] = player
        return f"{self.base_url}/seat?k={token}"

    def seats(self) -> dict[str, str]:
        """Player -> id of the phone that votes for them."""
        with self._lock:
            return dict(self._seat_phone)

    def free_seat(self, player: str) -> None:
        """The narrator frees a seat (a player changed phones): its code works once more."""
        with self._lock:
            pid = self._seat_phone.pop(player, None)
            if pid is not None and pid in self._phones:
                self._phones[pid].seat = None

    def join_seat(self, seat_token: str | None, token: str | None, address: str) -> PhoneRecord:
        with self._lock:
            player = self._seat_tokens.get(seat_token or "")
            if player is None:
                raise _Refused(403, "seat_code_wrong")
            pid = self._tokens.get(token or "")
            phone = self._phones.get(pid) if pid is not None else None
            holder = self._seat_phone.get(player)
            if holder is not None and (phone is None or holder != phone.id):
                raise _Refused(409, "seat_taken", player=player, phone=holder)
            if phone is not None and phone.seat not in (None, player):
                raise _Refused(409, "votes_for_other", player=phone.seat)
            if phone is None:
                if len(self._phones) >= MAX_PHONES:
                    raise _Refused(429, "too_many_phones")
                phone = PhoneRecord(str(next(_ids)), secrets.token_urlsafe(24), address)
                self._phones[phone.id] = phone
                self._tokens[phone.token] = phone.id
            phone.seat = player
            self._seat_phone[player] = phone.id
            return phone

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
                   if vote.get("allow_self", True) or o != phone.seat]
        weights = vote.get("weights") or {}
        from companion.core import i18n  # the question may be a message as data (i18n.keyed)
        return {"vote_id": vote["vote_id"], "question": i18n.text_of(vote.get("question", "")),
                "options": options, "abstain": bool(vote.get("allow_abstain")),
                "weight": weights.get(phone.seat), "voted": phone.seat in vote.get("voted", ())}

    def ballot(self, phone: PhoneRecord, vote_id: str, option, ballot_id: str | None) -> dict:
        with self._lock:
            if ballot_id and ballot_id in phone.answers:
                return dict(phone.answers[ballot_id], replayed=True)
            # Each ballot is a journal write on the tablet's main thread: at most one a
            # ``ballot_seconds`` per phone (the page sends one per vote; a change of mind
            # a second later is still recorded).
            now = self.clock.now()
            if now < phone.next_ballot:
                raise _Refused(429, "ballot_too_fast")
            phone.next_ballot = now + self.ballot_seconds
        if phone.seat is None or self.cast is None:
            raise _Refused(403, "no_seat")
        vote = self._vote_for(phone)
        if vote is None or vote["vote_id"] != vote_id:
            raise _Refused(409, "vote_closed")
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

    def join(self, token: str | None, address: str) -> PhoneRecord:
        """The phone holding ``token`` (a rejoin keeps its id and history), or a new phone with
        a new id and token, waiting for the narrator.

        Waiting phones are capped in all and per address. When they are full, a phone from an
        address with none waiting takes the place of the oldest waiting phone of an address
        with the most (two): whoever holds the join code cannot fill the list from a few
        addresses and keep a real phone out. An address the narrator refused a phone from
        waits ``refused_seconds`` before it may join again. Seat phones (voting only) and
        allowed phones are never waiting and never pushed out."""
        with self._lock:
            pid = self._tokens.get(token or "")
            if pid is not None:
                return self._phones[pid]
            if self._refused.get(address, float("-inf")) > self.clock.now():
                raise _Refused(429, "refused_recently")
            waiting = [p for p in self._phones.values() if not p.allowed and p.seat is None]
            mine = sum(p.address == address for p in waiting)
            if mine >= MAX_WAITING_PER_ADDRESS:
                raise _Refused(429, "too_many_waiting")
            if len(self._phones) >= MAX_PHONES or len(waiting) >= MAX_WAITING:
                crowd, most = Counter(p.address for p in waiting).most_common(1)[0] \
                    if waiting else (None, 0)
                if mine or most < MAX_WAITING_PER_ADDRESS:
                    raise _Refused(429, "too_many_waiting")
                self._forget(next(p for p in waiting if p.address == crowd))
            p = PhoneRecord(str(next(_ids)), secrets.token_urlsafe(24), address,
                            allowed=self.auto_allow)
            self._phones[p.id] = p
            self._tokens[p.token] = p.id
            return p

    def phone_by_token(self, token: str | None) -> PhoneRecord | None:
        with self._lock:
            pid = self._tokens.get(token or "")
            return self._phones.get(pid) if pid is not None else None

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
                raise _Refused(503, "scan_in_progress")
        return None

    def answer_texts(self, phone: PhoneRecord, texts: list[str], scan_id: str | None,
                     typed: bool = False) -> dict:
        """Validate and submit each decoded (or typed) text; the reply a phone shows."""
        replayed = self.replay(phone, scan_id)
        if replayed is not None:
            return replayed
        with self._lock:
            if not self._may_count(phone):
                raise _Refused(403, "waiting")
            if scan_id:
                if scan_id in phone.inflight:   # two copies at once: the later one waits
                    raise _Refused(503, "scan_in_progress")
                phone.inflight[scan_id] = threading.Event()
        try:
            return self._answer_texts(phone, texts, scan_id, typed)
        finally:
            if scan_id:
                with self._lock:
                    phone.inflight.pop(scan_id).set()

    def _may_count(self, phone: PhoneRecord) -> bool:
        """Whether the phone may count now (under the lock): allowed, and not refused since
        its request came in (a request holds on to the phone's record while it waits)."""
        return phone.allowed and self._phones.get(phone.id) is phone

    def _answer_texts(self, phone, texts, scan_id, typed) -> dict:
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
            if phone.failed_checks >= MAX_FAILED_CHECKS and not self.auto_allow:
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
            if not self._may_count(phone):
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

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _totals_of(reply: dict) -> dict:
    """The running total and cards revealed (and of how many, when the rules say) for a phone."""
    out = {"total": reply.get("total"), "count": reply.get("count")}
    if reply.get("of") is not None:
        out["of"] = reply["of"]
    return out


def cookies(header: str) -> dict[str, str]:
    """``name=value`` pairs of a (size-capped) Cookie header, by plain splitting: Python's
    cookie parser is quadratic on crafted input (CVE-2024-7592) and is not needed here."""
    out = {}
    for part in header.split(";", 40)[:40]:
        name, sep, value = part.strip().partition("=")
        if sep and name and name not in out:
            out[name] = value.strip().strip('"')
    return out


REFUSED_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{heading}</title><link rel="stylesheet" href="/page.css"></head>
<body><main><h1>{heading}</h1>
<section class="answer refused"><div id="answer-status">{title}</div>
<div id="answer-detail">{message}</div></section>
<p class="note">{note}</p>
</main></body></html>
"""
REFUSED_TITLES = {403: "phone.server.page_not_joined", 429: "phone.server.page_too_many"}


class _Handler(http.server.BaseHTTPRequestHandler):
    phone_server: PhoneServer
    server: _CappedServer
    server_version = "TableCompanion"
    sys_version = ""

    def log_message(self, fmt, *args):  # through logging, not stderr
        log.debug("phone %s: " + fmt, self.client_address[0], *args)

    # --- the connection: deadlines and caps before anything is parsed -----------------------

    def setup(self):
        ps = self.phone_server
        self._start = time.monotonic()
        self._conn = self.server.conn_of(self.request)
        # Whatever the peer does, its connection ends at this deadline; the request head (a TLS
        # handshake included) and the whole request have their own, shorter ones.
        self._timer = threading.Timer(ps.request_seconds + ps.answer_seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()
        self._gone = self._conn is None   # dropped for a newer one before it started
        if ps.tls is not None and not self._gone:
            try:
                self.request = self._handshake(ps.tls, self._start + ps.head_seconds)
            except Exception:  # not TLS, a phone refusing the certificate, too slow, or dropped
                self._gone = True   # (shut down mid-handshake, ssl raises more than SSLError)
        super().setup()
        self._file = self.rfile  # http.server's own, unused: closed in finish()
        self.rfile = _Reader(self.connection, self._start + ps.head_seconds)

    def _handshake(self, context: ssl.SSLContext, deadline: float) -> ssl.SSLSocket:
        """The TLS handshake, done by ``deadline`` however the peer trickles it (a blocking
        handshake's timeout is per read: a byte every few seconds would hold it for ever)."""
        tls = context.wrap_socket(self.request, server_side=True, do_handshake_on_connect=False)
        self.server.moved(self._conn, tls)   # what a drop shuts down from now on
        try:
            tls.setblocking(False)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or self._conn.gone:
                    raise _Late()
                try:
                    tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    select.select([tls], [], [], left)
                except ssl.SSLWantWriteError:
                    select.select([], [tls], [], left)
            tls.setblocking(True)
            return tls
        except BaseException:
            tls.close()   # it holds the connection now (the plain socket was detached)
            raise

    def _expire(self):
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass

    def finish(self):
        self._timer.cancel()
        try:
            super().finish()
        finally:
            self._file.close()
            if isinstance(self.request, ssl.SSLSocket):
                self.request.close()

    def handle(self):
        self.close_connection = True  # one request per connection (HTTP/1.0)
        if self._gone:
            return
        try:
            self.rfile.head(MAX_HEAD, MAX_HEAD_LINES)
        except _Late:
            return
        except _Refused as r:
            self.command, self.request_version, self.path = "GET", "HTTP/1.0", "/state"
            self.requestline = "(headers too large)"
            # the headers are not read: the tablet's language
            try:
                self._json(r.code, {"status": "refused", "reason": r.reason,
                                    "error": r.text(self.phone_server.language())})
            except HUNG_UP:   # the peer hung up: nothing to tell, nothing to log
                pass
            return
        except OSError:
            return
        if not self.server.head_in(self._conn):
            return   # dropped for a newer connection while its head trickled in
        # the headers are in: the body has until the whole request's deadline
        self.rfile.deadline = self._start + self.phone_server.request_seconds
        try:
            self.handle_one_request()
        except _Late:
            pass

    def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None,
              cookies_: Sequence[str] = ()):
        self.connection.settimeout(10)  # a phone that stops reading does not hold the thread
        self.send_response(code)
        for k, v in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(k, v)
        for c in cookies_:
            self.send_header("Set-Cookie", c)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code: int, obj: dict, headers: dict | None = None):
        self._send(code, json.dumps(obj).encode(), "application/json", headers)

    def _wants_page(self) -> bool:
        """A person opened this address: answer with a page, never raw JSON."""
        path = (getattr(self, "path", None) or "").split("?", 1)[0]
        return getattr(self, "command", None) in ("GET", "HEAD") and path not in API

    def _lang(self) -> str:
        """The phone's language: its browser's, where the app has that catalogue, else the
        tablet's (before the headers are read too)."""
        headers = getattr(self, "headers", None)
        return page_language(headers.get("Accept-Language") if headers else None,
                             self.phone_server.language())

    def _refuse(self, r: _Refused):
        self.close_connection = True
        lang = self._lang()
        message = r.text(lang)
        if self._wants_page():
            page = REFUSED_PAGE.format(
                lang=lang, heading=html.escape(say(lang, "phone.server.page_heading")),
                title=html.escape(say(lang, REFUSED_TITLES.get(r.code, "phone.server.page_refused"))),
                message=html.escape(message), note=html.escape(say(lang, "phone.server.page_note")))
            self._send(r.code, page.encode(), "text/html; charset=utf-8")
        else:
            self._json(r.code, {"status": "refused", "reason": r.reason, "error": message})

    def send_error(self, code, message=None, explain=None):
        # http.server's own errors (bad request line, unsupported method) as one line too
        try:
            log.debug("phone %s: %s", self.client_address[0], message)
            self._refuse(_Refused(code, "bad_request", status=code))
        except Exception:
            pass

    def _cookies(self) -> dict[str, str]:
        return cookies(self.headers.get("Cookie", ""))

    def _check_common(self, cost: float):
        ps = self.phone_server
        peer = self.client_address[0]
        if not is_local_peer(peer):
            raise _Refused(403, "not_local", peer=peer)
        host = (self.headers.get("Host") or "").strip().lower()
        allowed = {f"{ps.host}:{ps.port}".lower()}
        if ps.host in ("127.0.0.1", "::1"):
            allowed.add(f"localhost:{ps.port}")
        if host not in allowed:
            raise _Refused(421, "wrong_host", host=repr(host[:60]))
        if not ps.rate.allow(peer, cost):
            raise _Refused(429, "too_fast")

    def _secret_ok(self, given: str | None) -> bool:
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "replace"),
                                   self.phone_server.secret.encode())

    def _joined_phone(self) -> PhoneRecord:
        """The phone whose server-issued token this request carries; refuses one that has none."""
        ps = self.phone_server
        phone = ps.phone_by_token(self._cookies().get(ps.cookie_name))
        if phone is None:
            raise _Refused(403, "not_joined")
        phone.lang = self._lang()
        return phone

    def _body(self, limit: int, types: set[str]) -> tuple[bytes, str]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise _Refused(411, "chunked")
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype not in types:
            raise _Refused(415, "content_type", type=repr(ctype[:40]),
                           expected=" | ".join(sorted(types)))
        length = (self.headers.get("Content-Length") or "").strip()
        if not _LENGTH.match(length):
            raise _Refused(411, "no_length")
        n = int(length)
        if n > limit:
            raise _Refused(413, "too_big", n=n, limit=limit)
        data = self.rfile.read(n)
        if len(data) != n:
            raise _Refused(400, "short_body")
        return data, ctype

    def _json_body(self, fields: set[str]) -> dict:
        """A small JSON object holding no other fields than ``fields``."""
        data, _ = self._body(MAX_JSON, {"application/json"})
        try:
            obj = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested 1000 deep
            raise _Refused(400, "not_json") from None
        if not isinstance(obj, dict) or not set(obj) <= fields:
            raise _Refused(400, "json_fields", fields=", ".join(sorted(fields)))
        return obj

    def _scan_id(self, value) -> str | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str) or not _ID.match(value):
            raise _Refused(400, "scan_id")
        return value

    def _guard(self, fn, cost=1.0):
        try:
            try:
                self._check_common(cost)
                fn()
            except _Refused as r:
                self._refuse(r)
            except (_Late, *HUNG_UP):
                raise
            except Exception:  # a bug here must not kill the server thread nor leak a traceback
                log.exception("phone server: request failed")
                self._refuse(_Refused(500, "internal"))
        except HUNG_UP:   # the phone hung up (or stopped reading), before or during the answer
            self.close_connection = True

    # --- routes ----------------------------------------------------------------------------

    def do_GET(self):
        self._guard(self._get)

    def do_HEAD(self):
        self._guard(self._get)

    def do_POST(self):
        path = self.path.split("?", 1)[0]
        self._guard(self._post, cost=4.0 if path == "/photo" else 1.0)

    def _get(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path in ("/join", "/seat"):
            self._join(url.query, seat=url.path == "/seat")
            return
        if url.path == "/page.css":  # the refusal page is styled too; nothing secret in it
            self._send(200, (STATIC / "page.css").read_bytes(), PAGES["/page.css"][1])
            return
        phone = self._joined_phone()
        if url.path == "/":   # the page in the phone's language
            page = render_page((STATIC / "page.html").read_text(encoding="utf-8"), phone.lang)
            self._send(200, page.encode(), PAGES["/"][1])
        elif url.path in PAGES:
            name, ctype = PAGES[url.path]
            self._send(200, (STATIC / name).read_bytes(), ctype)
        elif url.path == "/state":
            self._json(200, self.phone_server.state(phone))
        else:
            raise _Refused(404, "no_page", path=repr(url.path[:60]))

    def _join(self, query: str, seat: bool = False):
        ps = self.phone_server
        try:
            q = urllib.parse.parse_qs(query, max_num_fields=4)
        except ValueError:   # more fields than any join or seat link has: a wrong link
            raise _Refused(403, "seat_code_wrong" if seat else "join_link_wrong") from None
        given = q["k"][0] if q.get("k") else None
        if seat:
            phone = ps.join_seat(given, self._cookies().get(ps.cookie_name),
                                 self.client_address[0])
        else:
            if not self._secret_ok(given):
                raise _Refused(403, "join_link_wrong")
            phone = ps.join(self._cookies().get(ps.cookie_name), self.client_address[0])
        # HttpOnly: page scripts never see the token; SameSite=Strict: other sites' pages cannot
        # make the phone send it. The redirect takes the secret out of the address bar.
        secure = "; Secure" if ps.tls else ""
        self._send(303, b"", "text/plain", {"Location": "/"}, cookies_=[
            f"{ps.cookie_name}={phone.token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400"
            f"{secure}"])

    def _post(self):
        path = self.path.split("?", 1)[0]
        if path not in ("/scan", "/photo", "/ballot"):
            raise _Refused(404, "no_page", path=repr(path[:60]))
        phone = self._joined_phone()
        ps = self.phone_server
        if path == "/ballot":
            obj = self._json_body({"vote_id", "option", "ballot_id"})
            option = obj.get("option")
            if not isinstance(obj.get("vote_id"), str) or "option" not in obj \
                    or not (option is None or (isinstance(option, int)
                                               and not isinstance(option, bool)
                                               and 0 <= option < 64)):
                raise _Refused(400, "ballot_shape")
            self._json(200, ps.ballot(phone, obj["vote_id"], option,
                                      self._scan_id(obj.get("ballot_id"))))
            return
        if path == "/scan":
            obj = self._json_body({"text", "scan_id", "typed"})
            if not isinstance(obj.get("text"), str) or not 0 < len(obj["text"]) <= 64 \
                    or not isinstance(obj.get("typed", False), bool):
                raise _Refused(400, "scan_shape")
            reply = ps.answer_texts(phone, [obj["text"]], self._scan_id(obj.get("scan_id")),
                                    typed=obj.get("typed", False))
        else:
            scan_id = self._scan_id(self.headers.get("X-Scan-Id"))
            data, _ = self._body(ps.max_photo, PHOTO_TYPES)
            replayed = ps.replay(phone, scan_id)   # a photo already read is not read again
            if replayed is not None:
                reply = replayed
            elif not phone.allowed:  # before any decoding: a waiting phone costs no CPU
                reply = ps.answer_texts(phone, [], scan_id)
            else:
                with ps.photos.turn(phone.id) as rest:
                    try:
                        texts = ps.decoder(data)
                    except BadInput as exc:
                        if isinstance(exc, TooSlow):
                            rest()
                        raise _Refused(400, "photo", error=i18n.text_of(exc, phone.lang)) from None
                reply = ps.answer_texts(phone, texts, scan_id)
        self._json(200, reply)
