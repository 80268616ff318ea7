"""Before the general reveal: the most-voted players look at their own card; the one holding
the Executioner shows it alone (the executioner_check phase), then "choose another player to be
eliminated instead" (the executioner phase). Only then is every Identity turned over."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import BooleanProperty, StringProperty

from companion.app.gamescreen import GameScreen
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


class MasksExecutionerScreen(GameScreen):
    """One screen for both steps: it follows the view (check -> choice) while showing."""
    game_id = "masks"
    executioner = StringProperty("")
    prompt = StringProperty("")
    hint = StringProperty("")
    corrections = StringProperty("")   # pointings corrected since the reveal, one a line
    can_correct = BooleanProperty(False)
    house = StringProperty("")   # the house rules deciding the count (the rule applied, the rulebook's words)

    def refresh(self):
        view = self.app.view or {}
        self.executioner = view.get("executioner") or ""
        self.prompt = view.get("prompt", "")
        self.corrections = "\n".join(view.get("corrections", []))
        self.can_correct = bool(view.get("can_correct"))
        self.house = "\n".join(view.get("house_notes", []))
        box = self.ids.targets
        box.clear_widgets()
        if view.get("phase") == "executioner_check":
            self.hint = tr("masks.check.hold")
            for name in [p for p in self.app.legal("executioner_check", "player") if p is not None]:
                b = Factory.MasksTargetButton(text=tr("masks.check.shown", name=name))
                b.player = name
                b.bind(on_hold=lambda btn: self.shown(btn.player))
                box.add_widget(b)
            b = Factory.MasksTargetButton(text=tr("masks.check.nobody"))
            b.player = ""
            b.bind(on_hold=lambda btn: self.shown(None))
            box.add_widget(b)
            return
        self.hint = tr("masks.executioner.hold")
        for name in self.app.legal("executioner_chooses", "target"):
            b = Factory.MasksTargetButton(text=name)
            b.player = name
            b.bind(on_hold=lambda btn: self.choose(btn.player))
            box.add_widget(b)

    def shown(self, player: str | None):
        self.app.send("executioner_check", player=player)

    def choose(self, player: str):
        self.app.send("executioner_chooses", target=player)


def make(app):
    return MasksExecutionerScreen(name="masks.executioner", app=app)
