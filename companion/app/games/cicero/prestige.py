"""Phase VII and the end: the PP of each player's Primus, Secundus and Guild cards (counted by the
tablet), the PP their Senators earn (entered), the next round, and the winner."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.metrics import dp

from companion.app.games.cicero.common import CiceroScreen
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


class PrestigeScreen(CiceroScreen):
    def refresh(self):
        v = self.view
        if not v:
            return
        body = self.ids.body
        body.clear_widgets()
        phase = v["phase"]
        self.ids.winner.text = ""
        if phase == "prestige":
            self._steppers = []
            for p in v["players"]:
                pts = v["card_points"][p]
                row = Factory.CSeatRow(player=p, stripe=self.seat_colour(p), height="64dp")
                line = Factory.CLine(text=tr("cicero.ui.card_points", primus=pts["primus"],
                                             secundus=pts["secundus"], guilds=pts["guilds"],
                                             total=pts["total"]), font_size="22sp", size_hint_x=0.75)
                # the card points wrap to 2-3 lines at 22sp: the row grows with them
                line.bind(height=lambda line, h, row=row: setattr(row, "height", max(dp(64), h + dp(8))))
                row.add_widget(line)
                last = (v.get("carried") or {}).get("senators", {}).get(p, 0)  # last round's, carried over
                s = self.stepper(tr("cicero.ui.senators_short"), last, key=p)
                row.add_widget(s)
                self._steppers.append(s)
                body.add_widget(row)
            body.add_widget(Factory.Widget())
            body.add_widget(self.button(tr("cicero.ui.correct_cards"), lambda b: self.correct_cards(), height="64dp",
                                        font_size="22sp"))
            body.add_widget(self.button(tr("cicero.ui.score"), lambda b: self._score(), height="80dp"))
        else:
            score = v.get("last_score") or {}
            for p in v["players"]:
                cards = (score.get("cards") or {}).get(p, {}).get("total", 0)
                senators = (score.get("senators") or {}).get(p, 0)
                body.add_widget(Factory.CLine(text=tr("cicero.ui.scored", player=p, cards=cards, senators=senators,
                                                      total=v["prestige"][p]), font_size="26sp"))
            body.add_widget(Factory.Widget())
            if phase == "round_end":
                body.add_widget(self.button(tr("cicero.ui.correct_cards"), lambda b: self.correct_cards(),
                                            height="64dp", font_size="22sp"))
                body.add_widget(self.button(tr("cicero.ui.next_round", round=v["round"] + 1),
                                            lambda b: self.app.send("next_step"), height="80dp"))
            else:
                self.ids.winner.text = tr("cicero.ui.winner", winners=tr("cicero.word.and").join(v["winners"]))

    def correct_cards(self):
        """Who holds the majority cards, set to what the table sees (they score every round)."""
        from companion.app.games.cicero.correct import open_cards
        return open_cards(self)

    def _score(self):
        self.app.send("score_prestige", senators={s.key: int(s.number) for s in self._steppers})


def make(app):
    return PrestigeScreen(name="cicero.prestige", app=app)
