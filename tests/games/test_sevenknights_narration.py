"""Seven Knights' narration scripts and catalogue: every script parses, every cue of a whole game
in every mode fills its placeholders, every catalogue key the code uses exists."""
import importlib
import re
from pathlib import Path

import pytest

from companion.core.i18n import load_catalogue
from companion.core.audio import RecordingAudioOut
from companion.core.clock import FakeClock
from companion.core.narration import Narrator, Say
from companion.core.speakers import CaptionSpeaker
from companion.games.sevenknights.cues import cues, script, start_cues
try:  # tests/games is a package (tests/games/__init__.py) ...
    from tests.games.test_sevenknights_driver import Table
except ImportError:  # ... or a plain folder on sys.path
    from test_sevenknights_driver import Table

PKG = Path(importlib.import_module("companion.games.sevenknights.cues").__file__).resolve().parent
SCRIPTS = sorted(p.stem for p in (PKG / "scripts").glob("*.txt"))


def test_every_script_parses():
    assert len(SCRIPTS) >= 10
    for name in SCRIPTS:
        assert script(name).steps


def play_all(mode, players):
    """A whole game in one mode, returning every spoken line and the scripts used."""
    t = Table(players, mode=mode)
    lines, used = [], set()

    def speak(pairs):
        for name, ctx in pairs:
            used.add(name)
            lines.extend(s.text for s in script(name).resolve(ctx) if isinstance(s, Say))

    speak(start_cues(t.state))
    n = len(players)
    for rnd in range(t.state.rules_mode.rounds):
        def step(kind, **data):
            before = t.state
            t.do(kind, **data)
            speak(cues(before, t.state))
        for p in t.state.order:
            step("look", at=players[(players.index(p) + 1) % n])
        if t.state.phase == "search":
            for _ in range(n):
                step("look", at="center 1")
        for p in t.state.order:
            step("ask_question", target=players[(players.index(p) + 2) % n], template="free", text="Are you 7?", answer="no")
        step("open_recommendation")
        for p in players:
            step("cast_ballot", voter=p, choice=players[rnd % n])
        captain = t.state.round.captain
        step("ask_question", target=next(p for p in players if p != captain), template="free", text="Odd?", answer="yes")
        if rnd == 1 and t.state.rules_mode.witch_dealt:
            step("reveal_captain_tile", tile="witch")
        else:
            step("reveal_captain_tile", tile=1)
            places = t.view()["witch_places"]
            step("enter_result", in_order=rnd == 0, **({"witch": places[-1]} if places else {}))
        if t.state.phase == "cleanup":
            step("start_next_round", first=players[(rnd + 1) % n] if t.state.round.captain_tile != 1 else t.state.round.captain)
    assert t.state.phase == "game_over"
    return lines, used


@pytest.mark.parametrize("mode, players", [("basic", "ABCDE"), ("basic", "ABCDEFGH"), ("groping", "ABC"),
                                           ("advanced", "ABCD"), ("unity", "ABCDEFG")])
def test_a_whole_game_is_narrated_in_every_mode(mode, players):
    lines, used = play_all(mode, players)
    assert all(line.strip() and "{" not in line for line in lines)
    assert "shared:ready_set_go" in used and "game_over" in used
    if mode == "groping":
        assert "search_center" in used
        assert any("lay three in the center" in line for line in lines)
    if mode == "unity":
        assert "cards" not in used  # "there are no points"
        # No Witch Tile: "Since there is no Witch Myrmamius, during the Order Phase arrange all
        # prepared tiles"; nobody becomes TORIKO, so nobody lies and no recommendation is limited.
        unity = {"search_unity", "questions_unity", "recommendation_unity", "formation_unity"}
        assert unity <= used and not {name[:-6] for name in unity} & used
        assert not any(words in line for line in lines
                       for words in ("TORIKO", "may lie", "cannot recommend", "believe is Witch"))
    else:
        assert not {"search_unity", "questions_unity", "recommendation_unity", "formation_unity"} & used


def corrected_round():
    """Issue 33's paths in one round: a question found forbidden once an Arrow is corrected, the
    Captain's question skipped, the TORIKO reveal, and a correction after the result."""
    t = Table(["Ann", "Bo", "Cy", "Di", "Ed"])
    said, used = [], set()

    def step(kind, **data):
        before = t.state
        t.do(kind, **data)
        for name, ctx in cues(before, t.state):
            used.add(name)
            said.extend((name, s.text) for s in script(name).resolve(ctx) if isinstance(s, Say))
    for at in ["Bo", "Cy", "Di", "center", "Ann"]:
        step("look", at=at)
    for target in ["Cy", "Ed", "Ann", "Ed", "Cy"]:
        step("ask_question", target=target, template="odd", answer="no")
    step("correct_arrow", looker="Ed", at="Cy", reason="Ed's card points at Cy")
    step("open_recommendation")
    for p in t.state.players:
        step("cast_ballot", voter=p, choice="Bo")
    step("skip_captain_question")
    step("reveal_captain_tile", tile=2)
    step("reveal_toriko")
    step("correct_arrow", looker="Ed", at="Ann", reason="Ed's card points at Ann after all")
    return said, used


def test_the_corrected_rounds_lines():
    said, used = corrected_round()
    assert ("questions_rechecked", "Check question 5 (Ed to Cy: Are you an odd number?): with the corrected Arrow, "
            "Ed had seen that tile, and the rules forbid the question. Its answer stands.") in said
    assert ("captain_toriko", "Bo reveals being TORIKO. Witch Myrmamius and TORIKO win!") in said
    # the correction after the result: the result line again, as the corrected Arrows give it
    assert [name for name, _ in said].count("captain_toriko") == 2
    assert "captain_tile" in used


def test_every_script_is_used_by_some_game():
    used = corrected_round()[1]
    for mode, players in [("basic", "ABCDE"), ("groping", "ABC"), ("unity", "ABCD")]:
        used |= play_all(mode, players)[1]
    assert set(SCRIPTS) <= used


@pytest.mark.parametrize("name, key", [("result", "result"), ("captain_witch", "captain_witch"),
                                       ("captain_toriko", "captain_toriko")])
def test_the_rounds_result_is_a_report_keyed_by_the_fact(name, key):
    """Issue 33: the result line is a fact of the state, not a line that must be heard whole."""
    steps = [s for s in script(name).resolve({"result": "X", "captain": "Bo"}) if isinstance(s, Say)]
    assert [(s.is_report, s.key) for s in steps] == [(True, key)]


def test_a_newer_result_overtakes_one_still_waiting():
    """The result entered, then an Arrow corrected before the voice got to it: the corrected
    result is said, the old one never (a ``say`` would have said both, the old one first)."""
    clock = FakeClock()
    narrator = Narrator(CaptionSpeaker(), RecordingAudioOut("/dev/null", clock), clock)
    narrator.enqueue_script(script("cards"), {})              # something being said first
    narrator.enqueue_script(script("result"), {"result": "The Knights of Stlute win!"})
    narrator.enqueue_script(script("result"), {"result": "Witch Myrmamius and TORIKO win!"})
    while narrator.busy:
        clock.advance(0.05)
        narrator.tick()
    said = [h.text for h in narrator.history]
    assert "Witch Myrmamius and TORIKO win!" in said and "The Knights of Stlute win!" not in said
    assert [d.why for d in narrator.dropped] == ["overtaken"]


def test_every_catalogue_key_used_exists():
    cat = load_catalogue("en")
    sources = [p.read_text() for p in PKG.glob("*.py")]
    app = Path(__file__).resolve().parents[2] / "companion" / "app" / "games" / "sevenknights"
    sources += [p.read_text() for p in app.glob("*.py")] + [p.read_text() for p in app.glob("*.kv")]
    keys = set()
    for text in sources:
        # Catalogue keys have an area and a name (screen names like "sevenknights.search" do not).
        keys |= set(re.findall(r"""["'](sevenknights\.[a-z_]+\.[a-z_]+(?:\.[a-z_]+)?)["']""", text))
    assert len(keys) > 40, "found too few keys: the pattern is wrong"
    keys |= {"sevenknights.title", "sevenknights.blurb"}
    missing = sorted(k for k in keys if k not in cat)
    assert not missing
    # Dynamic keys: modes, phases, results, templates, answers.
    for prefix, names in [("mode", ["basic", "groping", "advanced", "unity"]),
                          ("phase", ["search", "questions", "recommendation", "order_question",
                                     "captain_reveal", "formation", "cleanup", "game_over"]),
                          ("result", ["knights", "witch", "none"]),
                          ("why", ["captain_witch", "captain_toriko", "in_order", "out_of_order"]),
                          ("q", ["odd", "at_least", "is_number", "larger_than", "other_is"]),
                          ("answer", ["yes", "no"]),
                          ("prompt", ["search", "search_center", "questions", "recommendation_open",
                                      "recommendation", "order_question", "captain_reveal", "formation",
                                      "cleanup", "game_over"]),
                          ("say", ["deal", "deal_center", "deal_groping", "how_most", "how_humble", "how_farthest"])]:
        for name in names:
            assert f"sevenknights.{prefix}.{name}" in cat
