import sqlite3

import pytest

from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import SCHEMA_V1, SCHEMA_VERSION, Journal
from companion.core.session import GameSession

from .toygame import ToyRules

PLAYERS = {"players": ["Ann", "Ben", "Cy"]}


def test_commands_become_events_and_state_is_their_fold(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 2}))
    s.execute(Command("add", {"n": 3}))
    assert s.state.counter == 5
    assert [e.kind for e in j.events(s.game_id)] == ["game_started", "added", "added"]
    again = GameSession.resume(Journal(tmp_path / "j.db"), s.game_id, ToyRules())
    assert again.state == s.state


def test_refused_command_records_nothing(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    with pytest.raises(RuleError, match="You may add only forward"):
        s.execute(Command("add", {"n": -1}))
    assert [e.kind for e in j.events(s.game_id)] == ["game_started"]


def test_undo_is_an_event_and_history_is_kept(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 2}))
    s.execute(Command("add", {"n": 3}))
    s.undo()
    assert s.state.counter == 2
    s.undo()
    assert s.state.counter == 0
    with pytest.raises(RuleError, match="Nothing to undo"):
        s.undo()
    kinds = [e.kind for e in j.events(s.game_id)]
    assert kinds == ["game_started", "added", "added", "undo", "undo"]
    assert GameSession.resume(j, s.game_id, ToyRules()).state.counter == 0


def test_undo_never_turns_a_revealed_vote_back_into_a_secret(tmp_path):
    s = GameSession.start(Journal(tmp_path / "j.db"), ToyRules(), PLAYERS)
    s.execute(Command("call_exile", {"target": "Cy"}))
    for p in PLAYERS["players"]:
        s.execute(Command("cast_ballot", {"voter": p, "choice": "exile"}))
    assert s.state.book.last().revealed
    with pytest.raises(RuleError, match="revealed vote"):
        s.undo()


def test_undoing_a_changed_ballot_never_brings_back_the_one_it_replaced(tmp_path):
    # Found by the secrecy audit: Ann voted exile, changed to remain; an Undo brought "exile"
    # back, and the reveal showed a ballot she had replaced as hers. Now the undone ballot takes
    # her earlier ones in this vote with it: she has not voted, and votes again.
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("call_exile", {"target": "Cy"}))
    s.execute(Command("cast_ballot", {"voter": "Ann", "choice": "exile"}))
    s.execute(Command("cast_ballot", {"voter": "Ann", "choice": "remain"}))
    s.undo()
    assert "Ann" not in s.state.book.current.ballots
    s.redo()  # taking the undo back gives her last ballot, never the replaced one
    assert s.state.book.current.ballots["Ann"].choice == "remain"
    s.undo()
    again = GameSession.resume(Journal(tmp_path / "j.db"), s.game_id, ToyRules())
    assert "Ann" not in again.state.book.current.ballots
    for p in PLAYERS["players"]:
        s.execute(Command("cast_ballot", {"voter": p, "choice": "exile" if p == "Ann" else "remain"}))
    assert s.state.book.last().revealed and s.state.book.last().ballots["Ann"].choice == "exile"


def test_an_undone_ballot_leaves_the_voters_ballots_of_an_earlier_vote_of_the_same_id():
    # Royals and Martyr Masks opens its pointing vote under one id each round.
    from companion.core.events import Event
    from companion.core.rules import undone_seqs

    def ev(seq, kind, **data):
        return Event(seq, kind, data, "tablet", float(seq))
    events = [ev(1, "vote_opened", vote_id="point"), ev(2, "ballot_cast", vote_id="point", voter="Ann", choice="Bo"),
              ev(3, "vote_revealed", vote_id="point"), ev(4, "vote_opened", vote_id="point"),
              ev(5, "ballot_cast", vote_id="point", voter="Ann", choice="Cy"),
              ev(6, "ballot_cast", vote_id="point", voter="Bo", choice="Ann"),
              ev(7, "ballot_cast", vote_id="point", voter="Ann", choice="Bo"), ev(8, "undo", undoes=7)]
    assert undone_seqs(events) == {7, 5}


def test_finished_games_are_listed_with_their_winners(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    assert [g.id for g in j.unfinished()] == [s.game_id]
    s.execute(Command("finish"))
    rec = j.games("toy")[0]
    assert rec.status == "finished" and list(rec.winners) == ["Ann"]
    assert j.unfinished() == []
    s.undo()  # the finishing action undone: the game is open again
    assert j.game(s.game_id).status == "playing"


def test_a_journal_written_by_schema_1_still_opens(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_V1)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO games (id, game, setup, started_at) VALUES (1, 'toy', '{\"players\":[\"A\",\"B\"]}', 1.0)")
    db.execute("INSERT INTO events VALUES (1, 1, 'added', '{\"n\":4}', 2.0)")
    db.commit()
    db.close()
    j = Journal(path)
    assert j.schema_version == SCHEMA_VERSION
    s = GameSession.resume(j, 1, ToyRules())
    assert s.state.counter == 4
    assert j.events(1)[0].source == "system"
    s.execute(Command("add", {"n": 1}))
    assert GameSession.resume(Journal(path), 1, ToyRules()).state.counter == 5


def test_journal_from_a_newer_version_is_refused_in_one_line(tmp_path):
    path = tmp_path / "new.db"
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(BadInput, match="newer version") as e:
        Journal(path)
    assert "\n" not in str(e.value)


def test_a_file_that_is_not_a_journal_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database" * 10)
    before = path.read_bytes()
    with pytest.raises(BadInput, match="cannot be opened"):
        Journal(path)
    assert path.read_bytes() == before


def test_an_event_with_unreadable_data_is_named(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    j._db.execute("UPDATE events SET data='{oops' WHERE seq=1")
    with pytest.raises(BadInput, match=r"game 1 event 1 \(game_started\) has unreadable data"):
        j.events(s.game_id)


def test_bad_setup_writes_no_game(tmp_path):
    j = Journal(tmp_path / "j.db")
    with pytest.raises(BadInput):
        GameSession.start(j, ToyRules(), {"players": ["Solo"]})
    assert j.games() == []
