"""After the vote: the table turns every Identity over and enters the final cards (after all
swaps). The center is whatever is left: 8 cards, one of each."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.games.masks.rules import IDENTITIES

load_kv(__file__)


class MasksIdentitiesScreen(Screen):
    app = ObjectProperty()
    chosen = DictProperty({})      # player -> Identity
    royalist = StringProperty("")  # "" for nobody
    center_text = StringProperty("")

    def on_pre_enter(self, *_):
        self.chosen = {}
        self.royalist = ""
        self.build()

    def refresh(self):
        pass

    def build(self):
        grid = self.ids.grid
        grid.clear_widgets()
        players = (self.app.view or {}).get("players", [])
        grid.add_widget(Factory.MasksGridHead(text=""))
        for identity in IDENTITIES:
            grid.add_widget(Factory.MasksGridHead(text=tr(f"masks.identity.{identity}")))
        for name in players:
            grid.add_widget(Factory.MasksGridName(text=name))
            for identity in IDENTITIES:
                b = Factory.MasksCardToggle(group=f"masks-id-{name}")
                b.player, b.identity = name, identity
                b.bind(on_release=self._picked)
                grid.add_widget(b)
        row = self.ids.royalist_row
        row.clear_widgets()
        for name in [""] + list(players):
            b = Factory.MasksRoyalistToggle(text=name or tr("masks.identities.nobody"),
                                            state="down" if name == "" else "normal")
            b.player = name
            b.bind(on_release=self._royalist)
            row.add_widget(b)
        self._update_center()

    def _picked(self, button):
        chosen = dict(self.chosen)
        if button.state == "down":
            chosen[button.player] = button.identity
        else:
            chosen.pop(button.player, None)
        self.chosen = chosen
        self._update_center()

    def _royalist(self, button):
        if button.state != "down":  # a radio row: one is always chosen
            button.state = "down"
        self.royalist = button.player

    def pick(self, player: str, identity: str):
        """Select a card as a tap would (for tests and accessibility switches)."""
        for b in self.ids.grid.children:
            if getattr(b, "player", None) == player and hasattr(b, "identity"):
                b.state = "down" if b.identity == identity else "normal"
                if b.identity == identity:
                    self._picked(b)

    def pick_royalist(self, player: str):
        for b in self.ids.royalist_row.children:
            b.state = "down" if b.player == player else "normal"
        self.royalist = player

    def center(self) -> list[str]:
        used = set(self.chosen.values())
        return [i for i in IDENTITIES if i not in used]

    def _update_center(self):
        left = self.center()
        players = (self.app.view or {}).get("players", [])
        if len(self.chosen) == len(players) and len(left) == 3:
            self.center_text = tr("masks.identities.center_is",
                                  cards=", ".join(tr(f"masks.identity.{c}") for c in left))
        else:
            self.center_text = tr("masks.identities.pick_all")

    def submit(self):
        self.app.send("enter_identities", identities=dict(self.chosen), center=self.center(),
                      royalist=self.royalist or None)


def make(app):
    return MasksIdentitiesScreen(name="masks.identities", app=app)
