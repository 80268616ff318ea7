"""The visual design (issue 18): the palette's contrast, the type scale, the icons, the dim room,
the card that turns over. Screenshots of restyled screens in both themes go to
test-artifacts/design/."""
from __future__ import annotations

import pytest

from companion.app import theme

WHITE, BLACK = (1, 1, 1, 1), (0, 0, 0, 1)


# -- palette ---------------------------------------------------------------------------------
def test_contrast_matches_the_wcag_formula():
    assert theme.contrast(WHITE, BLACK) == pytest.approx(21.0)
    assert theme.contrast(BLACK, BLACK) == pytest.approx(1.0)
    # #777777 on white is the classic "just under AA" grey: 4.48:1
    assert theme.contrast(theme.hex_rgba("#777777"), WHITE) == pytest.approx(4.48, abs=0.01)
    # the faults measured in issue 18 fail AA here too (the old parchment on the old fills)
    old_text = (0.96, 0.95, 0.90, 1)
    assert theme.contrast(old_text, (0.86, 0.69, 0.26, 1)) < 2.1        # on the old gold
    assert theme.contrast(old_text, (0.30, 0.62, 0.36, 1)) < 3.5        # on the old green
    # a translucent fill is laid over the night before measuring
    assert theme.contrast(WHITE, (1, 1, 1, 0)) == pytest.approx(theme.contrast(WHITE, theme.BG))


@pytest.mark.parametrize("palette", ["normal", "dim"])
def test_every_named_text_pair_meets_aa(palette):
    pal = theme.NORMAL if palette == "normal" else theme.DIM
    low = {f"{fg} on {bg}": round(theme.contrast(pal[fg], pal[bg], pal["bg"]), 2)
           for fg, bg in theme.TEXT_PAIRS if theme.contrast(pal[fg], pal[bg], pal["bg"]) < 4.5}
    assert not low, low
    assert set(pal) == set(theme.COLOUR_NAMES)


@pytest.mark.parametrize("palette", ["normal", "dim"])
def test_the_text_on_any_fill_is_legible(palette):
    """A button's text colour follows its fill: the old white-on-gold ("On" toggles), white on
    green ("has voted") and any seat colour get a colour that reads at 4.5:1."""
    ui = theme.Theme()
    ui.forced_dim = palette == "dim"
    pal = ui.palette()
    fills = [pal[n] for n in ("accent", "good", "danger", "raised", "panel", "imperial", "bg")]
    fills += [rgba for _, rgba in theme.SEAT_COLOURS]
    for fill in fills:
        assert theme.contrast(ui.ink_for(fill), fill, pal["bg"]) >= 4.5, fill


def test_the_dim_room_has_no_bright_white():
    assert all(theme.luminance(rgba) < 0.4 for rgba in theme.DIM.values())
    assert theme.luminance(theme.DIM["text"]) < theme.luminance(theme.NORMAL["text"]) / 2


# -- type --------------------------------------------------------------------------------------
def test_the_type_scale_grows_with_the_screen_and_stays_readable():
    assert min(theme.FONT.values()) >= theme.MIN_READABLE_SP == 22
    assert theme.scale_for(1280, 800) == 1.0
    assert theme.scale_for(800, 1280) == 1.0           # portrait: the same short side
    assert theme.scale_for(1920, 1200) == pytest.approx(1.5)
    assert theme.scale_for(640, 400) == 1.0            # never smaller than the written scale
    assert theme.scale_for(4000, 3000) == theme.MAX_SCALE
    ui = theme.Theme()
    ui.set_scale(1.5)
    assert ui.body == pytest.approx(1.5 * theme.Theme().body)
    assert theme.needed(64) == 3.0 and theme.needed(24) == 4.5


# -- icons -------------------------------------------------------------------------------------
def test_every_icon_fills_its_square_and_stays_inside_it():
    from companion.app import icons
    for name in icons.NAMES:
        parts = icons.tesselated(name)
        meshes = [p for p in parts if p[1] == "mesh"]
        assert meshes, name
        xs = [v for p in meshes for v in p[2][0::4]] + [v for p in parts if p[1] == "line" for v in p[2][0::2]]
        ys = [v for p in meshes for v in p[2][1::4]] + [v for p in parts if p[1] == "line" for v in p[2][1::2]]
        assert min(xs) >= -0.01 and max(xs) <= 1.01 and min(ys) >= -0.01 and max(ys) <= 1.01, name
        # it uses the square: not a speck in a corner
        assert max(max(xs) - min(xs), max(ys) - min(ys)) > 0.6, name
    for game_thing in ("knife", "dove", "laurel", "blood", "dagger", "curia", "fate", "kalends",
                       "forum", "mask", "crown", "martyr", "knight", "shield", "witch", "servant",
                       "legion", "princeps"):
        assert game_thing in icons.NAMES


def turned_by(driver, card, seconds: float):
    """Draw frames until ``card`` is face up. Kivy's animations run on frame time, and a loaded
    machine may draw a frame a second: the limit is generous, the test is that it ends face up."""
    import time
    end = time.monotonic() + seconds + 20
    while card.flip < 1.0 and time.monotonic() < end:
        driver.wait(0.1)
    assert card.flip == 1.0, card.flip


# -- in the app --------------------------------------------------------------------------------
def _k23_game(driver):
    from companion.games.knives23 import demo
    driver.start_game("knives23", demo.SETUP["players"], first="Ann",
                      options={"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2})
    return [c for c in demo.commands()]


def _play_until(driver, commands, stop):
    app = driver.app
    while commands and not stop(commands[0]):
        cmd = commands.pop(0)
        assert app.send_command(cmd), (cmd, driver.app.root.ids.toast.message)
        driver.pump(1)
        if app.sm.current == "reveal":
            driver.continue_reveal()   # past the count-in: the table has seen the votes
        if app.view.get("phase") == "eyes_closed":
            # the tablet narrates the eyes-closed script; the table reopens eyes after it
            spent = 0
            while app.view.get("phase") == "eyes_closed" and spent < 400 and commands[0].kind == "eyes_open":
                driver.advance(5)
                spent += 5
            if app.view.get("phase") != "eyes_closed" and commands[0].kind == "eyes_open":
                commands.pop(0)
    driver.pump(4)


@pytest.mark.app
def test_the_room_goes_dim_with_eyes_closed_and_on_the_camera_and_back(driver):
    from companion.app.theme import ui
    app = driver.app
    assert not ui.dim and ui.mode == "normal"
    driver.screenshot("design/normal_picker")
    app.goto("camera")
    driver.pump(4)
    assert ui.dim and tuple(ui.text) == theme.DIM["text"]
    driver.screenshot("design/dim_camera")
    app.goto("picker")
    driver.pump(4)
    assert not ui.dim
    ui.forced_dim = True     # the table's setting: dim everywhere
    driver.pump(4)
    assert ui.dim
    driver.screenshot("design/dim_picker")
    ui.forced_dim = False
    driver.pump(2)
    assert not ui.dim

    commands = _k23_game(driver)
    _play_until(driver, commands, lambda c: c.kind == "eyes_closed")
    driver.screenshot("design/normal_k23_issue")
    assert not ui.dim
    assert app.send_command(commands.pop(0))
    driver.pump(4)
    assert app.view["phase"] == "eyes_closed" and ui.dim, (app.sm.current, ui.wants_dim, ui.forced_dim)
    driver.advance(14)
    driver.screenshot("design/dim_k23_eyes_closed")
    while app.view["phase"] == "eyes_closed":
        driver.advance(5)
    driver.pump(4)
    assert not ui.dim


@pytest.mark.app
def test_buttons_take_a_legible_text_colour_from_their_fill(driver):
    from kivy.factory import Factory

    from companion.app.theme import ui
    button = Factory.BigButton(text="x")
    for role in ("primary", "secondary", "danger", "quiet"):
        button.role = role
        driver.pump(1)
        assert theme.contrast(button.color, button.background_color) >= 4.5, role
    button.background_color = theme.ACCENT       # a screen's own fill: the "On" toggle's gold
    driver.pump(1)
    assert tuple(button.color) == tuple(ui.ink)
    toggle = Factory.ToggleButton(background_normal="", background_color=theme.ACCENT)
    assert theme.contrast(toggle.color, toggle.background_color) >= 4.5


@pytest.mark.app
def test_a_flip_card_shows_its_back_then_turns_face_up(driver):
    from kivy.factory import Factory

    from companion.app.widgets import FlipCard, reveal_animation
    cards = []
    for i in range(3):
        card = FlipCard(size_hint=(None, None), size=(120, 160), pos=(100 + 140 * i, 100))
        card.add_widget(Factory.Label(text=str(i)))
        driver.app.root.add_widget(card)
        cards.append(card)
    try:
        total = reveal_animation(cards, stagger=0.2, seconds=0.3)
        assert total == pytest.approx(0.7)
        driver.pump(1)
        assert all(c.flip < 0.5 for c in cards) and all(c.children[0].opacity == 0 for c in cards)
        assert len(cards[0]._emblem.children) > 0          # the laurel on its back
        turned_by(driver, cards[-1], total)
        assert all(c.flip == 1.0 for c in cards) and all(c.children[0].opacity == 1 for c in cards)
        assert all(len(c._emblem.children) == 0 for c in cards)
    finally:
        for card in cards:
            driver.app.root.remove_widget(card)


@pytest.mark.app
def test_restyled_screens_in_both_themes_and_type_that_grows_with_the_screen(driver):
    """Screenshots to LOOK at (test-artifacts/design/); the type scale follows the window."""
    from companion.app.theme import ui
    app = driver.app
    body_at_1280 = ui.body
    for screen in ("picker", "settings", "devices"):
        for dim in (False, True):
            ui.forced_dim = dim
            app.goto(screen)
            driver.pump(6)
            assert tuple(app.root.ids.caption.color) == (theme.DIM if dim else theme.NORMAL)["text"]
            driver.screenshot(f"design/{'dim' if dim else 'normal'}_{screen}")
    ui.forced_dim = False
    driver.set_size(1920, 1200)
    app.goto("picker")
    driver.pump(6)
    assert ui.scale == pytest.approx(1.5) and ui.body == pytest.approx(1.5 * body_at_1280)
    assert app.root.ids.home_button.font_size == pytest.approx(ui.caption_fs)
    driver.screenshot("design/normal_picker_1920x1200")
    driver.set_size(1280, 800)
    assert ui.scale == 1.0


@pytest.mark.app
def test_the_dim_room_setting_dims_every_screen_and_is_kept(driver):
    from companion.app.settings import Settings
    from companion.app.theme import ui
    from companion.core.events import BadInput
    app = driver.app
    app.goto("settings")
    driver.pump(4)
    toggle = driver.screen.ids.dim_room
    assert toggle.state == "normal" and not ui.dim
    driver.tap(toggle)
    driver.screen.apply()
    driver.pump(4)
    assert ui.dim and app.settings.dim_room
    assert Settings.load(app.data_dir / "settings.json").dim_room is True
    # the chosen toggle's gold reads in the dim room too
    assert theme.contrast(toggle.color, toggle.background_color, ui.bg) >= 4.5
    driver.screenshot("design/dim_settings_forced")
    driver.tap(toggle)
    driver.screen.apply()
    driver.pump(2)
    assert not ui.dim and not app.settings.dim_room
    with pytest.raises(BadInput):
        Settings(dim_room="yes").validate()   # type: ignore[arg-type]


@pytest.mark.app
def test_each_curia_card_turns_over_as_it_is_revealed(driver):
    from companion.app.widgets import FLIP_SECONDS
    app = driver.app
    commands = _k23_game(driver)
    _play_until(driver, commands, lambda c: c.kind == "curia_card")
    if app.sm.current != "knives23.curia":
        assert app.send_command(commands.pop(0))     # the End of Game abilities are done
    for _ in range(2):
        cmd = commands.pop(0)
        assert cmd.kind == "curia_card" and app.send_command(cmd)
        driver.pump(1)
        screen = driver.screen
        assert screen.name == "knives23.curia"
        card = screen.ids.last_card
        assert card.flip < 1.0                       # still turning: its back or its edge
        turned_by(driver, card, FLIP_SECONDS)
        assert screen.last_card and screen.last_icon in ("knife", "dove")
        assert all(child.opacity == 1 for child in card.children)
    driver.screenshot("design/normal_k23_curia")
