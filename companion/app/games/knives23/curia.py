"""The end of the game on the tablet: the End of Game ability reminder (Tribune first, then
clockwise; none under Simplicitas), then the Curia revealed one card at a time with the running
total (big, and spoken slowly). Cards are tapped here or scanned by a phone, mixed; the rules
refuse a duplicate serial and more cards than the Curia holds. One claim per card, whichever
comes first: a tap of the value of a card a phone scanned (and no tap named yet) asks whether it
is that card (counted once) or another card of that value (counted) — the tablet cannot tell two
cards of one value apart, the table can."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.i18n import tr

load_kv(__file__)

CARDS = [{"knives": 1}, {"knives": 2}, {"knives": 3}, {"knives": 5},
         {"doves": 1}, {"doves": 2}, {"doves": 3}]


class Knives23CuriaScreen(Screen):
    app = ObjectProperty()
    prompt = StringProperty("")
    total = StringProperty("")
    total_label = StringProperty("")
    last_card = StringProperty("")
    last_icon = StringProperty("")
    counter = StringProperty("")
    side_heading = StringProperty("")
    side_cols = NumericProperty(2)
    asking = ObjectProperty(None, allownone=True)   # the tapped card that may be a scanned one

    def tap_card(self, card: dict) -> None:
        """A tapped card: counted, unless a phone scanned one of its value that no tap named yet
        (the view's ``untapped_scans``): then the table says which it is."""
        end = (self.app.view or {}).get("end") or {}
        if any(s["card"] == card for s in end.get("untapped_scans") or []):
            self.asking = card
            self.refresh()
            return
        self.app.send("curia_card", card=card)

    def answer(self, another: bool | None) -> None:
        """The table's answer: that scanned card (None: cancelled, nothing sent)."""
        card, self.asking = self.asking, None
        if card is not None and another is not None:
            self.app.send("curia_card", card=card, **({"another": True} if another else {}))
        self.refresh()

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        phase = view.get("phase")
        end = view.get("end") or {}
        done = phase not in ("end_abilities", "curia_reveal")
        if done and not end.get("revealed"):
            return
        # After the last card the screen stays while the voice says the last total (the app
        # moves on at the narrator's mark): it shows that total, never the verdict before it.
        self.prompt = tr("knives23.ui.curia_all_revealed", count=end["revealed_count"],
                         total=end["running_total"]) if done else view["prompt"]
        self.total_label = tr("knives23.ui.curia_total")
        self.total = str(end["running_total"])
        last = end["revealed"][-1]["card"] if end["revealed"] else None
        self.last_card = common.card_text(last) if last else ""
        self.last_icon = ("knife" if "knives" in last else "dove") if last else ""
        if end["revealed_count"] > getattr(self, "_turned", 0):
            self.ids.last_card.turn()          # a new card: it turns over as the total changes
        self._turned = end["revealed_count"]
        self.counter = tr("knives23.ui.revealed_of", n=end["revealed_count"], count=view["curia"]["count"])
        side = self.ids.side
        side.clear_widgets()
        if phase == "end_abilities":
            self.side_heading = tr("knives23.ui.abilities_heading")
            self.side_cols = 1
            for i, name in enumerate(end["abilities_order"]):
                extra = tr("knives23.ui.tribune_mark") if i == 0 else ""
                side.add_widget(Factory.K23Line(text=f"{i + 1}. {name}{extra}"))
            b = Factory.K23Button(text=tr("knives23.ui.abilities_done"))
            b.bind(on_release=lambda *_: self.app.send("abilities_done"))
            self.abilities_button = b
            side.add_widget(b)
        elif done:
            self.side_heading = ""
        elif self.asking is not None:
            self._ask(side, end, self.asking)
        else:
            self.side_heading = tr("knives23.ui.tap_card")
            self.side_cols = 2
            for card in CARDS:
                b = Factory.K23Button(text=common.card_text(card))
                b.background_color, b.color = common.card_colours(card)
                b.card = card
                b.bind(on_release=lambda btn: self.tap_card(btn.card))
                side.add_widget(b)
        strip = self.ids.revealed
        strip.clear_widgets()
        for r in end["revealed"]:
            bg, fg = common.card_colours(r["card"])
            (kind, value), = r["card"].items()
            strip.add_widget(common.K23Cell(text=("+" if kind == "knives" else "\u2212") + str(value),
                                            bg=list(bg), fg=list(fg), font_size="22sp",
                                            edge=list(ui.accent if r["serial"] else ui.muted)))

    def _ask(self, side, end, card) -> None:
        scanned = [s["index"] for s in end.get("untapped_scans") or [] if s["card"] == card]
        if not scanned:    # named meanwhile (a scan came in, an undo): nothing left to ask
            self.asking = None
            self.refresh()
            return
        words = common.card_text(card)
        self.side_heading = tr("knives23.ui.curia_same_as_scan", card=words, n=scanned[-1])
        self.side_cols = 2   # the two answers side by side, Cancel under them: no scrolling
        for text, another, name in ((tr("knives23.ui.curia_that_card"), False, "that_card_button"),
                                    (tr("knives23.ui.curia_another", card=words), True, "another_button"),
                                    (tr("knives23.ui.cancel"), None, "cancel_button")):
            b = Factory.K23Button(text=text)
            b.bind(on_release=lambda btn, a=another: self.answer(a))
            setattr(self, name, b)
            side.add_widget(b)


def make(app):
    return Knives23CuriaScreen(name="knives23.curia", app=app)
