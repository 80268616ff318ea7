"""The deal checklist: what goes where before the narrator starts."""
from __future__ import annotations

from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv

load_kv(__file__)

CHECKLIST = ("masks.deal.players", "masks.deal.identity", "masks.deal.mask",
             "masks.deal.bystanders", "masks.deal.narrator")


class MasksDealScreen(Screen):
    app = ObjectProperty()
    items = ListProperty(CHECKLIST)
    players = StringProperty("")

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        self.players = ", ".join((self.app.view or {}).get("players", []))

    def start(self):
        self.app.send("start_hidden_phase")


def make(app):
    return MasksDealScreen(name="masks.deal", app=app)
