"""The result: who is eliminated, which faction won, every final Identity, the votes, the
pointings corrected after the reveal, and the reading the app applied where the rulebook is silent."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.app.gamescreen import ResultScreen
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


def votes_text(n: int) -> str:
    return tr("masks.result.one_vote") if n == 1 else tr("masks.result.votes", count=n)


class MasksResultScreen(ResultScreen):
    headline = StringProperty("")
    detail = StringProperty("")
    readings = StringProperty("")

    def show(self, view: dict):
        self.headline = tr(f"masks.result.headline.{view['result']}")
        self.detail = view.get("result_text", "")
        # a pointing corrected after the reveal is on the record with its reason
        self.readings = "\n".join(view.get("corrections", []) + view.get("warnings", [])
                                  + view.get("readings", []))
        rows = self.ids.rows
        rows.clear_widgets()
        counts = view.get("counts", {})
        eliminated = set(view.get("eliminated", []))
        winners = set(view.get("winners", []))
        for name in view.get("players", []):
            identity = view["identities"][name]
            marks = []
            if name == view.get("royalist"):
                marks.append(tr("masks.result.royalist"))
            if name in eliminated:
                marks.append(tr("masks.result.out"))
            if name in winners:
                marks.append(tr("masks.result.wins"))
            row = Factory.MasksResultRow()
            row.name = name
            row.identity = tr(f"masks.identity.{identity}")
            row.votes = votes_text(counts.get(name, 0))
            row.marks = "  ".join(marks)
            row.out = name in eliminated
            row.won = name in winners
            rows.add_widget(row)
        center = Factory.MasksResultRow()
        center.name = tr("masks.identities.center")
        center.identity = ", ".join(tr(f"masks.identity.{c}") for c in view.get("center", []))
        center.votes = votes_text(counts.get("center", 0))
        rows.add_widget(center)


def make(app):
    return MasksResultScreen(name="masks.result", app=app)
