"""Seven Knights on the tablet, issue 33's paths through the real app: the Captain's additional
question skipped, a TORIKO Captain revealing it (FAQ), a question found forbidden once an Arrow
is corrected, and the scoring cards' house rule shown on the score screen. Screenshots in
test-artifacts/sevenknights/order_*.png."""
import pytest

from companion.core.i18n import tr
from tests.app.test_sevenknights_app import PLAYERS, on, recommend_by_touch, search_by_touch, settle, tap_player, tap_text
from tests.app.test_sevenknights_corrections_app import correct


def to_the_captain(driver, looks=("Bo", "Cy", "Di", "center", "Ann")):
    app = driver.app
    search_by_touch(driver, list(looks))     # the Captain Bo looks at Cy
    for target in ["Cy", "Ed", "Ann", "Ed", "Cy"]:
        assert app.send("ask_question", target=target, template="odd", answer="no")
    recommend_by_touch(driver, ["Bo"] * 5)
    return on(driver, "sevenknights.captain")


@pytest.mark.app
def test_skip_the_question_then_the_toriko_captain_reveals_it(driver):
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"})
    screen = to_the_captain(driver)
    assert screen.ids.skip_button.opacity == 1 and screen.ids.toriko_button.opacity == 0
    settle(driver)
    driver.screenshot("sevenknights/order_skip_question")
    asked = len(app.view["questions"])
    driver.tap(screen.ids.skip_button)
    screen = on(driver, "sevenknights.captain")
    assert app.view["phase"] == "captain_reveal" and len(app.view["questions"]) == asked
    assert app.session.events[-1].kind == "captain_question_skipped"
    tap_text(driver, "2")
    screen = on(driver, "sevenknights.captain")
    assert app.view["phase"] == "formation" and app.view["toriko_places"] == ["Cy"]
    assert screen.ids.toriko_button.opacity == 1
    settle(driver)
    driver.screenshot("sevenknights/order_toriko_button")
    driver.tap(screen.ids.toriko_button)
    screen = on(driver, "sevenknights.score")
    r = app.view["result"]
    assert (r["winner"], r["why"], r["witch"], r["toriko"]) == ("witch", "captain_toriko", "Cy", ["Bo"])
    assert app.view["totals"] == {"Ann": 0, "Bo": 3, "Cy": 3, "Di": 0, "Ed": 0}
    assert screen.ids.result_text.text == tr("sevenknights.result.witch")
    assert "The Captain was TORIKO" in screen.result_lines()
    settle(driver)
    driver.screenshot("sevenknights/order_toriko_revealed")


@pytest.mark.app
def test_a_corrected_arrow_flags_a_question_already_asked(driver):
    """Ed asked Cy "Are you an odd number?" with the tablet's Arrow Ed -> Ann; Ed's card points at
    Cy: corrected, the header tells the table that question was one the rules forbid."""
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"})
    screen = to_the_captain(driver)
    assert app.view["header_flags"] == []
    driver.tap(screen.ids.correct_button)
    screen = correct(driver, "Ed", "Cy")
    line = driver.find(root=screen, cls="Label", contains="Check question 5").text
    assert "Ed had seen that tile" in line and "You cannot ask questions to spread information" in line
    settle(driver)
    driver.screenshot("sevenknights/order_question_rechecked")
    driver.tap(screen.ids.back_button)
    on(driver, "sevenknights.captain")
    assert driver.find(cls="Label", contains="Check question 5") is not None


@pytest.mark.app
@pytest.mark.parametrize("reading, words, ann", [("by_team", "Rule applied: The Knights score 2", 3),
                                                 ("by_round", "House rule: The winners score 2 in round 1", 2)])
def test_the_score_screen_says_which_reading_of_the_scoring_cards_applies(driver, reading, words, ann):
    """"16 Scoring Cards (front 0/2 points, back 0/3 points)": the reading chosen at setup (the
    shell's setup screen records it as setup["house_rules"], tapped there)."""
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"},
                      house_rules={"round_points": reading})
    assert app.session.setup["house_rules"] == {"round_points": reading}
    screen = to_the_captain(driver, looks=("Di", "Cy", "Bo", "center", "Bo"))
    driver.tap(screen.ids.skip_button)
    on(driver, "sevenknights.captain")
    tap_text(driver, "2")
    screen = on(driver, "sevenknights.captain")
    tap_player(driver, "Di", root=screen.ids.places)        # Ann saw Di: TORIKO
    driver.tap(screen.ids.out_of_order_button)              # the Witch's side wins round 1
    screen = on(driver, "sevenknights.score")
    assert screen.ids.points_rule.text.startswith(words)
    assert "16 Scoring Cards (front 0/2 points, back 0/3 points)" in screen.ids.points_rule.text
    assert app.view["totals"]["Ann"] == ann and app.view["totals"]["Di"] == ann
    settle(driver)
    driver.screenshot(f"sevenknights/order_points_rule_{reading}")


@pytest.mark.app
def test_the_new_buttons_and_the_house_rule_in_german(driver, tmp_path, monkeypatch):
    """Issue 33 in German: the Skip and TORIKO buttons and the house rule's line on the score
    screen, with no English left (screenshots order_de_*.png)."""
    from tests.app.test_languages_app import choose_language, english_left
    from tests.languages import use_french_and_german
    use_french_and_german(tmp_path, monkeypatch)
    app = driver.app
    try:
        choose_language(driver, "Deutsch")
        driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"},
                          house_rules={"round_points": "by_round"})
        for at in ["Bo", "Cy", "Di", "center", "Ann"]:
            assert app.send("look", at=at)
        for target in ["Cy", "Ed", "Ann", "Ed", "Cy"]:
            assert app.send("ask_question", target=target, template="odd", answer="no")
        assert app.send("open_recommendation")
        for voter in PLAYERS:
            assert app.send("cast_ballot", voter=voter, choice="Bo")
        on(driver, "reveal")
        driver.continue_reveal()
        screen = on(driver, "sevenknights.captain")
        assert screen.ids.skip_button.text == "Zusatzfrage auslassen"
        settle(driver)
        driver.screenshot("sevenknights/order_de_skip")
        assert english_left(driver, "de") == []
        driver.tap(screen.ids.skip_button)
        screen = on(driver, "sevenknights.captain")
        tap_text(driver, "2")
        screen = on(driver, "sevenknights.captain")
        assert screen.ids.toriko_button.text == "Der Hauptmann gibt sich als TORIKO zu erkennen"
        settle(driver)
        driver.screenshot("sevenknights/order_de_toriko")
        assert english_left(driver, "de") == []
        driver.tap(screen.ids.toriko_button)
        screen = on(driver, "sevenknights.score")
        assert screen.ids.points_rule.text.startswith("Hausregel: Die Gewinner erhalten 2 in Runde 1")
        assert "16 Wertungskarten" in screen.ids.points_rule.text
        assert app.view["totals"]["Bo"] == 2          # by_round: a Witch victory in round 1 scores 2
        settle(driver)
        driver.screenshot("sevenknights/order_de_points_rule")
        assert english_left(driver, "de") == []
    finally:
        if app.session is not None:
            app.leave_game()
        choose_language(driver, "English")
