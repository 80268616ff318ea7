"""Widgets every screen shares: big buttons, a hold-to-confirm button, the caption bar, toasts."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label


class BigButton(Button):
    """A button at least 64 dp tall with large text."""


class HoldButton(BigButton):
    """Acts only after being held for ``hold_seconds``: a stray tap does nothing. Used where a
    mis-tap would cast someone else's ballot or force a reveal."""

    hold_seconds = NumericProperty(0.8)
    progress = NumericProperty(0.0)
    __events__ = ("on_hold",)

    def on_touch_down(self, touch):
        if self.collide_point(*touch.pos) and not self.disabled:
            touch.grab(self)
            self._held = 0.0
            self._ev = Clock.schedule_interval(self._tick, 1 / 30)
            return True
        return super().on_touch_down(touch)

    def _tick(self, dt):
        self._held += dt
        self.progress = min(1.0, self._held / self.hold_seconds)
        if self.progress >= 1.0:
            self._cancel()
            self.dispatch("on_hold")

    def _cancel(self):
        ev = getattr(self, "_ev", None)
        if ev is not None:
            ev.cancel()
            self._ev = None

    def on_touch_up(self, touch):
        if touch.grab_current is self:
            touch.ungrab(self)
            self._cancel()
            self.progress = 0.0
            return True
        return super().on_touch_up(touch)

    def trigger_hold(self):
        """For tests and accessibility switches: the same as a completed hold."""
        self.dispatch("on_hold")

    def on_hold(self):
        pass


class WrapLabel(Label):
    """A label that wraps to its width and grows to its text's height."""


class CaptionBar(Label):
    """The spoken line, shown large at the bottom of every screen."""

    shown = BooleanProperty(False)


class Toast(Label):
    """A one-line message (a refused action, with its rule) that fades after a few seconds."""

    message = StringProperty("")

    def show(self, message: str, seconds: float = 6.0):
        self.message = message
        Clock.unschedule(self._clear)
        Clock.schedule_once(self._clear, seconds)

    def _clear(self, *_):
        self.message = ""
