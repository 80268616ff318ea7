"""Narration scripts as data: the steps, the parser, loading a script in the table's language, and
the timeline a script takes (see the package's docstring for the format)."""
from __future__ import annotations

import os
import random
import re
import string
from dataclasses import dataclass, replace
from functools import lru_cache

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.speakers import Speaker, Utterance, check_pace

MAX_SECONDS = 3600.0  # no single step longer than an hour: a typo like "pause 600000"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LINE_ID = re.compile(r"[A-Za-z0-9_.{}-]+\Z")
_SAY = re.compile(r"(?P<kind>say|report)(?:@(?P<slot>\S+))?\s+(?P<id>[^:\s]+)\s*:\s*(?P<text>.*)\Z", re.S)
_COMMENT = re.compile(r"(?:^|(?<=\s))(?<!\\)#.*\Z")


# --- steps ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Say:
    line_id: str        # may hold {placeholders}; also the clip name in a voice pack
    text: str
    slot: float = 0.0   # seconds at pace 1; 0 means "as long as the speech"
    lineno: int = 0
    key: str | None = None  # a report's key (what fact it reports); None: a script line

    @property
    def is_report(self) -> bool:
        return self.key is not None


@dataclass(frozen=True)
class Pause:
    low: float
    high: float         # equal to low for a fixed pause
    lineno: int = 0


@dataclass(frozen=True)
class WaitFor:
    event: str
    lineno: int = 0


@dataclass(frozen=True)
class Mark:
    name: str
    lineno: int = 0


Step = Say | Pause | WaitFor | Mark


@dataclass(frozen=True)
class Script:
    name: str           # the file path (or a given name): error messages name it
    steps: tuple

    def placeholders(self) -> set[str]:
        found: set[str] = set()
        for step in self.steps:
            if isinstance(step, Say):
                found |= _fields(step.line_id) | _fields(step.text)
        return found

    def resolve(self, context: dict | None = None, rng: random.Random | None = None) -> list:
        """The steps with placeholders filled and random pauses drawn (validated up front,
        so a missing value fails before anything is queued)."""
        # a value that is a message as data (i18n.keyed) is said in the language spoken now
        context = {k: i18n.text_of(v) if i18n.is_message(v) else v for k, v in (context or {}).items()}
        for step in self.steps:
            if isinstance(step, Say):
                for name in sorted(_fields(step.line_id) | _fields(step.text)):
                    if name not in context:
                        raise BadInput(i18n.keyed(
                            "script.no_value", script=self.name, line=step.lineno, placeholder="{" + name + "}",
                            names=", ".join(sorted(context)) or i18n.keyed("script.nothing")))
        rng = rng or random.Random(0)
        out: list = []
        for step in self.steps:
            if isinstance(step, Say):
                out.append(replace(step, line_id=slug(step.line_id.format_map(context)),
                                   text=step.text.format_map(context),
                                   key=None if step.key is None else slug(step.key.format_map(context))))
            elif isinstance(step, Pause):
                seconds = step.low if step.high == step.low else rng.uniform(step.low, step.high)
                out.append(Pause(seconds, seconds, step.lineno))
            else:
                out.append(step)
        return out

    def from_mark(self, name: str) -> "Script":
        """The script from ``mark NAME`` to its end: a script cut short goes on from the step
        it had reached (the journal keeps the mark's name)."""
        for i, s in enumerate(self.steps):
            if isinstance(s, Mark) and s.name == name:
                return Script(self.name, self.steps[i:])
        raise BadInput(i18n.keyed("script.no_mark", script=self.name, mark=name))

    def line_ids(self, context: dict | None = None) -> list[str]:
        """The filled line ids, e.g. to check a voice pack covers them all."""
        return [s.line_id for s in self.resolve(context) if isinstance(s, Say)]


def slug(line_id: str) -> str:
    """A filled line id made safe as a clip file name ("Royal Spies_open" -> "Royal_Spies_open")."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", line_id).strip("_") or "line"


def _fields(template: str) -> set[str]:
    return {f for _lit, f, _spec, _conv in string.Formatter().parse(template) if f}


# --- parsing -------------------------------------------------------------------------------

def _seconds(word: str, what: str) -> float:
    """``word`` as seconds; ``what`` is the script's own word for it (``pause``, ``slot``)."""
    try:
        value = float(word)
    except ValueError:
        raise BadInput(i18n.keyed("script.seconds_number", what=what, got=repr(word))) from None
    if not 0 <= value <= MAX_SECONDS:  # also refuses nan and inf
        raise BadInput(i18n.keyed("script.seconds_range", what=what, most=format(MAX_SECONDS, "g"), got=repr(word)))
    return value


def _check_template(template: str, what: dict) -> None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise BadInput(i18n.keyed("script.unbalanced", what=what, problem=str(exc))) from None
    for _lit, name, spec, conv in parts:
        if name is None:
            continue
        if not _NAME.match(name) or spec or conv:
            shown = "{" + name + ("!" + conv if conv else "") + (":" + spec if spec else "") + "}"
            raise BadInput(i18n.keyed("script.bad_placeholder", what=what, placeholder=shown))


def _parse_step(line: str, lineno: int, default_slot: float) -> Step:
    word = line.split(None, 1)[0].lower()
    rest = line[len(word):].strip()
    if word in ("say", "report") or word.startswith(("say@", "report@")):
        m = _SAY.match(line)
        if not m:
            raise BadInput(i18n.keyed("script.say_shape", step=word.split("@")[0]))
        line_id, text = m["id"], m["text"].strip()
        if not _LINE_ID.match(line_id):
            raise BadInput(i18n.keyed("script.line_id_chars", line=repr(line_id)))
        if not text:
            raise BadInput(i18n.keyed("script.no_words", line=repr(line_id)))
        _check_template(line_id, i18n.keyed("script.the_line_id"))
        _check_template(text, i18n.keyed("script.the_text"))
        slot = default_slot if m["slot"] is None else _seconds(m["slot"], "say@")
        return Say(line_id, text.replace("\\#", "#"), slot, lineno,
                   key=line_id if m["kind"] == "report" else None)
    if word == "pause":
        m = re.fullmatch(r"(\S+)(?:\s+to\s+(\S+))?", rest)
        if not m:
            raise BadInput(i18n.keyed("script.pause_shape"))
        low = _seconds(m[1], "pause")
        high = low if m[2] is None else _seconds(m[2], "pause ... to")
        if high < low:
            raise BadInput(i18n.keyed("script.pause_order", low=m[1], high=m[2]))
        return Pause(low, high, lineno)
    if word == "wait":
        m = re.fullmatch(r"for\s+(\S+)", rest)
        if not m or not _NAME.match(m[1]):
            raise BadInput(i18n.keyed("script.wait_shape"))
        return WaitFor(m[1], lineno)
    if word == "mark":
        if not _NAME.match(rest):
            raise BadInput(i18n.keyed("script.mark_shape"))
        return Mark(rest, lineno)
    raise BadInput(i18n.keyed("script.unknown_step", step=repr(word)))


def parse_script(text: str, name: str = "<script>") -> Script:
    """Parse script text; a bad line raises a one-line BadInput naming the file and line."""
    steps: list = []
    default_slot = 0.0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        try:
            if line.split(None, 1)[0].lower() == "slot":
                parts = line.split()
                if len(parts) != 2:
                    raise BadInput(i18n.keyed("script.slot_shape"))
                default_slot = _seconds(parts[1], "slot")
                continue
            steps.append(_parse_step(line, lineno, default_slot))
        except ValueError as exc:   # a BadInput (keyed) from the step's parser
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise BadInput(i18n.keyed("script.bad_line", script=name, line=lineno,
                                      problem=i18n.message_of(exc), shown=shown)) from None
    if not steps:
        raise BadInput(i18n.keyed("script.no_steps", script=name))
    return Script(name, tuple(steps))


def script_path(path: str, lang: str | None = None) -> str:
    """The script in ``lang`` (default: the app's language): ``<folder>/<lang>/<name>.txt``
    beside the English ``<folder>/<name>.txt``, or the English one if there is no translation."""
    lang = lang or i18n.language()
    if lang != "en":
        own = os.path.join(os.path.dirname(path), lang, os.path.basename(path))
        if os.path.isfile(own):
            return own
    return path


def load_script(path: str, lang: str | None = None) -> Script:
    """``path`` names the English script; the current language's own file is read if present."""
    path = script_path(path, lang)
    try:
        return _load_script(path, os.stat(path).st_mtime_ns)
    except OSError as exc:
        raise BadInput(i18n.keyed("script.unreadable", path=path, problem=f"{type(exc).__name__}: {exc}")) from None


@lru_cache(maxsize=256)
def _load_script(path: str, mtime_ns: int) -> Script:  # parsed once per file version
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(i18n.keyed("script.unreadable", path=path, problem=f"{type(exc).__name__}: {exc}")) from None
    return parse_script(text, path)


SHARED_SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "narration")


def shared_script(name: str) -> Script:
    """A script from companion/narration/ by file stem, e.g. ``shared_script("ready_set_go")``."""
    return load_script(os.path.join(SHARED_SCRIPTS, f"{name}.txt"))


# --- timing --------------------------------------------------------------------------------

def say_length(step: Say, utterance: Utterance, pace: float) -> float:
    """How long a say step holds the floor: its slot (scaled by pace) or its speech."""
    return max(step.slot / pace, utterance.duration_s)


def script_timeline(script: Script, context: dict | None, speaker: Speaker, pace: float = 1.0,
                    rng_seed: int = 0) -> list[tuple[float, float, str]]:
    """``(start, end, label)`` for every step, from 0, as the narrator would play it.

    Labels: the line id for a say, "pause", "wait for NAME" and "mark NAME" (waits count as
    zero: their length is the table's, not the script's).
    """
    pace = check_pace(pace)
    t, out = 0.0, []
    for step in script.resolve(context, random.Random(rng_seed)):
        if isinstance(step, Say):
            length = say_length(step, speaker.prepare(step.line_id, step.text, pace), pace)
            out.append((t, t + length, step.line_id))
        elif isinstance(step, Pause):
            length = step.low / pace
            out.append((t, t + length, "pause"))
        elif isinstance(step, WaitFor):
            length = 0.0
            out.append((t, t, f"wait for {step.event}"))
        else:
            length = 0.0
            out.append((t, t, f"mark {step.name}"))
        t += length
    return out
