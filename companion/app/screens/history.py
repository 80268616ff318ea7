"""The vote history of this game: every revealed vote, who voted what. One tap from anywhere."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.screens.reveal import ballot_rows, count_rows
from companion.core.i18n import tr

load_kv(__file__)


class HistoryScreen(Screen):
    app = ObjectProperty()

    def on_pre_enter(self, *_):
        box = self.ids.entries
        box.clear_widgets()
        history = (self.app.view or {}).get("vote_history") or []
        # A game may list other table events here: card effects, corrections with their reasons.
        notes = (self.app.view or {}).get("history_notes") or []
        for note in reversed(notes):
            box.add_widget(Factory.HistoryEntry(text=note))
        if not history and not notes:
            box.add_widget(Factory.WrapLabel(text=tr("history.empty")))
        for i, vote in enumerate(reversed(history), start=1):
            counts = ", ".join(f"{label} {n}" for label, n in count_rows(vote))
            ballots = "; ".join(f"{name}: {choice}" for name, choice in ballot_rows(vote))
            box.add_widget(Factory.HistoryEntry(
                text=f"[b]{vote.get('question', '')}[/b]   [color=#dcb042]{counts}[/color]\n{ballots}"))


def make(app):
    return HistoryScreen(name="history", app=app)
