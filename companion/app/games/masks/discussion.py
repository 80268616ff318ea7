"""The Discussion: a big countdown (7 minutes unless the table chose otherwise), spoken
warnings near the end, and a card reminding what each Mask allows."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.games.masks import MASKS

load_kv(__file__)


def clock_text(seconds: float) -> str:
    s = max(0, int(seconds + 0.999))  # 0:01 until it is really over
    return f"{s // 60}:{s % 60:02d}"


class MasksDiscussionScreen(Screen):
    app = ObjectProperty()
    remaining = StringProperty("")
    timer_paused = BooleanProperty(False)
    urgent = BooleanProperty(False)
    vanguard = StringProperty("")

    def on_pre_enter(self, *_):
        self.refresh()
        # a bound method (Kivy's Clock holds it weakly; a lambda kept a screen left mid-Discussion alive)
        self._ev = Clock.schedule_interval(self._tick_clock, 0.2)

    def _tick_clock(self, _dt):
        if self.manager is None:   # the table left the game with this screen showing
            return False
        self.update_clock()

    def on_leave(self, *_):
        ev = getattr(self, "_ev", None)
        if ev is not None:
            ev.cancel()

    def on_kv_post(self, *_):
        # Only while this screen belongs to the running game; a bound method, which Kivy holds
        # weakly (a lambda kept every left game's screen alive: issue 34 item 14).
        self.app.bind(view=self._view_changed)
        box = self.ids.masks
        for mask in MASKS:
            box.add_widget(Factory.MasksMaskLine(text=tr(f"masks.mask.{mask}")))
        box.add_widget(Factory.MasksMaskRule(text=tr("masks.mask.used_rule")))

    def _view_changed(self, *_):
        if self.manager is not None:
            self.refresh()

    def _countdown(self):
        from companion.app.games.masks import MasksUI
        ui = self.app.game_ui  # the Masks game attached; None or another game's once the table left it
        return ui.countdown if isinstance(ui, MasksUI) else None

    def refresh(self):
        view = self.app.view or {}
        self.vanguard = view.get("vanguard") or ""
        row = self.ids.vanguard_row
        row.clear_widgets()
        for name in self.app.legal("use_vanguard", "player"):  # none once the Mask was used
            b = Factory.MasksVanguardButton(text=name)
            b.player = name
            b.bind(on_hold=lambda btn: self.app.send("use_vanguard", player=btn.player))
            row.add_widget(b)
        self.update_clock()

    def update_clock(self):
        countdown = self._countdown()
        if countdown is None:
            seconds = float((self.app.view or {}).get("discussion_seconds", 0))
            self.timer_paused = False
        else:
            seconds = countdown.remaining()
            self.timer_paused = not countdown.running and not countdown.ended
        self.remaining = clock_text(seconds)
        self.urgent = seconds <= 60

    def toggle_timer(self):
        countdown = self._countdown()
        if countdown is None:
            return
        if countdown.running:
            countdown.pause()
        else:
            countdown.resume()
        self.update_clock()

    def add_minute(self):
        countdown = self._countdown()
        if countdown is not None:
            countdown.add(60)
        self.update_clock()

    def vote_now(self):
        self.app.send("end_discussion")


def make(app):
    return MasksDiscussionScreen(name="masks.discussion", app=app)
