"""House rules as the setup records them (companion.core.houserules, issue 33)."""
import pytest

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.houserules import HouseRule, applies, chosen

TIE = HouseRule("knives23", "tie_break", ("icons", "net"))


def test_missing_house_rules_take_the_first_reading():
    assert chosen({"players": ["A"]}, [TIE]) == {"tie_break": "icons"}
    assert chosen({"house_rules": None}, [TIE]) == {"tie_break": "icons"}


def test_a_chosen_reading_is_kept():
    assert chosen({"house_rules": {"tie_break": "net"}}, [TIE]) == {"tie_break": "net"}


@pytest.mark.parametrize("given, key", [
    ({"tie_brake": "net"}, "refusals.house_rule_unknown"),
    ({"tie_break": "both"}, "refusals.house_rule_reading"),
    ({"tie_break": ["net"]}, "refusals.house_rule_reading"),
    (["tie_break"], "refusals.house_rules_not_object"),
])
def test_a_bad_house_rule_is_one_line_naming_it(given, key):
    with pytest.raises(BadInput) as err:
        chosen({"house_rules": given}, [TIE])
    assert err.value.key == key
    assert "\n" not in i18n.text_of(err.value)


def test_applies_says_whether_it_is_a_house_rule():
    assert applies(TIE, "icons")["key"] == "houserules.applies"
    assert applies(TIE, "net")["key"] == "houserules.applies_house"
