"""(No tests here.) A tiny pure driver for the Seven Knights tests: decide + evolve, no journal (the journal test uses
the real GameSession)."""
from companion.core.events import Command, Event
from companion.core.i18n import texts
from companion.games.sevenknights import SevenKnightsRules

RULES = SevenKnightsRules()


class Table:
    def __init__(self, players="ABCDE", first=None, mode="basic"):
        self.setup = {"players": list(players), "first": first or players[0], "mode": mode}
        self.state = RULES.initial_state(self.setup)
        self.events = []

    def do(self, kind, source="tablet", **data):
        items = RULES.decide(self.state, Command(kind, data, source))
        for k, d in items:
            ev = Event(len(self.events) + 1, k, d, source)
            self.events.append(ev)
            self.state = RULES.evolve(self.state, ev)
        return items

    def view(self, viewer="table"):
        return texts(RULES.view(self.state, viewer))  # as a screen shows it

    # whole phases, for tests that start later in a round
    def search(self, targets):
        for t in targets:
            self.do("look", at=t)

    def ask_all(self):
        """Each player asks the next player clockwise a free question (never refused)."""
        for asker in list(self.state.order):
            players = self.state.players
            target = players[(players.index(asker) + 1) % len(players)]
            self.do("ask_question", target=target, template="free", text=f"{asker} asks {target}", answer="no")

    def recommend(self, recs):
        self.do("open_recommendation")
        for voter, choice in recs.items():
            self.do("cast_ballot", voter=voter, choice=choice)
