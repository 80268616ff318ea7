"""Correct an Arrow: the tablet's Arrow set to where the Player Card (Arrow) on the table points
(a look tapped against the wrong tile). The cards lie face up, so this reveals nothing. The
table picks the wrong Arrow, taps where the card points (the tiles the Search rules allow for
that Arrow, from the view) and says why; one ``correct_arrow`` command per Arrow, undoable and
listed in the history. Open until the next round starts: after the result, the rules record the
result the corrected Arrow gives with the correction (the screen only sends it)."""
from __future__ import annotations

from kivy.properties import NumericProperty, StringProperty

from companion.app.games.sevenknights.common import SKScreen, player_button
from companion.app.games.sevenknights.search import place_label
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


def arrow_label(arrow: dict, searches: int) -> str:
    """"Ed looked at Ann", or "A looked at Center 1 (Arrow 2)" when each player has two Arrows
    (Groping in the Dark)."""
    if searches > 1:
        return tr("sevenknights.ui.arrow_button_nth", looker=arrow["looker"], search=arrow["search"],
                  at=place_label(arrow["at"]))
    return tr("sevenknights.ui.arrow_button", looker=arrow["looker"], at=place_label(arrow["at"]))


class CorrectScreen(SKScreen):
    looker = StringProperty("")    # the Arrow being corrected: whose, and which Search pass
    search = NumericProperty(1)
    at = StringProperty("")        # where the card on the table points

    def on_pre_enter(self, *_):
        self.looker, self.search, self.at = "", 1, ""
        self.ids.reason.text = ""
        super().on_pre_enter()

    def _arrow(self) -> dict | None:
        return next((a for a in (self.view or {}).get("correctable_arrows", [])
                     if (a["looker"], a["search"]) == (self.looker, self.search)), None)

    def refresh(self):
        v = self.view
        if not v:
            return
        searches = v.get("searches", 1)
        arrows = v.get("correctable_arrows", [])
        self.fill(self.ids.arrows, arrows, lambda a: player_button(
            self, a["looker"], arrow_label(a, searches), lambda _p, a=a: self.choose(a),
            selected=(a["looker"], a["search"]) == (self.looker, self.search)))
        arrow = self._arrow()
        if arrow is None:
            self.looker, self.at = "", ""
        options = [p for p in arrow["options"] if p != arrow["at"]] if arrow else []
        if self.at not in options:
            self.at = ""
        self.fill(self.ids.places, options,
                  lambda p: player_button(self, p, place_label(p), self.set_at, selected=p == self.at))
        self.ids.done.text = "\n".join("• " + line for line in v.get("corrections", []))

    def choose(self, arrow: dict):
        self.looker, self.search, self.at = arrow["looker"], arrow["search"], ""
        self.refresh()

    def set_at(self, place: str):
        self.at = place
        self.refresh()

    def record(self):
        if not self.looker:
            self.app.toast(tr("sevenknights.ui.choose_arrow"))
            return
        if not self.at:
            self.app.toast(tr("sevenknights.ui.choose_new_place"))
            return
        reason = self.ids.reason.text.strip()
        if not reason:
            self.app.toast(tr("sevenknights.ui.reason_needed"))
            return
        data = {"looker": self.looker, "at": self.at, "reason": reason}
        if self.search != 1:
            data["search"] = int(self.search)
        if self.app.send("correct_arrow", **data):
            self.looker, self.search, self.at = "", 1, ""
            self.ids.reason.text = ""
            self.refresh()


def make(app):
    return CorrectScreen(name="sevenknights.correct", app=app)
