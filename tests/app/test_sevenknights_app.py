"""Seven Knights Bewitched on the tablet, in the real app under X: three rounds from setup to the
final standings, with pass-and-play recommendations, and screenshots in
test-artifacts/sevenknights/."""
import pytest

from companion.core.i18n import tr

PLAYERS = ["Ann", "Bo", "Cy", "Di", "Ed"]


def on(driver, screen):
    driver.pump(4)
    assert driver.app.sm.current == screen, f"on {driver.app.sm.current}, expected {screen}"
    return driver.screen


def settle(driver):
    """Let the narrator catch up (its clock is the test's), so the caption is the current line."""
    app = driver.app
    for _ in range(2400):  # at most 20 minutes of narration, ticked without drawing frames
        if not app.narrator.busy and not app.narration_active:  # controls gone too
            break
        driver.clock.advance(0.5)
        app._tick_engines(0.5)
    driver.pump(2)


def tap_player(driver, name, root=None):
    driver.tap(driver.find(root=root, cls="SKPlayerButton", player=name))


def tap_text(driver, text, cls="SKSmallButton"):
    driver.tap(driver.find(cls=cls, text=text))


def search_by_touch(driver, targets):
    on(driver, "sevenknights.search")
    for t in targets:
        tap_player(driver, t)


def ask_by_touch(driver, target, template, answer, n=None, other=None, text=None):
    screen = on(driver, "sevenknights.questions")
    tap_player(driver, target, root=screen.ids.targets)
    tap_text(driver, tr(f"sevenknights.qlabel.{template}"))
    if n is not None:
        tap_text(driver, str(n))
    if other is not None:
        tap_player(driver, other, root=screen.ids.others)
    if text is not None:
        driver.type_into(screen.ids.free_text, text)
    assert screen.ready, screen.preview
    driver.tap(screen.ids.yes_button if answer == "yes" else screen.ids.no_button)


def recommend_by_touch(driver, choices, shot=None):
    screen = on(driver, "sevenknights.recommend")
    if shot:
        settle(driver)
        driver.screenshot(shot)
    driver.tap(screen.ids.open_button)
    on(driver, "vote")
    driver.vote(dict(zip(PLAYERS, choices)))
    on(driver, "reveal")
    driver.continue_reveal()


def recommend_by_phone(driver, choices):
    """Rounds 2 and 3: the recommendations arrive from phones (another input, the same vote)."""
    assert driver.app.send("open_recommendation")
    for voter, choice in zip(PLAYERS, choices):
        assert driver.app.send("cast_ballot", source=f"phone:{voter}", voter=voter, choice=choice)
    on(driver, "reveal")
    assert driver.app.view["vote_history"][-1]["sources"]["Ann"] == "phone:Ann"
    driver.continue_reveal()


def quick_round(driver, looks, first_asks):
    """Search and questions through app.send: not the point of rounds 2 and 3."""
    for at in looks:
        assert driver.app.send("look", at=at)
    for target in first_asks:
        assert driver.app.send("ask_question", target=target, template="odd", answer="no")


@pytest.mark.app
def test_three_rounds_on_the_tablet(driver):
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"})
    screen = on(driver, "sevenknights.search")
    steps = " ".join(w.text for w in driver.find_all(root=screen.ids.steps, cls="SKLine"))
    assert "1-5 + Witch" in steps and "6, 7" in steps and "center" in steps
    assert app.caption  # the narrator speaks the round's start (captions on)
    tap_player(driver, "Bo")
    tap_player(driver, "Cy")
    settle(driver)
    driver.screenshot("sevenknights/search")
    tap_player(driver, "Di")
    tap_player(driver, "center")
    tap_player(driver, "Ann")

    # Question Phase: the shared log, by touch, with the templates.
    ask_by_touch(driver, "Cy", "odd", "yes")
    ask_by_touch(driver, "Di", "at_least", "no", n=3)
    ask_by_touch(driver, "Ed", "larger_than", "yes", other="Di")
    ask_by_touch(driver, "Bo", "other_is", "no", n=1, other="Ann")
    # A forbidden question is refused with the rule, and nothing is recorded.
    screen = on(driver, "sevenknights.questions")
    tap_player(driver, "Ann", root=screen.ids.targets)  # Ed looked at Ann
    tap_text(driver, tr("sevenknights.qlabel.is_number"))
    tap_text(driver, "2")
    driver.tap(screen.ids.no_button)
    assert "already knows" in app.root.ids.toast.message
    assert len(app.view["questions"]) == 4
    ask_by_touch(driver, "Bo", "free", "yes", text="Did you see a number larger than 4?")
    on(driver, "sevenknights.recommend")
    app.root.ids.toast.message = ""

    # Recommendation: pass-and-play, revealed at once. Bo and Cy tie; Cy recommended himself.
    recommend_by_touch(driver, ["Bo", "Cy", "Cy", "Bo", "Ed"], shot="sevenknights/recommend")
    screen = on(driver, "sevenknights.captain")
    assert screen.ids.captain_name.text == "Bo"
    assert app.view["tie"] and app.view["captain_how"] == tr("sevenknights.say.how_humble")
    settle(driver)
    driver.screenshot("sevenknights/captain_named")
    driver.tap(screen.ids.ask_button)
    screen = on(driver, "sevenknights.questions")
    rows = [w.text for w in driver.find_all(root=screen.ids.log, cls="SKLogRow")]
    assert len(rows) == 5 and "Are you 3 or more?" in rows[1] and "larger than 4" in rows[4]
    tap_player(driver, "Di", root=screen.ids.targets)
    tap_text(driver, tr("sevenknights.qlabel.is_number"))
    tap_text(driver, "4")
    assert screen.preview == "Bo asks Di: Are you 4?"
    settle(driver)
    driver.screenshot("sevenknights/question_log")
    driver.tap(screen.ids.no_button)
    screen = on(driver, "sevenknights.captain")
    assert app.view["questions"][-1]["by_captain"]
    settle(driver)
    driver.screenshot("sevenknights/captain_reveal")
    tap_text(driver, "2")
    on(driver, "sevenknights.captain")
    tap_player(driver, "Ann", root=screen.ids.places)
    settle(driver)
    driver.screenshot("sevenknights/formation")
    driver.tap(screen.ids.in_order_button)
    screen = on(driver, "sevenknights.score")
    assert app.view["result"]["toriko"] == ["Ed"]
    assert app.view["totals"] == {"Ann": 0, "Bo": 2, "Cy": 2, "Di": 2, "Ed": 0}
    settle(driver)
    driver.screenshot("sevenknights/round1_score")
    tap_player(driver, "Di", root=screen.ids.firsts)

    # Round 2: the Captain (farthest clockwise from Di, everyone self-recommended) is the Witch.
    on(driver, "sevenknights.search")
    assert app.view["round"] == 2 and app.view["first"] == "Di"
    quick_round(driver, ["Ann", "Bo", "Di", "Cy", "center"], ["Ed", "Cy", "Ed", "Ann", "Di"])
    recommend_by_phone(driver, PLAYERS)
    screen = on(driver, "sevenknights.captain")
    assert screen.ids.captain_name.text == "Cy"
    assert app.view["captain_how"] == tr("sevenknights.say.how_farthest")
    assert app.send("ask_question", target="Ed", template="is_number", n=1, answer="no")
    on(driver, "sevenknights.captain")
    tap_text(driver, tr("sevenknights.tile.witch"))
    screen = on(driver, "sevenknights.score")
    assert app.view["result"]["why"] == "captain_witch"
    settle(driver)
    driver.screenshot("sevenknights/round2_witch_captain")
    tap_player(driver, "Ann", root=screen.ids.firsts)

    # Round 3: 7 points; the Witch was the center tile, seen by Di.
    quick_round(driver, ["Cy", "Ann", "Ed", "center", "Bo"], ["Ed", "Cy", "Ann", "Ed", "Di"])
    recommend_by_phone(driver, ["Ed", "Ed", "Ed", "Ann", "Ann"])
    assert app.send("ask_question", target="Cy", template="odd", answer="yes")
    screen = on(driver, "sevenknights.captain")
    tap_text(driver, "5")
    tap_player(driver, "center", root=screen.ids.places)
    driver.tap(screen.ids.out_of_order_button)
    on(driver, "sevenknights.score")
    v = app.view
    assert v["phase"] == "game_over"
    assert v["totals"] == {"Ann": 0, "Bo": 5, "Cy": 5, "Di": 9, "Ed": 0} and v["winners"] == ["Di"]
    settle(driver)
    driver.screenshot("sevenknights/final_standings")
    record = app.journal.game(app.session.game_id)
    assert record.status == "finished" and list(record.winners) == ["Di"]


@pytest.mark.app
def test_groping_in_the_dark_setup_and_center_search(driver):
    app = driver.app
    driver.start_game("sevenknights", ["Ann", "Bo", "Cy"], first="Bo", options={"mode": "groping"})
    screen = on(driver, "sevenknights.search")
    steps = " ".join(w.text for w in driver.find_all(root=screen.ids.steps, cls="SKLine"))
    assert "3 Player Cards" in steps and "set 2 aside" in steps
    for t in ["Cy", "Ann", "Bo"]:
        tap_player(driver, t)
    names = [w.player for w in driver.find_all(root=screen.ids.targets, cls="SKPlayerButton")]
    assert names == ["center 1", "center 2", "center 3"]
    tap_player(driver, "center 2")
    settle(driver)
    driver.screenshot("sevenknights/groping_center_search")


@pytest.mark.app
def test_eight_players_question_composer_fits(driver):
    """The largest table (8 players, long names): the composer's widest question ("is X N?")
    fits at 1280x800 without scrolling or overlapping the header (while a caption line is shown
    the composer scrolls instead of overlapping)."""
    app = driver.app
    names = ["Annabelle", "Bartholomew", "Cy", "Di", "Ed", "Fiorella", "Gus", "Hildegard"]
    driver.start_game("sevenknights", names, first="Annabelle", options={"mode": "basic"})
    for i in range(8):
        assert app.send("look", at=names[(i + 1) % 8])
    for i in range(3):
        assert app.send("ask_question", target=names[(i + 3) % 8], template="free",
                        text="Did you see a tile with a number larger than the one you think Gus has?", answer="yes")
    screen = on(driver, "sevenknights.questions")
    settle(driver)  # the narrator is done: no caption bar
    tap_player(driver, "Hildegard", root=screen.ids.targets)
    tap_text(driver, tr("sevenknights.qlabel.other_is"))
    tap_text(driver, "4")
    tap_player(driver, "Bartholomew", root=screen.ids.others)
    assert screen.preview == "Di asks Hildegard: Is Bartholomew 4?"
    composer = screen.ids.composer
    assert composer.height <= composer.parent.height  # no scrolling needed
    header_bottom = min(w.to_window(w.x, w.y)[1] for w in driver.find_all(root=screen, cls="SKHeader"))
    assert composer.parent.to_window(0, composer.parent.top)[1] <= header_bottom
    driver.screenshot("sevenknights/eight_players_questions")


@pytest.mark.app
def test_broken_recommendation_rules_and_a_wrong_first_player_are_flagged(driver):
    """"Witch Myrmamius cannot recommend TORIKO. TORIKO cannot recommend Witch Myrmamius." and the
    next First player is "the player who had the "1 Eins" tile (or, if none, the player having the
    tile with the smallest number)": the tablet cannot know before the result, so it flags after."""
    app = driver.app
    driver.start_game("sevenknights", PLAYERS, first="Ann", options={"mode": "basic"})
    on(driver, "sevenknights.search")
    # Ann looks at Cy, Cy at Di, Di at Cy: Cy will turn out to be the Witch; Ann and Di are TORIKO.
    quick_round(driver, ["Cy", "center", "Di", "Cy", "Ann"], ["Bo", "Ed", "Ann", "Bo", "Di"])
    # Cy (the Witch) recommends Ann (TORIKO); Di (TORIKO) recommends Cy (the Witch).
    recommend_by_phone(driver, ["Bo", "Bo", "Ann", "Cy", "Bo"])
    screen = on(driver, "sevenknights.captain")
    assert screen.ids.captain_name.text == "Bo"
    assert app.send("ask_question", target="Ed", template="odd", answer="yes")
    screen = on(driver, "sevenknights.captain")
    assert app.view["header_flags"] == []  # nothing is known before the result
    tap_text(driver, "4")
    tap_player(driver, "Cy", root=screen.ids.places)
    driver.tap(screen.ids.in_order_button)
    screen = on(driver, "sevenknights.score")
    flags = driver.find(root=screen, cls="Label", contains="Witch Myrmamius cannot recommend TORIKO").text
    assert "Cy (Witch Myrmamius) recommended Ann, who was TORIKO" in flags
    assert "Di (TORIKO) recommended Cy, who was Witch Myrmamius" in flags
    assert 'rule: "TORIKO cannot recommend Witch Myrmamius."' in flags
    settle(driver)
    driver.screenshot("sevenknights/flags_after_result")
    # Bo had tile 4: with only one center tile, a smaller number sat in front of a player.
    tap_player(driver, "Bo", root=screen.ids.firsts)
    on(driver, "sevenknights.search")
    assert app.view["round"] == 2 and app.view["first"] == "Bo"  # recorded: a flag, not a refusal
    line = driver.find(cls="Label", contains="Check the First player").text
    assert "Round 1: Check the First player: Bo had tile 4, and a smaller number was in front of a player" in line and "1 Eins" in line
    settle(driver)
    driver.screenshot("sevenknights/flag_next_first")
