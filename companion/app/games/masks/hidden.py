"""The Hidden Phase: the tablet narrates the rulebook's ten steps while every eye is closed.

The screen shows the step being called (for a narrator glancing at it) and lets the table
repeat a step, pause, or change the pace. It shows nothing about the cards: it knows nothing.
"""
from __future__ import annotations

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.core.speakers import MAX_PACE, MIN_PACE

load_kv(__file__)

PACE_STEP = 0.1


class MasksHiddenScreen(Screen):
    app = ObjectProperty()
    step = NumericProperty(0)
    step_text = StringProperty("")
    paused = BooleanProperty(False)
    pace = NumericProperty(1.0)
    running = BooleanProperty(False)

    def on_app(self, _screen, app):
        # One pause for the whole app: this screen's button and the bar's show the same state.
        # A bound method, held weakly (``setter`` held the screen for the app's lifetime).
        app.bind(narration_paused=self._paused_changed)

    def _paused_changed(self, _app, paused):
        self.paused = paused

    def on_pre_enter(self, *_):
        self.refresh()

    def _phase(self):
        from companion.app.games.masks import MasksUI
        ui = self.app.game_ui  # the Masks game attached; None or another game's once the table left it
        return ui.hidden if isinstance(ui, MasksUI) else None

    def refresh(self):
        from companion.app.games.masks import hidden_step_texts
        phase = self._phase()
        narrator = self.app.narrator
        self.running = phase is not None and phase.narrator is narrator and (narrator.busy or phase.done)
        self.step = phase.step if phase is not None else 0
        self.step_text = "\n".join(hidden_step_texts().get(self.step, [])) if self.step else ""
        self.paused = bool(narrator and narrator.paused)
        self.pace = narrator.pace if narrator else 1.0

    def start(self):
        self.app.game_ui.start_hidden_phase(self.app)

    def repeat(self):
        phase = self._phase()
        if phase is None or phase.narrator is not self.app.narrator:
            self.start()
            return
        phase.repeat_step()
        self.refresh()

    def toggle_pause(self):
        self.app.narration_toggle_pause()
        self.refresh()

    def change_pace(self, delta: float):
        narrator = self.app.narrator
        narrator.pace = round(min(MAX_PACE, max(MIN_PACE, narrator.pace + delta)), 2)
        self.refresh()

    def finish(self):
        self.app.send("end_hidden_phase")

    def pace_label(self) -> str:
        return tr("masks.hidden.pace", pace=f"{self.pace:.1f}")


def make(app):
    return MasksHiddenScreen(name="masks.hidden", app=app)
