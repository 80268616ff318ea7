"""`python -m companion` starts the app; `python -m companion demo` plays a scripted segment
headless (narration to audio files, simulated inputs) and prints what the table sees and hears."""
from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["demo"]:
        from companion.demo import main as demo_main
        return demo_main(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print("usage: python -m companion [demo [--out DIR]]")
        return 0
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    from kivy.config import Config
    from kivy.utils import platform
    if platform not in ("android", "ios"):
        # On a desktop, open at a landscape tablet's size (Android runs full screen).
        Config.set("graphics", "width", "1280")
        Config.set("graphics", "height", "800")
    from companion.app.main import CompanionApp
    CompanionApp().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
