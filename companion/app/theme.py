"""Colours, type sizes and the dim-room mode, in one place. Readable across a table: large type,
strong contrast (every named text/background pair below meets WCAG AA, checked by
tests/app/test_design.py).

Two ways to read a colour:
- the module constants (``theme.PANEL``) are the normal theme's values, for code that draws once;
- ``theme.ui`` is a :class:`Theme` whose ColorProperties follow the dim-room mode, so a .kv rule
  written ``color: ui.text`` (after ``#:import ui companion.app.theme.ui``) redraws when the room
  goes dim. Type sizes work the same way: ``font_size: ui.body`` grows with the screen.
"""
from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import sp
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty

RGBA = tuple[float, float, float, float]


def hex_rgba(code: str, alpha: float = 1.0) -> RGBA:
    code = code.lstrip("#")
    r, g, b = (int(code[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return (r, g, b, alpha)


# -- palettes: a Roman game night (lamp-lit night, stone, parchment, gold, laurel, terracotta) ----
# Fills (bg, panel, raised, accent, good, danger) carry text in ``ink_for`` their luminance;
# accent/good/danger are light enough to be text on the dark fills too.
NORMAL: dict[str, RGBA] = {
    "bg": hex_rgba("#15131C"),        # night
    "panel": hex_rgba("#25202F"),     # stone
    "raised": hex_rgba("#362D43"),    # a secondary button
    "text": hex_rgba("#F4ECDC"),      # parchment
    "muted": hex_rgba("#BDB3A3"),     # faded parchment
    "accent": hex_rgba("#E2B253"),    # gold: the primary button, a chosen toggle, headings
    "ink": hex_rgba("#1B1409"),       # text on gold, laurel and terracotta fills
    "good": hex_rgba("#8CCB8F"),      # laurel
    "danger": hex_rgba("#F08A78"),    # terracotta
    "imperial": hex_rgba("#5B2A5E"),  # Tyrian purple: the top bar's rule, Curia card backs
    "privacy": hex_rgba("#050507"),   # the opaque pass-and-play screen
    "caption": hex_rgba("#000000", 0.88),
}
# Dim room (eyes closed, the camera): nothing bright, warm low-luminance text, same pairs pass.
DIM: dict[str, RGBA] = {
    "bg": hex_rgba("#060508"),
    "panel": hex_rgba("#100D14"),
    "raised": hex_rgba("#1A1520"),
    "text": hex_rgba("#B09C80"),
    "muted": hex_rgba("#8E806D"),
    "accent": hex_rgba("#A47E35"),
    "ink": hex_rgba("#060508"),
    "good": hex_rgba("#6F9A70"),
    "danger": hex_rgba("#B46E62"),
    "imperial": hex_rgba("#2E1530"),
    "privacy": hex_rgba("#020203"),
    "caption": hex_rgba("#000000", 0.92),
}
COLOUR_NAMES = tuple(NORMAL)

# Every (text, background) pair the app draws, by name: tests/app/test_design.py holds each to
# 4.5:1 in both themes.
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    ("text", "bg"), ("text", "panel"), ("text", "raised"), ("text", "imperial"),
    ("text", "privacy"), ("text", "caption"),
    ("muted", "bg"), ("muted", "panel"), ("muted", "raised"),
    ("accent", "bg"), ("accent", "panel"), ("accent", "raised"),
    ("good", "bg"), ("good", "panel"), ("good", "raised"),
    ("danger", "bg"), ("danger", "panel"), ("danger", "raised"),
    ("ink", "accent"), ("ink", "good"), ("ink", "danger"),
)

# The normal theme as module constants (the names screens already use).
BG = NORMAL["bg"]
PANEL = NORMAL["panel"]
RAISED = NORMAL["raised"]
TEXT = NORMAL["text"]
MUTED = NORMAL["muted"]
ACCENT = NORMAL["accent"]
INK = NORMAL["ink"]
DANGER = NORMAL["danger"]
GOOD = NORMAL["good"]
IMPERIAL = NORMAL["imperial"]
PRIVACY = NORMAL["privacy"]

# Seat colours offered on the setup screen: (catalogue key suffix, RGBA)
SEAT_COLOURS = [
    ("red", (0.80, 0.20, 0.20, 1)), ("blue", (0.22, 0.42, 0.85, 1)),
    ("green", (0.25, 0.62, 0.30, 1)), ("yellow", (0.92, 0.80, 0.20, 1)),
    ("purple", (0.55, 0.30, 0.70, 1)), ("orange", (0.92, 0.52, 0.15, 1)),
    ("white", (0.92, 0.92, 0.92, 1)), ("black", (0.25, 0.25, 0.25, 1)),
]
COLOUR_RGBA = dict(SEAT_COLOURS)

MIN_TOUCH_DP = 48   # smallest touch target
BUTTON_DP = 64      # ordinary buttons

# -- typographic scale, in sp at 1280×800 (nothing a player must read below 22) ----------------
FONT: dict[str, int] = {"caption": 22, "body": 24, "label": 26, "title": 30, "headline": 40,
                        "number": 64}
MIN_READABLE_SP = 22
REFERENCE_SHORT_SIDE = 800   # the short side, in dp, the scale is written for
MAX_SCALE = 1.6


def scale_for(width: float, height: float) -> float:
    """How much larger type is on a window of this size (in dp) than at 1280×800: a larger
    screen is read from as far away, so its text grows with its short side; never smaller."""
    return max(1.0, min(MAX_SCALE, min(width, height) / REFERENCE_SHORT_SIDE))


# -- contrast (WCAG 2.x) ------------------------------------------------------------------------
def _channel(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def over(fg, bg) -> RGBA:
    """``fg`` drawn with its alpha over the opaque ``bg``."""
    a = fg[3] if len(fg) > 3 else 1.0
    return (fg[0] * a + bg[0] * (1 - a), fg[1] * a + bg[1] * (1 - a),
            fg[2] * a + bg[2] * (1 - a), 1.0)


def luminance(rgba) -> float:
    r, g, b = (_channel(float(c)) for c in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg, base=None) -> float:
    """WCAG contrast ratio of text ``fg`` on ``bg`` (1…21). A translucent ``bg`` is laid over
    ``base`` (the night background unless given), a translucent ``fg`` over that."""
    ground = over(bg, base if base is not None else BG)
    lf, lb = luminance(over(fg, ground)), luminance(ground)
    hi, lo = max(lf, lb), min(lf, lb)
    return (hi + 0.05) / (lo + 0.05)


def needed(font_sp: float, bold: bool = False) -> float:
    """The contrast WCAG AA asks of text this size: 3:1 for large numbers and headlines."""
    return 3.0 if font_sp >= 48 or (bold and font_sp >= 40) else 4.5


class Theme(EventDispatcher):
    """The live theme: colours that follow the dim-room mode and sizes that follow the window."""

    bg = ColorProperty(NORMAL["bg"])
    panel = ColorProperty(NORMAL["panel"])
    raised = ColorProperty(NORMAL["raised"])
    text = ColorProperty(NORMAL["text"])
    muted = ColorProperty(NORMAL["muted"])
    accent = ColorProperty(NORMAL["accent"])
    ink = ColorProperty(NORMAL["ink"])
    good = ColorProperty(NORMAL["good"])
    danger = ColorProperty(NORMAL["danger"])
    imperial = ColorProperty(NORMAL["imperial"])
    privacy = ColorProperty(NORMAL["privacy"])
    caption = ColorProperty(NORMAL["caption"])

    dim = BooleanProperty(False)          # the colours in use are the dim room's
    forced_dim = BooleanProperty(False)   # the table asked for the dim room everywhere
    wants_dim = BooleanProperty(False)    # the screen asks for it (eyes closed, the camera)
    mode = StringProperty("normal")       # "normal" or "dim", for .kv and tests

    scale = NumericProperty(1.0)
    caption_fs = NumericProperty(sp(FONT["caption"]))
    body = NumericProperty(sp(FONT["body"]))
    label = NumericProperty(sp(FONT["label"]))
    title = NumericProperty(sp(FONT["title"]))
    headline = NumericProperty(sp(FONT["headline"]))
    number = NumericProperty(sp(FONT["number"]))

    def __init__(self, **kw):
        super().__init__(**kw)
        self.bind(forced_dim=self._update_dim, wants_dim=self._update_dim)

    # -- colours ---------------------------------------------------------------------------
    def _update_dim(self, *_):
        self.dim = self.forced_dim or self.wants_dim

    def on_dim(self, _obj, dim: bool):
        _drop_dead_widgets()
        for name, value in (DIM if dim else NORMAL).items():
            setattr(self, name, value)
        self.mode = "dim" if dim else "normal"

    def palette(self) -> dict[str, RGBA]:
        return DIM if self.dim else NORMAL

    def ink_for(self, fill, *_bound) -> RGBA:
        """The text colour that reads on ``fill`` (a button's background): ink on a light fill,
        parchment on a dark one. Extra arguments are only there so .kv rebinds on them."""
        pal = self.palette()
        ground = over(fill, pal["bg"])
        light, dark = pal["text"], pal["ink"]
        best = dark if contrast(dark, ground) > contrast(light, ground) else light
        if contrast(best, ground) < 4.5:   # a mid-tone fill (a seat colour): pure white or black
            best = max(((1.0, 1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 1.0)), key=lambda c: contrast(c, ground))
        return best

    # -- type ------------------------------------------------------------------------------
    def set_scale(self, scale: float):
        if scale != self.scale:
            _drop_dead_widgets()
        self.scale = scale
        self.caption_fs = sp(FONT["caption"]) * scale
        self.body = sp(FONT["body"]) * scale
        self.label = sp(FONT["label"]) * scale
        self.title = sp(FONT["title"]) * scale
        self.headline = sp(FONT["headline"]) * scale
        self.number = sp(FONT["number"]) * scale

    def follow_window(self, window):
        """Size type from the window's short side now and on every resize."""
        from kivy.metrics import dp

        def resized(*_):
            self.set_scale(scale_for(window.width / dp(1), window.height / dp(1)))
        self._unfollow("_window")
        window.bind(size=resized)
        self._window = (window, {"size": resized})
        resized()

    # -- what asks for the dim room --------------------------------------------------------
    def follow(self, app, screens):
        """Go dim while the table has its eyes closed (23 Knives' eyes-closed Issue, the Masks
        Hidden Phase) and on the camera screen; back when that ends."""
        def check(*_):
            self.wants_dim = wants_dim_room(screens.current, dict(app.view or {}))
        self._unfollow("_screens")
        self._unfollow("_app")
        screens.bind(current=check)
        app.bind(view=check)
        self._screens, self._app = (screens, {"current": check}), (app, {"view": check})
        check()

    def _unfollow(self, slot: str):
        """Drop the bindings an earlier follow made (the app rebuilds its root on a language
        change)."""
        held = getattr(self, slot, None)
        if held:
            target, bindings = held
            target.unbind(**bindings)
        setattr(self, slot, None)


def _drop_dead_widgets():
    """Collect widgets already thrown away before the theme changes. A kv rule such as
    ``color: ui.good if root.seen else ui.muted`` binds the widget to ``ui``; a widget in a
    reference cycle outlives its rule's root (a list row cleared from the screen) until the
    garbage collector runs, and a change of ``ui`` would then read the dead root
    (ReferenceError, seen when the table's eyes closed after the camera screen's rows were
    cleared). Collected, they unbind their rules (Kivy's widget destructor)."""
    import gc
    gc.collect()


def wants_dim_room(screen: str, view: dict) -> bool:
    """The camera screen, and any screen while the table's eyes are closed."""
    return screen in DIM_SCREENS or (view.get("game"), view.get("phase")) in EYES_CLOSED


DIM_SCREENS = frozenset({"camera"})
# (game, phase) while the table has its eyes closed
EYES_CLOSED = frozenset({("knives23", "eyes_closed"), ("masks", "hidden")})

ui = Theme()


def fs(name: str) -> float:
    """A type size from the scale, in pixels for the current window (``fs('body')``)."""
    return getattr(ui, "caption_fs" if name == "caption" else name)
