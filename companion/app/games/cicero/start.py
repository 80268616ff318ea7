"""Start of the game: the opening Senator draft (whose turn, one card or two) and the first
Princeps (each player's Senate votes and Oratores votes)."""
from __future__ import annotations

from kivy.factory import Factory

from companion.app.games.cicero.common import CiceroScreen, fill, house_rule_text
from companion.app.screens import load_kv
from companion.app.theme import ui
from companion.core.i18n import text_of, tr

load_kv(__file__)


class StartScreen(CiceroScreen):
    def refresh(self):
        v = self.view
        if not v:
            return
        # The rulebook's Setup, with this table's numbers, before the draft begins.
        steps = v.get("setup_checklist", []) if v["phase"] == "draft" and v["draft"]["step"] == 0 else []
        if len(self.ids.setup_list.children) != len(steps):
            fill(self.ids.setup_list, [Factory.CLine(text=f"{i}. {t}", font_size="22sp")
                                       for i, t in enumerate(steps, 1)])
        draft = v["draft"]
        rows = []
        for i, (player, cards) in enumerate(draft["order"]):
            status = "done" if i < draft["step"] else "now" if i == draft["step"] else "todo"
            text = tr("cicero.ui.draft_turn", player=player, cards=cards)
            rows.append(Factory.CCheck(text=text, status=status, font_size="24sp"))
        fill(self.ids.draft_order, rows)
        first = v["phase"] == "first_princeps"
        # "If one player has a strict majority": the reading this table plays by, in the rule's words
        half = (v.get("house_rules") or {}).get("first_princeps_majority") == "more_than_half"
        self.ids.first_rule.text = tr("cicero.ui.first_princeps_rule_half" if half else "cicero.ui.first_princeps_rule")
        self.ids.first_applies.text = house_rule_text(v, "first_princeps_majority") if first else ""
        self.ids.draft_button.disabled = first
        self.ids.draft_button.text = (tr("cicero.ui.draft_done", player=draft["player"], cards=draft["cards"])
                                      if draft["player"] else tr("cicero.ui.draft_complete"))
        box = self.ids.first
        if first and not box.children:
            self._steppers = []
            for p in v["players"]:
                row = Factory.CSeatPairRow(player=p, stripe=self.seat_colour(p))
                pair = Factory.CStepperPair()
                for field, label in (("votes", "cicero.ui.senate_votes"), ("oratores", "cicero.ui.oratores_votes")):
                    s = self.stepper(tr(label), 0, key=f"{field}:{p}")
                    pair.add_widget(s)
                    self._steppers.append(s)
                row.add_widget(pair)
                box.add_widget(row)
        elif not first:
            box.clear_widgets()
        self.ids.elect_button.disabled = not first

    def pick(self):
        self.app.send("draft_pick", player=self.view["draft"]["player"])

    def elect(self):
        data: dict[str, dict[str, int]] = {"votes": {}, "oratores": {}}
        for s in self._steppers:
            field, player = s.key.split(":", 1)
            data[field][player] = int(s.number)
        tie = self.tie_needed("first_princeps", **data)
        if tie is None:
            self.app.send("first_princeps", **data)
            return
        # Tied on votes, Oratores and age in years: the table says who is the oldest.
        box = self.ids.oldest
        box.clear_widgets()
        box.add_widget(Factory.CLine(text=text_of(tie), color=ui.accent))
        row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="68dp")
        for p in tie.among:
            row.add_widget(self.button(p, lambda b: self._oldest(data, b.value), value=p, player=p))
        box.add_widget(row)

    def _oldest(self, data, player):
        self.ids.oldest.clear_widgets()
        self.app.send("first_princeps", **data, oldest=player)


def make(app):
    return StartScreen(name="cicero.start", app=app)
