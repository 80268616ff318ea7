"""Pass-and-play secret voting on the tablet itself.

The table sees who has voted, never what. A player takes the tablet, holds their own name (a
stray tap does nothing), sees the choices on an opaque screen, taps one, and the screen goes
opaque again at once ("vote recorded — pass the tablet back") without ever showing the choice.
A ballot may be changed until the reveal. The narrator can force the reveal (held, too); the
missing voters are then listed.
"""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.core import i18n
from companion.core.i18n import tr

load_kv(__file__)


def option_label(option: str) -> str:
    """How a vote option reads: catalogue words for exile/remain/red/grey/center, names as they are."""
    key = f"vote.option.{option}"
    return tr(key) if i18n.has(key) else option


class VoteScreen(Screen):
    app = ObjectProperty()
    vote = DictProperty({})
    mode = StringProperty("list")    # list | private | choose | done
    voter = StringProperty("")
    # Plain strings for the kv: what the table reads about the vote in progress.
    question = StringProperty("")
    status = StringProperty("")
    waiting = StringProperty("")

    def on_mode(self, *_):
        self.app.private = self.mode != "list"

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
        if self.mode == "list":
            self._build_voters()

    def _build_voters(self):
        box = self.ids.voters
        box.clear_widgets()
        voted = set(self.vote.get("voted", []))
        for name in self.vote.get("voters", []):
            b = Factory.VoterButton()
            b.voter = name
            b.voted = name in voted
            b.bind(on_hold=lambda btn: self.open_private(btn.voter))
            box.add_widget(b)

    # the flow: list -> private (hand over) -> choose -> done -> list
    def open_private(self, voter: str):
        self.voter = voter
        self.mode = "private"

    def open_choices(self):
        box = self.ids.choices
        box.clear_widgets()
        for option in self.vote.get("options", []):
            if option == self.voter and not self.vote.get("allow_self", True):
                continue
            b = Factory.ChoiceButton(text=option_label(option))
            b.option = option
            b.bind(on_release=lambda btn: self.choose(btn.option))
            box.add_widget(b)
        if self.vote.get("allow_abstain"):
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
            self.mode = "list"
            self._build_voters()

    def back_to_list(self):
        self.voter = ""
        self.mode = "list"
        self._build_voters()

    def force_reveal(self):
        self.app.send("reveal_vote", force=True)


def make(app):
    return VoteScreen(name="vote", app=app)
