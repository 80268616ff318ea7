"""The devices panel: the tablet, vote boxes, cameras and phones, with their state."""
from __future__ import annotations

import dataclasses

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.metrics import dp, sp
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.utils import escape_markup

from companion.app.screens import load_kv
from companion.app.settings import SettingsNotSaved
from companion.core.events import BadInput
from companion.core.i18n import error_text, tr
from hardware.discovery import parse_boxes

load_kv(__file__)
KINDS = ("tablet", "box", "camera", "phone")
MAX_LINES = 32      # lines per kind of device: a faulty box must not fill the panel (8 seats)
# Why a box's press was ignored (BoxManager's ``why``) -> words that never name the button:
# while a vote is open, a press may be a player's secret ballot.
IGNORED_WHY = {"duplicate": "devices.press_duplicate_id", "unpaired": "devices.press_unpaired_secret",
               "not_option": "devices.press_not_an_option", "keypad": "devices.press_unknown_keypad"}


def describe(info, now: float) -> str:
    parts = [f"[b]{info.label}[/b]"]
    if info.seat is not None:
        parts.append(tr("devices.seat", seat=info.seat))
    else:
        parts.append(tr("devices.unpaired") if info.kind == "box" else "")
    parts.append(tr("devices.connected") if info.connected else f"[color=#d0453c]{tr('devices.disconnected')}[/color]")
    if info.last_seen is not None:
        parts.append(tr("devices.last_seen", seconds=max(0, round(now - info.last_seen))))
    if info.firmware:
        parts.append(tr("devices.firmware", version=info.firmware))
    if info.battery is not None:
        parts.append(tr("devices.battery", percent=info.battery))
    if info.detail:
        parts.append(info.detail)
    return "   ".join(p for p in parts if p)


class DevicesScreen(Screen):
    app = ObjectProperty()
    last_press = StringProperty("")
    boxes_status = StringProperty("")
    _ev = None

    def on_kv_post(self, *_):
        self.app.listen("box_pressed", self.on_box_pressed)

    def on_box_pressed(self, command):
        """A press that is not a ballot: a pairing press, or an ignored one (shown with its real
        reason). The button is named only when no vote is open (it helps find a box to pair);
        while one is (``secret``, and by default), it may be the player's choice: never shown."""
        d = command.data
        box = d.get("box", command.source)
        if d.get("ignored") or not d.get("seat"):
            why, secret = d.get("why"), d.get("secret", True)
            if why == "unpaired" and not secret:
                self.last_press = tr("devices.press_ignored", box=box, button=d.get("button", "?"))
            elif why == "no_vote" and not secret:
                self.last_press = tr("devices.press_no_vote", box=box, button=d.get("button", "?"))
            else:
                self.last_press = tr(IGNORED_WHY.get(why, "devices.press_ignored_secret"), box=box)
            self.app.toast(self.last_press)
        else:
            self.last_press = tr("devices.press_paired", box=box, seat=d["seat"])
        if self.app.sm.current == "devices":
            self.refresh()

    def on_pre_enter(self, *_):
        self.show_box_setting()
        self.refresh()
        self._ev = Clock.schedule_interval(lambda dt: self.refresh(), 1.0)

    def on_pre_leave(self, *_):
        # Leaving is not throwing away: a choice made here and not yet applied is applied now.
        if self._shown_setting() != getattr(self, "_shown", None):
            self.apply_boxes()

    def _shown_setting(self):
        return self.ids.boxes_on.state, self.ids.box_ports.text.strip()

    def on_leave(self, *_):
        if self._ev is not None:
            self._ev.cancel()

    # -- the Devices setting: boxes on/off, "auto" or ports -------------------------------
    def show_box_setting(self):
        s, arg = self.app.settings, self.app.boxes_arg
        on = s.boxes_enabled if arg is None else parse_boxes(arg) is not None
        ports = s.box_ports if arg is None or not on else arg
        self.ids.boxes_on.state = "down" if on else "normal"
        self.ids.box_ports.text = ports
        self.ids.box_ports.scroll_x = 0     # a long port typed before must not hide the start
        self._shown = self._shown_setting()

    def apply_boxes(self):
        """The table's choice replaces `--boxes` from now on, and is kept in settings.json."""
        app = self.app
        chosen = dataclasses.replace(app.settings, boxes_enabled=self.ids.boxes_on.state == "down",
                                     box_ports=self.ids.box_ports.text.strip() or "auto")
        unsaved = ""
        try:
            chosen.save(app.data_dir / "settings.json")
        except SettingsNotSaved as exc:  # a full disk, a read-only folder: the choice applies all the same
            unsaved = error_text(exc)
        except BadInput as exc:
            app.toast(error_text(exc))
            return False
        app.settings = chosen
        app.boxes_arg = None
        app._start_boxes()
        self.show_box_setting()
        self.refresh()
        if unsaved:
            app.toast(unsaved)
        return True

    def _box_source(self):
        """The boxes the app started (--boxes or the setting), while they run."""
        src = self.app.box_source
        return src if src in self.app.sources else None

    def _box_status(self) -> str:
        src = self._box_source()
        if src is None:
            return tr("devices.boxes_off")
        lines = []
        if self.app.boxes_arg is not None:
            lines.append(tr("devices.boxes_from_command_line", value=self.app.boxes_arg))
        if src.watcher is not None:
            found = ", ".join(sorted(src.watcher.present)) or tr("devices.boxes_none_yet")
            lines.append(tr("devices.boxes_watching", ports=found))
        status = src.port_status()
        if status:
            lines.append(tr("devices.boxes_ports", ports=", ".join(url for url, _ in status)))
        lines += [tr("devices.boxes_port_problem", port=url, problem=problem)
                  for url, problem in status if problem]
        return "\n".join(lines)

    def pairing_sources(self):
        return [s for s in self.app.sources if hasattr(s, "pair")]

    def seat_names(self) -> list[str]:
        players = (self.app.view or {}).get("players") or []
        return [str(p) if isinstance(p, str) else str(p.get("name", "")) for p in players]

    def pair(self, seat: int):
        for src in self.pairing_sources():
            src.pair(seat)
        self.refresh()

    def cancel_pairing(self):
        for src in self.pairing_sources():
            src.cancel_pairing()
        self.refresh()

    def _pairing_rows(self, box):
        sources = self.pairing_sources()
        if not sources:
            return
        waiting = next((s.manager.pairing_seat for s in sources
                        if getattr(getattr(s, "manager", None), "pairing_seat", None)), None)
        names = self.seat_names()
        if waiting:
            name = names[waiting - 1] if waiting <= len(names) else ""
            row = Factory.PairingRow()
            row.ids.text.text = tr("devices.pairing_now", seat=waiting, name=name)
            vote = (self.app.view or {}).get("vote")
            if vote and not vote.get("revealed"):   # a voter's box keeps voting (hardware.manager)
                row.ids.text.text += "\n" + tr("devices.pairing_in_vote")
                row.height = dp(96)
            row.ids.button.text = tr("devices.pairing_cancel")
            row.ids.button.bind(on_release=lambda *_: self.cancel_pairing())
            box.add_widget(row)
            return
        grid = Factory.PairingGrid()
        for seat in range(1, (len(names) or 8) + 1):
            label = tr("devices.pair_seat", seat=seat, name=names[seat - 1] if names else "")
            b = Factory.BigButton(text=label)
            b.bind(on_release=lambda _b, seat=seat: self.pair(seat))
            grid.add_widget(b)
        box.add_widget(_Line(text=tr("devices.pairing_help")))
        box.add_widget(grid)

    def _conflict_rows(self, box):
        """Two boxes claim one id: neither counts until the table says which is which (the
        other is ignored until the app restarts). One row per box and port (not per keypad)."""
        for src in self.pairing_sources():
            twins = sorted({("%08X" % u.box, u.url) for u in src.manager.units() if u.conflict})
            for ident, url in twins[:MAX_LINES]:
                row = Factory.PairingRow()
                row.ids.text.text = tr("devices.conflict_keep_text", box=ident, port=url)
                row.ids.button.text = tr("devices.conflict_keep")
                row.ids.button.bind(on_release=lambda *_, s=src, i=ident, u=url: self.keep(s, i, u))
                box.add_widget(row)

    def keep(self, src, ident: str, url: str):
        try:
            src.keep(ident, url)
        except ValueError as exc:  # the box went away meanwhile
            self.app.toast(str(exc))
        self.refresh()

    def refresh(self):
        """The list as it is now. It is drawn again every second (a box's "last seen" ages): when
        only texts changed, they change in place, so a button a finger is on stays the same
        button (a list built anew between a touch's down and up would lose the tap)."""
        rows = _Rows()
        self._build(rows)
        shape = [_shape(w) for w in rows]
        box = self.ids.list
        if shape == getattr(self, "_shape", None) and len(box.children) == len(rows):
            for old, new in zip(reversed(box.children), rows):
                _copy_texts(new, old)
            return
        box.clear_widgets()
        for w in rows:
            box.add_widget(w.make() if isinstance(w, _Line) else w)
        self._shape = shape

    def _build(self, box):
        self.boxes_status = self._box_status()
        devices = self.app.devices()
        now = self.app.engine_clock.now()
        for kind in KINDS:
            box.add_widget(Factory.DeviceHeading(text=tr(f"devices.kind.{kind}")))
            mine = [d for d in devices if d.kind == kind]
            if not mine:
                box.add_widget(_Line(text=f"[color=#b3b3b8]{tr(f'devices.none.{kind}')}[/color]"))
            ordered = sorted(mine, key=lambda d: (d.seat is None, d.seat or 0, d.ident))
            for info in ordered[:MAX_LINES]:     # seated ones first
                box.add_widget(_Line(text=describe(info, now)))
            if len(ordered) > MAX_LINES:
                box.add_widget(_Line(text=tr("devices.more_not_shown", count=len(ordered) - MAX_LINES)))
            if kind == "box":
                self._conflict_rows(box)
            if kind == "box":
                status = _Line(text=f"[color=#b3b3b8]{escape_markup(self.boxes_status)}[/color]",
                               font_size=sp(22))
                # Where the ports stand matters most when no box shows or a port fails: then
                # above the pairing buttons, else below them.
                src = self._box_source()
                first = not mine or (src is not None and any(p for _, p in src.port_status()))
                if first:
                    box.add_widget(status)
                self._pairing_rows(box)
                if not first:
                    box.add_widget(status)


class _Rows(list):
    """The list's rows, gathered before they are shown."""

    def add_widget(self, widget):
        self.append(widget)


class _Line:
    """A DeviceLine's properties: most refreshes only change texts in place, so the label is
    made only when the list's shape changes, not every second."""

    def __init__(self, **props):
        self.props = props

    def make(self):
        return Factory.DeviceLine(**self.props)


def _shape(widget) -> tuple:
    """What makes a row the same row: its kind, and the words on its buttons and pairing rows
    (a line's text may change in place)."""
    if isinstance(widget, _Line):
        return ("DeviceLine",)
    if type(widget).__name__ == "PairingRow":
        return ("PairingRow", widget.ids.text.text, widget.ids.button.text)
    if type(widget).__name__ == "PairingGrid":
        return ("PairingGrid",) + tuple(b.text for b in reversed(widget.children))
    return (type(widget).__name__,)


def _copy_texts(new, old) -> None:
    """A row shown already takes the words (and size) of the same row built now."""
    if isinstance(new, _Line):
        for name, value in new.props.items():
            if getattr(old, name) != value:
                setattr(old, name, value)
        return
    for name in ("text", "font_size"):
        if hasattr(new, name) and getattr(old, name) != getattr(new, name):
            setattr(old, name, getattr(new, name))


def make(app):
    return DevicesScreen(name="devices", app=app)
