"""The winner: Caesar's fate, the winners (Opportunists as a team, or the most dedicated Loyalist or
Liberator after the tie-breaks, or everyone on the side under Aut Omnia Aut Nihil) and every
tableau."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.app.gamescreen import ResultScreen
from companion.app.screens import load_kv
from companion.app.games.knives23 import common  # noqa: F401
from companion.app.games.knives23.tableaux import tableau_line
from companion.core.i18n import text_of, tr

load_kv(__file__)


class Knives23ResultScreen(ResultScreen):
    fate = StringProperty("")
    winners = StringProperty("")
    detail = StringProperty("")
    tie_break = StringProperty("")   # the tie-break's reading and the rulebook's words, when it decided

    def show(self, view: dict):
        r = view["end"]["result"]
        self.fate = tr("knives23.caesar_dead" if r["caesar_dead"] else "knives23.caesar_lives")
        names = ", ".join(r["winners"]) or tr("knives23.no_one")
        self.winners = tr("knives23.ui.opportunists_win" if r["opportunists_win"] else "knives23.ui.winners", names=names)
        play = r.get("opportunist_play") or []
        self.detail = tr("knives23.ui.result_detail", total=r["total"], final=r["final_total"],
                         play=", ".join(common.card_text(c) for c in play) or "\u2014")
        tie = view["end"].get("tie_break")
        self.tie_break = text_of(tie) if tie else ""
        rows = self.ids.rows
        rows.clear_widgets()
        for name in view["players"]:
            t = view["end"]["tableaux"][name]
            mark = tr("knives23.ui.winner_mark") if name in r["winners"] else ""
            rows.add_widget(Factory.K23Line(text=tableau_line(name, t, view["end"]["allegiances"][name]) + mark))


def make(app):
    return Knives23ResultScreen(name="knives23.result", app=app)
