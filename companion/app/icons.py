"""The project's own icons for every card and token the app names, drawn as vectors on the Kivy
canvas (no art from the games). Each icon is data: filled shapes (contours, holes by the odd
winding rule) and strokes, in a unit square with y up, coloured by role:

- ``fg`` the icon's colour (``Icon.color``, parchment by default),
- ``accent`` its second colour (``Icon.accent``, gold),
- ``good`` / ``danger`` / ``imperial`` the theme's laurel green, terracotta and purple.

``Icon(name='knife')`` draws one, square and centred in its box; it follows the dim-room mode.
"""
from __future__ import annotations

import math
from functools import lru_cache

from kivy.graphics import Color, Line, Mesh
from kivy.graphics.tesselator import TYPE_POLYGONS, WINDING_ODD, Tesselator
from kivy.properties import ColorProperty, StringProperty
from kivy.uix.widget import Widget

from companion.app import theme

Points = list[float]


# -- shape helpers (unit square, y up) ----------------------------------------------------------
def rect(x0: float, y0: float, x1: float, y1: float) -> Points:
    return [x0, y0, x1, y0, x1, y1, x0, y1]


def ellipse(cx: float, cy: float, rx: float, ry: float, a0: float = 0, a1: float = 360,
            n: int = 32) -> Points:
    pts: Points = []
    for i in range(n + 1 if a1 - a0 < 360 else n):
        a = math.radians(a0 + (a1 - a0) * i / n)
        pts += [cx + rx * math.cos(a), cy + ry * math.sin(a)]
    return pts


def circle(cx: float, cy: float, r: float, n: int = 28) -> Points:
    return ellipse(cx, cy, r, r, n=n)


def quad(p0, p1, p2, n: int = 10) -> Points:
    """A quadratic Bézier from p0 to p2 pulled toward p1 (end point included, start not)."""
    pts: Points = []
    for i in range(1, n + 1):
        t = i / n
        pts += [(1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0],
                (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1]]
    return pts


def rotate(points: Points, degrees: float, cx: float = 0.5, cy: float = 0.5) -> Points:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    out: Points = []
    for x, y in zip(points[::2], points[1::2]):
        dx, dy = x - cx, y - cy
        out += [cx + dx * c - dy * s, cy + dx * s + dy * c]
    return out


def leaf(x: float, y: float, angle: float, length: float, width: float) -> Points:
    """A laurel leaf: a pointed lens from (x, y) along ``angle`` degrees."""
    pts: Points = []
    for i in range(9):
        t = i / 8
        pts += [t * length, math.sin(t * math.pi) * width / 2]
    for i in range(7, 0, -1):
        t = i / 8
        pts += [t * length, -math.sin(t * math.pi) * width / 2]
    return [p + o for p, o in zip(rotate(pts, angle, 0, 0), [x, y] * (len(pts) // 2))]


def wreath(cx: float = 0.5, cy: float = 0.5, r: float = 0.36, leaves: int = 6) -> list:
    """Two laurel branches curving up from the bottom, open at the top."""
    shapes: list = []
    for side in (-1, 1):
        stem: Points = []
        for i in range(leaves + 1):
            a = math.radians(-90 + side * (20 + 140 * i / leaves))
            stem += [cx + r * math.cos(a), cy + r * math.sin(a)]
        shapes.append(("line", "good", stem, 0.025, False))
        for i in range(leaves):
            a = -90 + side * (28 + 140 * i / leaves)
            x, y = cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))
            for out in (1, -1):   # a leaf outside and inside the stem, pointing up the branch
                tangent = a + side * 90 + out * side * 32
                shapes.append(("fill", "good", [leaf(x, y, tangent, 0.53 * r, 0.21 * r)]))
    return shapes


def blade(tip_y: float = 0.96, guard_y: float = 0.42, half: float = 0.075) -> Points:
    return [0.5, tip_y, 0.5 + half, tip_y - 0.3, 0.5 + half * 0.8, guard_y,
            0.5 - half * 0.8, guard_y, 0.5 - half, tip_y - 0.3]


def _knife() -> list:
    """A Knife: a plain blade, laid at a slant (the Dagger stands upright)."""
    parts = [("fg", blade()), ("accent", rect(0.33, 0.37, 0.67, 0.43)),
             ("accent", rect(0.455, 0.15, 0.545, 0.37)), ("accent", circle(0.5, 0.12, 0.055))]
    return [("fill", role, [rotate(contour, -40)]) for role, contour in parts]


def _dagger() -> list:
    """The Dagger on the Kalends: upright, a curved guard and a ring pommel (unlike a Knife)."""
    guard = [0.22, 0.46] + quad((0.22, 0.46), (0.5, 0.36), (0.78, 0.46)) + \
        [0.78, 0.40] + quad((0.78, 0.40), (0.5, 0.31), (0.22, 0.40))
    return [("fill", "fg", [blade(0.97, 0.42, 0.085)]),
            ("line", "imperial", [0.5, 0.9, 0.5, 0.46], 0.018, False),
            ("fill", "accent", [guard]),
            ("fill", "accent", [rect(0.45, 0.16, 0.55, 0.36)]),
            ("fill", "accent", [circle(0.5, 0.1, 0.075), circle(0.5, 0.1, 0.035)])]


def _dove() -> list:
    return [("fill", "fg", [ellipse(0.47, 0.42, 0.27, 0.15)]),
            ("fill", "fg", [circle(0.73, 0.56, 0.1)]),
            ("fill", "accent", [[0.82, 0.6, 0.95, 0.55, 0.82, 0.52]]),
            ("fill", "fg", [[0.25, 0.44, 0.05, 0.58, 0.1, 0.45, 0.04, 0.34]]),
            ("fill", "fg", [[0.36, 0.5, 0.6, 0.52] + quad((0.6, 0.52), (0.55, 0.8), (0.3, 0.94))
                            + quad((0.3, 0.94), (0.33, 0.7), (0.36, 0.5))]),
            ("fill", "good", [leaf(0.9, 0.5, -120, 0.16, 0.06)])]


def _blood() -> list:
    drop = [0.5, 0.95] + quad((0.5, 0.95), (0.45, 0.7), (0.25, 0.44)) + \
        ellipse(0.5, 0.35, 0.26, 0.26, 160, 380, 24)[2:] + quad((0.75, 0.44), (0.55, 0.7), (0.5, 0.95))
    return [("fill", "danger", [drop]),
            ("fill", "fg", [ellipse(0.39, 0.36, 0.05, 0.09)])]


def _curia() -> list:
    """The senate house: pediment, brick body with a great door and three windows, steps."""
    windows = [rect(x, 0.48, x + 0.1, 0.56) for x in (0.24, 0.45, 0.66)]
    return [("fill", "fg", [[0.1, 0.62, 0.9, 0.62, 0.5, 0.88], [0.42, 0.67, 0.58, 0.67, 0.5, 0.76]]),
            ("fill", "fg", [rect(0.16, 0.2, 0.84, 0.6), rect(0.41, 0.2, 0.59, 0.42)] + windows),
            ("fill", "accent", [rect(0.06, 0.08, 0.94, 0.14)]),
            ("fill", "accent", [rect(0.11, 0.14, 0.89, 0.19)])]


def _forum() -> list:
    """An open colonnade: architrave, four columns, a stepped base."""
    cols = [("fill", "fg", [rect(x, 0.22, x + 0.09, 0.72)]) for x in (0.15, 0.355, 0.555, 0.76)]
    return cols + [("fill", "fg", [rect(0.07, 0.72, 0.93, 0.84)]),
                   ("fill", "accent", [rect(0.04, 0.86, 0.96, 0.9)]),
                   ("fill", "accent", [rect(0.08, 0.14, 0.92, 0.21)]),
                   ("fill", "accent", [rect(0.04, 0.08, 0.96, 0.13)])]


def _fate() -> list:
    """A Fate card: a card with Fortuna's wheel cut through it."""
    spokes = [("line", "accent", [0.5 + 0.17 * math.cos(math.radians(a)), 0.5 + 0.17 * math.sin(math.radians(a)),
                                  0.5 - 0.17 * math.cos(math.radians(a)), 0.5 - 0.17 * math.sin(math.radians(a))],
               0.02, False) for a in (0, 60, 120)]
    return [("fill", "fg", [rect(0.2, 0.06, 0.8, 0.94), circle(0.5, 0.5, 0.22)]),
            ("line", "accent", circle(0.5, 0.5, 0.18), 0.03, True),
            ("fill", "accent", [circle(0.5, 0.5, 0.045)])] + spokes


def _kalends() -> list:
    """The Kalends: the new moon's crescent over the track's steps."""
    crescent = ellipse(0.5, 0.62, 0.3, 0.3, 90, 270, 20) + ellipse(0.5, 0.62, 0.12, 0.3, 270, 90, 20)[2:]
    steps = [("fill", "accent" if i < 2 else "fg", [rect(0.08 + i * 0.18, 0.08, 0.22 + i * 0.18, 0.16 + i * 0.04)])
             for i in range(5)]
    return [("fill", "fg", [crescent])] + steps


def _mask() -> list:
    outline = [0.5, 0.6] + quad((0.5, 0.6), (0.7, 0.78), (0.92, 0.64)) + quad((0.92, 0.64), (0.9, 0.34), (0.6, 0.34)) \
        + quad((0.6, 0.34), (0.5, 0.44), (0.4, 0.34)) + quad((0.4, 0.34), (0.1, 0.34), (0.08, 0.64)) \
        + quad((0.08, 0.64), (0.3, 0.78), (0.5, 0.6))
    return [("fill", "fg", [outline, ellipse(0.31, 0.53, 0.09, 0.055), ellipse(0.69, 0.53, 0.09, 0.055)]),
            ("line", "accent", [0.1, 0.6, 0.02, 0.5, 0.06, 0.3], 0.02, False),
            ("line", "accent", [0.9, 0.6, 0.98, 0.5, 0.94, 0.3], 0.02, False)]


def _crown() -> list:
    body = [0.14, 0.22, 0.86, 0.22, 0.88, 0.34, 0.93, 0.74, 0.7, 0.5, 0.5, 0.84, 0.3, 0.5, 0.07, 0.74, 0.12, 0.34]
    return [("fill", "accent", [body]),
            ("fill", "fg", [rect(0.14, 0.26, 0.86, 0.32)]),
            ("fill", "danger", [circle(0.5, 0.4, 0.05)])] + \
        [("fill", "fg", [circle(x, y, 0.045)]) for x, y in ((0.07, 0.77), (0.5, 0.87), (0.93, 0.77))]


def _martyr() -> list:
    """A figure under a halo, holding a martyr's palm."""
    shoulders = ellipse(0.45, 0.08, 0.3, 0.34, 0, 180, 20)
    return [("line", "accent", ellipse(0.45, 0.8, 0.17, 0.06), 0.03, True),
            ("fill", "fg", [circle(0.45, 0.6, 0.13)]),
            ("fill", "fg", [shoulders]),
            ("line", "good", [0.8, 0.1, 0.84, 0.5, 0.8, 0.9], 0.02, False)] + \
        [("fill", "good", [leaf(0.83, 0.45 + i * 0.1, 150 if i % 2 else 30, 0.13, 0.05)]) for i in range(5)]


def _knight() -> list:
    """A great helm with a cross-shaped visor and a plume."""
    helm = ellipse(0.5, 0.56, 0.3, 0.3, 0, 180, 20) + [0.2, 0.12, 0.8, 0.12]
    slit = [0.28, 0.5, 0.72, 0.5, 0.72, 0.56, 0.53, 0.56, 0.53, 0.3, 0.47, 0.3, 0.47, 0.56, 0.28, 0.56]
    return [("fill", "fg", [helm, slit]),
            ("fill", "danger", [[0.5, 0.86] + quad((0.5, 0.86), (0.62, 0.98), (0.88, 0.9))
                                + quad((0.88, 0.9), (0.66, 0.9), (0.52, 0.84))])]


def _shield() -> list:
    outline = [0.14, 0.9, 0.86, 0.9, 0.86, 0.52] + quad((0.86, 0.52), (0.82, 0.2), (0.5, 0.05)) \
        + quad((0.5, 0.05), (0.18, 0.2), (0.14, 0.52))
    return [("fill", "fg", [outline]),
            ("fill", "imperial", [rect(0.45, 0.1, 0.55, 0.86)]),
            ("fill", "imperial", [rect(0.18, 0.58, 0.82, 0.68)])]


def _witch() -> list:
    cone = [0.28, 0.26, 0.72, 0.26, 0.62, 0.6] + quad((0.62, 0.6), (0.7, 0.85), (0.88, 0.9)) \
        + quad((0.88, 0.9), (0.6, 0.88), (0.48, 0.62))
    return [("fill", "fg", [ellipse(0.5, 0.22, 0.44, 0.09)]),
            ("fill", "fg", [cone]),
            ("fill", "imperial", [[0.3, 0.28, 0.7, 0.28, 0.67, 0.38, 0.33, 0.38]]),
            ("fill", "accent", [rect(0.46, 0.29, 0.54, 0.37), rect(0.48, 0.31, 0.52, 0.35)])]


def _servant() -> list:
    """An amphora, carried by the house's Servants."""
    body = [0.44, 0.78, 0.56, 0.78, 0.56, 0.7] + quad((0.56, 0.7), (0.8, 0.6), (0.66, 0.3)) \
        + [0.52, 0.08, 0.48, 0.08, 0.34, 0.3] + quad((0.34, 0.3), (0.2, 0.6), (0.44, 0.7))
    return [("fill", "fg", [body]),
            ("fill", "fg", [rect(0.4, 0.78, 0.6, 0.84)]),
            ("line", "accent", [0.43, 0.76, 0.28, 0.78, 0.34, 0.6], 0.025, False),
            ("line", "accent", [0.57, 0.76, 0.72, 0.78, 0.66, 0.6], 0.025, False),
            ("fill", "accent", [rect(0.34, 0.44, 0.66, 0.48)])]


def _legion() -> list:
    """A legion's eagle standard: the eagle with spread wings over a banner."""
    wings = [0.5, 0.78, 0.08, 0.94, 0.2, 0.82, 0.12, 0.8, 0.5, 0.7, 0.88, 0.8, 0.8, 0.82, 0.92, 0.94]
    return [("fill", "fg", [rect(0.475, 0.04, 0.525, 0.72)]),
            ("fill", "accent", [wings]),
            ("fill", "accent", [circle(0.5, 0.82, 0.05)]),
            ("fill", "danger", [rect(0.27, 0.38, 0.73, 0.62)]),
            ("line", "accent", [0.27, 0.38, 0.27, 0.32, 0.73, 0.32, 0.73, 0.38], 0.015, False),
            ("fill", "accent", [rect(0.24, 0.62, 0.76, 0.66)])]


def _princeps() -> list:
    """The Princeps' seat of office: a curule chair under a laurel wreath."""
    return [("line", "fg", [0.26, 0.1, 0.74, 0.44], 0.04, False),
            ("line", "fg", [0.74, 0.1, 0.26, 0.44], 0.04, False),
            ("fill", "accent", [rect(0.18, 0.44, 0.82, 0.52)]),
            ("fill", "fg", [rect(0.2, 0.06, 0.34, 0.1), rect(0.66, 0.06, 0.8, 0.1)])] + \
        wreath(0.5, 0.72, 0.18, 4)


def _senator() -> list:
    """A senator in a toga with a purple stripe."""
    return [("fill", "fg", [circle(0.5, 0.74, 0.14)]),
            ("fill", "fg", [ellipse(0.5, 0.06, 0.32, 0.52, 0, 180, 20)]),
            ("line", "imperial", [0.32, 0.46, 0.6, 0.2, 0.66, 0.06], 0.035, False)]


def _ballot() -> list:
    """A cast vote: a tablet going into the urn."""
    return [("fill", "fg", [[0.2, 0.5, 0.8, 0.5, 0.72, 0.06, 0.28, 0.06], rect(0.34, 0.42, 0.66, 0.46)]),
            ("fill", "accent", [rotate(rect(0.38, 0.44, 0.62, 0.88), 12)])]


def _laurel() -> list:
    return wreath()


DRAWINGS = {
    # 23 Knives
    "knife": _knife, "dove": _dove, "laurel": _laurel, "blood": _blood, "dagger": _dagger,
    "curia": _curia, "fate": _fate, "kalends": _kalends, "forum": _forum,
    # Royals and Martyr (Masks)
    "mask": _mask, "crown": _crown, "martyr": _martyr,
    # Seven Knights Bewitched
    "knight": _knight, "shield": _shield, "witch": _witch,
    # Cicero
    "servant": _servant, "legion": _legion, "princeps": _princeps, "senator": _senator,
    # every game
    "ballot": _ballot,
}
NAMES = tuple(DRAWINGS)


@lru_cache(maxsize=None)
def tesselated(name: str) -> tuple:
    """The icon as ((role, 'mesh', vertices, indices) | (role, 'line', points, width, closed)),
    in unit coordinates; shapes are tesselated once."""
    out: list = []
    for kind, role, shape, *rest in DRAWINGS[name]():
        if kind == "fill":
            tess = Tesselator()
            for contour in shape:
                tess.add_contour(contour)
            if not tess.tesselate(WINDING_ODD, TYPE_POLYGONS):
                raise ValueError(f"icon {name}: a shape cannot be filled")
            for vertices, indices in tess.meshes:
                out.append((role, "mesh", tuple(vertices), tuple(indices)))
        else:
            width, closed = rest
            out.append((role, "line", tuple(shape), width, closed))
    return tuple(out)


class Icon(Widget):
    """One of the project's icons, square and centred in its box."""

    name = StringProperty("")
    color = ColorProperty(theme.NORMAL["text"])
    accent = ColorProperty(theme.NORMAL["accent"])

    def __init__(self, **kw):
        super().__init__(**kw)
        self.bind(pos=self.redraw, size=self.redraw, name=self.redraw, color=self.redraw,
                  accent=self.redraw)
        theme.ui.bind(mode=self.redraw)
        self.redraw()

    def role_colour(self, role: str):
        if role == "fg":
            return self.color
        if role == "accent":
            return self.accent
        return getattr(theme.ui, role)

    def redraw(self, *_):
        self.canvas.clear()
        if self.name in DRAWINGS:
            side = min(self.width, self.height)
            draw(self.canvas, self.name, self.center_x - side / 2, self.center_y - side / 2, side,
                 self.role_colour)


def draw(canvas, name: str, x: float, y: float, side: float, colour_of) -> None:
    """Add icon ``name`` to ``canvas`` (a canvas or InstructionGroup) in the square at (x, y)
    of ``side`` pixels, each role coloured by ``colour_of(role)``."""
    for role, kind, *data in tesselated(name):
        canvas.add(Color(rgba=colour_of(role)))
        if kind == "mesh":
            vertices, indices = data
            scaled = list(vertices)
            for i in range(0, len(scaled), 4):
                scaled[i] = x + scaled[i] * side
                scaled[i + 1] = y + scaled[i + 1] * side
            canvas.add(Mesh(vertices=scaled, indices=list(indices), mode="triangle_fan"))
        else:
            points, width, closed = data
            pts = [x + v * side if i % 2 == 0 else y + v * side for i, v in enumerate(points)]
            canvas.add(Line(points=pts, width=max(1.0, width * side), close=closed, joint="round",
                            cap="round"))
