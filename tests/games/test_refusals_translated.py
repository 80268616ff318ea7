"""Refusals a person can see are keyed sentences: said in French and German, whole (issue #17/#18)."""
import pytest

from companion.core.events import BadInput, RuleError
from companion.core.i18n import error_text, speaking
from companion.games.knives23 import scoring
from companion.games.knives23.rules import Knives23Rules
from companion.games.masks.rules import MasksRules
from companion.games.sevenknights.setup import check_setup
from companion import referee
from companion.core import votes
from companion.core.tally import BinaryMajority, CaptainRule

FOUR = ["Ann", "Bo", "Cy", "Di"]

# Each sample raises one refusal; the words expected in English, French and German.
SAMPLES = [
    (lambda: Knives23Rules().initial_state({"players": FOUR, "start_player": "Zed"}),
     {"en": "Zed is not at the table", "fr": "Zed n'est pas à la table", "de": "Zed sitzt nicht am Tisch"}),
    (lambda: Knives23Rules().initial_state({"players": FOUR * 3}),
     {"en": "same name", "fr": "même nom", "de": "denselben Namen"}),
    (lambda: scoring.check_votes(FOUR, {"Ann": "exile", "Bo": "stay", "Cy": "remain", "Di": "exile"}, ("exile", "remain")),
     {"en": "the choices are Exile and Remain", "fr": "les choix sont Exil et", "de": "Verbannen"}),
    (lambda: scoring.tableau({"name": "Ann", "citizen": {"laurels": 0}}),
     {"en": "Ann's Citizen card shows neither", "fr": "la carte Citoyen de Ann ne montre ni", "de": "die Bürgerkarte von Ann zeigt weder"}),
    (lambda: scoring.check_exile_call(FOUR, "Ann", "Ann"),
     {"en": "Ann cannot call a Vote to Exile", "fr": "Ann ne peut pas demander un Vote d'Exil", "de": "Ann kann keine Verbannungsabstimmung"}),
    (lambda: check_setup({"players": FOUR, "mode": "chaos"}),
     {"en": "There is no mode “chaos”", "fr": "Il n'y a pas de mode « chaos »", "de": "Es gibt keinen Modus „chaos“"}),
    (lambda: MasksRules().initial_state({"players": FOUR}),
     {"en": "exactly 5 players, not 4", "fr": "exactement 5 joueurs, pas 4", "de": "genau 5 Spieler, nicht 4"}),
    # issue #17, the referee's and the core's refusals (refusals.po)
    (lambda: referee.ask("masks", "mayor", {}),
     {"en": "There is no question “mayor” for masks", "fr": "Il n'y a pas de question « mayor » pour masks",
      "de": "Es gibt keine Frage „mayor“ für masks"}),
    (lambda: referee.parse('{"a": 1, "a": 2}'),
     {"en": "“a” appears twice", "fr": "« a » apparaît deux fois", "de": "„a“ steht zweimal"}),
    (lambda: votes.VoteSpec("v", "binary", ("Ann", "Bo"), ("a", "b", "c")),
     {"en": "between two choices", "fr": "entre deux choix", "de": "zwischen genau zwei"}),
    (lambda: BinaryMajority(("exile", "remain"), "Ann").decide({"Ann": "exile", "Bo": "remain"}),
     {"en": "The vote is tied 1–1: Ann decides", "fr": "Le vote est à égalité 1–1 : Ann décide",
      "de": "Die Abstimmung steht 1–1 unentschieden: Ann entscheidet"}),
    (lambda: CaptainRule().decide(FOUR, "Zed", {}),
     {"en": "The First player, Zed, is not at the table", "fr": "Le Premier joueur, Zed, n'est pas à la table",
      "de": "Der Startspieler Zed sitzt nicht am Tisch"}),
    # play()'s prefix wraps the command's own keyed refusal: the whole line in one language
    (lambda: referee.ask("masks", "play", {"setup": {"players": FOUR + ["Eve"]}, "commands": [{"command": "peek"}]}),
     {"en": "commands[0] (peek): masks has no command “peek”", "fr": "commande 0 (peek) : masks n'a pas de commande « peek »",
      "de": "Befehl 0 (peek): masks hat keinen Befehl „peek“"}),
    (lambda: referee.ask("masks", "play", {"setup": {"players": FOUR}, "commands": []}),
     {"en": "setup: Royals and Martyr is for exactly 5 players, not 4",
      "fr": "exactement 5 joueurs, pas 4", "de": "genau 5 Spieler, nicht 4"}),
]


@pytest.mark.parametrize("raise_it, words", SAMPLES)
def test_a_refusal_is_said_in_each_language_with_every_value_filled_in(raise_it, words):
    with pytest.raises((BadInput, RuleError)) as err:
        raise_it()
    said = {}
    for lang, expected in words.items():
        with speaking(lang):
            said[lang] = error_text(err.value)
        assert expected in said[lang], (lang, said[lang])
        assert "{" not in said[lang] and "}" not in said[lang], (lang, said[lang])
    # the French and German are translations, not the English shown again
    assert said["fr"] != said["en"] and said["de"] != said["en"]
