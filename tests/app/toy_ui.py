"""A test-only game UI around the engine tests' toy game: a counter and Exile votes."""
from kivy.lang import Builder
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app.gameui import GameUI, OptionField
from companion.core import i18n
from tests.core.toygame import ToyRules

Builder.load_string("""
<ToyBoard>:
    BoxLayout:
        orientation: 'vertical'
        padding: dp(20)
        Label:
            id: counter
            text: 'Counter: {}'.format(app.view.get('counter', 0))
            font_size: '40sp'
        BigButton:
            id: call_vote
            text: 'Call a Vote to Exile Cy'
            on_release: app.send('call_exile', target='Cy')
""")


# The toy's words for its one house rule (a test game has no catalogue of its own): the keys a
# game's .po holds for a house rule (companion.core.houserules), in the three languages.
WORDS = {
    "en": {"toy.house.tie": "A tied Exile vote",
           "toy.house.tie.rule": "“The Tribune settles a tie.” (the toy rulebook says no more)",
           "toy.house.tie.remain": "A tie: the target remains",
           "toy.house.tie.exile": "A tie: the target is exiled"},
    "fr": {"toy.house.tie": "Un vote d’exil à égalité",
           "toy.house.tie.rule": "« Le Tribun tranche une égalité. » (la règle du jouet n’en dit pas plus)",
           "toy.house.tie.remain": "Égalité : la cible reste",
           "toy.house.tie.exile": "Égalité : la cible est exilée"},
    "de": {"toy.house.tie": "Ein Verbannungsvotum mit Gleichstand",
           "toy.house.tie.rule": "„Der Tribun entscheidet einen Gleichstand.“ (mehr sagt die Spielzeugregel nicht)",
           "toy.house.tie.remain": "Gleichstand: das Ziel bleibt",
           "toy.house.tie.exile": "Gleichstand: das Ziel wird verbannt"},
}


def add_words() -> None:
    """The toy's words into the loaded catalogues (again after a language is loaded)."""
    for lang, words in WORDS.items():
        i18n._cat(lang).update(words)


add_words()


class ToyBoard(Screen):
    app = ObjectProperty()


class ToyUI(GameUI):
    def build_screens(self, app):
        return [ToyBoard(name="toy.board", app=app)]

    def screen_for(self, view):
        return "toy.board"

    def on_events(self, app, events, view):
        # the vote's question is spoken when the vote opens, as a game's narration does
        # (in words other than the options': the caption must not add an option's name on screen)
        if any(e.kind == "vote_opened" for e in events):
            app.say("toy.vote_open", "The vote is open. Each player in turn: hold your name, then choose in secret.")


UI = ToyUI("toy", ToyRules(), "app.title", options=[
    OptionField("fast", "setup.on", "bool", True, help="setup.clockwise_hint"),
])
