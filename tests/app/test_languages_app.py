"""The app in French and German: Settings lists each language by its own name; choosing one
rebuilds every screen in it (no English left where the language has its own words), and each
shell screen and the start of each game is photographed in both (test-artifacts/app/i18n/)."""
from __future__ import annotations

import re

import pytest

from companion.core import i18n
from tests.languages import use_french_and_german

GAMES = {
    "knives23": (["Ann", "Bo", "Cy", "Di"], {"first": "Ann"}),
    "masks": (["Ann", "Bo", "Cy", "Di", "Ed"], {}),
    "sevenknights": (["Ann", "Bo", "Cy", "Di", "Ed"], {"first": "Ann", "options": {"mode": "basic"}}),
    "cicero": (["Livia", "Marcus", "Octavia"], {"first": "Octavia", "seat_values": {
        "Livia": {"age": 34}, "Marcus": {"age": 41}, "Octavia": {"age": 29}}}),
}


def english_left(driver, lang: str) -> list[str]:
    """Visible texts that are an English catalogue text the language words differently."""
    en, other = i18n.load_catalogue("en"), i18n._cat(lang)
    english = {text: key for key, text in en.items()
               if isinstance(text, str) and "{" not in text and len(text) > 3
               and isinstance(other.get(key), str) and other[key] != text}
    return sorted({t for t in driver.visible_texts() if t in english})


def choose_language(driver, name: str):
    app = driver.app
    driver.tap(driver.find(root=app.root, text=i18n.tr("app.settings")))
    settings = app.screen("settings")
    assert settings.ids.language.values == ["Deutsch", "English", "Français"]
    settings.ids.language.text = name
    driver.pump(2)
    # The screens may have been made again in the language chosen: Save is the one on show.
    driver.tap(app.screen("settings").ids.save)
    driver.pump(6)


@pytest.mark.app
@pytest.mark.slow
def test_the_app_in_french_and_german(driver, tmp_path, monkeypatch):
    marks = use_french_and_german(tmp_path, monkeypatch)
    app = driver.app
    try:
        for lang, name in (("fr", "Français"), ("de", "Deutsch")):
            choose_language(driver, name)
            assert i18n.language() == lang and app.settings.language == lang
            assert app.sm.current == "picker"
            top = driver.find(root=app.root, cls="TopButton", text=i18n.tr("app.settings"))
            assert top.text != i18n.load_catalogue("en")["app.settings"]
            if marks[lang]:
                assert top.text.startswith(marks[lang])
            shots, left = [], {}

            def look(label):
                driver.pump(6)
                shots.append(driver.screenshot(f"app/i18n/{lang}/{label}"))
                found = english_left(driver, lang)
                if found:
                    left[label] = found

            look("picker")
            for screen in ("settings", "devices", "phone", "camera", "past_games"):
                if app.sm.has_screen(screen):
                    app.goto(screen)
                    look(screen)
            for game, (names, kw) in GAMES.items():
                app.choose_game(game)
                driver.pump(4)
                look(f"{game}_setup")
                driver.start_game(game, names, **kw)
                look(f"{game}_start")
                app.leave_game()
                driver.pump(4)
            assert all(s.stat().st_size > 10_000 for s in shots)
            assert left == {}, left
    finally:
        choose_language(driver, "English")
        assert i18n.language() == "en" and app.settings.language == "en"
        assert driver.find(root=app.root, cls="TopButton", text="Settings")


@pytest.mark.app
def test_a_settings_file_naming_a_missing_language_opens_in_english(tmp_path):
    """Bad input at start-up: the real app (its own process) logs one line and opens in English."""
    import os
    import subprocess
    import sys
    (tmp_path / "settings.json").write_text('{"language": "xx"}')
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_ARGS="1", TABLE_COMPANION_FIRST_FRAME="1")
    env.pop("KIVY_NO_CONSOLELOG", None)   # the one line is in the log
    done = subprocess.run([sys.executable, "-m", "companion", "--data", str(tmp_path), "--boxes", "off"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "first-frame" in done.stdout   # it drew its first frame (then the benchmark hook quits)
    assert "no catalogue for language 'xx'" in done.stderr + done.stdout and "using English" in done.stderr + done.stdout
