"""The table's settings (voice, pace, volumes, caption size, language), kept in a JSON file in the
user's data folder. Kivy-free so the demo and tests can read them too."""
from __future__ import annotations

import json
import os
import re
import reprlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from companion.core.events import BadInput
from companion.core.i18n import is_text, keyed, reason_of

VOICES = ("auto", "espeak", "plyer", "voicepack", "captions")
LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*")   # en, fr, pt_BR: never a path
# A value quoted in a message stays short and one line, however long or deep it is in the file.
_quote = reprlib.Repr()
_quote.maxstring = _quote.maxother = 60


class SettingsNotSaved(BadInput):
    """settings.json could not be written (a full disk, a read-only folder): the settings still
    apply until the app closes."""


@dataclass
class Settings:
    voice: str = "auto"            # auto | espeak | plyer | voicepack | captions
    voice_pack: str = ""           # folder of <line_id>.wav clips, for voice "voicepack"
    pace: float = 1.0              # 0.5 (slow) … 2.0 (fast)
    volume: float = 0.9            # narration, 0 … 1
    loop_volume: float = 0.25      # the masking background sound, 0 … 1
    masking_loop: bool = True      # play it under eyes-closed narration
    caption_size: int = 34         # sp
    language: str = "en"
    random_pauses: bool = False    # randomise narration pauses (still never tied to roles)
    dim_room: bool = False         # dim-room colours all the time (they come anyway with eyes closed)
    # Devices. Vote boxes: on/off, and "auto" (find plugged-in boxes by USB id, watch for more)
    # or a comma-separated list of ports; `python -m companion --boxes` overrides both.
    boxes_enabled: bool = True
    box_ports: str = "auto"
    camera: str = ""               # the camera to read tokens with: a device path, number or URL

    RANGES = {"pace": (0.5, 2.0), "volume": (0.0, 1.0), "loop_volume": (0.0, 1.0), "caption_size": (18, 72)}

    def wrong(self, name: str, default: Any) -> dict | None:
        """Why setting ``name`` cannot be used (a keyed one-line message), or None. ``default``
        is the field's default: its type is the type the setting must have."""
        value, shown = getattr(self, name), _quote.repr(getattr(self, name))
        if name in self.RANGES:
            lo, hi = self.RANGES[name]
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not lo <= value <= hi:
                return keyed("settings.problem.outside", name=name, value=shown, lo=lo, hi=hi)
        elif isinstance(default, bool):
            if not isinstance(value, bool):  # "no" is not false: a string is never taken as a yes
                return keyed("settings.problem.not_bool", name=name, value=shown)
        elif not isinstance(value, str) or not is_text(value):
            return keyed("settings.problem.not_text", name=name, value=shown)
        elif name == "voice" and value not in VOICES:
            return keyed("settings.problem.voice", value=shown)
        elif name == "language" and not LANGUAGE_CODE.fullmatch(value):
            return keyed("settings.problem.language", value=shown)
        elif name == "box_ports" and self.boxes_enabled:
            ports = [p.strip() for p in value.split(",")]
            if not any(ports) or any(" " in p for p in ports):
                return keyed("settings.problem.box_ports", value=shown)
        return None

    def validate(self) -> "Settings":
        for f in fields(self):
            problem = self.wrong(f.name, f.default)
            if problem:
                raise BadInput(problem)
        return self

    @classmethod
    def read(cls, path: Path) -> tuple["Settings", list[BadInput]]:
        """The settings in ``path``, and what was wrong in it: a setting that is wrong is left at
        its default and named, the others are kept; an unknown one is named and left out. The
        file is never changed. A file that cannot be read as a whole raises BadInput (OSError
        when the system refuses it)."""
        if not path.exists():
            return cls(), []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep to read
            raise BadInput(keyed("settings.problem.bad_json", path=str(path), problem=str(exc))) from None
        if not isinstance(data, dict):
            raise BadInput(keyed("settings.problem.not_object", path=str(path)))
        known = {f.name for f in fields(cls)}
        problems = []
        unknown = sorted(set(data) - known)
        if unknown:
            names = _quote.repr(", ".join(unknown))[1:-1]  # quoted short: a name may be any text
            problems.append(BadInput(keyed("settings.problem.unknown", path=str(path), names=names)))
        settings = cls(**{k: v for k, v in data.items() if k in known})
        for f in fields(cls):  # in order: box_ports is judged with boxes_enabled already mended
            problem = settings.wrong(f.name, f.default)
            if problem:
                setattr(settings, f.name, f.default)
                problems.append(BadInput(problem))
        return settings, problems

    @classmethod
    def load(cls, path: Path) -> "Settings":
        """The settings in ``path``; the first thing wrong in it raises BadInput."""
        settings, problems = cls.read(path)
        if problems:
            raise problems[0]
        return settings

    def save(self, path: Path) -> Path | None:
        """Raises BadInput for a wrong setting (nothing written), SettingsNotSaved when the file
        cannot be written (the file as it was is kept). A file there that cannot be read as
        settings (damaged, not JSON) is not overwritten: it is kept as ``settings.json.bad`` (or
        ``.bad-2``, …) and that path returned, for the table to be told."""
        self.validate()
        tmp = path.with_suffix(".tmp")
        kept = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if _unreadable(path):
                kept = _unused_name(path.with_name(path.name + ".bad"))
                os.replace(path, kept)
            tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
            os.replace(tmp, path)  # never a half-written settings file
        except OSError as exc:
            try:
                tmp.unlink(missing_ok=True)  # a half-written copy must not keep the disk full
            except OSError:
                pass
            raise SettingsNotSaved(keyed("settings.problem.not_saved", path=str(path), why=reason_of(exc))) from None
        return kept


def _unreadable(path: Path) -> bool:
    """True when ``path`` holds a file that ``Settings.read`` cannot read as a whole."""
    if not path.is_file():
        return False
    try:
        Settings.read(path)
    except BadInput:
        return True
    except OSError:
        return False  # the system refuses it: replacing it is refused too, or it is not ours to keep
    return False


def _unused_name(path: Path) -> Path:
    n, candidate = 1, path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate
