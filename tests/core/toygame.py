"""A tiny game for engine tests: a counter and one Exile-style vote."""
from dataclasses import dataclass, field, replace

from companion.core import votes
from companion.core.events import BadInput
from companion.core.houserules import HouseRule, chosen
from companion.core.rules import GameRules, require
from companion.core.tally import BinaryMajority


@dataclass(frozen=True)
class ToyState:
    players: tuple
    counter: int = 0
    book: votes.VoteBook = votes.VoteBook()
    exiled: tuple = ()
    finished: bool = False
    house_rules: dict = field(default_factory=dict)


class ToyRules(GameRules):
    game_id = "toy"
    min_players, max_players = 2, 8
    # a tied Exile vote: the target remains (the default), or is exiled
    house_rules = (HouseRule("toy", "tie", ("remain", "exile")),)

    def initial_state(self, setup):
        players = tuple(setup.get("players", ()))
        if not 2 <= len(players) <= 8:
            raise BadInput("toy needs 2 to 8 players")
        return ToyState(players, house_rules=chosen(setup, self.house_rules))

    def decide(self, state, command):
        d = command.data
        if command.kind == "add":
            require(isinstance(d.get("n"), int) and d["n"] > 0, "Add a positive number", "You may add only forward.")
            return [("added", {"n": d["n"]})]
        if command.kind == "call_exile":
            target = d.get("target")
            require(target in state.players, f"{target!r} is not at the table")
            spec = votes.VoteSpec(f"exile-{len(state.book.history) + 1}", "binary", state.players,
                                  ("exile", "remain"), question=f"Exile {target}?")
            return votes.open_vote(state.book, spec)
        if command.kind == "cast_ballot":
            return votes.cast(state.book, d, command.source)
        if command.kind == "reveal_vote":
            return votes.reveal(state.book, bool(d.get("force")))
        if command.kind == "finish":
            return [("finished", {})]
        raise BadInput(f"unknown command {command.kind}")

    def evolve(self, state, event):
        if event.kind in votes.VOTE_EVENTS:
            book = votes.apply_vote_event(state.book, event)
            state = replace(state, book=book)
            if event.kind == "vote_revealed":
                result = BinaryMajority(("exile", "remain"), "the Tribune").decide(
                    book.last().choices(), tie_choice=state.house_rules.get("tie", "remain"))
                if result.winner == "exile":
                    state = replace(state, exiled=state.exiled + (book.last().spec.question,))
            return state
        if event.kind == "added":
            return replace(state, counter=state.counter + event.data["n"])
        if event.kind == "finished":
            return replace(state, finished=True)
        return state

    def view(self, state, viewer):
        return {"counter": state.counter, "vote": votes.table_view(state.book.current),
                "vote_history": [votes.table_view(v) for v in state.book.history], "phase": "play", "prompt": "",
                "house_rules": dict(state.house_rules)}

    def outcome(self, state):
        return {"winners": [state.players[0]], "summary": "done"} if state.finished else None
