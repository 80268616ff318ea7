"""A night of games does not pile up screens and widgets (issue 34 item 14).

A game's screens are built when it starts and leave the screen manager when the next one starts;
they were kept alive all night by callbacks the app held strongly (lambdas and setters bound to
``app.view`` and ``app.narration_paused``): 102 screens alive after 9 games, 19 in use, widgets
from 422 to 3,784, ~19 MB a game. benchmarks/night_memory.py measures the memory itself over a
compressed night of whole games played by ``play_game`` below.
"""
import gc
from collections import Counter

from tests.app.test_languages_app import GAMES

from .test_screen_audit import SENT_BY_THE_APP, Walk, game_plan


def alive():
    from kivy.uix.screenmanager import Screen
    from kivy.uix.widget import Widget
    gc.collect()
    screens = widgets = 0
    for o in gc.get_objects():
        t = type(o)   # not isinstance: a dead weak proxy raises on it
        if issubclass(t, Widget):
            widgets += 1
            screens += issubclass(t, Screen)
    return screens, widgets


def _current_vote(app):
    book = getattr(app.session.state, "book", None)
    return book.current if book is not None else None


def _votes_revealed(app) -> int:
    book = getattr(app.session.state, "book", None)
    return len(book.history) if book is not None else 0


def _first_ballot(driver, cmd) -> None:
    """A vote's first ballot, cast by hand on the pass-and-play screen. Where more voters are to
    come, the voter first picks another choice and then changes their mind through the command
    path (a ballot may be changed until the reveal)."""
    app = driver.app
    voter, choice = cmd.data["voter"], cmd.data["choice"]
    vote = _current_vote(app)
    spec = vote.spec if vote is not None else None
    others = [o for o in spec.options if o != choice and (spec.allow_self or o != voter)] if spec else []
    if others and len(vote.waiting) > 1:
        driver.vote({voter: others[0]})
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    else:
        driver.vote({voter: choice})


def _undo_and_again(app, cmd, first_new: int, redo: bool) -> None:
    """The last table action undone (as the top bar's Undo does), then done again: by Redo, or by
    sending the command once more where the undo took back this command's own events. The game
    must be exactly where it was."""
    before = app.session.state
    app.undo()
    undo = app.session.events[-1]
    assert undo.kind == "undo", undo
    if redo or int(undo.data["undoes"]) < first_new:
        app.redo()
    else:
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    assert app.session.state == before, f"undo and again after {cmd} changed the game"


def play_game(driver, kind: str, undos: int = 7, quick: bool = False) -> dict:
    """One whole game of ``kind`` played in the app as a table plays it: started through the
    picker and setup screens, then its game plan (23 Knives' demo game, the worked games of
    docs/commands.md) sent through the app's command path as its screens send it, narration run
    to its end after each command (the app sends what the narration ends with), each vote's
    first ballot cast by hand on the vote screen (with a change of mind), the reveal's count-in
    and Continue, the History screen halfway, and ``undos`` undos spread over the game (each
    followed by Redo or by the same command again). ``quick``: the game is left once its first
    vote has been revealed. Returns the game's seats and its counts of events, votes, ballots
    and undos, and whether it reached its end."""
    app = driver.app
    names, kw, cmds = game_plan(kind)
    driver.start_game(kind, names, **kw)
    narrate = Walk(driver, "night", check_sizes=False).narration_done
    narrate()
    # where the undos fall (the first table action undoable from there on)
    undo_at = [3, 9] if quick else [len(cmds) * (k + 1) // (undos + 1) for k in range(undos)]
    voting = False
    undone = 0
    for i, cmd in enumerate(cmds):
        if quick and i > 9 and _votes_revealed(app):
            break
        ballot = cmd.kind == "cast_ballot"
        first_new = app.session.events[-1].seq + 1
        by_hand = ballot and not voting and app.sm.current == "vote"
        if by_hand:
            _first_ballot(driver, cmd)
        elif not app.send_command(cmd):
            assert cmd.kind in SENT_BY_THE_APP, (kind, i, cmd, app.root.ids.toast.message)
            app.root.ids.toast._clear()
            continue
        voting = ballot
        if undo_at and i >= undo_at[0] and app.session.can_undo():
            _undo_and_again(app, cmd, first_new, redo=by_hand or undone % 2 == 0)
            undo_at.pop(0)
            undone += 1
        narrate()
        driver.pump(1)   # a frame: the screens show the command (Kivy's clock runs what it asked for)
        if app.sm.current == "reveal":
            driver.continue_reveal()
            narrate()
        if i == len(cmds) // 2:
            app.goto("history")
            driver.pump(4)
            app.go_home()
            driver.pump(2)
    narrate()
    events = app.session.events
    kinds = Counter(e.kind for e in events)
    return {"seats": len(names), "events": len(events), "votes": kinds["vote_opened"],
            "ballots": kinds["ballot_cast"],
            "undos": sum(e.kind == "undo" and e.data.get("kind") != "undo" for e in events),
            "finished": app.session.rules.outcome(app.session.state) is not None}


def play_each_kind(driver, played=None):
    """Each kind played to its first reveal (``played`` given: its counts there), or only
    started: the games played before must be gone all the same (the suite's time, 140 -> ~75 s)."""
    for game, (names, kw) in GAMES.items():
        if played is None:
            driver.start_game(game, names, **kw)
        else:
            played[game] = play_game(driver, game, quick=True)
        driver.app.leave_game()
        driver.pump(4)


def test_games_played_one_after_another_leave_no_screens_or_widgets_behind(driver):
    app = driver.app
    from kivy.uix.screenmanager import Screen
    gc.collect()
    before = {id(s) for s in gc.get_objects() if issubclass(type(s), Screen)}  # earlier tests' own
    played = {}
    play_each_kind(driver, played)
    # each kind really played: a vote with a ballot from every seat, revealed, and undos
    for game, counts in played.items():
        assert counts["votes"] >= 1 and counts["ballots"] >= counts["seats"] and counts["undos"] >= 2, \
            (game, counts)
    screens, widgets = alive()
    play_each_kind(driver)
    later_screens, later_widgets = alive()
    in_use = {id(s) for s in app.sm.screens} | before
    left = sorted({s.name for s in gc.get_objects()
                   if issubclass(type(s), Screen) and id(s) not in in_use and "." in s.name})
    assert left == [], f"screens of games left still alive: {left}"
    assert later_screens <= screens, (screens, later_screens)   # fewer: an earlier test's let go
    assert later_widgets <= widgets + 30, (widgets, later_widgets)


def test_a_left_masks_game_lets_go_of_the_narrator(driver):
    """The Hidden Phase hooks the app's one narrator; a left game's hook stayed chained, so each
    later Masks game wrote every step once per Masks game before it (and kept it alive)."""
    app = driver.app
    names, kw = GAMES["masks"]
    for _ in range(2):
        driver.start_game("masks", names, **kw)
        driver.tap(driver.screen.ids.start_button)   # the Hidden Phase starts: its hook is on
        assert app.sm.current == "masks.hidden"
        driver.advance(12)
        steps = [e for e in app.session.events if e.kind == "narration_step"]
        assert [e.data["step"] for e in steps] == sorted({e.data["step"] for e in steps}), steps
        app.leave_game()
        driver.pump(4)
        assert app.narrator.on_mark == app.on_narration_mark
