"""Seven Knights on the tablet: Correct an Arrow through the real screens (the audit's scenario:
Ed looked at Cy, the Witch, but the narrator tapped Ann). Screenshots in
test-artifacts/sevenknights/correct_*.png."""
import pytest

from tests.app.test_sevenknights_app import PLAYERS, on, recommend_by_touch, search_by_touch, settle, tap_player, tap_text

REASON = "Ed's card points at Cy"


def to_the_captain(driver):
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"})
    search_by_touch(driver, ["Bo", "Di", "Di", "center", "Ann"])   # Ed's look tapped on Ann
    for target in ["Cy", "Ed", "Ann", "Ed", "Bo"]:
        assert app.send("ask_question", target=target, template="odd", answer="no")
    recommend_by_touch(driver, ["Bo"] * 5)
    return on(driver, "sevenknights.captain")


def correct(driver, looker, at, reason=REASON, shot=None):
    """On the Correct an Arrow panel: the wrong Arrow, where the card points, why, Record."""
    screen = on(driver, "sevenknights.correct")
    tap_player(driver, looker, root=screen.ids.arrows)
    tap_player(driver, at, root=screen.ids.places)
    driver.type_into(screen.ids.reason, reason)
    if shot:
        settle(driver)
        driver.app.root.ids.toast.message = ""   # the refusal of the empty Record before
        driver.screenshot(shot)
    driver.tap(screen.ids.record_button)
    return on(driver, "sevenknights.correct")


def enter_result(driver, witch="Cy", in_order=True):
    screen = on(driver, "sevenknights.captain")
    tap_player(driver, witch, root=screen.ids.places)
    driver.tap(screen.ids.in_order_button if in_order else screen.ids.out_of_order_button)
    return on(driver, "sevenknights.score")


@pytest.mark.app
def test_correct_an_arrow_from_the_captain_screen(driver):
    app = driver.app
    screen = to_the_captain(driver)
    driver.tap(screen.ids.correct_button)
    screen = on(driver, "sevenknights.correct")
    labels = [b.text for b in driver.find_all(root=screen.ids.arrows, cls="SKPlayerButton")]
    assert labels == ["Ann looked at Bo", "Bo looked at Di", "Cy looked at Di", "Di looked at Center", "Ed looked at Ann"]
    tap_player(driver, "Ed", root=screen.ids.arrows)
    places = [b.player for b in driver.find_all(root=screen.ids.places, cls="SKPlayerButton")]
    assert places == ["Bo", "Cy", "Di", "center"]   # the Search rules: another player's tile or the center
    driver.tap(screen.ids.record_button)             # no new place, no reason: nothing recorded
    assert app.view["arrows"][4]["at"] == "Ann"
    screen = correct(driver, "Ed", "Cy", shot="sevenknights/correct_arrow")
    assert app.view["arrows"][4] == {"looker": "Ed", "at": "Cy", "search": 1}
    assert REASON in screen.ids.done.text
    settle(driver)
    driver.screenshot("sevenknights/correct_arrow_recorded")
    driver.set_size(800, 1280)                       # portrait: the Arrows above the places
    settle(driver)
    driver.screenshot("sevenknights/correct_arrow_portrait")
    driver.set_size(1280, 800)
    driver.tap(screen.ids.back_button)
    on(driver, "sevenknights.captain")
    assert app.send("ask_question", target="Cy", template="odd", answer="no")
    on(driver, "sevenknights.captain")
    tap_text(driver, "2")
    screen = enter_result(driver)
    r = app.view["result"]
    assert r["toriko"] == ["Ed"] and app.view["totals"] == {"Ann": 2, "Bo": 2, "Cy": 0, "Di": 2, "Ed": 0}
    assert "TORIKO: Ed" in screen.result_lines()
    driver.tap(app.root.ids.history_button)
    on(driver, "history")
    assert any(REASON in t for t in driver.visible_texts())


@pytest.mark.app
def test_found_after_the_result_the_score_screen_corrects_without_undo(driver):
    """The audit: the result entered with Ed's wrong Arrow gives Ed 2 and "No TORIKO". From the
    score screen, Correct an Arrow opens the panel with the result still in (the screen sends no
    Undo: issue 30); the Arrows are corrected (Ed's, and the Captain Bo's, mis-tapped too: Bo saw
    Cy) and the rules record the result the corrected Arrows give with each correction."""
    app = driver.app
    to_the_captain(driver)
    assert app.send("ask_question", target="Cy", template="odd", answer="no")
    on(driver, "sevenknights.captain")
    tap_text(driver, "2")
    screen = enter_result(driver)
    assert app.view["totals"]["Ed"] == 2 and app.view["result"]["toriko"] == []
    settle(driver)
    driver.screenshot("sevenknights/correct_from_score")
    events = len(app.session.events)
    driver.tap(screen.ids.correct_button)
    screen = on(driver, "sevenknights.correct")
    assert len(app.session.events) == events                      # nothing sent, no Undo
    assert app.view["phase"] == "cleanup" and app.view["result"]["toriko"] == []
    correct(driver, "Ed", "Cy")
    assert app.view["result"]["toriko"] == ["Ed"] and app.view["totals"]["Ed"] == 0
    screen = correct(driver, "Bo", "Cy", reason="Bo's card points at Cy")
    assert len(app.view["corrections"]) == 2
    assert [e.kind for e in app.session.events[events:]] == ["arrow_corrected", "arrow_corrected"]
    driver.tap(screen.ids.back_button)
    screen = on(driver, "sevenknights.score")
    r = app.view["result"]
    assert (r["winner"], r["why"], r["toriko"]) == ("witch", "captain_toriko", ["Bo", "Ed"])
    assert app.view["totals"] == {"Ann": 0, "Bo": 3, "Cy": 3, "Di": 0, "Ed": 3}
    assert "The Captain was TORIKO" in screen.result_lines()
    settle(driver)
    driver.screenshot("sevenknights/correct_score_after")
