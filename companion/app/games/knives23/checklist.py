"""The setup checklist (rulebook Setup I–VII), with what changes by player count and option;
play begins with the starting player once every step is ticked."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.games.knives23 import common  # noqa: F401
from companion.core.i18n import tr

load_kv(__file__)


class Knives23ChecklistScreen(Screen):
    app = ObjectProperty()
    who = StringProperty("")
    all_done = BooleanProperty(False)

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        steps = view.get("setup")
        if not steps:
            return
        self.who = tr("knives23.ui.setup_who", players=", ".join(view["players"]),
                      n=len(view["players"]), tribune=view["tribune"])
        box = self.ids.steps
        box.clear_widgets()
        for s in steps:
            b = Factory.K23CheckButton(text=s["text"])
            b.step, b.done = s["step"], s["done"]   # kv-declared properties exist only after creation
            b.bind(on_release=lambda btn: self.tick(btn))
            box.add_widget(b)
        self.all_done = all(s["done"] for s in steps)

    def tick(self, button):
        if not button.done:
            self.app.send("tick_setup", step=button.step)


def make(app):
    return Knives23ChecklistScreen(name="knives23.checklist", app=app)
