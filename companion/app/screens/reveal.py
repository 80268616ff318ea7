"""The reveal: every ballot of the vote just closed, shown at once to the whole table."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.screens.vote import option_label
from companion.core.i18n import tr

load_kv(__file__)


def ballot_rows(vote: dict) -> list[tuple[str, str]]:
    """(voter, what they voted) in seat order; missing and abstaining voters say so."""
    rows = []
    ballots = vote.get("ballots", {})
    for name in vote.get("voters", []):
        if name in ballots:
            choice = ballots[name]
            rows.append((name, tr("vote.abstained") if choice is None else option_label(choice)))
        else:
            rows.append((name, tr("vote.missing")))
    return rows


def count_rows(vote: dict) -> list[tuple[str, int]]:
    counts = vote.get("counts", {})
    return sorted(((option_label(o), n) for o, n in counts.items()), key=lambda r: -r[1])


class RevealScreen(Screen):
    app = ObjectProperty()
    vote = DictProperty({})
    heading = StringProperty("")
    missing = StringProperty("")
    note = StringProperty("")

    def on_pre_enter(self, *_):
        history = (self.app.view or {}).get("vote_history") or []
        self.vote = history[-1] if history else {}
        self.heading = tr("reveal.heading") + "\n" + self.vote.get("question", "")
        missing = self.vote.get("missing") or []
        self.missing = tr("reveal.forced", names=", ".join(missing)) if missing else ""
        ui = self.app.game_ui
        self.note = ui.reveal_note(self.app.view or {}, self.vote) if ui is not None and self.vote else ""
        counts = self.ids.counts
        counts.clear_widgets()
        for label, n in count_rows(self.vote):
            counts.add_widget(Factory.CountLabel(text=f"{label}: {n}"))
        grid = self.ids.ballots
        grid.clear_widgets()
        for name, choice in ballot_rows(self.vote):
            grid.add_widget(Factory.BallotLabel(text=f"{name} — {choice}"))


def make(app):
    return RevealScreen(name="reveal", app=app)
