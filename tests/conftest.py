"""Suite-wide settings. Kivy reads its environment on import, so it is set here, first."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
ARTIFACTS.mkdir(exist_ok=True)

os.environ.setdefault("KIVY_HOME", str(ROOT / ".kivy-home"))
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
# Tests must never write into the real user's data folder.
os.environ.setdefault("TABLE_COMPANION_DATA", str(ROOT / "test-artifacts" / "data"))
os.environ.setdefault("TABLE_COMPANION_CACHE", str(ROOT / "test-artifacts" / "cache"))
