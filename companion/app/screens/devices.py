"""The devices panel: the tablet, vote boxes, cameras and phones, with their state."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)
KINDS = ("tablet", "box", "camera", "phone")


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
    _ev = None

    def on_pre_enter(self, *_):
        self.refresh()
        self._ev = Clock.schedule_interval(lambda dt: self.refresh(), 1.0)

    def on_leave(self, *_):
        if self._ev is not None:
            self._ev.cancel()

    def refresh(self):
        devices = self.app.devices()
        now = self.app.engine_clock.now()
        box = self.ids.list
        box.clear_widgets()
        for kind in KINDS:
            box.add_widget(Factory.DeviceHeading(text=tr(f"devices.kind.{kind}")))
            mine = [d for d in devices if d.kind == kind]
            if not mine:
                box.add_widget(Factory.DeviceLine(text=f"[color=#b3b3b8]{tr(f'devices.none.{kind}')}[/color]"))
            for info in sorted(mine, key=lambda d: (d.seat is None, d.seat or 0, d.ident)):
                box.add_widget(Factory.DeviceLine(text=describe(info, now)))


def make(app):
    return DevicesScreen(name="devices", app=app)
