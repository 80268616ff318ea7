"""What every Seven Knights screen shares: the table view, the header, player colours."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import BooleanProperty, ColorProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app.gamescreen import GameScreen

from companion.app.screens import load_kv
from companion.app.theme import PANEL, ui
from companion.app.widgets import BigButton


# Widgets with their own properties are Python classes (a kv dynamic class cannot take its
# properties as constructor arguments); their looks are in common.kv.
class SKPlayerButton(BigButton):
    """A player's (or a tile place's) button, with the seat colour as a stripe."""
    key = ObjectProperty(None, allownone=True)
    player = StringProperty("")
    seat_colour = ColorProperty(PANEL)
    selected = BooleanProperty(False)


class SKSmallButton(BigButton):
    key = ObjectProperty(None, allownone=True)
    selected = BooleanProperty(False)


class SKCount(Label):
    highlight = BooleanProperty(False)


class SKScoreRow(BoxLayout):
    """One line of the score table: the player, one cell per round played, the total."""
    player = StringProperty("")
    won = BooleanProperty(False)
    heading = BooleanProperty(False)
    seat_colour = ColorProperty((0, 0, 0, 0))

    def set_cells(self, cells):
        for w in list(self.children)[:-1]:  # keep the name label (added first, so last)
            self.remove_widget(w)
        for i, text in enumerate(cells):
            self.add_widget(Factory.SKScoreCell(text=text, bold=self.heading or i == len(cells) - 1,
                                                color=ui.muted if self.heading else ui.text))


load_kv(__file__)


class SKScreen(GameScreen):
    """A screen of play of Seven Knights."""

    game_id = "sevenknights"

    # helpers for subclasses

    def fill(self, box, items, make):
        box.clear_widgets()
        for item in items:
            box.add_widget(make(item))


def player_button(screen: SKScreen, name: str, text: str | None = None, on_press=None, selected=False):
    b = Factory.SKPlayerButton(text=text or name)
    b.player = name
    b.seat_colour = screen.seat_colour(name)
    b.selected = selected
    if on_press is not None:
        b.bind(on_release=lambda btn: on_press(btn.player))
    return b
