"""First screen: pick the game; offer to resume an unfinished one."""
from __future__ import annotations

import logging

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app import games
from companion.app.screens import load_kv
from companion.core.i18n import format_when, tr

load_kv(__file__)
log = logging.getLogger(__name__)


class PickerScreen(Screen):
    app = ObjectProperty()
    resume_record = ObjectProperty(None, allownone=True)

    def refresh(self):
        box = self.ids.games
        box.clear_widgets()
        for game_id in games.GAMES:
            card = Factory.GameCard()
            card.game_id = game_id
            card.title = tr(games.TITLES[game_id])
            ui, error = games.describe(game_id)
            if ui is not None:
                card.blurb = tr(ui.blurb) if ui.blurb else ""
                card.players = (tr("picker.players_exact", n=ui.min_players) if ui.min_players == ui.max_players
                                else tr("picker.players", low=ui.min_players, high=ui.max_players))
            if ui is None:
                if error:
                    log.error("game %s is unavailable: %s", game_id, error)
                card.blurb = tr("picker.not_available")
                card.players = ""
                card.disabled = True
            card.bind(on_release=lambda c: self.app.choose_game(c.game_id))
            box.add_widget(card)

    def _banner(self, text, buttons, box=None):
        box = box or self.ids.banner
        box.clear_widgets()
        banner = Factory.PickerBanner()
        banner.text = text
        for ident, label, action in buttons:
            b = Factory.BigButton(text=label)
            b.bind(on_release=lambda *_, action=action: action())
            self.ids[ident] = b
            banner.ids.buttons.add_widget(b)
        box.add_widget(banner)
        return banner

    def show_notice(self, text, buttons=()):
        """A storage notice in one plain sentence, with its actions and an OK that dismisses it."""
        banner = self._banner(text, list(buttons) + [("notice_ok", tr("storage.ok"), self.clear_notice)],
                              box=self.ids.notice)
        label = banner.ids.label

        def fit(*_):  # tall enough for its sentence, however many lines it takes at this width
            banner.height = max(dp(190), label.texture_size[1] + dp(24) + banner.ids.buttons.height + banner.spacing)
        label.bind(texture_size=fit)
        fit()

    def clear_notice(self):
        self.ids.notice.clear_widgets()

    def clear_banner(self):
        self.ids.banner.clear_widgets()

    def on_pre_enter(self, *_):
        self.refresh()
        if self.app.game_id:
            self._banner(tr("picker.game_on", game=games.title(self.app.game_id)), [
                ("back_button", tr("app.back_to_game"), self.app.go_home),
                ("leave_button", tr("picker.leave"), self.leave)])
        elif self.resume_record is None:
            self.clear_banner()

    def leave(self):
        self.clear_banner()
        self.app.leave_game()

    def offer_resume(self, record):
        self.resume_record = record
        self._banner(tr("picker.resume_offer", game=games.title(record.game), when=_when(record)), [
            ("resume_button", tr("picker.resume"), self.resume),
            ("abandon_button", tr("picker.abandon"), self.abandon),
            ("later_button", tr("picker.later"), self.later)])

    def resume(self):
        record, self.resume_record = self.resume_record, None
        self.clear_banner()
        if record is not None:
            self.app.resume_game(record.id)

    def abandon(self):
        """Ask first: abandoning is a decision, not a tap beside Resume."""
        record = self.resume_record
        if record is None:
            return
        self._banner(tr("picker.abandon_confirm", game=games.title(record.game), when=_when(record)), [
            ("abandon_yes", tr("picker.abandon_yes"), self.abandon_confirmed),
            ("abandon_no", tr("picker.abandon_no"), lambda: self.offer_resume(record))])

    def abandon_confirmed(self):
        record, self.resume_record = self.resume_record, None
        self.clear_banner()
        if record is not None and self.app.abandon_game(record.id):
            rest = [r for r in self.app.journal.unfinished() if r.id != record.id]
            if rest:
                self.offer_resume(rest[0])

    def later(self):
        self.resume_record = None
        self.clear_banner()


def _when(record) -> str:
    return format_when(record.started_at)


def make(app):
    return PickerScreen(name="picker", app=app)
