"""Recommendation Phase, before the secret vote opens: the rule, the reminder the tablet cannot
enforce, and the button that opens the secret recommendation (the shell's pass-and-play vote
screen, phones and vote boxes all feed the same vote)."""
from __future__ import annotations

from companion.app.games.sevenknights.common import SKScreen
from companion.app.screens import load_kv

load_kv(__file__)


class RecommendScreen(SKScreen):
    def open_vote(self):
        self.app.send("open_recommendation")


def make(app):
    return RecommendScreen(name="sevenknights.recommend", app=app)
