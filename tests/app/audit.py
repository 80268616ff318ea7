"""The screen audit's checks, run on the real app's widget tree and on the pixels it drew.

``audit_screen`` looks at what is on the window now and returns one line per fault:
- a label whose text spills out of its box, is cut (lines dropped, an ellipsis) or breaks inside
  a word (its rendered lines, ``Label._label._cached_lines``, against the words of its text);
- two visible sibling widgets whose rectangles intersect (overlays listed in ``OVERLAYS``);
- a text whose colour against the colour drawn behind it (read from the screenshot, glyph pixels
  left out) is under 4.5:1, or 3:1 for text of 48sp and more (WCAG 2 relative luminance);
- readable text under 22sp (checked at 1280x800; exceptions in ``SMALL_TEXT_OK``);
- a touch target under 48dp in either dimension.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from kivy.core.window import Window
from kivy.metrics import dp, sp
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.checkbox import CheckBox
from kivy.uix.label import Label
from kivy.uix.stencilview import StencilView
from kivy.uix.textinput import TextInput

# Widgets drawn on top of the screen on purpose: they may overlap what is under them.
OVERLAYS = {
    "Toast",          # a refused action's one line, over the bottom of any screen
    "ActionToast",    # "undone: ... [Redo]", over the bottom of any screen
}

# Texts allowed under 22sp: (widget class, reason). Keep short; each needs a reason.
SMALL_TEXT_OK: dict[str, str] = {}

MARKUP = re.compile(r"\[/?(?:b|i|u|s|sub|sup|color|size|font|font_family|font_context|"
                    r"font_features|text_language|anchor|ref)(?:=[^\]]*)?\]")


@dataclass
class Seen:
    widget: object
    rect: tuple[float, float, float, float]   # window coordinates: x0, y0, x1, y1
    clip: tuple[float, float, float, float]   # what of it can show (window, scroll views)
    alpha: float


def _rect(w) -> tuple[float, float, float, float]:
    x, y = w.to_window(w.x, w.y)
    return (x, y, x + w.width, y + w.height)


def _meet(a, b):
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def visible_widgets(root) -> list[Seen]:
    """Widgets a person can see now: opacity above zero all the way up, a size, inside the window
    and inside every scroll view around them."""
    window = (0.0, 0.0, float(Window.width), float(Window.height))
    out: list[Seen] = []

    def walk(w, clip, alpha):
        alpha *= w.opacity
        if alpha <= 0.01:
            return
        r = _rect(w)
        if w.width > 0.5 and w.height > 0.5 and _meet(r, clip):
            out.append(Seen(w, r, clip, alpha))
        inner = _meet(clip, r) if isinstance(w, StencilView) else clip
        if inner is None:
            return
        for c in w.children:
            walk(c, inner, alpha)

    walk(root, window, 1.0)
    return out


def plain_words(text: str) -> list[str]:
    text = MARKUP.sub("", text).replace("&bl;", "[").replace("&br;", "]").replace("&amp;", "&")
    return text.split()


def rendered_words(label) -> list[list[str]] | None:
    core = getattr(label, "_label", None)
    lines = getattr(core, "_cached_lines", None)
    if lines is None:
        return None
    return [("".join(word.text for word in line.words)).split() for line in lines]


def _name(w) -> str:
    text = getattr(w, "text", "")
    text = text if isinstance(text, str) else ""
    short = text.replace("\n", " ")[:40]
    return f"{type(w).__name__}({short!r})"


def _name_still_readable(shown: list[str], name: str) -> bool:
    """A long player name may be shortened in a narrow cell ("Bartho...mew"), but it keeps
    enough of itself to be told apart: at least 4 letters, and a name of 4 or fewer is never
    shortened (a cell showing "." for "Ada" is a fault)."""
    letters = "".join(shown).replace("...", "").replace("\u2026", "")
    return len(name) > 4 and len(letters) >= 4


def label_faults(seen: Seen, names: set[str]) -> list[str]:
    w = seen.widget
    if not isinstance(w, Label) or not w.text.strip():
        return []
    w.texture_update()
    faults = []
    tw, th = w.texture_size
    if tw > w.width + 1.5 or th > w.height + 1.5:
        faults.append(f"{_name(w)}: text {tw:.0f}x{th:.0f} overflows its box {w.width:.0f}x{w.height:.0f}")
    lines = rendered_words(w)
    if lines is not None:
        shown = [word for line in lines for word in line]
        wanted = plain_words(w.text)
        if shown != wanted:
            if "".join(shown) == "".join(wanted):
                breaks = [" / ".join(" ".join(line) for line in lines)]
                faults.append(f"{_name(w)}: breaks inside a word: {breaks[0][:120]!r}")
            elif not (w.shorten and w.text.strip() in names and _name_still_readable(shown, w.text.strip())):
                faults.append(f"{_name(w)}: text cut, shows {' '.join(shown)[:80]!r}")
    x0, y0, x1, y1 = seen.rect
    c = seen.clip
    if (x0 < c[0] - 1 or y0 < c[1] - 1 or x1 > c[2] + 1 or y1 > c[3] + 1) and c == (0, 0, Window.width, Window.height):
        faults.append(f"{_name(w)}: cut by the window's edge at {tuple(round(v) for v in seen.rect)}")
    return faults


def touch_faults(seen: Seen) -> list[str]:
    w = seen.widget
    if not isinstance(w, (ButtonBehavior, TextInput, CheckBox)):
        return []
    if w.width < dp(48) - 0.5 or w.height < dp(48) - 0.5:
        return [f"{_name(w)}: touch target {w.width:.0f}x{w.height:.0f}px is under 48dp ({dp(48):.0f}px)"]
    if isinstance(w, Label) and not w.disabled and not w.text.strip() and not w.children:
        # A button with nothing on it (its rule lost, a text never set): nobody knows what it does.
        return [f"{type(w).__name__} at {tuple(round(v) for v in seen.rect)}: a button with nothing on it"]
    return []


def size_faults(seen: Seen) -> list[str]:
    w = seen.widget
    if not isinstance(w, (Label, TextInput)):
        return []
    text = w.text if isinstance(w, Label) else (w.text or w.hint_text)
    if not text.strip() or type(w).__name__ in SMALL_TEXT_OK:
        return []
    if w.font_size < sp(22) - 0.01:
        return [f"{_name(w)}: font {w.font_size / sp(1):.0f}sp is under 22sp"]
    return []


def outside_faults(seen: list[Seen]) -> list[str]:
    """A child drawn outside its layout lands on whatever is next to the layout (a list longer
    than its panel runs over the heading above it). A scroll view's content is meant to be
    larger than the view; the overlays are placed on purpose."""
    faults = []
    for s in seen:
        parent = s.widget.parent
        if parent is None or parent is Window or isinstance(parent, StencilView) \
                or type(s.widget).__name__ in OVERLAYS or parent.width <= 0.5 or parent.height <= 0.5:
            continue
        p = _rect(parent)
        r = _meet(s.rect, s.clip)
        if r is None:
            continue
        out = max(p[0] - r[0], p[1] - r[1], r[2] - p[2], r[3] - p[3])
        if out > 1.5:
            faults.append(f"{_name(s.widget)} sticks out of its {_name(parent)} by {out:.0f}px")
    return faults


def overlap_faults(seen: list[Seen]) -> list[str]:
    by_parent: dict[int, list[Seen]] = {}
    for s in seen:
        parent = s.widget.parent
        if parent is not None and type(s.widget).__name__ not in OVERLAYS:
            by_parent.setdefault(id(parent), []).append(s)
    faults = []
    for group in by_parent.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                ra, rb = _meet(a.rect, a.clip), _meet(b.rect, b.clip)
                if ra is None or rb is None:
                    continue
                both = _meet(ra, rb)
                if both and both[2] - both[0] > 1.5 and both[3] - both[1] > 1.5:
                    faults.append(f"{_name(a.widget)} overlaps {_name(b.widget)} "
                                  f"by {both[2] - both[0]:.0f}x{both[3] - both[1]:.0f}px")
    return faults


# -- contrast ----------------------------------------------------------------------------------
def _luminance(rgb) -> float:
    c = np.asarray(rgb, dtype=float) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast_ratio(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def load_pixels(png: Path) -> np.ndarray:
    """The screenshot as rows from the bottom (window coordinates), RGB."""
    import cv2
    img = cv2.imread(str(png), cv2.IMREAD_COLOR)
    assert img is not None, png
    return img[::-1, :, ::-1]


def contrast_faults(seen: Seen, pixels: np.ndarray) -> list[str]:
    w = seen.widget
    if not isinstance(w, Label) or not w.text.strip() or w.disabled:
        return []
    tw, th = w.texture_size
    cx, cy = (seen.rect[0] + seen.rect[2]) / 2, (seen.rect[1] + seen.rect[3]) / 2
    text_box = _meet((cx - tw / 2, cy - th / 2, cx + tw / 2, cy + th / 2), _meet(seen.rect, seen.clip) or seen.rect)
    if text_box is None:
        return []
    h, wd = pixels.shape[:2]
    x0, y0 = max(0, int(text_box[0])), max(0, int(text_box[1]))
    x1, y1 = min(wd, int(text_box[2])), min(h, int(text_box[3]))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    region = pixels[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    r, g, b, a = w.color
    ink = np.array([r, g, b]) * 255.0
    # Glyph pixels are near the ink; the most common of the rest is what is drawn behind the text.
    far = region[np.linalg.norm(region - ink, axis=1) > 48]
    if len(far) == 0:
        back = ink
    else:
        packed = far[:, 0] * 65536 + far[:, 1] * 256 + far[:, 2]
        values, counts = np.unique(packed, return_counts=True)
        v = int(values[counts.argmax()])
        back = np.array([v >> 16, (v >> 8) & 255, v & 255], dtype=float)
    alpha = a * seen.alpha
    fg = alpha * ink + (1 - alpha) * back
    ratio = contrast_ratio(fg, back)
    need = 3.0 if w.font_size >= sp(48) - 0.01 else 4.5
    if ratio < need:
        return [f"{_name(w)}: contrast {ratio:.2f}:1 (text #{_hex(fg)} on #{_hex(back)}), needs {need}:1"]
    return []


def _hex(rgb) -> str:
    return "".join(f"{int(round(v)):02x}" for v in rgb)


def audit_screen(root, png: Path, check_sizes: bool, names: set[str]) -> list[str]:
    seen = visible_widgets(root)
    pixels = load_pixels(png)
    faults: list[str] = []
    for s in seen:
        faults += label_faults(s, names)
        faults += touch_faults(s)
        if check_sizes:
            faults += size_faults(s)
        faults += contrast_faults(s, pixels)
    faults += overlap_faults(seen)
    faults += outside_faults(seen)
    return list(dict.fromkeys(faults))
