"""What we can check of the Android build here (an Android build cannot run on this machine)."""
import ast
import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESKTOP_ONLY = {"tkinter", "readline", "curses", "gi", "wx", "PyQt5", "PySide6"}


def spec():
    cp = configparser.ConfigParser()
    cp.read(ROOT / "buildozer.spec")
    return cp["app"]


def test_buildozer_packs_every_kind_of_file_the_app_reads():
    exts = {e.strip() for e in spec()["source.include_exts"].split(",")}
    used = {p.suffix.lstrip(".") for p in (ROOT / "companion").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert used - {"pyc"} <= exts, used - exts


def test_buildozer_requires_what_pyproject_needs_at_run_time():
    reqs = spec()["requirements"]
    for name in ("kivy", "pyserial", "qrcode", "opencv", "plyer", "numpy"):
        assert name in reqs


def test_nothing_desktop_only_on_the_apps_import_path():
    bad = []
    for path in (ROOT / "companion").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            bad += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in DESKTOP_ONLY]
    assert bad == []
