"""The small web server phones join to scan Fate cards at the Curia reveal.

A device thread like the serial reader: it never touches game state or widgets. Each scan it
reads and validates becomes ``Command("curia_card", {"card": {"knives": n} | {"doves": n},
"serial": s}, source="phone:<id>")`` handed to ``submit`` (supplied by the app, which runs it on
the main thread against the game's rules and journal and returns ``{"status": "counted" |
"duplicate" | ..., "total": int, "count": int}``). The server keeps no total of its own: what a
phone is told comes from that reply, so the journal stays the one truth and tablet taps and
phone scans mix freely.

Security, all checked on every request:
- it binds one address (the LAN interface, or loopback in tests) and answers only peers whose
  address is private or loopback, with a ``Host`` header naming this server (no DNS rebinding);
- the per-game secret from the join link (``/join?k=SECRET``) must come back in the cookie set
  there or an ``X-Table-Key`` header; compared in constant time;
- a token bucket per client address limits the request rate (a photo costs more than a text);
- bodies need a Content-Length under a per-route limit; only the expected content types and
  exactly the expected JSON fields are accepted; anything else gets a one-line refusal;
- a code must carry this deck's check (see :mod:`vision.qr.payload`), so a forged or mistyped
  code changes nothing; a serial already counted is a duplicate (the rules decide that); a retry
  carrying the same ``scan_id`` gets the first answer again instead of being counted twice.
"""
from __future__ import annotations

import hmac
import http.server
import ipaddress
import json
import logging
import re
import secrets
import socket
import threading
import urllib.parse
from collections import OrderedDict, deque
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Callable

from companion.core.clock import SYSTEM_CLOCK
from companion.core.events import BadInput, Command
from vision.qr import payload as qrpayload

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PAGES = {"/": ("page.html", "text/html; charset=utf-8"),
         "/page.js": ("page.js", "text/javascript; charset=utf-8"),
         "/page.css": ("page.css", "text/css; charset=utf-8")}
PHOTO_TYPES = {"image/jpeg", "image/png", "image/webp"}
MAX_PHOTO = 4 * 1024 * 1024
MAX_JSON = 1024
MAX_PHONES = 32
HISTORY = 50
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
SECURITY_HEADERS = {
    # the page loads nothing from anywhere but this server
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; "
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
    """A request we answer with an HTTP error and a one-line reason."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class _CappedServer(http.server.ThreadingHTTPServer):
    """At most ``MAX_CONNECTIONS`` requests at once: a flood of connections from one device
    cannot make the tablet start hundreds of threads; the extra ones are closed at once."""

    daemon_threads = True
    MAX_CONNECTIONS = 32
    request_queue_size = 64  # a burst of phones connecting is queued, not dropped and retried

    def __init__(self, *args, **kwargs):
        self._slots = threading.BoundedSemaphore(self.MAX_CONNECTIONS)
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class PhoneServer:
    """Serve the scanning page; turn valid scans into ``curia_card`` commands for ``submit``.

    ``submit(command) -> reply dict`` and ``status() -> {"total": int, "count": int}`` come from
    the app (both run the game's rules on the main thread). ``decoder(image) -> [texts]`` reads
    an uploaded photo (OpenCV, :func:`vision.qr.decode.decode_array`).
    """

    def __init__(self, submit: Callable[[Command], dict], key: bytes, *,
                 status: Callable[[], dict] | None = None, host: str | None = None,
                 port: int = 0, secret: str | None = None, clock=SYSTEM_CLOCK,
                 max_photo: int = MAX_PHOTO, rate: RateLimiter | None = None,
                 decoder: Callable | None = None):
        self.submit = submit
        self.status = status
        self.key = key
        self.host = host or lan_address()
        if not is_local_peer(self.host):
            raise BadInput(f"will not serve phones on {self.host}: not a local-network address")
        self.port = port
        self.secret = secret or secrets.token_urlsafe(16)
        self.max_photo = max_photo
        self.rate = rate or RateLimiter(clock=clock)
        if decoder is None:
            from vision.qr.decode import decode_array
            decoder = decode_array
        self.decoder = decoder
        self._decoding = threading.BoundedSemaphore(1)  # one photo at a time: 2 cores, a UI
        self._lock = threading.Lock()
        self._phones: OrderedDict[str, dict] = OrderedDict()
        self._recent: deque = deque(maxlen=HISTORY)  # (phone, answer), newest last, for the tablet
        self._answered = 0  # answers given since start: the tablet asks for the ones it has not shown
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

    @property
    def serving(self) -> bool:
        return self._httpd is not None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def join_url(self) -> str:
        """What the tablet's QR code holds."""
        return f"{self.base_url}/join?k={urllib.parse.quote(self.secret)}"

    def devices(self) -> list[dict]:
        """The phones that have joined: id and how many scans each sent (for the tablet)."""
        with self._lock:
            return [{"id": pid, "scans": p["scans"]} for pid, p in self._phones.items()]

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

    def phone(self, phone_id: str) -> dict:
        with self._lock:
            p = self._phones.pop(phone_id, None)
            if p is None:
                p = {"history": deque(maxlen=HISTORY), "answers": OrderedDict(), "scans": 0}
            self._phones[phone_id] = p
            while len(self._phones) > MAX_PHONES:
                self._phones.popitem(last=False)
            return p

    def answer_texts(self, phone_id: str, texts: list[str], scan_id: str | None) -> dict:
        """Validate and submit each decoded text; the reply a phone shows."""
        p = self.phone(phone_id)
        with self._lock:
            if scan_id and scan_id in p["answers"]:
                return dict(p["answers"][scan_id], replayed=True)
        answers = [self._one(phone_id, t) for t in texts] or [
            {"status": "unreadable", "error": "no card code could be read in the photo"}]
        reply = {"answers": answers, **self._totals(answers)}
        with self._lock:
            p["scans"] += 1
            p["history"].extend(answers)
            self._recent.extend((phone_id, a) for a in answers)
            self._answered += len(answers)
            if scan_id and not any(a.get("retry") for a in answers):
                p["answers"][scan_id] = reply
                while len(p["answers"]) > HISTORY:
                    p["answers"].popitem(last=False)
        return reply

    def _one(self, phone_id: str, text: str) -> dict:
        try:
            card = qrpayload.parse(text, self.key)
        except BadInput as exc:
            return {"status": "not_fate", "error": str(exc)}
        if card.kind != "fate":
            return {"status": "not_fate", "serial": card.serial, "label": card.label,
                    "error": f"a {card.kind.capitalize()} card ({card.label}), not a Fate card"}
        cmd = Command("curia_card", {"card": card.command_card(), "serial": card.serial},
                      source=f"phone:{phone_id}")
        try:
            reply = dict(self.submit(cmd))
        except Exception as exc:  # the rules' refusal (RuleError/BadInput), one line
            answer = {"status": "refused", "serial": card.serial, "label": card.label,
                      "error": " ".join(str(exc).split()) or type(exc).__name__}
            if isinstance(exc, TimeoutError):
                answer["retry"] = True  # the tablet was busy: a retry must really run again
            return answer
        reply.setdefault("status", "refused")
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

    def state(self, phone_id: str) -> dict:
        p = self.phone(phone_id)
        with self._lock:
            history = list(p["history"])
        return {"phone": phone_id, "history": history, **self.current_totals()}


def _totals_of(reply: dict) -> dict:
    """The running total and cards revealed (and of how many, when the rules say) for a phone."""
    out = {"total": reply.get("total"), "count": reply.get("count")}
    if reply.get("of") is not None:
        out["of"] = reply["of"]
    return out


class _Handler(http.server.BaseHTTPRequestHandler):
    phone_server: PhoneServer
    server_version = "TableCompanion"
    sys_version = ""
    timeout = 15  # a phone that stops sending mid-request does not hold a thread for ever

    def log_message(self, fmt, *args):  # through logging, not stderr
        log.debug("phone %s: " + fmt, self.client_address[0], *args)

    # --- plumbing --------------------------------------------------------------------------

    def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None):
        self.send_response(code)
        for k, v in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code: int, obj: dict, headers: dict | None = None):
        self._send(code, json.dumps(obj).encode(), "application/json", headers)

    def send_error(self, code, message=None, explain=None):
        # http.server's own errors (bad request line, unsupported method) as one JSON line too
        self.close_connection = True
        try:
            self._json(code, {"status": "refused", "error": message or HTTPStatus(code).phrase})
        except Exception:
            pass

    def _cookies(self) -> SimpleCookie:
        c = SimpleCookie()
        try:
            c.load(self.headers.get("Cookie", ""))
        except CookieError:
            pass
        return c

    def _check_common(self, cost: float):
        ps = self.phone_server
        peer = self.client_address[0]
        if not is_local_peer(peer):
            raise _Refused(403, f"refused: {peer} is not on the local network")
        host = (self.headers.get("Host") or "").strip().lower()
        allowed = {f"{ps.host}:{ps.port}".lower()}
        if ps.host in ("127.0.0.1", "::1"):
            allowed.add(f"localhost:{ps.port}")
        if host not in allowed:
            raise _Refused(421, f"refused: Host header {host[:60]!r} does not name this server")
        if not ps.rate.allow(peer, cost):
            raise _Refused(429, "refused: too many requests, slow down")

    def _secret_ok(self, given: str | None) -> bool:
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "replace"),
                                   self.phone_server.secret.encode())

    def _joined_phone(self) -> str:
        """The phone id of a request carrying the secret; refuses one that does not."""
        c = self._cookies()
        given = self.headers.get("X-Table-Key") or (c["tc_k"].value if "tc_k" in c else None)
        if not self._secret_ok(given):
            raise _Refused(403, "refused: not joined to this game (scan the code on the tablet)")
        pid = c["tc_phone"].value if "tc_phone" in c else self.headers.get("X-Phone-Id", "")
        if not _ID.match(pid or ""):
            raise _Refused(400, "refused: missing or malformed phone id (open the join link)")
        return pid

    def _body(self, limit: int, types: set[str]) -> tuple[bytes, str]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise _Refused(411, "refused: chunked bodies are not accepted; send Content-Length")
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype not in types:
            raise _Refused(415, f"refused: content type {ctype[:40]!r} (expected "
                                f"{' or '.join(sorted(types))})")
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise _Refused(411, "refused: Content-Length missing or not a number")
        n = int(length)
        if n > limit:
            raise _Refused(413, f"refused: body of {n} bytes is over the {limit}-byte limit")
        data = self.rfile.read(n)
        if len(data) != n:
            raise _Refused(400, "refused: body shorter than its Content-Length")
        return data, ctype

    def _scan_id(self, value) -> str | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str) or not _ID.match(value):
            raise _Refused(400, "refused: scan_id must be 1-40 letters, digits, '-' or '_'")
        return value

    def _guard(self, fn, cost=1.0):
        try:
            self._check_common(cost)
            fn()
        except _Refused as r:
            self.close_connection = True
            self._json(r.code, {"status": "refused", "error": str(r)})
        except (BrokenPipeError, ConnectionResetError, TimeoutError, socket.timeout):
            self.close_connection = True
        except Exception:  # a bug here must not kill the server thread nor leak a traceback
            log.exception("phone server: request failed")
            self.close_connection = True
            try:
                self._json(500, {"status": "refused", "error": "internal error"})
            except Exception:
                pass

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
        if url.path == "/join":
            self._join(url.query)
            return
        pid = self._joined_phone()
        if url.path in PAGES:
            name, ctype = PAGES[url.path]
            self._send(200, (STATIC / name).read_bytes(), ctype)
        elif url.path == "/state":
            self._json(200, self.phone_server.state(pid))
        else:
            raise _Refused(404, f"refused: no such page {url.path[:60]!r}")

    def _join(self, query: str):
        q = urllib.parse.parse_qs(query, max_num_fields=4)
        if not self._secret_ok((q.get("k") or [None])[0]):
            raise _Refused(403, "refused: this join link is not for the game on the tablet")
        c = self._cookies()
        pid = c["tc_phone"].value if "tc_phone" in c else ""
        if not _ID.match(pid):  # a phone that rejoins keeps its id, and so its history
            pid = secrets.token_hex(4)
        self.phone_server.phone(pid)
        self.send_response(303)
        for k, v in SECURITY_HEADERS.items():
            self.send_header(k, v)
        # HttpOnly: page scripts never see the secret; SameSite=Strict: other sites' pages
        # cannot make the phone send it. The redirect takes the secret out of the address bar.
        self.send_header("Set-Cookie", f"tc_k={self.phone_server.secret}; Path=/; HttpOnly; "
                                       "SameSite=Strict")
        self.send_header("Set-Cookie", f"tc_phone={pid}; Path=/; SameSite=Strict; "
                                       "Max-Age=86400")
        self.send_header("Location", "/")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _post(self):
        path = self.path.split("?", 1)[0]
        if path not in ("/scan", "/photo"):
            raise _Refused(404, f"refused: no such endpoint {path[:60]!r}")
        pid = self._joined_phone()
        ps = self.phone_server
        if path == "/scan":
            data, _ = self._body(MAX_JSON, {"application/json"})
            try:
                obj = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise _Refused(400, "refused: body is not JSON") from None
            if not isinstance(obj, dict) or not set(obj) <= {"text", "scan_id"} \
                    or not isinstance(obj.get("text"), str) or not 0 < len(obj["text"]) <= 64:
                raise _Refused(400, 'refused: expected {"text": "<card code>", "scan_id": '
                                    '"<id>"} with a code of 1-64 characters')
            reply = ps.answer_texts(pid, [obj["text"]], self._scan_id(obj.get("scan_id")))
        else:
            scan_id = self._scan_id(self.headers.get("X-Scan-Id"))
            data, ctype = self._body(ps.max_photo, PHOTO_TYPES)
            from vision.qr.decode import image_from_bytes
            try:
                img = image_from_bytes(data, "photo")
            except BadInput as exc:
                raise _Refused(400, f"refused: {exc}") from None
            with ps._decoding:
                texts = ps.decoder(img)
            reply = ps.answer_texts(pid, texts, scan_id)
        self._json(200, reply)
