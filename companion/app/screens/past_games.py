"""Past games, per game, with who won; unfinished and abandoned ones can be resumed. A game's
Details show it in full (each vote's question, ballots and result, totals, winners, duration)
and export it as JSON or CSV to the data folder's exports/."""
from __future__ import annotations

import logging

from kivy.factory import Factory
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app import games
from companion.app.screens import load_kv
from companion import export
from companion.core.events import BadInput
from companion.core.i18n import error_text, format_when, tr
from companion.core.journal import GameRecord

load_kv(__file__)
log = logging.getLogger(__name__)
LIMIT = 200   # games listed


class PastGamesScreen(Screen):
    app = ObjectProperty()
    shown = NumericProperty(0)       # the game whose details are open; 0: the list
    detail_heading = StringProperty("")

    def on_pre_enter(self, *_):
        self.show_list()

    def back(self):
        if self.shown:
            self.show_list()
        else:
            self.app.go_home()

    def show_list(self):
        self.shown = 0
        box = self.ids.entries
        box.clear_widgets()
        try:
            records = self._records()
        except BadInput as exc:  # the journal cannot be read at all: say so instead of closing the app
            self.app.toast(error_text(exc))
            records = []
        if not records:
            box.add_widget(Factory.WrapLabel(text=tr("past.empty")))
        for game_id, rec in records:
            if rec is None:  # one damaged row is named; the others still show
                box.add_widget(Factory.WrapLabel(text=tr("past.damaged", n=game_id)))
                continue
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
            if not resumable:
                row.ids.buttons.remove_widget(row.ids.resume)
            row.game_id = rec.id
            row.ids.resume.bind(on_release=lambda _b, gid=rec.id: self.app.resume_game(gid))
            row.ids.details.bind(on_release=lambda _b, gid=rec.id, w=when: self.show_game(gid, w))
            box.add_widget(row)

    def _records(self) -> list[tuple[int, GameRecord | None]]:
        """The newest games, each with its record, or None when its row is damaged (the journal
        lists such a row with ``damaged`` set: it is named, and the others still show)."""
        return [(rec.id, None if rec.damaged is not None else rec) for rec in self.app.journal.games()[:LIMIT]]

    def _record(self, game_id: int) -> GameRecord | None:
        try:
            return self.app.journal.game(game_id)
        except BadInput as exc:  # JournalDamaged, or any JournalError reading it: named as damaged
            log.error("%s", exc)
            return None

    def show_game(self, game_id: int, when: str = ""):
        """One game in full, from its journal, in the table's language."""
        if self._record(game_id) is None:
            self.app.toast(tr("past.damaged", n=game_id))
            return
        try:
            report = export.game_report(self.app.journal, game_id)
        except BadInput as exc:
            self.app.toast(error_text(exc))
            return
        self.shown = game_id
        box = self.ids.entries
        box.clear_widgets()
        self.detail_heading = tr("past.detail_heading", game=report["title"], n=report["id"], when=when)
        status = (tr("past.won_by", names=", ".join(report["winners"]) or tr("past.nobody"))
                  if report["status"] == "finished" else tr(f"past.status.{report['status']}"))
        lines = [f"[b]{status}[/b]",
                 tr("past.players", names=", ".join(report["players"])),
                 tr("past.duration", time=export.duration_text(report["duration_seconds"]))]
        if report["summary"]:
            lines.append(report["summary"])
        if report["totals"]:
            lines.append(tr("past.totals", totals=", ".join(f"{p} {n}" for p, n in report["totals"].items())))
        box.add_widget(Factory.PastDetail(text="\n".join(lines)))
        if not report["votes"]:
            box.add_widget(Factory.WrapLabel(text=tr("past.no_votes")))
        for vote in report["votes"]:
            box.add_widget(Factory.PastDetail(text=vote_text(vote)))

    def export(self, fmt: str):
        """The open game to exports/ as ``fmt``; the file named in one line, or why not."""
        try:
            path = export.export_game(self.app.journal, self.shown, fmt, self.app.data_dir)
        except BadInput as exc:
            self.app.toast(error_text(exc))
            return None
        self.app.toast(tr("past.exported", file=f"{path.parent.name}/{path.name}"))
        return path


def vote_text(vote: dict) -> str:
    """A vote as the table saw it revealed: the question, each choice with who chose it, the
    result."""
    by_choice: dict = {}
    for voter, choice in vote["ballots"].items():
        by_choice.setdefault(choice, []).append(voter)
    rows = [tr("past.ballots_for", choice=tr("past.abstained") if choice is None else export.option_text(choice),
               n=len(voters), names=", ".join(voters))
            for choice, voters in sorted(by_choice.items(), key=lambda kv: -len(kv[1]))]
    if vote["missing"]:
        rows.append(tr("past.ballots_missing", names=", ".join(vote["missing"])))
    head = tr("past.vote", n=vote["number"], question=vote["question"] or tr("past.vote_untitled"))
    return f"[b]{head}[/b]\n" + "\n".join(rows) + f"\n[color=#dcb042]{export.vote_result(vote)}[/color]"


def make(app):
    return PastGamesScreen(name="past_games", app=app)
