"""The tracked economy (table option "economy"): every Family's influence per Caste, cenacle and
its limit, Action cards in hand, and the Legions on the map. One tap per change, each a command
the rules check against the rulebook's limits (a refusal is the toast's one line)."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView

from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.games.cicero import CASTES

load_kv(__file__)

# (item, caste) per column after the player's name.
COLUMNS = [("influence", c) for c in CASTES] + [("cenacle", None), ("cenacle_limit", None), ("actions", None)]


class ECell(BoxLayout):
    """A number with a small − and +: one cell of the economy grid."""
    value = StringProperty("0")
    player = StringProperty("")
    item = StringProperty("")
    caste = StringProperty("")
    panel = ObjectProperty(None, allownone=True)

    def change(self, delta: int):
        self.panel.change(self.player or None, self.item, self.caste or None, delta)


class EconomyPanel(ModalView):
    app = ObjectProperty()
    warnings = StringProperty("")
    message = StringProperty("")  # a refusal, shown here: the panel covers the app's toast

    def on_open(self):
        self.app.bind(view=self._refresh)
        self._build()

    def on_dismiss(self):
        self.app.unbind(view=self._refresh)

    def _build(self):
        view = self.app.view or {}
        grid = self.ids.grid
        grid.clear_widgets()
        grid.cols = 1 + len(COLUMNS)
        grid.add_widget(Factory.EHead(text=""))
        for item, caste in COLUMNS:
            grid.add_widget(Factory.EHead(text=caste or tr(f"cicero.economy.{item}")))
        self._cells = []
        for p in view.get("players", []):
            grid.add_widget(Factory.EName(text=p))
            for item, caste in COLUMNS:
                cell = ECell(player=p, item=item, caste=caste or "", panel=self)
                self._cells.append(cell)
                grid.add_widget(cell)
        self.ids.legions.panel = self
        self._refresh()

    def _refresh(self, *_):
        eco = (self.app.view or {}).get("economy")
        if not eco:
            return
        for cell in self._cells:
            fam = eco["families"][cell.player]
            n = fam["influence"][cell.caste] if cell.item == "influence" else fam[cell.item]
            cell.value = str(n)
        self.ids.legions.value = str(eco["legions"])
        self.warnings = "\n".join((self.app.view or {}).get("economy_warnings", []))

    def change(self, player, item, caste, delta):
        data = {"item": item, "delta": delta}
        if player:
            data["player"] = player
        if caste:
            data["caste"] = caste
        ok = self.app.send("economy", **data)
        self.message = "" if ok else self.app.root.ids.toast.message

    def cell(self, player: str | None, item: str, caste: str | None = None) -> ECell:
        """The cell for a player's item (for tests and switch access)."""
        if item == "legions":
            return self.ids.legions
        return next(c for c in self._cells if c.player == player and c.item == item and (c.caste or None) == caste)


def open_panel(app) -> EconomyPanel:
    panel = EconomyPanel(app=app)
    panel.open()
    return panel
