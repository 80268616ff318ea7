"""23 Knives' narration scripts: they parse, every cue the scripted game makes resolves, and an
eyes-closed Issue sounds the same length whatever group it names (real espeak-ng audio)."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.audio import RecordingAudioOut, wav_duration
from companion.core.clock import FakeClock
from companion.core.i18n import texts, tr
from companion.core.narration import Narrator, Pause, script_timeline
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker
from companion.games.knives23 import RULES, demo, rules as k23rules
from companion.games.knives23.cues import SCRIPTS, cues, load
from companion.games.knives23.tables import tables
from companion.core.narration import slug

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "knives23"
GROUPS = [tr(f"knives23.group.{g}") for g in tables()["eyes_closed_groups"]]
# the longest wording a group may type (rules.MAX_GROUP_WORDS characters)
TYPED = "Liberators with three or more Blood on their Citizen cards!"
assert len(TYPED) <= k23rules.MAX_GROUP_WORDS


def contexts():
    return [{"group": g, "group_key": slug(g).lower()} for g in GROUPS + [TYPED]]


@pytest.fixture(scope="module")
def espeak(tmp_path_factory):
    return EspeakSpeaker(cache_dir=str(tmp_path_factory.mktemp("k23-speech")))


def test_every_script_parses():
    names = sorted(p.stem for p in SCRIPTS.glob("*.txt"))
    assert {"eyes_closed", "curia_card", "curia_verdict", "turn", "vote_open"} <= set(names)
    for name in names:
        assert load(name).steps


@pytest.mark.parametrize("pace", [0.5, 1.0, 2.0])
def test_an_eyes_closed_issue_has_the_same_timing_whatever_group_it_names(espeak, pace):
    """"After a few seconds, they call for the players indicated on the Issue to open their eyes
    ... Once enough time has passed ... close their eyes" — the same pauses whatever the Issue."""
    script = load("eyes_closed")
    timings = {tuple((round(s, 6), round(e, 6)) for s, e, _l in script_timeline(script, ctx, espeak, pace))
               for ctx in contexts()}
    assert len(timings) == 1
    captions = {tuple((round(s, 6), round(e, 6)) for s, e, _l in script_timeline(script, ctx, CaptionSpeaker(), pace))
                for ctx in contexts()}
    assert captions == timings


def _play(script_name, context, espeak, out: Path) -> float:
    clock = FakeClock()
    audio = RecordingAudioOut(str(out), clock)
    narrator = Narrator(espeak, audio, clock, rng_seed=1)
    narrator.enqueue_script(load(script_name), context)
    while narrator.busy:
        clock.advance(0.05)
        narrator.tick()
    audio.write()
    return wav_duration(str(out))


def test_eyes_closed_recordings_last_the_same_for_any_group(espeak):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    short, long_ = contexts()[0], contexts()[-1]
    a = _play("eyes_closed", short, espeak, ARTIFACTS / "eyes_closed_loyalists.wav")
    b = _play("eyes_closed", long_, espeak, ARTIFACTS / "eyes_closed_typed.wav")
    assert a > 30 and abs(a - b) < 0.06   # the same length, to the narrator's tick


def test_a_curia_card_is_one_report_of_the_card_and_the_running_total():
    """"Reveal the cards slowly—one at a time—while adding and subtracting the total": the pace
    is the table's (one card at a time); the voice says each card with the total so far, as a
    report that a newer card overtakes while it is still waiting to be said."""
    steps = load("curia_card").resolve({"card": "5 Knives", "total": 12})
    assert [(s.text, s.key) for s in steps] == [("5 Knives. The total is 12.", "curia_total")]


def test_a_newer_curia_card_overtakes_a_total_still_waiting():
    clock = FakeClock()
    narrator = Narrator(CaptionSpeaker(), RecordingAudioOut("/dev/null", clock), clock)
    for total in (5, 8, 10, 13):
        narrator.enqueue_script(load("curia_card"), {"card": "Some card", "total": total})
    narrator.enqueue_script(load("curia_verdict"), {"total": 13, "fate": "Caesar lives"})
    while narrator.busy:
        clock.advance(0.05)
        narrator.tick()
    said = [h.text for h in narrator.history]
    assert said == ["Some card. The total is 5.", "Some card. The total is 13.", "13 Knives. Caesar lives."]
    assert [d.why for d in narrator.dropped] == ["overtaken", "overtaken"]


def test_every_cue_of_the_scripted_game_resolves_and_the_curia_is_spoken_card_by_card():
    state = RULES.initial_state(demo.SETUP)
    spoken = []
    from companion.core.events import Event
    seq = 1
    for cmd in demo.commands():
        for kind, data in RULES.decide(state, cmd):
            seq += 1
            after = RULES.evolve(state, Event(seq, kind, data, cmd.source))
            for name, ctx in cues(state, Event(seq, kind, data), after):
                load(name).resolve(ctx)          # raises if a placeholder has no value
                spoken.append((name, texts(ctx)))   # as the narrator says it
            state = after
    totals = [ctx["total"] for name, ctx in spoken if name == "curia_card"]
    assert totals == [5, 8, 10, 13, 18, 16, 19, 21, 23, 22]
    assert ("curia_verdict", {"total": 22, "fate": "Caesar lives"}) in spoken
    assert spoken[-1][0] == "winners" and "Opportunists changed the fate of Caesar" in spoken[-1][1]["outcome"]
    assert sum(1 for n, _ in spoken if n == "eyes_closed") == 1
