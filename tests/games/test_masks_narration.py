"""The mask game's Hidden Phase narration, recorded with real espeak-ng into one WAV.

"The narrator will call on specific Identities to open their eyes and perform the action detailed
on their card. Some actions will not occur, since three Identities are Bystanders." The tablet
does not know the Bystanders and must not hint at them: every step is called every game for the
same time.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from companion.core.audio import RecordingAudioOut, read_wav, wav_duration
from companion.core.clock import FakeClock
from companion.core.narration import Narrator, Pause, Say, WaitFor, script_timeline
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker
from companion.games.masks import cues, narration
from companion.games.masks.state import IDENTITIES

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "masks"

# The rulebook's ten steps, each by words the narration must say in that step.
TEN_STEPS = {
    1: ["Everyone, close your eyes."],
    2: ["Pamphleteer, open your eyes.", "Reveal one Bystander", "leave it face up", "Pamphleteer, close your eyes."],
    3: ["Spy, open your eyes.", "Look at one other player's Identity", "Spy, close your eyes."],
    4: ["Fugitive, open your eyes.", "Exchange your Identity with a Bystander",
        "called later in the Hidden Phase", "Fugitive, close your eyes."],
    5: ["Harlot, open your eyes.", "exchange the Identities of two other players",
        "exchange the Masks of any two players", "Harlot, close your eyes."],
    6: ["Harlot, stick out your thumb.", "Martyr, open your eyes, and look for the Harlot.",
        "Martyr, close your eyes.", "Harlot, put away your thumb."],
    7: ["Martyr, stick out your thumb.", "King and Queen, open your eyes.", "If there is only one Royal",
        "tap the shoulder", "now a Royalist", "Martyr, put away your thumb."],
    8: ["Queen, either look at your own Identity", "rearrange the face-down Bystanders",
        "Queen, close your eyes."],
    9: ["King, look at any player's Mask", "swap it with another player's Mask", "King, close your eyes."],
    10: ["without opening your eyes, move your Identity card around slightly",
         "open your eyes, and flip your Mask face up."],
}

needs_espeak = pytest.mark.skipif(not EspeakSpeaker.available(), reason="espeak-ng is not installed")


def play_through(narrator: Narrator, clock: FakeClock, until, step: float = 0.05, limit: float = 900.0):
    start = clock.now()
    while not until():
        assert clock.now() - start < limit, "the narration never finished"
        clock.advance(step)
        narrator.tick()


@pytest.fixture(scope="module")
def espeak(tmp_path_factory):
    return EspeakSpeaker(cache_dir=str(tmp_path_factory.mktemp("espeak")))


@pytest.mark.slow
@needs_espeak
def test_hidden_phase_recorded_with_every_step_and_its_planned_length(espeak):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    clock = FakeClock()
    out = RecordingAudioOut(str(ARTIFACTS / "hidden_phase.wav"), clock)
    narrator = Narrator(espeak, out, clock, rng_seed=1)
    steps_seen = []
    phase = narration.HiddenPhase(narrator, on_step=steps_seen.append)
    started = clock.now()
    phase.start()
    play_through(narrator, clock, lambda: phase.done and not narrator.busy)
    elapsed = clock.now() - started
    path = out.write()

    assert steps_seen == list(range(1, 11))
    by_step: dict[int, str] = {}
    current = 0
    spoken = {e.line_id: e.text for e in narrator.history}
    for entry in narrator.history:
        current = int(entry.line_id.split("_")[0][4:])
        by_step[current] = by_step.get(current, "") + " " + entry.text
    for n, words in TEN_STEPS.items():
        for w in words:
            assert w in by_step.get(n, ""), f"step {n} does not say {w!r}"
    # No line was cut short and no line started over another.
    assert not any(e.skipped or e.interrupted for e in narrator.history)
    for (s1, e1, cut, _), (s2, _e2, _c, _) in zip(out.log, out.log[1:]):
        assert cut is None and s2 >= e1 - 1e-6
    # The recording lasts as the timeline says, within one tick.
    planned = script_timeline(phase.script, {}, espeak)[-1][1]
    assert abs(elapsed - planned) < 0.1
    assert abs(wav_duration(path) - planned) < 0.1
    assert len(spoken) == sum(isinstance(s, Say) for s in phase.script.steps)
    # The WAV really holds speech where each line was played, and silence in the pauses.
    samples = read_wav(path)
    rate = 22050

    def loudness(a: float, b: float) -> float:
        part = samples[int(a * rate):int(b * rate):7]  # every 7th sample is plenty for a level
        return (sum(x * x for x in part) / max(1, len(part))) ** 0.5

    origin = out.origin
    for start, end, _cut, _wav in out.log:
        assert loudness(start - origin, end - origin) > 0.01
    gaps = [(e1, s2) for (_s1, e1, _c, _), (s2, _e2, _c2, _) in zip(out.log, out.log[1:]) if s2 - e1 > 2]
    assert gaps and all(loudness(a - origin + 0.2, b - origin - 0.2) < 0.001 for a, b in gaps)


def test_the_script_has_no_branch_on_the_bystanders():
    """Nothing in the script can depend on the cards: no placeholders, no waits for the table;
    and the app builds it from the varied-pauses setting alone (HiddenPhase takes no state)."""
    for varied in (False, True):
        script = narration.hidden_phase_script(varied)
        assert script.placeholders() == set()
        assert not any(isinstance(s, WaitFor) for s in script.steps)


@needs_espeak
def test_total_duration_is_the_same_whichever_identities_are_bystanders(espeak):
    script = narration.hidden_phase_script()
    totals = set()
    for center in itertools.combinations(IDENTITIES, 3):  # all 56 possible Bystander sets
        context = {"bystanders": " ".join(center), **{c: True for c in center}}
        totals.add(round(script_timeline(script, context, espeak)[-1][1], 6))
    assert len(totals) == 1
    # and the same time for every step, every game
    assert script_timeline(script, {}, espeak) == script_timeline(script, {"Queen": "center"}, espeak)
    # Every spoken line fits in its slot, so each step's length is the script's own (not the
    # voice's): the whole Hidden Phase is the sum of slots and pauses.
    for step in script.steps:
        if isinstance(step, Say):
            assert espeak.prepare(step.line_id, step.text).duration_s <= step.slot, step.line_id
    planned = sum(s.slot for s in script.steps if isinstance(s, Say)) + \
        sum(s.low for s in script.steps if isinstance(s, Pause))
    assert totals == {round(planned, 6)}


def test_varied_pauses_come_from_the_narrator_not_the_cards():
    """Per setting, pause lengths are drawn at random, within bounds, by the narrator's RNG."""
    fixed = narration.hidden_phase_script(False)
    varied = narration.hidden_phase_script(True)
    for f, v in zip(fixed.steps, varied.steps):
        if isinstance(f, Pause):
            assert (v.low, v.high) == (f.low * narration.VARY_LOW, f.high * narration.VARY_HIGH)
    speaker = CaptionSpeaker()
    a = script_timeline(varied, {}, speaker, rng_seed=1)[-1][1]
    b = script_timeline(varied, {}, speaker, rng_seed=2)[-1][1]
    assert a != b
    assert script_timeline(varied, {}, speaker, rng_seed=1)[-1][1] == a


def test_pace_is_adjustable():
    script = narration.hidden_phase_script()
    speaker = CaptionSpeaker()
    slow, normal, fast = (script_timeline(script, {}, speaker, pace=p)[-1][1] for p in (0.5, 1.0, 2.0))
    assert slow > normal > fast
    assert 1.9 < normal / fast <= 2.0  # everything halves but the shortest captions


def test_a_step_can_be_repeated_if_the_table_asks():
    clock = FakeClock()
    narrator = Narrator(CaptionSpeaker(), RecordingAudioOut("/dev/null", clock), clock)
    steps = []
    phase = narration.HiddenPhase(narrator, on_step=steps.append)
    phase.start()
    play_through(narrator, clock, lambda: phase.step == 5)
    clock.advance(3)
    narrator.tick()
    assert phase.repeat_step() == 5
    play_through(narrator, clock, lambda: phase.done and not narrator.busy)
    ids = [e.line_id for e in narrator.history]
    assert ids.count("step5_open") == 2 and ids.count("step4_open") == 1
    assert ids.count("step10_open") == 1
    assert steps == [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10]
    skipped = [e.line_id for e in narrator.history if e.skipped]
    assert len(skipped) <= 1  # only the line that was sounding when the table asked


def test_the_count_before_the_vote():
    """"On the count of 3, everyone points to one other player, who gets their vote." """
    script = cues.voting_script()
    texts = " ".join(s.text for s in script.steps if isinstance(s, Say))
    assert "On the count of three" in texts and "One." in texts and "Three." in texts
    assert "Bystanders" in texts
