"""Round start and Search Phase: what to prepare for this round, whose turn it is to look, the
tiles they may look at, and the public record of the arrows."""
from __future__ import annotations

from kivy.factory import Factory

from companion.app.games.sevenknights.common import SKScreen, player_button
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


def place_label(place: str) -> str:
    """A tile place as the table reads it: a player's name, "Center", "Center 2", "Set aside"."""
    if place == "center":
        return tr("sevenknights.place.center")
    if place.startswith("center "):
        return tr("sevenknights.place.center_n", n=place.split()[1])
    if place == "set_aside":
        return tr("sevenknights.place.set_aside")
    return place


class SearchScreen(SKScreen):
    def refresh(self):
        v = self.view
        if not v:
            return
        self.fill(self.ids.steps, v["setup"]["steps"], lambda s: Factory.SKLine(text="• " + s))
        self.fill(self.ids.targets, v.get("look_options", []),
                  lambda t: player_button(self, t, place_label(t), self.look))
        arrows = v.get("arrows", [])
        lines = [tr("sevenknights.ui.arrow", looker=a["looker"], at=place_label(a["at"])) for a in arrows]
        self.fill(self.ids.arrows, lines or [tr("sevenknights.ui.no_arrows")], lambda s: Factory.SKLine(text=s))

    def look(self, at: str):
        self.app.send("look", at=at)


def make(app):
    return SearchScreen(name="sevenknights.search", app=app)
