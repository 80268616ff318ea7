"""A night of games does not pile up screens and widgets (issue 34 item 14).

A game's screens are built when it starts and leave the screen manager when the next one starts;
they were kept alive all night by callbacks the app held strongly (lambdas and setters bound to
``app.view`` and ``app.narration_paused``): 102 screens alive after 9 games, 19 in use, widgets
from 422 to 3,784, ~19 MB a game. benchmarks/night_memory.py measures the memory itself.
"""
import gc

from tests.app.test_languages_app import GAMES


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


def play_each_kind(driver):
    for game, (names, kw) in GAMES.items():
        driver.start_game(game, names, **kw)
        driver.app.leave_game()
        driver.pump(4)


def test_games_started_one_after_another_leave_no_screens_or_widgets_behind(driver):
    app = driver.app
    from kivy.uix.screenmanager import Screen
    gc.collect()
    before = {id(s) for s in gc.get_objects() if issubclass(type(s), Screen)}  # earlier tests' own
    play_each_kind(driver)
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
