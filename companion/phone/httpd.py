"""The phone server's HTTP layer: connections, deadlines, caps and one-line refusals.

Nothing here knows phones, cards or votes. It holds what keeps the tablet answering whatever
arrives on the table's Wi-Fi (issue 15's attacks), below the routes of :mod:`.endpoints`:
- peers: only private or loopback addresses (:func:`is_local_peer`), with a ``Host`` header naming
  this server (no DNS rebinding; checked in :meth:`HardenedHandler.check_common`);
- connections (:class:`CappedServer`): capped in all and per address; when all are taken a new one
  takes the slot of an idle one that has sent no request head;
- deadlines (:class:`Reader`): one for the request line and headers, then one for a body scaled
  to the size it declares, never past the whole request's, whatever the peer sends (a byte every
  few seconds does not hold a slot); a TLS handshake is done by the head's deadline; the routes
  check who may send a body before it is read, and a body left unread after the answer is read
  and dropped for a moment only, its slot free for a new connection;
- the header block is capped in bytes and lines before anything is parsed, cookies are read with a
  plain split (:func:`cookies`, not ``http.cookies``);
- a token bucket per address (:class:`RateLimiter`); bodies need a plain decimal Content-Length
  under a per-route limit, and only the expected types and JSON fields are accepted;
- every refusal (:class:`Refused`) is one line in the phone's language; pages a person opens get
  a page, never raw JSON; a bug in a route is logged and answered "internal", never a traceback.
"""
from __future__ import annotations

import html
import http.server
import ipaddress
import json
import logging
import re
import select
import socket
import socketserver
import ssl
import threading
import time
from collections import Counter, OrderedDict
from typing import Any, Callable, Protocol, Sequence

from companion.core import i18n
from companion.core.clock import SYSTEM_CLOCK, Clock

from .words import page_language, say

log = logging.getLogger("companion.phone.server")

MAX_JSON = 1024
MAX_HEAD = 8 * 1024      # request line + headers: a phone's browser sends under 2 KB
MAX_HEAD_LINES = 40
HEAD_SECONDS = 10.0      # to send the request line and headers
REQUEST_SECONDS = 60.0   # to send the whole request, at most (a 4 MB photo on a slow Wi-Fi)
BODY_SECONDS = 5.0       # after the head, to send a body of a few bytes ...
BODY_RATE = 64 * 1024    # ... and a second more for each 64 KB it says it holds
LINGER_SECONDS = 1.0     # a body left unread after the answer is read and dropped this long
# a phone that hung up or stopped reading: its answer is dropped, with no traceback
HUNG_UP = (ConnectionError, TimeoutError, ssl.SSLError)
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

    def __init__(self, burst: float = 30, per_second: float = 5, clock: Clock = SYSTEM_CLOCK,
                 max_clients: int = 256) -> None:
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


class Refused(Exception):
    """A request we answer with an HTTP error and a one-line reason: the catalogue's
    ``phone.server.<reason>`` in the phone's language (``str()`` is English, for logs)."""

    def __init__(self, code: int, reason: str, **values: object) -> None:
        self.message = i18n.keyed(f"phone.server.{reason}", **values)
        super().__init__(i18n.text_of(self.message, "en"))
        self.code, self.reason = code, reason

    def text(self, lang: str) -> str:
        return i18n.text_of(self.message, lang)


class Late(Exception):
    """A connection past its deadline: closed without an answer."""


class Reader:
    """The connection's input with deadlines: ``recv`` never waits past the deadline in force,
    however slowly the peer trickles bytes (a per-read timeout alone lets one byte every 10 s
    hold the connection for ever). Offers what http.server reads with: readline and read."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline
        self.buf = bytearray()

    def fill(self) -> bool:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Late()
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except (socket.timeout, TimeoutError):
            raise Late() from None
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
                    raise Refused(431, "headers_too_big", limit=limit)
                if head.count(b"\n") > lines + 1:
                    raise Refused(431, "too_many_headers", lines=lines)
                return head
            if len(self.buf) > limit:
                raise Refused(431, "headers_too_big", limit=limit)
            if not self.fill():
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
            if not self.fill():
                out = bytes(self.buf)
                self.buf.clear()
                return out

    def read(self, n: int = -1) -> bytes:
        while n < 0 or len(self.buf) < n:
            if not self.fill():
                break
        n = len(self.buf) if n < 0 else min(n, len(self.buf))
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def close(self) -> None:
        pass


class Conn:
    """A connection as the slot keeper sees it: ``head`` from when its request head is in until
    its answer is sent (meanwhile it is never dropped for another), ``gone`` once it was
    dropped."""

    __slots__ = ("addr", "sock", "head", "gone", "parked")

    def __init__(self, addr: str, sock: socket.socket) -> None:
        self.addr, self.sock, self.head, self.gone = addr, sock, False, False
        self.parked = False   # a long poll waiting for news (see CappedServer.parked)

    def drop(self) -> None:
        self.gone = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)   # its thread's read ends at once
        except OSError:
            pass


class CappedServer(http.server.ThreadingHTTPServer):
    """At most ``MAX_CONNECTIONS`` connections at once, and ``PER_ADDRESS`` from one address: a
    flood of connections from one device neither starts hundreds of threads nor takes the
    slots of the other phones; the extra ones are closed at once.

    When every slot is taken, a new connection takes the slot of one that has not sent its
    request head yet (idle, or trickling it): the oldest of the address holding the most of
    those. Connections that only sit there (a few addresses each reopening 6 the moment they
    are closed) cannot keep a phone out, since a phone sends its head as soon as it connects;
    a request being answered is never dropped. A phone's table long poll waiting for news counts
    as idle here (:meth:`parked`), and an address at its cap may replace its own waiting poll
    (never another address's, nor an idle connection: a flood from one address is still shut
    out at once)."""

    daemon_threads = True
    MAX_CONNECTIONS = 32
    PER_ADDRESS = 6
    request_queue_size = 64  # a burst of phones connecting is queued, not dropped and retried

    def __init__(self, server_address: tuple[str, int],
                 handler: Callable[..., socketserver.BaseRequestHandler],
                 bind_and_activate: bool = True) -> None:
        self._conns: dict[socket.socket, Conn] = {}   # by accepted socket, oldest first
        self._conns_lock = threading.Lock()
        super().__init__(server_address, handler, bind_and_activate)

    def _idlest(self, addr: str | None = None) -> socket.socket | None:
        """The socket of the connection to drop for a new one (when ``addr`` is given: one of
        that address's own waiting long polls), or None."""
        idle = [(sock, c) for sock, c in self._conns.items()
                if not c.head and (addr is None or (c.addr == addr and c.parked))]
        if not idle:
            return None
        crowd = Counter(c.addr for _, c in idle).most_common(1)[0][0]
        return next(sock for sock, c in idle if c.addr == crowd)

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket],
                        client_address: tuple[str, int]) -> None:
        assert isinstance(request, socket.socket)   # a TCP server's requests are its sockets
        addr = client_address[0]
        with self._conns_lock:
            full = len(self._conns) >= self.MAX_CONNECTIONS
            victim = self._idlest() if full else None
            if sum(c.addr == addr for c in self._conns.values()) >= self.PER_ADDRESS:
                # an address at its cap: its new connection may take the slot of its own
                # waiting long poll (a page's table poll left waiting when it went to another
                # page), never another address's, nor an idle one (a flood stays shut out)
                victim = self._idlest(addr)
                if victim is None:
                    self.shutdown_request(request)
                    return
            elif full and victim is None:
                self.shutdown_request(request)
                return
            if victim is not None:
                self._conns.pop(victim).drop()
            self._conns[request] = Conn(addr, request)
        try:
            super().process_request(request, client_address)
        except Exception:
            self._release(request)
            raise

    def conn_of(self, request: socket.socket) -> Conn | None:
        with self._conns_lock:
            return self._conns.get(request)

    def head_in(self, conn: Conn) -> bool:
        """Its request head is in: the connection keeps its slot (False: it was dropped)."""
        with self._conns_lock:
            conn.head = True
            return not conn.gone

    def answered(self, conn: Conn) -> None:
        """Its answer is sent: what it still sends is read only to close cleanly, and its slot
        may go to a new connection."""
        with self._conns_lock:
            conn.head = False

    def parked(self, conn: Conn, waiting: bool) -> bool:
        """A long poll waiting for news (``waiting``) may lose its slot to a new connection like
        an idle one (the phone asks again); once its answer is due it keeps it. False: it was
        dropped meanwhile."""
        with self._conns_lock:
            conn.head = not waiting
            conn.parked = waiting
            return not conn.gone

    def moved(self, conn: Conn, sock: socket.socket) -> None:
        with self._conns_lock:
            conn.sock = sock

    def _release(self, request: socket.socket) -> None:
        with self._conns_lock:
            self._conns.pop(request, None)   # a dropped one is gone already

    def process_request_thread(self, request: socket.socket | tuple[bytes, socket.socket],
                               client_address: tuple[str, int]) -> None:
        assert isinstance(request, socket.socket)   # a TCP server's requests are its sockets
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(request)


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


class ServerSettings(Protocol):
    """What the HTTP layer reads of its server (a PhoneServer): where it listens, its TLS
    context, its rate limiter, its deadlines and the tablet's language."""
    host: str
    port: int
    tls: ssl.SSLContext | None
    rate: RateLimiter
    head_seconds: float
    request_seconds: float
    answer_seconds: float
    language: Callable[[], str]


class HardenedHandler(http.server.BaseHTTPRequestHandler):
    """One request per connection, read under the deadlines and caps above; a subclass gives the
    routes (``do_GET``...) and runs each through :meth:`guard`. ``phone_server`` (set by the
    server on its own subclass) gives the settings: ``host``, ``port``, ``tls``, ``rate``,
    ``head_seconds``, ``request_seconds``, ``answer_seconds`` and ``language()``."""

    phone_server: ServerSettings
    server: CappedServer
    # paths answered in JSON, not as a page, when refused (the routes say which)
    json_paths: frozenset[str] = frozenset()
    server_version = "TableCompanion"
    sys_version = ""

    def log_message(self, fmt: str, *args: Any) -> None:  # through logging, not stderr
        log.debug("phone %s: " + fmt, self.client_address[0], *args)

    # --- the connection: deadlines and caps before anything is parsed -----------------------

    def setup(self) -> None:
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
        # Reader is no BufferedIOBase, but http.server reads rfile only with readline and read
        self.rfile = self._reader = Reader(self.connection, self._start + ps.head_seconds)  # type: ignore[assignment]

    def _handshake(self, context: ssl.SSLContext, deadline: float) -> ssl.SSLSocket:
        """The TLS handshake, done by ``deadline`` however the peer trickles it (a blocking
        handshake's timeout is per read: a byte every few seconds would hold it for ever)."""
        conn = self._conn
        assert conn is not None   # setup() shakes hands only with a connection still in its slot
        tls = context.wrap_socket(self.request, server_side=True, do_handshake_on_connect=False)
        self.server.moved(conn, tls)   # what a drop shuts down from now on
        try:
            tls.setblocking(False)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or conn.gone:
                    raise Late()
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

    def _expire(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass

    def finish(self) -> None:
        self._timer.cancel()
        try:
            super().finish()
        finally:
            self._file.close()
            if isinstance(self.request, ssl.SSLSocket):
                self.request.close()

    def handle(self) -> None:
        self.close_connection = True  # one request per connection (HTTP/1.0)
        if self._gone:
            return
        assert self._conn is not None   # None only for a connection dropped before it started: _gone
        try:
            self._reader.head(MAX_HEAD, MAX_HEAD_LINES)
        except Late:
            return
        except Refused as r:
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
        # The headers are in: a body has a few seconds, more for a bigger one (body()), never
        # past the whole request's deadline. Routes check who may send it before it is read.
        self._whole = self._start + self.phone_server.request_seconds
        self._reader.deadline = min(self._whole, time.monotonic() + BODY_SECONDS)
        self._body_read = False
        try:
            self.handle_one_request()
        except Late:
            return
        self.server.answered(self._conn)
        self._linger()

    def _linger(self) -> None:
        """A request answered without reading its body (refused before it): read what is still
        coming for a moment, so that closing does not reset the connection before the phone has
        read its answer. Its slot may meanwhile go to a new connection."""
        headers = getattr(self, "headers", None)
        if self._body_read or headers is None or not (
                headers.get("Content-Length") or headers.get("Transfer-Encoding")):
            return
        self._reader.deadline = time.monotonic() + LINGER_SECONDS
        try:
            while self._reader.fill():
                self._reader.buf.clear()
        except (Late, OSError):
            pass

    def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None,
              cookies_: Sequence[str] = ()) -> None:
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

    def _json(self, code: int, obj: dict, headers: dict | None = None) -> None:
        self._send(code, json.dumps(obj).encode(), "application/json", headers)

    def _wants_page(self) -> bool:
        """A person opened this address: answer with a page, never raw JSON."""
        path = (getattr(self, "path", None) or "").split("?", 1)[0]
        return getattr(self, "command", None) in ("GET", "HEAD") and path not in self.json_paths

    def _lang(self) -> str:
        """The phone's language: its browser's, where the app has that catalogue, else the
        tablet's (before the headers are read too)."""
        headers = getattr(self, "headers", None)
        return page_language(headers.get("Accept-Language") if headers else None,
                             self.phone_server.language())

    def _refuse(self, r: Refused) -> None:
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

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        # http.server's own errors (bad request line, unsupported method) as one line too
        try:
            log.debug("phone %s: %s", self.client_address[0], message)
            self._refuse(Refused(code, "bad_request", status=code))
        except Exception:
            pass

    def request_cookies(self) -> dict[str, str]:
        return cookies(self.headers.get("Cookie", ""))

    def check_common(self, cost: float) -> None:
        ps = self.phone_server
        peer = self.client_address[0]
        if not is_local_peer(peer):
            raise Refused(403, "not_local", peer=peer)
        host = (self.headers.get("Host") or "").strip().lower()
        allowed = {f"{ps.host}:{ps.port}".lower()}
        if ps.host in ("127.0.0.1", "::1"):
            allowed.add(f"localhost:{ps.port}")
        if host not in allowed:
            raise Refused(421, "wrong_host", host=repr(host[:60]))
        if not ps.rate.allow(peer, cost):
            raise Refused(429, "too_fast")

    def body(self, limit: int, types: set[str]) -> tuple[bytes, str]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise Refused(411, "chunked")
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype not in types:
            raise Refused(415, "content_type", type=repr(ctype[:40]),
                           expected=" | ".join(sorted(types)))
        length = (self.headers.get("Content-Length") or "").strip()
        if not _LENGTH.match(length):
            raise Refused(411, "no_length")
        n = int(length)
        if n > limit:
            raise Refused(413, "too_big", n=n, limit=limit)
        # its deadline scales with its size: a few bytes trickled cannot hold the slot a minute
        self._reader.deadline = min(self._whole, time.monotonic() + BODY_SECONDS + n / BODY_RATE)
        self._body_read = True
        data = self.rfile.read(n)
        if len(data) != n:
            raise Refused(400, "short_body")
        return data, ctype

    def json_body(self, fields: set[str]) -> dict:
        """A small JSON object holding no other fields than ``fields``."""
        data, _ = self.body(MAX_JSON, {"application/json"})
        try:
            obj = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested 1000 deep
            raise Refused(400, "not_json") from None
        if not isinstance(obj, dict) or not set(obj) <= fields:
            raise Refused(400, "json_fields", fields=", ".join(sorted(fields)))
        return obj

    def guard(self, fn: Callable[[], None], cost: float = 1.0) -> None:
        try:
            try:
                self.check_common(cost)
                fn()
            except Refused as r:
                self._refuse(r)
            except (Late, *HUNG_UP):
                raise
            except Exception:  # a bug here must not kill the server thread nor leak a traceback
                log.exception("phone server: request failed")
                self._refuse(Refused(500, "internal"))
        except HUNG_UP:   # the phone hung up (or stopped reading), before or during the answer
            self.close_connection = True

