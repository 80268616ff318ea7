"""The phone server's routes: what each address answers, on top of the HTTP layer (:mod:`.httpd`).

- ``GET /join?k=SECRET``: a phone joins with the per-game secret from the tablet's join code and
  gets its session cookie (then waits for the narrator, see :mod:`.admission`);
  ``GET /seat?k=SEAT``: a phone takes a player's seat with that player's own seat code;
- ``GET /`` (the page, in the phone's language), its scripts and styles, and ``GET /state`` (the
  phone's answers, totals and the vote its seat may cast), for a phone that joined;
- ``GET /table?v=N``: a seat's phone's long poll for its view of the game (:mod:`.table`): answered
  at once when the view's version is not ``N``, else when it changes or after ``POLL_SECONDS``;
  one waiting poll per phone (a newer one ends it), and a waiting poll's connection may be
  dropped for a new phone's like an idle one;
- ``POST /scan`` (a decoded or typed code), ``POST /photo`` (a photo to read), ``POST /ballot``
  (a seat's ballot): only the expected types and JSON fields, then handed to the
  :class:`~companion.phone.server.PhoneServer`, which answers from the rules and the journal.
"""
from __future__ import annotations

import hmac
import re
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from companion.core import i18n
from companion.core.events import BadInput

from .admission import PhoneRecord
from .decoder import TooSlow
from .httpd import HardenedHandler, Late, Refused
from .words import render_page

if TYPE_CHECKING:
    from .server import PhoneServer

STATIC = Path(__file__).with_name("static")
PAGES = {"/": ("page.html", "text/html; charset=utf-8"),
         "/page.js": ("page.js", "text/javascript; charset=utf-8"),
         "/page.css": ("page.css", "text/css; charset=utf-8"),
         # live scanning where the browser has no BarcodeDetector (see static/vendor/README.txt)
         "/vendor/barcode-detector-ponyfill.js": ("vendor/barcode-detector-ponyfill.js",
                                                  "text/javascript; charset=utf-8"),
         "/vendor/zxing_reader.wasm": ("vendor/zxing_reader.wasm", "application/wasm")}
# answered in JSON, not as a page, when refused
API = frozenset({"/state", "/table", "/scan", "/photo", "/ballot", *(p for p in PAGES if p != "/")})
PHOTO_TYPES = {"image/jpeg", "image/png", "image/webp"}
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_VERSION = re.compile(r"^[0-9]{1,12}$")
POLL_SECONDS = 20.0   # a table long poll waits this long for news, then the page asks again


class Handler(HardenedHandler):
    """The routes; each request runs through :meth:`~.httpd.HardenedHandler.guard`."""

    json_paths = API
    phone_server: PhoneServer   # the server's own subclass sets it (PhoneServer.start)

    def _secret_ok(self, given: str | None) -> bool:
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "replace"),
                                   self.phone_server.secret.encode())

    def _joined_phone(self) -> PhoneRecord:
        """The phone whose server-issued token this request carries; refuses one that has none."""
        ps = self.phone_server
        phone = ps.phone_by_token(self.request_cookies().get(ps.cookie_name))
        if phone is None:
            raise Refused(403, "not_joined")
        phone.lang = self._lang()
        return phone

    def _scan_id(self, value: object) -> str | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str) or not _ID.match(value):
            raise Refused(400, "scan_id")
        return value


    # --- routes ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        self.guard(self._get)

    def do_HEAD(self) -> None:
        self.guard(self._get)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        self.guard(self._post, cost=4.0 if path == "/photo" else 1.0)

    def _get(self) -> None:
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
        elif url.path == "/table":
            self._table(phone, url.query)
        else:
            raise Refused(404, "no_page", path=repr(url.path[:60]))

    def _table(self, phone: PhoneRecord, query: str) -> None:
        ps = self.phone_server
        seat = phone.seat
        if seat is None:
            raise Refused(403, "no_seat")
        try:
            given = urllib.parse.parse_qs(query, max_num_fields=2).get("v", ["0"])[0]
        except ValueError:
            given = ""
        if not _VERSION.match(given):
            raise Refused(400, "table_version")
        conn = self._conn
        assert conn is not None   # a connection dropped before it started never reaches a route
        hold = max(0.0, min(POLL_SECONDS, ps.request_seconds + ps.answer_seconds - 5.0))
        with ps.phones.polling(phone) as mine:
            self.server.parked(conn, True)
            try:
                version, payload = ps.table.wait(seat, phone.lang, int(given), hold,
                                                 give_up=lambda: conn.gone or not mine())
            finally:
                alive = self.server.parked(conn, False)
        if not alive:
            raise Late()   # its slot went to a new phone: the page asks again
        self._json(200, {"version": version, "table": payload, "now": round(time.time(), 3)})

    def _join(self, query: str, seat: bool = False) -> None:
        ps = self.phone_server
        try:
            q = urllib.parse.parse_qs(query, max_num_fields=4)
        except ValueError:   # more fields than any join or seat link has: a wrong link
            raise Refused(403, "seat_code_wrong" if seat else "join_link_wrong") from None
        given = q["k"][0] if q.get("k") else None
        if seat:
            phone = ps.join_seat(given, self.request_cookies().get(ps.cookie_name),
                                 self.client_address[0])
        else:
            if not self._secret_ok(given):
                raise Refused(403, "join_link_wrong")
            phone = ps.join(self.request_cookies().get(ps.cookie_name), self.client_address[0])
        # HttpOnly: page scripts never see the token. SameSite=Lax, not Strict: a link to /join
        # on another website (everyone at the table can read the join secret) then brings the
        # phone's cookie along, and join() keeps that phone, seat and all, instead of making a
        # new one (Strict left the cookie out, so a seated phone became an unseated one). Lax
        # still keeps the cookie off other sites' POSTs and embedded requests: no other page can
        # scan or vote as this phone, and no GET here changes anything but joining. The
        # redirect takes the secret out of the address bar.
        secure = "; Secure" if ps.tls else ""
        self._send(303, b"", "text/plain", {"Location": "/"}, cookies_=[
            f"{ps.cookie_name}={phone.token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=86400"
            f"{secure}"])

    def _post(self) -> None:
        path = self.path.split("?", 1)[0]
        if path not in ("/scan", "/photo", "/ballot"):
            raise Refused(404, "no_page", path=repr(path[:60]))
        phone = self._joined_phone()
        ps = self.phone_server
        # Who may send this is checked before its body is read (a body trickled a byte at a
        # time holds a connection), and a phone has at most a few bodies under way at once.
        with ps.phones.in_flight(phone):
            self._post_as(path, phone)

    def _post_as(self, path: str, phone: PhoneRecord) -> None:
        ps = self.phone_server
        if path == "/ballot":
            if phone.seat is None:
                raise Refused(403, "no_seat")
            obj = self.json_body({"vote_id", "option", "ballot_id"})
            option = obj.get("option")
            if not isinstance(obj.get("vote_id"), str) or "option" not in obj \
                    or not (option is None or (isinstance(option, int)
                                               and not isinstance(option, bool)
                                               and 0 <= option < 64)):
                raise Refused(400, "ballot_shape")
            self._json(200, ps.ballot(phone, obj["vote_id"], option,
                                      self._scan_id(obj.get("ballot_id"))))
            return
        if path == "/scan":
            if not ps.phones.may_count_now(phone):
                raise Refused(403, "waiting")
            obj = self.json_body({"text", "scan_id", "typed"})
            if not isinstance(obj.get("text"), str) or not 0 < len(obj["text"]) <= 64 \
                    or not isinstance(obj.get("typed", False), bool):
                raise Refused(400, "scan_shape")
            reply = ps.answer_texts(phone, [obj["text"]], self._scan_id(obj.get("scan_id")),
                                    typed=obj.get("typed", False))
        else:
            scan_id = self._scan_id(self.headers.get("X-Scan-Id"))
            replayed = ps.replay(phone, scan_id)   # a photo already read is not read again
            if replayed is not None:
                reply = replayed
            elif not ps.phones.may_count_now(phone):   # a waiting phone's photo is not read
                raise Refused(403, "waiting")
            else:
                data, _ = self.body(ps.max_photo, PHOTO_TYPES)
                with ps.photos.turn(phone.id) as rest:
                    try:
                        texts = ps.decoder(data)
                    except BadInput as exc:
                        if isinstance(exc, TooSlow):
                            rest()
                        raise Refused(400, "photo", error=i18n.text_of(exc, phone.lang)) from None
                reply = ps.answer_texts(phone, texts, scan_id)
        self._json(200, reply)
