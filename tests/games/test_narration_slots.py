"""Slots that fit: every line with a fixed slot, in every game's scripts, fits it for every
speaker (espeak-ng, a recorded voice pack, the platform voice's estimate, captions only) at the
pace extremes the settings allow; so a script's length is the same whatever the hidden setup,
whatever group name the table typed, whatever voice — and scales exactly with the pace."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.events import BadInput
from companion.core.i18n import tr
from companion.core.narration import Say, load_script, script_timeline
from companion.core.speakers import (MAX_PACE, MIN_PACE, CaptionSpeaker, EspeakSpeaker,
                                     PlyerSpeaker, VoicePackSpeaker)
from companion.games.knives23 import cues as k23
from companion.games.knives23.tables import tables

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for p in list((ROOT / "companion" / "games").glob("*/scripts/*.txt"))
                 + list((ROOT / "companion" / "narration").glob("*.txt")) if p.name != "README.txt")
PACES = (MIN_PACE, 1.0, MAX_PACE)
GROUPS = [tr(f"knives23.group.{g}") for g in tables()["eyes_closed_groups"]]
TYPED_OK = ["Liberators with three or more Blood on their Citizen cards!",
            "Players with 2 or more Daggers", "Everyone seated at seats 1, 2 and 3"]
TYPED_REFUSED = ["Players 1234567890123456789", "Everyone holding 12345 or 67890 Knives, 2024"]


def contexts(path: Path) -> list[dict]:
    if path.name == "eyes_closed.txt":
        return [k23.eyes_closed_context(g) for g in GROUPS + TYPED_OK]
    return [{}]


def slotted(path: Path) -> bool:
    return any(isinstance(s, Say) and s.slot for s in load_script(str(path)).steps)


@pytest.fixture(scope="module")
def speakers(tmp_path_factory):
    cache = tmp_path_factory.mktemp("slots-speech")
    espeak = EspeakSpeaker(cache_dir=str(cache))
    # A "recorded" voice pack: every slotted line spoken once at pace 1 (clips do not follow pace).
    pack = tmp_path_factory.mktemp("voicepack")
    for path in SCRIPTS:
        if slotted(path):
            for ctx in contexts(path):
                for s in load_script(str(path)).resolve(ctx):
                    if isinstance(s, Say) and s.slot and not (pack / f"{s.line_id}.wav").exists():
                        shutil.copy(espeak.prepare(s.line_id, s.text, 1.0).wav_path, pack / f"{s.line_id}.wav")
    return {"espeak": espeak, "captions": CaptionSpeaker(), "plyer": PlyerSpeaker(tts=object()),
            "voicepack": VoicePackSpeaker(str(pack), fallback=espeak)}


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in SCRIPTS if slotted(p)], ids=lambda p: p.name)
def test_every_slotted_line_fits_for_every_speaker_at_every_pace(path, speakers):
    over = []
    for ctx in contexts(path):
        for s in load_script(str(path)).resolve(ctx):
            if not (isinstance(s, Say) and s.slot):
                continue
            for name, speaker in speakers.items():
                for pace in PACES:
                    if pace > speaker.max_pace:  # the narrator never runs this voice so fast
                        continue
                    length = speaker.prepare(s.line_id, s.text, pace).duration_s
                    if length > s.slot / pace + 1e-6:
                        over.append(f"{s.line_id} {name} pace {pace}: {length:.2f} s > {s.slot / pace:.2f} s")
    assert over == []


@pytest.mark.parametrize("path", [p for p in SCRIPTS if slotted(p)], ids=lambda p: p.name)
def test_a_scripts_length_is_the_same_for_every_setup_and_speaker_and_scales_with_pace(path, speakers):
    script = load_script(str(path))
    totals = {}
    for name in ("espeak", "captions", "plyer"):
        for pace in PACES:
            for ctx in contexts(path):
                timeline = script_timeline(script, ctx, speakers[name], pace)
                totals[(name, pace, tuple(ctx.values()))] = timeline[-1][1] * pace
    assert max(totals.values()) - min(totals.values()) < 0.05, sorted(set(round(v, 2) for v in totals.values()))


def test_a_typed_group_too_long_to_speak_in_its_slot_is_refused_in_one_line(speakers):
    for group in TYPED_OK:
        k23.check_spoken_group(group)
        # the estimate the check uses is an upper bound of the real voice
        for s in load_script(str(k23.SCRIPTS / "eyes_closed.txt")).resolve(k23.eyes_closed_context(group)):
            if isinstance(s, Say):
                for pace in PACES:
                    assert speakers["espeak"].prepare(s.line_id, s.text, pace).duration_s <= s.slot / pace
    for group in TYPED_REFUSED:
        with pytest.raises(BadInput, match="too long to speak in its slot") as err:
            k23.check_spoken_group(group)
        assert "\n" not in str(err.value)


def test_the_rules_refuse_a_typed_group_too_long_to_speak():
    from companion.games.knives23 import RULES, demo
    from companion.core.events import Command
    state = RULES.initial_state(demo.SETUP)
    cmds = demo.commands()
    n = next(i for i, c in enumerate(cmds) if c.kind == "eyes_closed")
    from companion.core.events import Event
    seq = 0
    for cmd in cmds[:n]:
        for kind, data in RULES.decide(state, cmd):
            seq += 1
            state = RULES.evolve(state, Event(seq, kind, data, cmd.source))
    with pytest.raises(BadInput, match="too long to speak in its slot"):
        RULES.decide(state, Command("eyes_closed", {"group": TYPED_REFUSED[0]}, "tablet"))
    assert RULES.decide(state, Command("eyes_closed", {"group": TYPED_OK[1]}, "tablet"))


def _cli_total(*args) -> float:
    done = subprocess.run([sys.executable, "-m", "companion.core.narration", *args], cwd=str(ROOT),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.strip().splitlines()[-1].split()[1])


@pytest.mark.slow
def test_the_command_line_prints_the_same_total_for_every_group_speaker_and_pace():
    script = str(k23.SCRIPTS / "eyes_closed.txt")
    totals = set()
    for group in (GROUPS[0], GROUPS[-1], TYPED_OK[0]):
        ctx = k23.eyes_closed_context(group)
        for speaker in ("espeak", "captions"):
            for pace in PACES:
                total = _cli_total(script, f"group={ctx['group']}", f"group_key={ctx['group_key']}",
                                   "--speaker", speaker, "--pace", str(pace))
                totals.add(round(total * pace, 1))
    assert len(totals) == 1, totals


def test_a_recorded_voice_keeps_the_narrator_at_its_recorded_pace(speakers):
    from companion.core.audio import RecordingAudioOut
    from companion.core.clock import FakeClock
    from companion.core.narration import Narrator
    clock = FakeClock()
    n = Narrator(speakers["espeak"], RecordingAudioOut("/dev/null", clock), clock, pace=MAX_PACE)
    assert n.pace == MAX_PACE
    n.set_speaker(speakers["voicepack"])
    assert n.pace == 1.0
    n.set_speaker(speakers["captions"])
    assert n.pace == MAX_PACE
