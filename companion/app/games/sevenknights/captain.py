"""Order Phase: the Captain and how the recommendations chose them; the Captain's own tile
revealed; then the formation's result and where Witch Myrmamius was (from which the public
arrows name every TORIKO)."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.app.games.sevenknights.common import SKScreen, player_button
from companion.app.games.sevenknights.search import place_label
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


class CaptainScreen(SKScreen):
    witch = StringProperty("")   # the formation step: where the Witch was, chosen before the result

    def refresh(self):
        v = self.view
        if not v or not v.get("captain"):
            return
        counts = sorted(v.get("recommendations", {}).items(), key=lambda kv: (-kv[1], v["players"].index(kv[0])))
        self.fill(self.ids.counts, counts, lambda kv: Factory.SKCount(
            text=tr("sevenknights.ui.count", player=kv[0], n=kv[1]), highlight=kv[0] == v["captain"]))
        phase = v["phase"]
        tiles = v.get("tile_options", []) if phase == "captain_reveal" else []
        self.fill(self.ids.tiles, tiles, self._tile_button)
        places = v.get("witch_places", []) if phase == "formation" else []
        if self.witch not in places:
            self.witch = ""
        self.fill(self.ids.places, places,
                  lambda p: player_button(self, p, place_label(p), self.set_witch, selected=p == self.witch))

    def _tile_button(self, tile):
        text = tr("sevenknights.tile.witch") if tile == "witch" else str(tile)
        b = Factory.SKSmallButton(text=text, font_size="30sp", height="80dp")
        b.bind(on_release=lambda *_: self.app.send("reveal_captain_tile", tile=tile))
        return b

    def set_witch(self, place):
        self.witch = place
        self.refresh()

    def result(self, in_order: bool):
        data = {"in_order": in_order}
        if self.view.get("witch_places"):
            if not self.witch:
                self.app.toast(tr("sevenknights.ui.choose_witch_first"))
                return
            data["witch"] = self.witch
        self.app.send("enter_result", **data)


def make(app):
    return CaptainScreen(name="sevenknights.captain", app=app)
