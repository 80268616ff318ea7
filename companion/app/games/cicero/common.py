"""What every Cicero screen shares: the table view, the header, the side panel (Prestige track and
the round summary's checklist), number steppers and seat-coloured buttons."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import (BooleanProperty, ColorProperty, NumericProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app.gamescreen import GameScreen

from companion.app.screens import load_kv
from companion.app.widgets import BigButton
from companion.core.events import BadInput, Command, NeedsTieBreak, RuleError
from companion.core.houserules import applies
from companion.core.i18n import text_of, tr
from companion.games.cicero import CiceroRules


class CButton(BigButton):
    """A button with an optional seat-colour stripe; ``selected`` shows it chosen."""
    selected = BooleanProperty(False)
    stripe = ColorProperty((0, 0, 0, 0))
    value = StringProperty("")


class CStepper(BoxLayout):
    """A number with − and + (votes, PP): big enough to tap across a table."""
    label = StringProperty("")
    number = NumericProperty(0)
    minimum = NumericProperty(0)
    step = NumericProperty(1)
    stripe = ColorProperty((0, 0, 0, 0))
    key = StringProperty("")

    def change(self, sign: int):
        self.number = max(self.minimum, self.number + sign * self.step)


class CSeatRow(BoxLayout):
    """A player's row: their name with the seat colour, then widgets added by the screen."""
    player = StringProperty("")
    stripe = ColorProperty((0, 0, 0, 0))


class CCheck(Label):
    status = StringProperty("todo")


class CPrestigeRow(BoxLayout):
    player = StringProperty("")
    points = StringProperty("")
    princeps = BooleanProperty(False)
    stripe = ColorProperty((0, 0, 0, 0))


load_kv(__file__)


class CiceroScreen(GameScreen):
    """A screen of play with Cicero's side panel (Prestige track and round checklist)."""

    game_id = "cicero"

    def refresh_all(self):
        self.refresh_side()
        self.refresh()

    # the side panel ----------------------------------------------------------------------
    def refresh_side(self):
        """The Prestige track (highest first) and the checklist, updated in place: building Kivy
        widgets is the slow part of a refresh, and these change a little at a time."""
        side = self.ids.get("side")
        v = self.view
        if side is None or not v.get("players"):
            return
        rows = side.ids.prestige
        if len(rows.children) != len(v["players"]):
            rows.clear_widgets()
            for _ in v["players"]:
                row = Factory.CPrestigeRow()
                row.ids.minus.bind(on_release=lambda b, row=row: self.adjust(row.player, -1))
                row.ids.plus.bind(on_release=lambda b, row=row: self.adjust(row.player, +1))
                rows.add_widget(row)
        ordered = sorted(v["players"], key=lambda p: -v["prestige"][p])
        for row, p in zip(reversed(rows.children), ordered):
            row.player, row.points, row.princeps = p, str(v["prestige"][p]), p == v.get("princeps")
            row.stripe = self.seat_colour(p)
        checks = side.ids.checklist
        items = v.get("checklist", [])
        if len(checks.children) != len(items):
            checks.clear_widgets()
            for _ in items:
                checks.add_widget(Factory.CCheck())
        for label, item in zip(reversed(checks.children), items):
            label.text, label.status = item["short"], item["status"]
        button = side.ids.economy_button
        on = v.get("economy") is not None
        button.height, button.opacity, button.disabled = (dp(56) if on else 0), (1 if on else 0), not on
        if on and not getattr(button, "_bound", False):
            button.bind(on_release=lambda b: self.open_economy())
            button._bound = True

    def open_economy(self):
        from companion.app.games.cicero.economy import open_panel
        return open_panel(self.app)

    def adjust(self, player: str, delta: int):
        self.app.send("adjust_prestige", player=player, delta=delta, note=tr("cicero.ui.by_hand"))

    # helpers -----------------------------------------------------------------------------

    def button(self, text, on_press, selected=False, player=None, value="", **kw):
        b = Factory.CButton(text=text, selected=selected, value=value, **kw)
        if player:
            b.stripe = self.seat_colour(player)
        b.bind(on_release=lambda btn: on_press(btn))
        return b

    def stepper(self, label, number=0, player=None, key="", step=1, minimum=0):
        s = Factory.CStepper(label=label, number=number, key=key, step=step, minimum=minimum)
        if player:
            s.stripe = self.seat_colour(player)
        return s

    def tie_needed(self, kind: str, **data) -> NeedsTieBreak | None:
        """Asks the rules (pure ``decide``, nothing recorded) whether this command needs the
        Princeps to break a tie first; other refusals are left to ``app.send`` to show."""
        session = self.app.session
        try:
            session.check(Command(kind, data))
        except NeedsTieBreak as tie:
            return tie
        except (RuleError, BadInput):
            return None
        return None


def house_rule_text(view: dict, name: str) -> str:
    """The reading of a house rule that applies to this game, with the rulebook's words (shown on
    the screen that decides by it)."""
    rule = next(h for h in CiceroRules.house_rules if h.name == name)
    return text_of(applies(rule, (view.get("house_rules") or {}).get(name, rule.default)))


def fill(box, widgets):
    box.clear_widgets()
    for w in widgets:
        box.add_widget(w)
