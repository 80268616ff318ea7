"""Widgets the 23 Knives screens share: the board band (Kalends, Forum, Curia) and card words."""
from __future__ import annotations

from kivy.properties import BooleanProperty, ListProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.app import theme
from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)

# Card fills: Knives blood red, Doves pale, a facedown card's back; darker in the dim room (so
# the room stays dark). The text on each is ``ui.ink_for`` it: legible on both.
CARD_FILLS: dict[str, dict[str, theme.RGBA]] = {
    "normal": {"knives": (0.62, 0.16, 0.16, 1), "doves": (0.80, 0.84, 0.90, 1),
               "facedown": (0.30, 0.26, 0.22, 1)},
    "dim": {"knives": theme.hex_rgba("#5A1A1A"), "doves": theme.hex_rgba("#7C8491"),
            "facedown": theme.hex_rgba("#2E2822")},
}
BLACK = (0.02, 0.02, 0.02, 1)
DARK_TEXT = (0.08, 0.09, 0.12, 1)


class K23Cell(Label):
    bg = ListProperty(list(theme.PANEL))
    fg = ListProperty(list(theme.TEXT))
    edge = ListProperty(list(theme.MUTED[:3]) + [0.6])
    strong = BooleanProperty(False)

    def __init__(self, **kw):
        # the colours in use when the cell is made (the dim room's, when it is dim)
        kw.setdefault("bg", list(ui.panel))
        kw.setdefault("fg", list(ui.text))
        kw.setdefault("edge", list(ui.muted[:3]) + [0.6])
        super().__init__(**kw)


def card_text(card: dict | None) -> str:
    if not card:
        return ""
    (kind, value), = card.items()
    return tr(f"knives23.card.{kind}_one") if value == 1 else tr(f"knives23.card.{kind}", value=value)


def card_fill(kind: str):
    """The fill of a card kind (knives, doves, facedown) in the theme in use now."""
    return CARD_FILLS[ui.mode][kind]


def card_colours(card: dict | None, faceup: bool = True):
    """(fill, text colour) of a card as shown: its back when facedown or unknown."""
    kind = "facedown" if not faceup or not card else "knives" if "knives" in card else "doves"
    fill = card_fill(kind)
    return fill, tuple(ui.ink_for(fill))


def forum_cell(entry: dict | None, label: str = "", **kw) -> "K23Cell":
    """One Forum space: its card (value when faceup), the Doves Sabinus laid on it; or the
    space's number (and its faceup-only icon) when empty."""
    if entry is None:
        return K23Cell(text=label, bg=list(ui.bg), fg=list(ui.muted), **kw)
    bg, fg = card_colours(entry.get("card"), entry["faceup"])
    text = card_text(entry["card"]) if entry["faceup"] else tr("knives23.card.facedown")
    for dove in entry.get("doves") or []:
        text += "\n+ " + (card_text(dove["card"]) if dove["faceup"] else tr("knives23.ui.dove_facedown"))
    return K23Cell(text=text, bg=list(bg), fg=list(fg), strong=True, **kw)


def curia_fill() -> list:
    """The Curia's space on the Kalends track: terracotta, see-through on the night; opaque in
    the dim room, where see-through terracotta under the dim text read at 3.4:1."""
    return list(ui.danger[:3]) + [1.0 if ui.dim else 0.55]


def space_label(space: dict) -> str:
    return str(space["space"]) + ("  " + tr("knives23.ui.faceup_only") if space.get("kind") == "faceup" else "")


class K23Board(BoxLayout):
    """The Kalends track with the Dagger (black spaces black), the Forum's 5 spaces in order,
    and the Curia's count (plus what is public about it, when the group turned that on)."""

    def show(self, view: dict) -> None:
        k = view.get("kalends")
        if not k:
            return
        row = self.ids.kalends
        row.clear_widgets()
        for space in range(1, k["spaces"] + 1):
            black = space in k["black"]
            here = space == k["dagger"]
            cell = K23Cell(text=tr("knives23.ui.dagger", space=space) if here else str(space),
                           bg=list(ui.accent if here else BLACK if black else ui.panel),
                           fg=list(DARK_TEXT if here else ui.text),
                           edge=list((1, 1, 1, 0.9) if black else ui.muted), strong=here or black)
            row.add_widget(cell)
        in_curia = k["dagger"] >= k["curia_space"]
        curia = list(ui.accent) if in_curia else curia_fill()
        row.add_widget(K23Cell(text=tr("knives23.ui.curia_space"), size_hint_x=1.6,
                               bg=curia, fg=list(ui.ink_for(curia)), strong=True))
        if in_curia:
            note = tr("knives23.ui.dagger_in_curia")
        elif k["on_black"]:
            note = tr("knives23.ui.on_black")
        else:
            note = tr("knives23.ui.advances_left", n=k["advances_left"])
        self.ids.kalends_note.text = note

        forum = self.ids.forum
        forum.clear_widgets()
        f = view["forum"]
        for space in f["spaces"]:
            forum.add_widget(forum_cell(space["card"], space_label(space)))
        extra = len(f["extra"])
        forum.add_widget(K23Cell(text=tr("knives23.ui.extra", n=extra) if extra else "", size_hint_x=0.5,
                                 bg=list(ui.bg), edge=[0, 0, 0, 0]))
        curia = view["curia"]
        text = tr("knives23.ui.curia_count", n=curia["count"])
        if f.get("cards", f["count"]) != f["count"]:
            text = tr("knives23.ui.forum_cards", n=f["cards"]) + " · " + text
        if "known" in curia:
            text += " · " + tr("knives23.ui.curia_known", total=curia["known_total"], unknown=curia["unknown"])
        if f["full"]:
            text = tr("knives23.ui.forum_full") + " · " + text
        self.ids.curia_note.text = text
