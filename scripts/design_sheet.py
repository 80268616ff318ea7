"""Draws the design sheet: both palettes (each colour with its contrast against the night and the
stone) and every icon in both themes, to test-artifacts/design/sheet.png. Prints the contrast of
every named text/background pair.

    xvfb-run -a .venv/bin/python scripts/design_sheet.py
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", "1600")
Config.set("graphics", "height", "1000")

from kivy.app import App  # noqa: E402
from kivy.clock import Clock  # noqa: E402
from kivy.graphics import Color, Rectangle  # noqa: E402
from kivy.uix.boxlayout import BoxLayout  # noqa: E402
from kivy.uix.gridlayout import GridLayout  # noqa: E402
from kivy.uix.label import Label  # noqa: E402

from companion.app import icons, theme  # noqa: E402

OUT = ROOT / "test-artifacts" / "design"


def filled(widget, rgba):
    with widget.canvas.before:
        Color(rgba=rgba)
        rect = Rectangle(pos=widget.pos, size=widget.size)
    widget.bind(pos=lambda w, p: setattr(rect, "pos", p), size=lambda w, s: setattr(rect, "size", s))
    return widget


def hexcode(rgba) -> str:
    return "#" + "".join(f"{round(c * 255):02X}" for c in rgba[:3])


def column(palette: dict, title: str) -> BoxLayout:
    col = filled(BoxLayout(orientation="vertical", padding=12, spacing=6), palette["bg"])
    col.add_widget(Label(text=title, color=palette["accent"], font_size=30, bold=True,
                         size_hint_y=None, height=44))
    swatches = GridLayout(cols=4, spacing=6, size_hint_y=None, height=250)
    for name, rgba in palette.items():
        ink = palette["ink"] if theme.contrast(palette["ink"], rgba, palette["bg"]) > \
            theme.contrast(palette["text"], rgba, palette["bg"]) else palette["text"]
        figure = theme.contrast(ink, rgba, palette["bg"])
        swatches.add_widget(filled(Label(text=f"{name}\n{hexcode(rgba)}\n{figure:.1f}:1",
                                         color=ink, font_size=18, halign="center"), rgba))
    col.add_widget(swatches)
    grid = GridLayout(cols=5, spacing=6)
    for name in icons.NAMES:
        cell = filled(BoxLayout(orientation="vertical", padding=6), palette["panel"])
        cell.add_widget(icons.Icon(name=name, color=palette["text"], accent=palette["accent"]))
        cell.add_widget(Label(text=name, color=palette["muted"], font_size=18, size_hint_y=None, height=24))
        grid.add_widget(cell)
    col.add_widget(grid)
    return col


class Sheet(App):
    def build(self):
        root = BoxLayout(spacing=0)
        Clock.schedule_once(self.fill, 0.2)   # after the first frame: widgets made in build()
        # before it kept their 100×100 layout and no text under Xvfb
        # Icons take their laurel/terracotta/purple from the live theme: each column is shot
        # while the live theme is in its mode, then the two are put side by side.
        Clock.schedule_once(self.lay_out, 0.5)
        Clock.schedule_once(self.warm_up, 1.0)
        return root

    def fill(self, *_):
        self.root.add_widget(column(theme.DIM, "dim room"))
        self.root.add_widget(column(theme.NORMAL, "normal"), index=1)

    def lay_out(self, *_):
        # A layout built before the window's first resize can keep its first 100×100 layout
        # under Xvfb: lay everything out again, outside in.
        for _pass in range(2):
            for widget in self.root.walk():
                if hasattr(widget, "do_layout"):
                    widget.do_layout()
                if isinstance(widget, Label):
                    widget.texture_update()

    def warm_up(self, *_):
        # Under Xvfb the first export of a window comes out without its text: one to throw away.
        OUT.mkdir(parents=True, exist_ok=True)
        self.root.export_to_png(str(OUT / "sheet-dim.png"))
        theme.ui.forced_dim = True
        Clock.schedule_once(self.shoot_dim, 0.5)

    def shoot_dim(self, *_):
        self.lay_out()
        self.root.export_to_png(str(OUT / "sheet-dim.png"))
        theme.ui.forced_dim = False
        Clock.schedule_once(self.shoot, 0.5)

    def shoot(self, *_):
        from PIL import Image
        self.lay_out()
        self.root.export_to_png(str(OUT / "sheet-normal.png"))
        normal, dim = Image.open(OUT / "sheet-normal.png"), Image.open(OUT / "sheet-dim.png")
        half = normal.width // 2
        sheet = Image.new("RGB", normal.size)
        sheet.paste(normal.crop((0, 0, half, normal.height)), (0, 0))
        sheet.paste(dim.crop((half, 0, dim.width, dim.height)), (half, 0))
        sheet.save(OUT / "sheet.png")
        for name, pal in (("normal", theme.NORMAL), ("dim", theme.DIM)):
            worst = min((theme.contrast(pal[f], pal[b], pal["bg"]), f, b) for f, b in theme.TEXT_PAIRS)
            print(f"{name}: {len(theme.TEXT_PAIRS)} text pairs, lowest {worst[0]:.2f}:1 ({worst[1]} on {worst[2]})")
            for f, b in theme.TEXT_PAIRS:
                print(f"  {f:>8} on {b:<8} {theme.contrast(pal[f], pal[b], pal['bg']):5.2f}:1")
        print("sheet:", OUT / "sheet.png")
        self.stop()


if __name__ == "__main__":
    Sheet().run()
