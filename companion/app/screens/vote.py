"""Pass-and-play secret voting on the tablet itself: one hold and one tap per voter.

The table sees who has voted, never what. A voter holds their own name (a stray tap does
nothing) and the screen goes opaque with the choices, in a new random order for each voter so
that where a finger goes tells onlookers nothing; one tap votes, and the screen says "your vote
is in" and hides itself ("pass the tablet on") without ever showing the choice. A ballot may be
changed until the reveal. A narrator's forced reveal is offered only where the rules accept one.
"""
from __future__ import annotations

import os
import random

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core import i18n
from companion.core.votes import offered, vote_open
from companion.core.i18n import tr

load_kv(__file__)

# How long "your vote is in" stays before the list comes back by itself (real seconds).
DONE_SECONDS = 1.5


def option_label(option: str) -> str:
    """How a vote option reads: catalogue words for exile/remain/red/grey/center, names as they are."""
    key = f"vote.option.{option}"
    return tr(key) if i18n.has(key) else option


def shuffled(options: list, rng: random.Random | None = None) -> list:
    """The choices in a fresh order. Seeded from os.urandom and kept nowhere: no journal, no
    view, no log can tell an onlooker which place meant which choice."""
    out = list(options)
    (rng or random.Random(os.urandom(16))).shuffle(out)
    return out


class VoteScreen(Screen):
    app = ObjectProperty()
    vote = DictProperty({})
    mode = StringProperty("list")    # list | choose | done
    voter = StringProperty("")
    # Plain strings for the kv: what the table reads about the vote in progress.
    question = StringProperty("")
    status = StringProperty("")
    waiting = StringProperty("")
    can_force = BooleanProperty(False)   # the rules would accept a narrator's reveal now
    hides_itself = True   # the "vote is in" screen goes back to the list without a tap

    def on_mode(self, *_):
        self.app.private = self.mode != "list"
        ev = getattr(self, "_hide_event", None)
        if ev is not None:
            ev.cancel()
            self._hide_event = None
        if self.mode == "done":
            self._hide_event = Clock.schedule_once(lambda dt: self._hide_done(), DONE_SECONDS)

    def on_leave(self, *_):
        self.app.private = False

    def on_pre_enter(self, *_):
        self.mode = "list"
        self.voter = ""
        self.update()

    def on_kv_post(self, *_):
        self.app.bind(view=lambda *_: self.update())

    def update(self):
        vote = (self.app.view or {}).get("vote") or {}
        if vote.get("vote_id") != self.vote.get("vote_id"):
            self.mode = "list"
        self.vote = vote
        self.question = vote.get("question", "")
        self.status = tr("vote.status", voted=len(vote.get("voted", [])), total=len(vote.get("voters", [])))
        self.waiting = tr("vote.waiting_for", names=", ".join(vote["waiting"])) if vote.get("waiting") else ""
        self.can_force = vote_open(self.app.view) and self._force_accepted()
        if self.mode == "list":
            self._build_voters()

    def _force_accepted(self) -> bool:
        session = self.app.session
        if session is None:
            return False
        if getattr(session.rules, "commands", None) is None:
            return True   # rules with no command table to ask: offered, and they answer
        return True in self.app.legal("reveal_vote", "force")

    def _build_voters(self):
        box = self.ids.voters
        box.clear_widgets()
        voted = set(self.vote.get("voted", []))
        for name in self.vote.get("voters", []):
            b = Factory.VoterButton()
            b.voter = name
            b.voted = name in voted
            b.bind(on_hold=lambda btn: self.open_choices(btn.voter))
            box.add_widget(b)

    # the flow: list -(hold your name)-> choose -(tap)-> done -(by itself)-> list
    def open_choices(self, voter: str):
        self.voter = voter
        box = self.ids.choices
        box.clear_widgets()
        for option in shuffled(offered(self.vote, voter)):   # the rules' one check of voting for oneself
            b = Factory.ChoiceButton(text=option_label(option))
            b.option = option
            b.bind(on_release=lambda btn: self.choose(btn.option))
            box.add_widget(b)
        if self.vote.get("allow_abstain"):  # abstaining stays last: it is not a choice to hide
            b = Factory.ChoiceButton(text=tr("vote.abstain"))
            b.bind(on_release=lambda btn: self.choose(None))
            box.add_widget(b)
        self.mode = "choose"

    def choose(self, option: str | None):
        # The opaque "done" screen goes up before anything else happens, so nothing about the
        # choice can flash on screen whatever the rules answer.
        self.mode = "done"
        self.ids.choices.clear_widgets()
        ok = self.app.send("cast_ballot", voter=self.voter, choice=option)
        if not ok:
            self.back_to_list()

    def _hide_done(self):
        self._hide_event = None
        if self.mode == "done":
            self.back_to_list()

    def back_to_list(self):
        self.voter = ""
        self.mode = "list"
        self._build_voters()

    def force_reveal(self):
        self.app.send("reveal_vote", force=True)


def make(app):
    return VoteScreen(name="vote", app=app)
