"""Past games, per game, with who won; unfinished and abandoned ones can be resumed."""
from __future__ import annotations


from kivy.factory import Factory
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app import games
from companion.app.screens import load_kv
from companion.core.events import BadInput
from companion.core.i18n import format_when, tr

load_kv(__file__)


class PastGamesScreen(Screen):
    app = ObjectProperty()

    def on_pre_enter(self, *_):
        box = self.ids.entries
        box.clear_widgets()
        try:
            records = self.app.journal.games()
        except BadInput as exc:  # a damaged row: say so instead of closing the app
            self.app.toast(str(exc))
            records = []
        if not records:
            box.add_widget(Factory.WrapLabel(text=tr("past.empty")))
        for rec in records[:200]:
            when = format_when(rec.started_at, with_year=True)
            title = games.title(rec.game)
            if rec.status == "finished":
                status = tr("past.won_by", names=", ".join(rec.winners) or tr("past.nobody"))
            else:
                status = tr(f"past.status.{rec.status}")
            row = Factory.PastGameRow()
            row.ids.text.text = f"[b]{title}[/b]   {when}\n{status}   {', '.join(rec.setup.get('players', []))}"
            # An abandoned game can be taken up again: abandoning forgives.
            resumable = rec.status in ("playing", "abandoned")
            row.ids.resume.opacity = 1 if resumable else 0
            row.ids.resume.disabled = not resumable
            row.game_id = rec.id
            row.ids.resume.bind(on_release=lambda _b, gid=rec.id: self.app.resume_game(gid))
            box.add_widget(row)


def make(app):
    return PastGamesScreen(name="past_games", app=app)
