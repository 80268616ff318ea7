"""A toast with one action button ("Undone: Ann's ballot  [Redo]"), over every screen."""
from __future__ import annotations

from kivy.clock import Clock
from kivy.lang import Builder
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

Builder.load_string("""
#:import theme companion.app.theme
#:import ui companion.app.theme.ui
<ActionToast>:
    opacity: 1 if self.message else 0
    size_hint: 0.8, None
    height: dp(84)
    pos_hint: {'center_x': 0.5, 'top': 0.88}
    padding: dp(12), dp(8)
    spacing: dp(12)
    canvas.before:
        Color:
            rgba: ui.panel[:3] + [1 if self.message else 0]
        RoundedRectangle:
            pos: self.pos
            size: self.size
            radius: [dp(10)]
        Color:
            rgba: ui.accent[:3] + [1 if self.message else 0]
        Line:
            rounded_rectangle: (self.x, self.y, self.width, self.height, dp(10))
            width: dp(2)
    Label:
        text: root.message
        font_size: '24sp'
        text_size: self.width, None
        halign: 'left'
    BigButton:
        id: action
        text: root.action_text
        size_hint_x: None
        width: dp(180)
        on_release: root.act()
""")


class ActionToast(BoxLayout):
    message = StringProperty("")
    action_text = StringProperty("")
    action = ObjectProperty(None, allownone=True)

    # Only its button takes touches: any other touch goes through to the screen beneath, and a
    # touch elsewhere dismisses the toast (the table has moved on).
    def on_touch_down(self, touch):
        if not self.message:
            return False
        if self.ids.action.collide_point(*touch.pos):
            return super().on_touch_down(touch)
        self.clear()
        return False

    def on_touch_move(self, touch):
        return super().on_touch_move(touch) if self.message else False

    def on_touch_up(self, touch):
        return super().on_touch_up(touch) if self.message else False

    def show(self, message: str, action_text: str, action, seconds: float = 8.0):
        self.message, self.action_text, self.action = message, action_text, action
        Clock.unschedule(self.clear)
        Clock.schedule_once(self.clear, seconds)

    def act(self):
        action = self.action
        self.clear()
        if action is not None:
            action()

    def clear(self, *_):
        self.message, self.action = "", None
