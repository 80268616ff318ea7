"""Issue 33: in every game, the table-setup screen lists the readings its rulebook leaves open,
each under the rulebook's own words, the app's reading so far chosen (screenshots
test-artifacts/setup/house_rules_<game>.png, looked at)."""
import pytest

from companion.core.i18n import tr

EXPECTED = {"knives23": ["tie_break"], "masks": ["center_tie", "executioner_tie", "center_majority"],
            "sevenknights": ["round_points"], "cicero": ["first_princeps_majority", "no_votes"]}


@pytest.mark.app
@pytest.mark.parametrize("game", sorted(EXPECTED))
def test_the_setup_screen_lists_the_readings_the_rulebook_leaves_open(driver, game):
    app = driver.app
    app.goto("picker")
    driver.pump(4)
    driver.tap(driver.find(cls="GameCard", game_id=game))
    setup = driver.screen
    assert setup.name == "setup"
    rules = setup.ui.rules.house_rules
    assert [h.name for h in rules] == EXPECTED[game]
    for h in rules:
        assert setup._house_rule_buttons[h.name][h.default].state == "down"
        assert driver.find(root=setup, text=tr(h.label))
        assert driver.find(root=setup, contains=tr(h.rule)[:40])
    assert setup.house_rule_values() == {h.name: h.default for h in rules}
    last = rules[-1]
    driver.scroll_into_view(setup._house_rule_buttons[last.name][last.readings[-1]])
    driver.pump(4)
    driver.screenshot(f"setup/house_rules_{game}")
