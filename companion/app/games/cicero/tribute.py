"""Phases IV and V: each player marks how they paid Cicero's tribute (2 influences, a Senator, or
−10 PP); the Triumvirate card; the second payment when the general is not satisfied."""
from __future__ import annotations

from kivy.factory import Factory

from companion.app.games.cicero.board import demand_text
from companion.app.games.cicero.common import CiceroScreen
from companion.app.screens import load_kv
from companion.app.theme import ui
from companion.core.i18n import tr
from companion.games.cicero import GENERALS, TRIBUTE_WAYS, second_tribute_ways

load_kv(__file__)


class TributeScreen(CiceroScreen):
    general = None

    def refresh(self):
        v = self.view
        if not v:
            return
        self.ids.demand.text = demand_text(v.get("cicero"))
        body = self.ids.body
        body.clear_widgets()
        phase = v["phase"]
        if phase in ("tribute", "second_tribute"):
            paid = v["second_tribute" if phase == "second_tribute" else "tribute"]
            for p in v["players"]:
                row = Factory.CSeatRow(player=p, stripe=self.seat_colour(p))
                for way in TRIBUTE_WAYS:
                    b = self.button(tr(f"cicero.ui.pay_{way}"), lambda b, p=p: self.app.send(
                        "pay_tribute", player=p, how=b.value), value=way, selected=paid.get(p) == way,
                        font_size="22sp")
                    # the second payment only "in a different way from the first time"
                    b.disabled = p in paid or (phase == "second_tribute" and p in v["tribute"]
                                               and way not in second_tribute_ways(v["tribute"][p]))
                    row.add_widget(b)
                body.add_widget(row)
            if phase == "second_tribute":
                first = ", ".join(f"{p}: {tr('cicero.ui.pay_' + w)}" for p, w in v["tribute"].items())
                body.add_widget(Factory.CLine(text=tr("cicero.ui.first_payment", paid=first), color=ui.muted))
        elif phase == "triumvirate":
            body.add_widget(Factory.CHeading(text=tr("cicero.ui.general")))
            row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="72dp")
            for g in GENERALS:
                row.add_widget(self.button(g, lambda b: self._general(b.value), value=g, selected=self.general == g))
            body.add_widget(row)
            body.add_widget(Factory.CLine(text=tr("cicero.ui.triumvirate_question")))
            if v.get("economy") is not None:  # the tracked Legions, to hold against the general's demand
                body.add_widget(Factory.CLine(text=tr("cicero.ui.legions_on_map", n=v["economy"]["legions"])))
            row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="84dp")
            row.add_widget(self.button(tr("cicero.ui.satisfied"), lambda b: self._report(True)))
            row.add_widget(self.button(tr("cicero.ui.not_satisfied"), lambda b: self._report(False)))
            body.add_widget(row)
        body.add_widget(Factory.Widget())

    def _general(self, g):
        self.general = g
        self.refresh()

    def _report(self, satisfied):
        if self.app.send("triumvirate", general=self.general, satisfied=satisfied):
            self.general = None


def make(app):
    return TributeScreen(name="cicero.tribute", app=app)
