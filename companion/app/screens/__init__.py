"""The shell's screens: one module and one .kv file each."""
from __future__ import annotations

import importlib
from pathlib import Path

from kivy.lang import Builder

HERE = Path(__file__).resolve().parent
NAMES = ("picker", "setup", "devices", "settings", "history", "past_games", "vote", "reveal", "camera", "phone")


APP_KV = str(HERE.parent / "app.kv")
_waiting: list[str] = []   # .kv files of modules imported before app.kv was loaded


def load_kv(module_file: str) -> None:
    """Load the .kv next to a screen module once (Builder would apply its rules twice).

    Never before the app's own ``app.kv``: its ``<-BigButton>`` rule drops every rule Kivy
    matched before it, so a button class of a screen whose .kv came first (its module imported
    early, as a test module does) lost its whole rule and was drawn blank. Such a file waits
    for ``load_app_kv``."""
    path = str(Path(module_file).with_suffix(".kv"))
    if path in Builder.files or path in _waiting:
        return
    if APP_KV in Builder.files:
        Builder.load_file(path)
    else:
        _waiting.append(path)


def load_app_kv() -> None:
    """``app.kv`` (the shared widget styles) once, then the screens' files that waited for it."""
    if APP_KV not in Builder.files:
        Builder.load_file(APP_KV)
    while _waiting:
        Builder.load_file(_waiting.pop(0))


def load_all(app) -> list:
    screens = []
    for name in NAMES:
        module = importlib.import_module(f"companion.app.screens.{name}")
        screens.append(module.make(app))
    return screens
