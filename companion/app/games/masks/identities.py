"""After the vote: the table turns every Identity over and enters the final cards (after all
swaps). The center is whatever is left: 8 cards, one of each."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.core.window import Window
from kivy.metrics import dp
from kivy.properties import BooleanProperty, DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion.app.screens import load_kv
from companion.core.i18n import text_of, tr
from companion.games.masks import IDENTITIES, royalist_warnings

load_kv(__file__)


class MasksIdentitiesScreen(Screen):
    app = ObjectProperty()
    chosen = DictProperty({})      # player -> Identity
    royalist = StringProperty("")  # "" for nobody
    center_text = StringProperty("")
    prompt = StringProperty("")
    warnings = StringProperty("")  # the Royalist rule's warnings, live as cards are picked
    corrections = StringProperty("")   # pointings corrected since the reveal, one a line
    can_correct = BooleanProperty(False)  # nobody needed the Executioner's check: still correctable
    house = StringProperty("")   # the house rules deciding the count (the rule applied, the rulebook's words)

    def on_pre_enter(self, *_):
        self.chosen = {}
        self.royalist = ""
        view = self.app.view or {}
        self.prompt = view.get("prompt", "")
        self.corrections = "\n".join(view.get("corrections", []))
        self.can_correct = bool(view.get("can_correct"))
        self.house = "\n".join(view.get("house_notes", []))
        self.build()
        shown = (self.app.view or {}).get("executioner")
        if shown:  # already face up: the card the Executioner showed alone
            self.pick(shown, "Executioner")

    def refresh(self):
        pass

    def build(self):
        grid = self.ids.grid
        grid.clear_widgets()
        players = (self.app.view or {}).get("players", [])
        # 8 cards a row need 136dp each for "Pamphleteer" at 22sp; a narrower window (portrait)
        # puts each player's cards on two rows of 4.
        per_row = 8 if Window.width >= dp(124 + 32) + len(IDENTITIES) * dp(136) else 4
        grid.cols = per_row + 1
        for name in players:
            grid.add_widget(Factory.MasksGridName(text=name))
            for n, identity in enumerate(IDENTITIES):
                if n and n % per_row == 0:
                    grid.add_widget(Widget(size_hint=(None, None), size=(dp(124), dp(52))))   # under the name
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
        self._update_warnings()

    def _update_warnings(self):
        players = (self.app.view or {}).get("players", [])
        found = royalist_warnings(players, self.chosen, self.royalist or None)
        self.warnings = "\n".join([text_of(w.text()) for w in found] + ([tr("masks.warn.cards_move")] if found else []))

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
        self._update_warnings()

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
        self._update_warnings()

    def submit(self):
        self.app.send("enter_identities", identities=dict(self.chosen), center=self.center(),
                      royalist=self.royalist or None)


def make(app):
    return MasksIdentitiesScreen(name="masks.identities", app=app)
