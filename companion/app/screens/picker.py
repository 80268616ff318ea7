"""First screen: pick the game; offer to resume an unfinished one."""
from __future__ import annotations

import datetime
import logging

from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app import games
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)
log = logging.getLogger(__name__)


class PickerScreen(Screen):
    app = ObjectProperty()
    resume_record = ObjectProperty(None, allownone=True)

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        box = self.ids.games
        box.clear_widgets()
        from kivy.factory import Factory
        for game_id in games.GAMES:
            card = Factory.GameCard()
            card.game_id = game_id
            card.title = tr(games.TITLES[game_id])
            ui, error = games.describe(game_id)
            if ui is not None:
                try:
                    card.blurb = tr(ui.blurb) if ui.blurb else ""
                    card.players = (tr("picker.players_exact", n=ui.min_players) if ui.min_players == ui.max_players
                                    else tr("picker.players", low=ui.min_players, high=ui.max_players))
                except Exception as exc:
                    ui, error = None, f"{type(exc).__name__}: {exc}"
            if ui is None:
                if error:
                    log.error("game %s is unavailable: %s", game_id, error)
                card.blurb = tr("picker.not_available")
                card.players = ""
                card.disabled = True
            card.bind(on_release=lambda c: self.app.choose_game(c.game_id))
            box.add_widget(card)

    def offer_resume(self, record):
        self.resume_record = record
        when = datetime.datetime.fromtimestamp(record.started_at).strftime("%d %b %H:%M")
        self.ids.resume_text.text = tr("picker.resume_offer", game=games.title(record.game), when=when)

    def resume(self):
        record, self.resume_record = self.resume_record, None
        if record is not None:
            self.app.resume_game(record.id)

    def abandon(self):
        record, self.resume_record = self.resume_record, None
        if record is not None:
            self.app.abandon_game(record.id)
            rest = self.app.journal.unfinished()
            if rest:
                self.offer_resume(rest[0])

    def later(self):
        self.resume_record = None


def make(app):
    return PickerScreen(name="picker", app=app)
