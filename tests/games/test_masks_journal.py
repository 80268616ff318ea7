"""An interrupted round resumes: the state folded from the reopened SQLite journal is the state
the live session had, at every point of a round."""
from __future__ import annotations

from companion.core.events import Command
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.masks.rules import MasksRules

PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve"]

ROUND = [
    Command("start_hidden_phase"),
    Command("end_hidden_phase"),
    Command("use_vanguard", {"player": "Dan"}),
    Command("end_discussion"),
    Command("cast_ballot", {"voter": "Ann", "choice": "Cat"}),
    Command("cast_ballot", {"voter": "Ben", "choice": "Ann"}, source="box:2"),
    Command("cast_ballot", {"voter": "Ann", "choice": "Eve"}),  # changed before the reveal
    Command("cast_ballot", {"seat": 3, "option": 4}, source="box:3"),
    Command("cast_ballot", {"voter": "Eve", "choice": "Cat"}, source="phone:e"),
    # Eve, alone with the most votes, shows the Executioner and chooses before anyone reveals.
    Command("executioner_check", {"player": "Eve"}),
    Command("executioner_chooses", {"target": "Ben"}),
    Command("enter_identities", {"identities": {"Ann": "Queen", "Ben": "King", "Cat": "Martyr",
                                                "Dan": "Pamphleteer", "Eve": "Executioner"},
                                 "center": ["Spy", "Fugitive", "Harlot"], "royalist": None}),
]


def test_a_journal_from_before_the_check_still_folds(tmp_path):
    """Games recorded when the Executioner chose after the reveal resume as they were played."""
    from dataclasses import replace

    from companion.core.events import Event
    rules = MasksRules()
    journal = Journal(tmp_path / "j.sqlite")
    live = GameSession.start(journal, rules, {"players": PLAYERS})
    for command in ROUND[:9]:
        live.execute(command)
    ids = ROUND[11].data
    # the old order had no check: the vote went straight to the identities phase
    old = replace(live.state, phase="identities", checked=False)
    old = rules.evolve(old, Event(99, "identities_revealed", {**ids}))
    assert old.phase == "executioner"
    old = rules.evolve(old, Event(100, "executioner_chose", {"executioner": "Eve", "target": "Ben"}))
    assert old.phase == "over" and old.verdict.eliminated == ("Ben",)
    journal.close()


def test_resume_at_every_point_gives_the_same_state(tmp_path):
    path = tmp_path / "journal.sqlite"
    rules = MasksRules()
    journal = Journal(path)
    live = GameSession.start(journal, rules, {"players": PLAYERS, "discussion_seconds": 300})
    game_id = live.game_id
    for i, command in enumerate(ROUND):
        live.execute(command)
        reopened = Journal(path)  # another connection, as after a crash and restart
        resumed = GameSession.resume(reopened, game_id, rules)
        assert resumed.state == live.state, f"after command {i}: {command.kind}"
        assert resumed.view("table") == live.view("table")
        reopened.close()
    view = live.view("table")
    assert view["phase"] == "over"
    # Eve 2 (Ann, Cat: seat 3 picked option 4 = Eve), Cat 1, Ann 1; Dan abstained.
    assert view["counts"] == {"Ann": 1, "Ben": 0, "Cat": 1, "Dan": 0, "Eve": 2, "center": 0}
    # Eve holds the Executioner and names Ben, the King, instead.
    assert (view["eliminated"], view["result"], view["winners"]) == (["Ben"], "people", ["Dan", "Eve"])
    assert view["vote_history"][0]["sources"]["Ben"] == "box:2"
    journal.close()
    again = Journal(path)
    record = again.game(game_id)
    assert record.status == "finished" and list(record.winners) == ["Dan", "Eve"]
    again.close()


def test_a_round_resumed_mid_vote_keeps_the_ballots_secret_and_goes_on(tmp_path):
    path = tmp_path / "journal.sqlite"
    rules = MasksRules()
    journal = Journal(path)
    live = GameSession.start(journal, rules, {"players": PLAYERS})
    for command in ROUND[:6]:
        live.execute(command)
    journal.close()
    journal = Journal(path)
    resumed = GameSession.resume(journal, live.game_id, rules)
    view = resumed.view("table")
    assert view["phase"] == "voting" and view["vote"]["voted"] == ["Ann", "Ben", "Dan"]
    assert "ballots" not in view["vote"]
    for command in ROUND[6:]:
        resumed.execute(command)
    assert resumed.view("table")["result"] == "people"
    journal.close()
