"""The Back key: Android's Back button reaches Kivy as Escape (keycode 27) — and so does Esc on
a desktop. Left alone, Kivy closes the app on it; on a tablet passed around the table that is
one stray thumb away from losing the game's screen in the middle of a secret vote.

- During a secret vote (``app.private``: one player holds the tablet) it does nothing.
- During a game it asks first; the game is in the journal either way and can be resumed.
- On a utility screen (settings, devices…) it goes back, like the screen's own Back button
  (checked first: on the devices panel during a game, Back returns to the game).
- On the picker with no game it leaves, as Back does everywhere on Android.
"""
from __future__ import annotations

from kivy.core.window import Window
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.uix.modalview import ModalView

KEY_BACK = 27  # Escape on a keyboard, Back on Android
PLAY_SCREENS = ("vote", "reveal")  # as companion.app.main; a game's own screens have a "."

Builder.load_string("""
#:import theme companion.app.theme
#:import ui companion.app.theme.ui
#:import tr companion.core.i18n.tr

<LeaveQuestion>:
    size_hint: 0.7, None
    height: dp(260)
    auto_dismiss: False
    background_color: 0, 0, 0, 0.7
    BoxLayout:
        orientation: 'vertical'
        padding: dp(24)
        spacing: dp(16)
        canvas.before:
            Color:
                rgba: ui.panel
            RoundedRectangle:
                pos: self.pos
                size: self.size
                radius: [dp(12)]
        WrapLabel:
            text: tr('back.leave_question')
            font_size: '26sp'
            halign: 'center'
        BoxLayout:
            size_hint_y: None
            height: dp(theme.BUTTON_DP)
            spacing: dp(12)
            BigButton:
                id: stay
                text: tr('back.stay')
                on_release: root.dismiss()
            BigButton:
                id: leave
                text: tr('back.leave')
                on_release: root.dismiss(); root.on_leave_app()
""")


class LeaveQuestion(ModalView):
    def __init__(self, on_leave_app, **kw):
        self.on_leave_app = on_leave_app
        super().__init__(**kw)


Factory.register("LeaveQuestion", cls=LeaveQuestion)


class BackKey:
    def __init__(self, app):
        self.app = app
        self.question: LeaveQuestion | None = None
        Window.bind(on_keyboard=self.on_keyboard)

    def on_keyboard(self, _window, key, *_):
        """True keeps the key from Kivy's default (closing the app)."""
        if key != KEY_BACK:
            return False
        app = self.app
        if app.private:
            return True          # a secret vote: Back must not show or close anything
        if self.question is not None:
            self.question.dismiss()   # Back on the question itself: stay
            return True
        current = app.sm.current
        if current != "picker" and current not in PLAY_SCREENS and "." not in current:
            app.go_home()        # a utility screen (settings, devices…): back to the table
            return True
        if app.game_id:
            self.ask()
            return True
        return False             # nothing to lose: Back leaves the app as usual

    def ask(self):
        self.question = LeaveQuestion(on_leave_app=self.app.stop)
        self.question.bind(on_dismiss=self._gone)
        self.question.open()

    def _gone(self, *_):
        self.question = None

