"""Cleanup Phase and the end of the game: who won the round and why, TORIKO (from the public
arrows), each player's Scoring Card and total, the next First player, the final standings."""
from __future__ import annotations

from kivy.factory import Factory

from companion.app.games.sevenknights.common import SKScreen, player_button
from companion.app.games.sevenknights.search import place_label
from companion.app.screens import load_kv
from companion.core.i18n import tr

load_kv(__file__)


class ScoreScreen(SKScreen):
    def refresh(self):
        v = self.view
        result = v.get("result")
        if not v or result is None:
            return
        over = v["phase"] == "game_over"
        winners = set(v.get("winners", []))
        # One column per round played so far, then the total.
        rounds = [r["result"]["points"] for r in v.get("past_rounds", []) if r.get("result")] + [result["points"]]
        heads = [tr("sevenknights.ui.col_round", round=i) for i in range(1, len(rounds) + 1)]
        box = self.ids.table
        box.clear_widgets()
        head = Factory.SKScoreRow(heading=True)
        head.set_cells(heads + [tr("sevenknights.ui.col_total")])
        box.add_widget(head)
        order = [r["player"] for r in v["standings"]] if over else v["players"]
        for p in order:
            row = Factory.SKScoreRow(player=p, won=p in winners, seat_colour=self.seat_colour(p))
            row.set_cells([str(pts.get(p, 0)) for pts in rounds] + [str(v["totals"][p])])
            box.add_widget(row)
        firsts = list(self.app.legal("start_next_round", "first"))  # the rules say who may be next
        self.fill(self.ids.firsts, firsts, lambda p: player_button(self, p, on_press=self.next_first))
        past = v.get("past_rounds", []) + [{"round": v["round"], "captain": v.get("captain"), "result": result}]
        lines = [tr("sevenknights.ui.round_summary", round=r["round"], captain=r["captain"], result=r["result"]["text"])
                 for r in past] if over and len(past) > 1 else []
        self.fill(self.ids.summary, lines, lambda s: Factory.SKLine(text=s, font_size="22sp"))

    def result_lines(self):
        r = self.view.get("result") or {}
        if not r:
            return ""
        lines = [r.get("why_text", "")]
        if r.get("witch"):
            lines.append(tr("sevenknights.ui.witch_was", place=place_label(r["witch"])))
        if r.get("toriko"):
            lines.append(tr("sevenknights.ui.toriko", players=", ".join(r["toriko"])))
        elif r.get("witch"):
            lines.append(tr("sevenknights.ui.no_toriko"))
        return "\n".join(lines)

    def next_first(self, player):
        self.app.send("start_next_round", first=player)


def make(app):
    return ScoreScreen(name="sevenknights.score", app=app)
