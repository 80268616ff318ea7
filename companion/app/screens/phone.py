"""The phone screen: phones join by scanning a code on the tablet, then scan the QR stickers on
the Fate cards at 23 Knives' Curia reveal.

It shows the join code (large: a phone reads it off a glossy screen from arm's length) and its
address in text, starts and stops serving, lists the phones that joined with their scan counts,
the Curia's running total and cards revealed "of N" from the table view, and the last answers
the phones were given. The server's threads never touch this screen: scans are recorded by
:class:`companion.phone.source.PhoneSource` on the main thread, and this screen re-reads the
view after each batch (``state_version``) and the server's phone list on a Clock poll.
"""
from __future__ import annotations

import io

from kivy.clock import Clock
from kivy.core.image import Image as CoreImage
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.app.screens import load_kv
from companion.core.events import BadInput
from companion.core.i18n import tr
from companion.phone.join import join_qr_png
from companion.phone.source import PhoneSource, scans_words

load_kv(__file__)

POLL_SECONDS = 0.5  # the phones list: joins happen on the server's threads, seen by polling
CURIA_PHASES = ("end_abilities", "curia_reveal")


class PhoneLine(Label):
    """One line in the phones list or the last answers (muted: what is not news)."""

    muted = BooleanProperty(False)


class PhoneRow(BoxLayout):
    """A phone that joined: its name and scans, and what the narrator may do about it (allow a
    waiting phone, or refuse it: its token stops working)."""

    phone_id = StringProperty("")
    text = StringProperty("")
    allowed = BooleanProperty(False)
    screen = ObjectProperty(None)


class CardFace(Label):
    """A counted Curia card, face up, for the table to compare with the card turned over."""

    side = StringProperty("knives")


class PhoneScreen(Screen):
    app = ObjectProperty()
    source = ObjectProperty(None, allownone=True)
    serving = BooleanProperty(False)
    can_serve = BooleanProperty(False)   # a 23 Knives game is on the tablet
    at_curia = BooleanProperty(False)
    portrait = BooleanProperty(False)    # a tablet held upright: the join code above the rest
    show_total = BooleanProperty(False)  # the game has reached its end: there is a Curia total
    context_note = StringProperty("")    # why scans do not count now, when they do not
    reach_warning = StringProperty("")   # why phones cannot reach the server, when they cannot
    join_url = StringProperty("")
    join_text = StringProperty("")
    total = StringProperty("")
    total_label = StringProperty("")
    counter = StringProperty("")
    error = StringProperty("")
    typing = BooleanProperty(False)      # the narrator allows typed codes
    secure = BooleanProperty(False)      # https with the table's certificate: phones scan live
    seat = StringProperty("")            # whose seat code is shown ("" : the table's join code)
    code_caption = StringProperty("")    # what the code on show is for

    def __init__(self, **kw):
        super().__init__(**kw)
        self._poll_ev = None
        self.app.bind(state_version=lambda *_: self.refresh())

    # -- entering and leaving ------------------------------------------------------------
    def on_pre_enter(self, *_):
        if self.source is not None and self.source not in self.app.sources:
            self._forget_source()  # the app stopped it (a reset): start afresh
        self.refresh()
        self._poll_ev = Clock.schedule_interval(lambda dt: self.refresh_phones(), POLL_SECONDS)

    def on_leave(self, *_):
        # Phones keep scanning while the table looks at the Curia screen; only the poll stops.
        if self._poll_ev is not None:
            self._poll_ev.cancel()
            self._poll_ev = None

    # -- starting and stopping -----------------------------------------------------------
    def toggle(self):
        if self.serving:
            self.stop_serving()
        else:
            self.start_serving()

    def start_serving(self, host: str | None = None, **kwargs) -> bool:
        """Serve phones on this tablet's LAN address (or ``host``: loopback in tests)."""
        if self.serving:
            self.stop_serving()
        if not self._in_game():
            self._fail(tr("phone.no_game"))
            return False
        try:
            source = PhoneSource.for_app(self.app, host=host, secure=self.secure, **kwargs)
            self.app.add_source(source)
        except (BadInput, OSError) as exc:  # a bad key file, a port in use, no such address
            self._fail(tr("phone.start_failed", error=" ".join(str(exc).split())))
            return False
        self.source = source
        self._host = host
        source.server.typing = self.typing
        self.serving = True
        self.error = ""
        self.show_seat("")
        self.refresh()
        return True

    def show_seat(self, player: str):
        """Show ``player``'s own seat code (the phone that scans it votes for them), or the
        table's join code for ``""``."""
        if self.source is None:
            return
        self.seat = player
        server = self.source.server
        self._show_join_code(server.seat_url(player) if player else server.join_url)
        self.code_caption = (tr("phone.seat_caption", player=player) if player
                             else tr("phone.join_caption"))
        self.refresh()

    def stop_serving(self):
        source = self.source
        self._forget_source()
        if source is not None:
            self.app.remove_source(source)
        self.refresh()

    # -- the narrator's say over phones ---------------------------------------------------
    def allow(self, phone_id: str):
        if self.source is not None:
            self.source.server.allow(phone_id)
        self.refresh_phones()

    def refuse(self, phone_id: str):
        if self.source is not None:
            self.source.server.refuse(phone_id)
            if self.seat:   # a refused seat phone's seat has a new code: show that one
                self.show_seat(self.seat)
        self.refresh_phones()

    def toggle_secure(self):
        """https on or off; a serving server starts again at its new address."""
        self.secure = not self.secure
        if self.serving:
            self.start_serving(host=self._host)

    def toggle_typing(self):
        self.typing = not self.typing
        if self.source is not None:
            self.source.server.typing = self.typing

    def _forget_source(self):
        self.source = None
        self.serving = False
        self.join_url = ""
        self.ids.qr.texture = None

    def _fail(self, message: str):
        self.error = message
        self.app.toast(message)

    def _show_join_code(self, url: str):
        self.join_url = url
        image = CoreImage(io.BytesIO(join_qr_png(url)), ext="png")
        texture = image.texture
        # Nearest-neighbour scaling keeps every module's edge sharp for the phone's camera.
        texture.mag_filter = "nearest"
        texture.min_filter = "nearest"
        self.ids.qr.texture = texture

    # -- what is shown -------------------------------------------------------------------
    def _is_knives(self) -> bool:
        return (self.app.view or {}).get("game") == "knives23"

    def _in_game(self) -> bool:
        return bool((self.app.view or {}).get("game"))

    def refresh(self):
        view = self.app.view or {}
        self.can_serve = self._in_game()
        knives = self._is_knives()
        phase = view.get("phase")
        self.at_curia = knives and phase in CURIA_PHASES
        if not self.can_serve:
            self.context_note = tr("phone.no_game")
        elif not knives:
            self.context_note = tr("phone.votes_only")
        elif self.at_curia:
            self.context_note = ""
        elif view.get("end"):
            self.context_note = tr("phone.after_curia")
        else:
            self.context_note = tr("phone.before_curia")
        end = view.get("end") or {}
        # Before the game's end the Curia is still filling: no total to show yet.
        self.show_total = knives and bool(end)
        if self.show_total:
            self.total_label = tr("knives23.ui.curia_total")
            self.total = str(end.get("running_total", 0))
            self.counter = tr("knives23.ui.revealed_of", n=end.get("revealed_count", 0),
                              count=(view.get("curia") or {}).get("count", 0))
        else:
            self.total_label, self.total, self.counter = "", "", ""
        self._show_faces(end.get("revealed") or [])
        source = self.source
        if source is None:
            self.reach_warning = ""
            self.join_text = tr("phone.off")
        else:
            reason = source.unreachable
            host = source.host
            self.reach_warning = {"no_lan": lambda: tr("phone.no_lan", host=host),
                                  "not_local": lambda: tr("phone.not_local", address=source.lan_seen, host=host),
                                  "loopback": lambda: tr("phone.loopback", host=host)}.get(reason, lambda: "")()
            self.join_text = tr("phone.join_url", url=self.join_url)
            if source.server.tls is not None:
                from companion.phone.tls import fingerprint
                self.join_text += "\n" + tr("phone.fingerprint",
                                            fingerprint=fingerprint(self.app.data_dir))
        self._show_seat_buttons(view.get("players") or [])
        self.refresh_phones()

    def _show_seat_buttons(self, players):
        box = self.ids.seats
        names = [str(p) for p in players] if self.source is not None else []
        if [getattr(c, "player", None) for c in reversed(box.children)] == [""] + names:
            return
        box.clear_widgets()
        if not names:
            return
        for player in [""] + names:
            b = Factory.SeatButton(text=tr("phone.seat_button", player=player) if player
                                   else tr("phone.join_button"))
            b.player = player
            b.bind(on_release=lambda btn: self.show_seat(btn.player))
            box.add_widget(b)

    def _show_faces(self, revealed: list[dict]):
        """Every counted card face up, in the order counted, with its sticker's serial (or
        "tapped" for a card entered on the tablet)."""
        faces = self.ids.faces
        faces.clear_widgets()
        for i, r in enumerate(revealed, start=1):
            (side, value), = dict(r["card"]).items()
            name = tr(f"knives23.card.{side}_one") if value == 1 else tr(f"knives23.card.{side}", value=value)
            serial = r.get("serial")
            mark = tr("phone.card_serial", serial=serial) if serial else tr("phone.card_tapped")
            faces.add_widget(CardFace(text=f"{i}. [b]{escape_markup(name)}[/b]\n{escape_markup(mark)}",
                                      side=side))

    def refresh_phones(self):
        source = self.source
        phones = source.server.devices() if source is not None else []
        lines = source.recent(4) if source is not None else []
        shown = (tuple(tuple(sorted(p.items())) for p in phones), tuple(lines))
        if shown == getattr(self, "_shown", None):
            return  # the poll rebuilds nothing that has not changed (a finger may be on a row)
        self._shown = shown
        box = self.ids.phones
        rows = [(p["id"], p["allowed"], _phone_text(p)) for p in phones]
        shown_rows = [w for w in reversed(box.children) if isinstance(w, PhoneRow)]
        if rows and [w.phone_id for w in shown_rows] == [r[0] for r in rows] \
                and len(box.children) == len(rows):
            # The same phones: their rows change in place, so an Allow button a finger is on
            # stays the same button (a row built anew between a touch's down and up loses the tap).
            for w, (_pid, allowed, text) in zip(shown_rows, rows):
                w.allowed, w.text = allowed, text
        else:
            box.clear_widgets()
            if not phones:
                box.add_widget(PhoneLine(text=tr("phone.none_joined"), muted=True))
            for pid, allowed, text in rows:
                box.add_widget(PhoneRow(phone_id=pid, allowed=allowed, screen=self, text=text))
        recent = self.ids.recent
        recent.clear_widgets()
        for line in lines or [tr("phone.no_scans")]:
            # lines name cards and reasons, never a phone's own text; escaped all the same
            recent.add_widget(PhoneLine(text=escape_markup(line), muted=True, font_size="22sp"))


def _phone_text(p: dict) -> str:
    """A phone's row: its name, whether it may scan (and whose vote it carries), its scans."""
    state = tr("phone.allowed") if p["allowed"] else tr("phone.waiting")
    if p.get("seat"):
        state = tr("phone.votes_for", player=p["seat"]) + ("   " + tr("phone.allowed") if p["allowed"] else "")
    return f"[b]{tr('phone.name', id=p['id'])}[/b]   {state}   {scans_words(p['scans'])}"


def make(app):
    return PhoneScreen(name="phone", app=app)
