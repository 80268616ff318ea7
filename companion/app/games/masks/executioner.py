"""The Executioner received the most votes: "choose another player to be eliminated instead"."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv

load_kv(__file__)


class MasksExecutionerScreen(Screen):
    app = ObjectProperty()
    executioner = StringProperty("")
    prompt = StringProperty("")

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        self.executioner = view.get("executioner") or ""
        self.prompt = view.get("prompt", "")
        box = self.ids.targets
        box.clear_widgets()
        for name in view.get("players", []):
            if name == self.executioner:
                continue
            b = Factory.MasksTargetButton(text=name)
            b.player = name
            b.bind(on_hold=lambda btn: self.choose(btn.player))
            box.add_widget(b)

    def choose(self, player: str):
        self.app.send("executioner_chooses", target=player)


def make(app):
    return MasksExecutionerScreen(name="masks.executioner", app=app)
