"""The shell's screens: one module and one .kv file each."""
from __future__ import annotations

import importlib
from pathlib import Path

from kivy.lang import Builder

HERE = Path(__file__).resolve().parent
NAMES = ("picker", "setup", "devices", "settings", "history", "past_games", "vote", "reveal", "camera", "phone")


def load_kv(module_file: str) -> None:
    """Load the .kv next to a screen module once (Builder would apply its rules twice)."""
    path = str(Path(module_file).with_suffix(".kv"))
    if path not in Builder.files:
        Builder.load_file(path)


def load_all(app) -> list:
    screens = []
    for name in NAMES:
        module = importlib.import_module(f"companion.app.screens.{name}")
        screens.append(module.make(app))
    return screens
