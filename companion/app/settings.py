"""The table's settings (voice, pace, volumes, caption size, language), kept in a JSON file in the
user's data folder. Kivy-free so the demo and tests can read them too."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from companion.core.events import BadInput
from companion.core.i18n import keyed


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

    def validate(self) -> "Settings":
        for name, (lo, hi) in self.RANGES.items():
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not lo <= value <= hi:
                raise BadInput(keyed("app2.settings.outside", name=name, value=repr(value), lo=lo, hi=hi))
        if self.voice not in ("auto", "espeak", "plyer", "voicepack", "captions"):
            raise BadInput(keyed("app2.settings.voice", value=repr(self.voice)))
        for name in ("boxes_enabled", "dim_room"):
            if not isinstance(getattr(self, name), bool):
                raise BadInput(keyed("app2.settings.not_bool", name=name, value=repr(getattr(self, name))))
        for name in ("box_ports", "camera"):
            if not isinstance(getattr(self, name), str):
                raise BadInput(keyed("app2.settings.not_text", name=name, value=repr(getattr(self, name))))
        ports = [p.strip() for p in self.box_ports.split(",")]
        if self.boxes_enabled and (not any(ports) or any(" " in p for p in ports)):
            raise BadInput(keyed("app2.settings.box_ports", value=repr(self.box_ports)))
        return self

    @classmethod
    def load(cls, path: Path) -> "Settings":
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise BadInput(keyed("app2.settings.bad_json", path=str(path), problem=str(exc))) from None
        if not isinstance(data, dict):
            raise BadInput(keyed("app2.settings.not_object", path=str(path)))
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BadInput(keyed("app2.settings.unknown", path=str(path), names=", ".join(unknown)))
        return cls(**data).validate()

    def save(self, path: Path) -> None:
        self.validate()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        os.replace(tmp, path)  # never a half-written settings file
