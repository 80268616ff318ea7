"""A test-only game UI around the engine tests' toy game: a counter and Exile votes."""
from kivy.lang import Builder
from kivy.properties import ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app.gameui import GameUI, OptionField
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


class ToyBoard(Screen):
    app = ObjectProperty()


class ToyUI(GameUI):
    def build_screens(self, app):
        return [ToyBoard(name="toy.board", app=app)]

    def screen_for(self, view):
        return "toy.board"


UI = ToyUI("toy", ToyRules(), "app.title", options=[
    OptionField("fast", "setup.on", "bool", True, help="setup.clockwise_hint"),
])
