"""Past games, per game, with who won; unfinished ones can be resumed."""
from __future__ import annotations

import datetime

from kivy.factory import Factory
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app import games
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


class PastGamesScreen(Screen):
    app = ObjectProperty()

    def on_pre_enter(self, *_):
        box = self.ids.entries
        box.clear_widgets()
        records = self.app.journal.games()
        if not records:
            box.add_widget(Factory.WrapLabel(text=tr("past.empty")))
        for rec in records[:200]:
            when = datetime.datetime.fromtimestamp(rec.started_at).strftime("%d %b %Y %H:%M")
            title = games.title(rec.game)
            if rec.status == "finished":
                status = tr("past.won_by", names=", ".join(rec.winners) or tr("past.nobody"))
            else:
                status = tr(f"past.status.{rec.status}")
            row = Factory.PastGameRow()
            row.ids.text.text = f"[b]{title}[/b]   {when}\n{status}   {', '.join(rec.setup.get('players', []))}"
            row.ids.resume.opacity = 1 if rec.status == "playing" else 0
            row.ids.resume.disabled = rec.status != "playing"
            row.ids.resume.bind(on_release=lambda _b, gid=rec.id: self.app.resume_game(gid))
            box.add_widget(row)


def make(app):
    return PastGamesScreen(name="past_games", app=app)
