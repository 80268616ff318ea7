"""A tied vote: the Tribune decides ("you may choose either red or grey, regardless of your
original Vote"; "Ties are determined by the current Tribune")."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common  # noqa: F401
from companion.core.i18n import text_of, tr
from companion.games.knives23 import issue_name

load_kv(__file__)


class Knives23DecisionScreen(Screen):
    app = ObjectProperty()
    headline = StringProperty("")
    detail = StringProperty("")

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        phase = view.get("phase")
        if phase not in ("issue_tie", "exile_tie"):
            return
        self.ids.board.show(view)
        self.headline = view["prompt"]
        last = view["vote_history"][-1]
        counts = ", ".join(f"{tr('knives23.vote.' + o)} {n}" for o, n in last["counts"].items())
        if phase == "issue_tie":
            # an Issue the Tribune did not name is "the red Issue"
            red, grey = (text_of(issue_name(view["issues"], c)) for c in ("red", "grey"))
            self.detail = tr("knives23.ui.tie_issue", counts=counts, red=red, grey=grey)
            options = [("red", tr("knives23.ui.choose_red", issue=red)),
                       ("grey", tr("knives23.ui.choose_grey", issue=grey))]
        else:
            ex = view["exile"]
            self.detail = tr("knives23.ui.tie_exile", counts=counts, caller=ex["caller"], target=ex["target"])
            options = [("exile", tr("knives23.ui.choose_exile", target=ex["target"])),
                       ("remain", tr("knives23.ui.choose_remain", caller=ex["caller"]))]
        box = self.ids.choices
        box.clear_widgets()
        for choice, label in options:
            b = Factory.K23Hold(text=label, height=110, font_size="26sp")
            b.choice = choice
            if choice in ("red", "exile"):
                b.background_color = ui.danger
            b.bind(on_hold=lambda btn: self.app.send("tie_break", choice=btn.choice))
            box.add_widget(b)


def make(app):
    return Knives23DecisionScreen(name="knives23.decision", app=app)
