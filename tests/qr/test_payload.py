"""The sticker payload: short, versioned, names game, card type and value, carries a serial
unique within the deck and a check that refuses mistyped or forged codes."""
import json

import pytest

from companion.core.events import BadInput
from vision.qr import payload
from vision.qr.payload import Card, encode, parse


def test_every_card_round_trips_and_fits_a_version_1_code(deck_cards, key):
    import qrcode
    for card in deck_cards:
        text = encode(card, key)
        assert parse(text, key) == card
        q = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M)
        q.add_data(text)
        q.make(fit=True)
        assert q.version == 1, text


def test_payload_names_game_version_type_value_and_serial(key):
    text = encode(Card("fate", "knives", 5, "042"), key)
    game, kind, value, serial, check = text.split(".")
    assert (game, kind, value, serial) == ("23K1", "F", "K5", "042")
    assert len(check) == payload.CHECK_CHARS


def test_the_default_deck_has_the_rulebooks_86_fate_and_68_sway_cards():
    # "• 86 Fate cards  • 68 Sway cards" (23 Knives, components)
    deck = payload.load_deck()
    assert sum(deck["fate"].values()) == 86
    assert sum(deck["sway"].values()) == 68
    # "The Knives range from 1 to 5 Knives on each card (no 4s). The Doves range from 1 to 3"
    assert set(deck["fate"]) == {"K1", "K2", "K3", "K5", "D1", "D2", "D3"}


def test_serials_are_unique_within_the_deck_and_stable_across_kinds(deck_cards):
    serials = [c.serial for c in deck_cards]
    assert len(serials) == len(set(serials)) == 154
    fate_only = payload.deck_cards(payload.load_deck(), kinds=("fate",))
    # printing the Fate stickers alone gives them the same serials as printing everything
    assert fate_only == [c for c in deck_cards if c.kind == "fate"]


def test_a_mistyped_code_is_refused(key):
    text = encode(Card("fate", "doves", 2, "017"), key)
    for i, ch in enumerate(text):
        if ch == ".":
            continue
        for other in "7Q3":
            if other == ch:
                continue
            typo = text[:i] + other + text[i + 1:]
            with pytest.raises(BadInput):
                parse(typo, key)


def test_a_forged_code_is_refused(key):
    # Someone who knows the format but not this print run's key makes a 5-Knives code.
    forged = encode(Card("fate", "knives", 5, "999"), b"guessed key 1234")
    with pytest.raises(BadInput, match="check failed"):
        parse(forged, key)


def test_a_code_typed_with_look_alike_characters_is_still_read(key):
    text = encode(Card("fate", "knives", 1, "001"), key)
    body, check = text.rsplit(".", 1)
    typed = (body + "." + check.replace("O", "0").replace("I", "1").replace("B", "8")).lower()
    assert parse(typed, key).serial == "001"


@pytest.mark.parametrize("text, words", [
    ("https://example.com/", "not a 23 Knives card code"),
    ("23K1.F.K5.42.ABCD", "malformed"),
    ("23K2.F.K5.042.ABCD", "version 2 is not supported"),
    ("23K1.F.K5.042.ABCD\n.X", "malformed"),
    ("", "not a 23 Knives card code"),
])
def test_malformed_codes_get_a_one_line_error_naming_the_problem(key, text, words):
    with pytest.raises(BadInput, match=words) as err:
        parse(text, key)
    assert "\n" not in str(err.value)


def test_a_well_signed_code_for_a_card_that_does_not_exist_is_refused(key):
    # A 4-Knives card does not exist ("no 4s"), even with a correct check.
    body = "23K1.F.K4.050"
    text = body + "." + payload._check(key, body)
    with pytest.raises(BadInput, match="no such 23 Knives card value"):
        parse(text, key)


def test_deck_file_errors_name_the_problem(tmp_path):
    bad = tmp_path / "deck.json"
    bad.write_text(json.dumps({"fate": {"K4": 3}}))
    with pytest.raises(BadInput, match="no value 'K4'"):
        payload.load_deck(bad)
    bad.write_text(json.dumps({"fate": {"K1": -1}}))
    with pytest.raises(BadInput, match="whole number"):
        payload.load_deck(bad)
    bad.write_text("{not json")
    with pytest.raises(BadInput, match="not valid JSON"):
        payload.load_deck(bad)
    with pytest.raises(BadInput, match="not found"):
        payload.load_deck(tmp_path / "missing.json")


def test_deck_key_file_is_made_once_and_read_back(tmp_path):
    path = tmp_path / "keys" / "run.key"
    k1 = payload.load_or_create_key(path)
    assert payload.load_or_create_key(path) == k1
    assert (path.stat().st_mode & 0o777) == 0o600
    path.write_text("zz\n")
    with pytest.raises(BadInput, match="hex digits"):
        payload.load_key(path)
