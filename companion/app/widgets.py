"""Widgets every screen shares: big buttons, a hold-to-confirm button, the caption bar, toasts,
panels, and the card that turns over (``FlipCard``, ``reveal_animation``)."""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from kivy.animation import Animation
from kivy.clock import Clock
from kivy.graphics import InstructionGroup
from kivy.properties import BooleanProperty, NumericProperty, OptionProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.app import icons
from companion.app.theme import ui

# How a card turns over: long enough to see, short enough that nobody waits for it.
FLIP_SECONDS = 0.45
FLIP_STAGGER = 0.18


class BigButton(Button):
    """A button at least 64 dp tall with large text. ``role`` picks its fill: ``primary`` (gold,
    the step the table takes next), ``secondary`` (raised stone, the default), ``danger``
    (terracotta: exile, end the game), ``quiet`` (no fill, for the top bar). A screen that sets
    ``background_color`` itself still gets a legible text colour (see ``Theme.ink_for``)."""

    role = OptionProperty("secondary", options=("primary", "secondary", "danger", "quiet"))

    def fill_for(self, role: str, state: str, *_bound):
        """The fill for a role and press state (extra arguments only make .kv rebind)."""
        if state == "down":
            return ui.accent if role != "primary" else ui.text
        return {"primary": ui.accent, "secondary": ui.raised, "danger": ui.danger,
                "quiet": ui.panel}[role]


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


@lru_cache(maxsize=512)
def text_width(text: str, font_size: float, bold: bool = False) -> float:
    """How wide ``text`` is on one line at ``font_size`` (pixels), for a button sized to its
    words. Measured with the font, not guessed from the number of letters: "Home" is wider than
    four average letters, and a guess too small broke it as "Hom / e"."""
    from kivy.core.text import Label as CoreLabel
    return float(CoreLabel(font_size=font_size, bold=bold).get_extents(text)[0])


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


class Panel(BoxLayout):
    """A card of stone on the night: groups what belongs together (totals, a list, a choice)."""


class FlipCard(BoxLayout):
    """A card that turns over: its back (Tyrian purple, a gold laurel) until ``turn()``, then its
    face — the widgets put in it. ``flip`` runs 0 (back) → 1 (face); the card narrows to an edge
    halfway, as a card turned on the table does."""

    flip = NumericProperty(1.0)
    back_icon = StringProperty("laurel")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._emblem = InstructionGroup()
        self.canvas.before.add(self._emblem)   # after the card's fill (drawn by the .kv rule)
        self.bind(pos=self._draw_back, size=self._draw_back, flip=self._draw_back,
                  back_icon=self._draw_back)
        ui.bind(mode=self._draw_back)

    def add_widget(self, widget, *args, **kw):
        widget.opacity = 1 if self.flip >= 0.5 else 0
        return super().add_widget(widget, *args, **kw)

    def _draw_back(self, *_):
        self._emblem.clear()
        for child in self.children:   # the face shows once the card passes its edge
            child.opacity = 1 if self.flip >= 0.5 else 0
        if self.flip < 0.5 and self.back_icon:
            side = min(self.width, self.height) * 0.55
            icons.draw(self._emblem, self.back_icon, self.center_x - side / 2,
                       self.center_y - side / 2, side,
                       lambda role: ui.accent if role in ("fg", "good") else ui.text)

    def show_back(self):
        Animation.cancel_all(self, "flip")
        self.flip = 0.0

    def turn(self, delay: float = 0.0, seconds: float = FLIP_SECONDS) -> Animation:
        """Turn face up after ``delay`` seconds; the face shows the moment it passes the edge."""
        Animation.cancel_all(self, "flip")
        anim = Animation(flip=0.0, duration=delay) + Animation(flip=1.0, duration=seconds, t="in_out_sine")
        anim.start(self)
        return anim


def reveal_animation(cards: Iterable[FlipCard], stagger: float = FLIP_STAGGER,
                     seconds: float = FLIP_SECONDS) -> float:
    """Turn ``cards`` face up one after another (the votes at a reveal, the Curia's cards).
    Returns the seconds until the last one is face up."""
    total = 0.0
    for i, card in enumerate(cards):
        card.show_back()
        card.turn(delay=i * stagger, seconds=seconds)
        total = i * stagger + seconds
    return total
