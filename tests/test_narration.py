"""Narration scripts and the narrator: parsing, one strict queue, identical timing.

Queue logic runs on a FakeClock; speech is real espeak-ng, and the recorded narration is a
real WAV mixed by RecordingAudioOut (saved under test-artifacts/narration/).
"""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.audio import RecordingAudioOut, make_masking_loop, read_wav
from companion.core.clock import FakeClock
from companion.core.events import BadInput
from companion.core.narration import (Mark, Narrator, Pause, Say, WaitFor, load_script,
                                      parse_script, record_narration, script_timeline,
                                      shared_script)
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker, Utterance

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "narration"

ISSUE = """\
# Eyes-closed Issue
say check_allegiance: Everyone, check your allegiance. Then close your eyes.
pause 4
say@7 {group}_open: {group_spoken}, open your eyes and look around.
pause 6 to 9          # random duration, drawn once per step from a seeded RNG
say@4 {group}_close: {group_spoken}, close your eyes.
wait for ballots_in   # waits until narrator.notify("ballots_in") is called
say everyone_open: Everyone, open your eyes.
"""

# Royals and Martyr Masks, the Hidden Phase (rulebook, "Narrator Script"): every Identity is
# called whether or not it is in play, each line in a slot longer than its speech.
MASKS_HIDDEN_PHASE = """\
slot 4
say everyone_close: Everyone, close your eyes.
pause 2
say@7 pamphleteer: Pamphleteer, open your eyes. Reveal one Bystander from the middle three cards and leave it face-up. Pamphleteer, close your eyes.
pause 2 to 3
say@6 spy: Spy, open your eyes. Look at one other player's Identity, then flip the card face-down again. Spy, close your eyes.
pause 2 to 3
say@5 harlot_thumb: Harlot, stick out your thumb. Martyr, open your eyes and look for the Harlot.
pause 2
say martyr_close: Martyr, close your eyes. Harlot, put away your thumb.
say@9 everyone_shuffle: Everyone, without opening your eyes, move your Identity card around slightly. Everyone, open your eyes and flip your Mask face-up.
mark discussion_starts
"""


@pytest.fixture(scope="module")
def espeak(tmp_path_factory):
    return EspeakSpeaker(cache_dir=str(tmp_path_factory.mktemp("speech-cache")))


class Table:
    """A narrator on a FakeClock with a recording output, as a test drives it."""

    def __init__(self, speaker, tmp_path, seed=1, **kw):
        self.clock = FakeClock(100.0)
        self.out = RecordingAudioOut(str(tmp_path / "rec.wav"), self.clock)
        self.captions, self.marks, self.idle = [], [], 0
        self.narrator = Narrator(speaker, self.out, self.clock, on_caption=self.captions.append,
                                 rng_seed=seed, on_mark=self.marks.append,
                                 on_idle=self._idle, **kw)

    def _idle(self):
        self.idle += 1

    def run(self, seconds, step=0.05):
        """Advance time as the app's Clock would, ticking every ``step`` seconds."""
        for _ in range(round(seconds / step)):
            self.clock.advance(step)
            self.narrator.tick()

    def run_until_idle(self, step=0.05, limit=600):
        for _ in range(round(limit / step)):
            if not self.narrator.busy:
                return
            self.clock.advance(step)
            self.narrator.tick()
        raise AssertionError("narration did not finish")

    def said(self):
        return [e.line_id for e in self.narrator.history]


# --- parsing -------------------------------------------------------------------------------

def test_script_steps_are_read_as_written():
    script = parse_script(ISSUE, "issue.txt")
    assert script.steps == (
        Say("check_allegiance", "Everyone, check your allegiance. Then close your eyes.", 0.0, 2),
        Pause(4.0, 4.0, 3),
        Say("{group}_open", "{group_spoken}, open your eyes and look around.", 7.0, 4),
        Pause(6.0, 9.0, 5),
        Say("{group}_close", "{group_spoken}, close your eyes.", 4.0, 6),
        WaitFor("ballots_in", 7),
        Say("everyone_open", "Everyone, open your eyes.", 0.0, 8),
    )
    assert script.placeholders() == {"group", "group_spoken"}


def test_slot_setting_comments_and_escaped_hash():
    script = parse_script("slot 5\nsay a: Card \\#3, please.  # a note\nslot 0\nsay b: Hi.\n"
                          "say@2.5 c: Go.\nmark reveal\n")
    assert [(s.line_id, s.text, s.slot) for s in script.steps[:3]] == \
        [("a", "Card #3, please.", 5.0), ("b", "Hi.", 0.0), ("c", "Go.", 2.5)]
    assert script.steps[3] == Mark("reveal", 6)


@pytest.mark.parametrize("line, problem", [
    ("sya hello: Hi.", "unknown step 'sya'"),
    ("say hello Hi there.", "written 'say line_id: the words to speak'"),
    ("say hello:   ", "line 'hello' has no words to speak"),
    ("say bad/id: Hi.", "may hold only letters"),
    ("say x: {group.name} wakes.", "bad placeholder"),
    ("say x: {group wakes.", "unbalanced braces"),
    ("say@soon x: Hi.", "say@ needs a number of seconds, got 'soon'"),
    ("pause four", "pause needs a number of seconds, got 'four'"),
    ("pause 9 to 6", "the second number must not be smaller"),
    ("pause -1", "between 0 and 3600"),
    ("pause nan", "between 0 and 3600"),
    ("pause 4 or 5", "written 'pause 4' or 'pause 6 to 9'"),
    ("wait ballots_in", "written 'wait for event_name'"),
    ("wait for ballots-in", "written 'wait for event_name'"),
    ("mark", "written 'mark name'"),
    ("slot", "written 'slot 5'"),
])
def test_a_bad_line_names_file_line_and_problem_in_one_line(line, problem):
    text = f"# header\nsay ok: Fine.\n{line}\nsay after: Fine too.\n"
    with pytest.raises(BadInput) as err:
        parse_script(text, "knives/issue.txt")
    message = str(err.value)
    assert message.startswith("knives/issue.txt line 3: ") and problem in message
    assert "\n" not in message


def test_a_script_needs_steps():
    with pytest.raises(BadInput, match="empty.txt: the script has no steps"):
        parse_script("# only a comment\n\n", "empty.txt")


def test_load_script_from_file_and_bad_files(tmp_path):
    good = tmp_path / "issue.txt"
    good.write_text(ISSUE, encoding="utf-8")
    assert load_script(str(good)).name == str(good)
    bad = tmp_path / "bad.txt"
    bad.write_text("say a: Hi.\npause 3 seconds\n", encoding="utf-8")
    with pytest.raises(BadInput, match=rf"{bad} line 2: "):
        load_script(str(bad))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("say a: C\xe9sar.\n".encode("latin-1"))
    with pytest.raises(BadInput, match="cannot read the script .*UnicodeDecodeError"):
        load_script(str(latin))
    with pytest.raises(BadInput, match="cannot read the script"):
        load_script(str(tmp_path / "missing.txt"))


def test_shared_reveal_scripts_parse():
    for name in ("count_of_three", "ready_set_go"):
        steps = shared_script(name).steps
        assert Mark("reveal", steps[-2].lineno) == steps[-2] and isinstance(steps[-1], Say)


def test_missing_value_queues_nothing(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    table.narrator.say("hello", "Hello.")
    before = list(table.narrator.pending())
    with pytest.raises(BadInput) as err:
        table.narrator.enqueue_script(parse_script(ISSUE, "issue.txt"), {"group": "spies"})
    assert str(err.value).startswith("issue.txt line 4: no value for {group_spoken}")
    assert table.narrator.pending() == before and table.said() == ["hello"]


def test_filled_line_ids_are_safe_clip_names():
    script = parse_script(ISSUE, "issue.txt")
    ids = script.line_ids({"group": "Royal Spies", "group_spoken": "Spies"})
    assert ids == ["check_allegiance", "Royal_Spies_open", "Royal_Spies_close", "everyone_open"]


# --- identical timing ----------------------------------------------------------------------

CONTEXTS = [
    {"group": "conspirators", "group_spoken": "Conspirators"},
    {"group": "loyalists", "group_spoken": "Loyalists of the Republic and the Senate"},
    {"group": "nobody", "group_spoken": "Nobody"},
]


def test_every_context_gives_the_same_timeline(espeak):
    script = parse_script(ISSUE, "issue.txt")
    timelines = [script_timeline(script, ctx, espeak, pace=1.0, rng_seed=5) for ctx in CONTEXTS]
    shapes = [[(round(s, 9), round(e, 9)) for s, e, _id in t] for t in timelines]
    assert shapes[0] == shapes[1] == shapes[2]
    # and the line ids really differ, so the test compared different speech
    assert timelines[0][2][2] == "conspirators_open" and timelines[1][2][2] == "loyalists_open"
    assert [label for *_t, label in timelines[0]][-2:] == ["wait for ballots_in", "everyone_open"]


def test_a_slot_too_short_for_the_longest_name_shows_as_a_leak(espeak):
    # The same script with no slots: the timeline betrays which group was called.
    leaky = parse_script(ISSUE.replace("say@7", "say").replace("say@4", "say"), "leaky.txt")
    ends = {script_timeline(leaky, ctx, espeak, rng_seed=5)[-1][1] for ctx in CONTEXTS}
    assert len(ends) == 3


def test_the_narrator_plays_the_timeline_it_promised(espeak, tmp_path):
    script = parse_script(ISSUE, "issue.txt")
    expected = script_timeline(script, CONTEXTS[1], espeak, rng_seed=9)
    table = Table(espeak, tmp_path, seed=9)
    table.narrator.enqueue_script(script, CONTEXTS[1])
    table.run(40, step=0.01)
    assert table.narrator.waiting_for == "ballots_in"
    table.narrator.notify("ballots_in")
    table.run_until_idle(step=0.01)
    origin = table.narrator.history[0].at
    got = [(round(e.at - origin, 6), e.line_id) for e in table.narrator.history]
    want = [(round(s, 6), label) for s, _e, label in expected
            if label not in ("pause", "wait for ballots_in")]
    assert got[:3] == want[:3]
    # the last line starts when the table said so, not on the script's schedule
    assert got[3][1] == "everyone_open" and got[3][0] >= want[3][0]


# --- the queue -----------------------------------------------------------------------------

def test_lines_never_overlap_however_fast_the_table_taps(espeak, tmp_path):
    table = Table(espeak, tmp_path)
    for i in range(12):  # twelve taps within a tenth of a second
        table.narrator.say(f"tap_{i}", f"Tap number {i}.")
        table.clock.advance(0.008)
        table.narrator.tick()
    table.narrator.repeat_last()    # tap_0 is still being said: it comes again next
    table.run_until_idle(step=0.03)
    assert table.said() == ["tap_0"] + [f"tap_{i}" for i in range(12)]
    log = table.out.log
    assert len(log) == 13 and all(cut is None for _s, _e, cut, _p in log)
    for (_s0, end0, _c0, _p0), (start1, _e1, _c1, _p1) in zip(log, log[1:]):
        assert start1 >= end0 - 1e-9
    # every line was captioned, and the caption cleared before the next
    texts = [c for c in table.captions if c is not None]
    assert len(texts) == 13 and table.captions.count(None) == 13


def test_repeat_last_comes_right_after_the_current_line(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    assert n.repeat_last() is False  # nothing said yet
    n.say("a", "Spy, open your eyes.")
    n.say("b", "Spy, close your eyes.")
    n.say("c", "Everyone, open your eyes.")
    table.run(0.2)
    n.repeat_last()
    table.run_until_idle()
    assert table.said() == ["a", "a", "b", "c"]
    n.repeat_last()  # idle: says it at once
    assert table.said() == ["a", "a", "b", "c", "c"] and n.current_line.line_id == "c"


def test_pause_and_resume_say_the_interrupted_line_again_in_full(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    n.enqueue_script(parse_script("say a: Everyone, close your eyes.\npause 5\nsay b: Spy, open your eyes.\n"))
    length_a = n.current_line.duration_s
    table.run(0.5)
    n.pause()
    assert n.paused and n.busy
    table.run(30)                   # a long interruption: nothing moves
    assert table.said() == ["a"]
    n.resume()
    assert table.said() == ["a", "a"] and n.history[0].interrupted
    table.run(length_a - 0.05)
    assert n.current_line.line_id == "a"
    table.run(0.1)                  # now in the 5 s pause
    assert n.current_line is None and n.busy
    table.run(2.0)
    n.pause()
    table.run(10)
    n.resume()                      # the pause has 3 s left, not 0
    table.run(2.9)
    assert table.said() == ["a", "a"]
    table.run(0.2)
    assert table.said() == ["a", "a", "b"]
    assert n.history[2].at - n.history[1].ended_at == pytest.approx(5 + 10, abs=0.051)


def test_say_while_paused_waits_for_resume(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    table.narrator.pause()
    table.narrator.say("a", "Hello.")
    table.run(3)
    assert table.said() == []
    table.narrator.resume()
    assert table.said() == ["a"]


def test_skip_cuts_the_line_and_ends_pauses_and_waits(espeak, tmp_path):
    table = Table(espeak, tmp_path)
    n = table.narrator
    n.enqueue_script(parse_script("say a: Everyone, check your allegiance.\npause 10\n"
                                  "wait for ballots_in\nsay b: Ballots are in.\n"))
    table.run(0.5)
    n.skip()
    assert table.out.log[0][2] is not None and n.history[0].skipped   # cut short
    assert table.captions[-1] is None and n.current_line is None       # in the pause now
    n.skip()
    assert n.waiting_for == "ballots_in"
    n.skip()
    assert table.said() == ["a", "b"] and table.out.is_playing()


def test_wait_for_takes_only_its_event_and_remembers_an_early_one(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    n.enqueue_script(parse_script("say a: Vote now.\nwait for ballots_in\nsay b: All in.\n"
                                  "wait for timer_done\nsay c: Time.\n"))
    assert n.notify("timer_done") is True        # early: the later wait will not stop
    assert n.notify("dagger_moved") is False     # nobody waits for it
    table.run(10)
    assert n.waiting_for == "ballots_in" and table.said() == ["a"]
    t = table.clock.now()
    assert n.notify("ballots_in") is True
    table.run_until_idle()
    assert table.said() == ["a", "b", "c"]
    assert n.history[1].at == pytest.approx(t)
    assert n.history[2].at == pytest.approx(n.history[1].ended_at)


def test_an_interjection_is_said_during_a_wait_and_the_wait_goes_on(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    n.enqueue_script(parse_script("say a: Vote now.\nwait for ballots_in\nsay b: All in.\n"))
    n.say("later", "Queued normally.")
    table.run(5)
    assert n.waiting_for == "ballots_in"
    n.say("timer_ten_seconds", "Ten seconds.", interject=True)    # a timer warning
    assert n.current_line.line_id == "timer_ten_seconds" and n.waiting_for is None
    assert n.notify("ballots_in") is True                         # taken by the set-aside wait
    table.run_until_idle()
    assert table.said() == ["a", "timer_ten_seconds", "b", "later"]
    n.say("x", "One.")
    n.say("y", "Two.")
    n.say("z", "Urgent.", interject=True)                         # after the current line only
    table.run_until_idle()
    assert table.said()[-3:] == ["x", "z", "y"]
    with pytest.raises(BadInput, match="slot needs a number of seconds"):
        n.say("w", "Hi.", slot="long")


def test_random_pauses_follow_the_seed(tmp_path):
    script = parse_script("say a: One.\npause 6 to 9\nsay b: Two.\npause 6 to 9\nsay c: Three.\n")

    def gaps(seed):
        table = Table(CaptionSpeaker(), tmp_path, seed=seed)
        table.narrator.enqueue_script(script)
        table.run_until_idle(step=0.01)
        h = table.narrator.history
        return [round(h[i + 1].at - h[i].ended_at, 6) for i in range(2)]

    first = gaps(3)
    assert first == gaps(3) and first != gaps(4)
    for seed in range(20):
        assert all(6 - 1e-6 <= g <= 9 + 1e-6 for g in gaps(seed))


def test_marks_and_idle_reach_the_app(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    table.narrator.enqueue_script(shared_script("ready_set_go"))
    table.run_until_idle()
    assert table.marks == ["reveal"] and table.idle == 1
    assert table.said() == ["count_ready", "count_set", "count_go"]


def test_a_count_in_mark_is_passed_only_after_its_line_and_line_left_follows_it(tmp_path):
    """The reveal's count-in (issue 33): queued behind a line still being said, its mark comes
    once the count-in has been said to its end; ``line_left`` is None until the line sounds, then
    counts its own schedule down."""
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    n.say("question", "The vote is open. Each player in turn: hold your name, then choose in secret.")
    table.run(0.5)
    n.enqueue_steps([Say("count_in", "Put the tablet down in the middle. Reveal in 3, 2, 1."), Mark("turn_over")])
    left = []
    while n.has_pending_mark("turn_over"):
        left.append(n.line_left("count_in"))
        table.run(0.05)
    count_in = n.history[-1]
    assert table.marks == ["turn_over"] and count_in.line_id == "count_in"
    assert count_in.ended_at is not None and table.clock.now() >= count_in.ended_at
    assert left[0] is None and n.history[0].ended_at <= count_in.started_at   # the question first
    sounding = [x for x in left if x is not None]
    assert sounding and sounding == sorted(sounding, reverse=True) and sounding[-1] < 0.1
    assert n.line_left("count_in") is None   # said


def test_pace_scales_slots_and_pauses(tmp_path):
    script = parse_script("say@4 a: One.\npause 6\nsay b: Two.\n")

    def start_of_b(pace):
        table = Table(CaptionSpeaker(), tmp_path, pace=pace)
        table.narrator.enqueue_script(script)
        table.run_until_idle(step=0.01)
        return table.narrator.history[1].at - table.narrator.history[0].at

    assert start_of_b(1.0) == pytest.approx(10.0, abs=1e-6)
    assert start_of_b(2.0) == pytest.approx(5.0, abs=1e-6)
    with pytest.raises(BadInput, match="pace must be between"):
        Narrator(CaptionSpeaker(), None, FakeClock(), pace=5)


def test_a_line_whose_sound_outlasts_its_slot_holds_the_next(espeak, tmp_path):
    class UnderReporting(EspeakSpeaker):
        """A backend whose length is wrong (as a platform voice's estimate can be)."""

        def prepare(self, line_id, text, pace=1.0):
            real = super().prepare(line_id, text, pace)
            return Utterance(line_id, text, real.wav_path, real.duration_s / 2)

    speaker = UnderReporting(cache_dir=espeak.cache_dir)
    table = Table(speaker, tmp_path)
    table.narrator.say("a", "Everyone, check your allegiance. Then close your eyes.")
    table.narrator.say("b", "Spy, open your eyes.")
    table.run_until_idle(step=0.02)
    (_s, end_a, cut, _p), (start_b, *_rest) = table.out.log
    assert cut is None and start_b >= end_a


def test_a_voice_that_breaks_mid_game_leaves_the_captions_running(espeak, tmp_path):
    speaker = EspeakSpeaker(cache_dir=str(tmp_path))
    table = Table(speaker, tmp_path)
    table.narrator.say("a", "Everyone, close your eyes.")
    speaker.binary = str(tmp_path / "uninstalled" / "espeak-ng")   # gone from under us
    table.narrator.say("b", "Spy, open your eyes.")
    table.run_until_idle()
    assert table.said() == ["a", "b"]
    assert [c for c in table.captions if c] == ["Everyone, close your eyes.", "Spy, open your eyes."]
    assert table.narrator.last_error.startswith("line 'b': ") and len(table.narrator.errors) == 1
    assert "\n" not in table.narrator.last_error
    assert len(table.out.log) == 1                                  # only "a" had sound
    table.narrator.enqueue_script(parse_script("say c: Again.\n"), prefetch=True)  # no raise
    table.run_until_idle()
    assert table.said()[-1] == "c" and len(table.narrator.errors) == 2
    h = table.narrator.history[1]
    caption_length = CaptionSpeaker().prepare("b", h.text).duration_s
    assert h.ended_at - h.at == pytest.approx(caption_length, abs=0.051)  # up to a tick late


def test_next_change_in_says_when_to_tick(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    assert n.next_change_in() is None                               # idle
    n.enqueue_script(parse_script("say@3 a: One.\npause 2\nwait for go\nsay b: Two.\n"))
    assert n.next_change_in() == pytest.approx(3.0)
    table.clock.advance(1.0)
    assert n.next_change_in() == pytest.approx(2.0)
    n.pause()
    assert n.next_change_in() is None                               # paused
    n.resume()                                                      # "a" again, in full
    assert n.next_change_in() == pytest.approx(3.0)
    table.clock.advance(3.0)
    n.tick()
    assert n.next_change_in() == pytest.approx(2.0)                 # the pause
    table.clock.advance(2.0)
    n.tick()
    assert n.waiting_for == "go" and n.next_change_in() is None


def test_volume_and_background_loop(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    n = table.narrator
    loop = make_masking_loop(str(tmp_path / "noise.wav"), seconds=1.0)
    n.start_background(loop)
    assert table.out.looping
    n.loop_volume = 0.1          # re-levels the running loop
    assert table.out._loops[-1][2] == 0.1
    with pytest.raises(BadInput, match="loop volume must be between 0 and 1"):
        n.loop_volume = 1.5
    with pytest.raises(BadInput, match="volume must be between 0 and 1"):
        n.volume = -0.1
    n.stop_background()
    assert not table.out.looping


def test_cancel_drops_everything(tmp_path):
    table = Table(CaptionSpeaker(), tmp_path)
    table.narrator.enqueue_script(parse_script(MASKS_HIDDEN_PHASE, "masks.txt"))
    table.run(3)
    table.narrator.cancel()
    assert not table.narrator.busy and table.captions[-1] is None
    table.run(60)
    assert table.said() == ["everyone_close"] and table.marks == []


# --- a whole narration, recorded -----------------------------------------------------------

def test_recorded_hidden_phase_narration(espeak, tmp_path):
    """The Masks Hidden Phase read by espeak-ng over the masking loop, mixed into one WAV."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    wav = ARTIFACTS / "masks_hidden_phase.wav"
    script = parse_script(MASKS_HIDDEN_PHASE, "masks_hidden_phase.txt")
    timeline = script_timeline(script, {}, espeak, rng_seed=2)
    clock = FakeClock(0.0)
    out = RecordingAudioOut(str(wav), clock)
    marks = []
    n = Narrator(espeak, out, clock, rng_seed=2, on_mark=marks.append, loop_volume=0.15)
    n.start_background(make_masking_loop(str(tmp_path / "noise.wav")))
    clock.advance(1.0)               # a second of masking noise before the first line
    n.enqueue_script(script)
    while n.busy:  # as the app does: every 50 ms, and exactly when a step is due
        due = n.next_change_in()
        clock.advance(0.05 if due is None else min(0.05, due))
        n.tick()
    n.stop_background()
    out.write()
    (ARTIFACTS / "masks_hidden_phase.txt").write_text(n.transcript(), encoding="utf-8")

    total = float(subprocess.run(["soxi", "-D", str(wav)], capture_output=True, text=True,
                                 check=True).stdout)
    assert marks == ["discussion_starts"]
    assert total == pytest.approx(1.0 + timeline[-1][1], abs=1e-3)
    assert [round(e.at - 1.0, 6) for e in n.history] == \
        [round(s, 6) for s, _e, label in timeline if label not in ("pause", "mark discussion_starts")]
    mixed = read_wav(str(wav))

    def level(a, b):
        part = mixed[int(a * 22050):int(b * 22050)]
        return math.sqrt(sum(x * x for x in part) / len(part))
    speech = [level(1 + s + 0.2, 1 + s + 1.0) for s, _e, label in timeline
              if label not in ("pause", "mark discussion_starts")]
    gaps = [level(1 + s + 0.3, 1 + e - 0.3) for s, e, label in timeline if label == "pause"]
    assert min(speech) > 2 * max(gaps) > 0   # voice over the noise; noise alone in pauses
    # a picture of it for a reviewer (sox draws it): speech bursts over a steady noise bed
    subprocess.run(["sox", str(wav), "-n", "spectrogram", "-x", "1000", "-y", "257", "-o",
                    str(ARTIFACTS / "masks_hidden_phase_spectrogram.png")], check=True)


def test_record_narration_answers_waits_after_the_given_delay(tmp_path):
    script = parse_script("say a: Vote now.\nwait for ballots_in\nsay b: All in.\n")
    n = record_narration(script, {}, CaptionSpeaker(), str(tmp_path / "demo.wav"),
                         loop_wav=make_masking_loop(str(tmp_path / "noise.wav"), seconds=1.0),
                         events={"ballots_in": 4.0})
    a, b = n.history
    assert b.at - a.ended_at == pytest.approx(4.0, abs=1e-6)
    assert float(subprocess.run(["soxi", "-D", str(tmp_path / "demo.wav")], capture_output=True,
                                text=True, check=True).stdout) == pytest.approx(b.ended_at, abs=1e-3)


def test_script_checker_command(tmp_path):
    script = tmp_path / "issue.txt"
    script.write_text(ISSUE, encoding="utf-8")
    cmd = [sys.executable, "-m", "companion.core.narration", str(script)]
    ok = subprocess.run(cmd + ["group=spies", "group_spoken=Spies"], capture_output=True,
                        text=True, cwd=tmp_path)
    assert ok.returncode == 0 and "spies_open" in ok.stdout and "wait for ballots_in" in ok.stdout
    bad = subprocess.run(cmd + ["group=spies"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == f"error: {script} line 4: no value for {{group_spoken}} (context has: group)\n"


# --- plural forms from the catalogue (issue 12) ------------------------------------------------

def test_plural_forms_come_from_the_catalogue_with_the_languages_own_rule(tmp_path, monkeypatch):
    from companion.core import i18n
    from tests.core.test_i18n import write_po
    write_po(tmp_path / "en", "a.po", {"x.cards": ["{n} card", "{n} cards"]})
    # Polish: three forms (1; 2-4, 22-24…; the rest)
    write_po(tmp_path / "pl", "a.po", {"x.cards": ["{n} karta", "{n} karty", "{n} kart"]},
             "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);")
    monkeypatch.setattr(i18n, "_catalogues", {
        "en": i18n.load_catalogue("en", tmp_path), "pl": i18n.load_catalogue("pl", tmp_path)})
    monkeypatch.setattr(i18n, "_language", "en")
    assert [i18n.ntr("x.cards", n) for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    monkeypatch.setattr(i18n, "_language", "pl")
    assert [i18n.ntr("x.cards", n) for n in (1, 3, 5, 22, 25)] == [
        "1 karta", "3 karty", "5 kart", "22 karty", "25 kart"]
    write_po(tmp_path / "en", "a.po", {"x.cards": ["{n} card", "{n} cards"]}, "nplurals=2; plural=(n !!= 1);")
    with pytest.raises(BadInput, match="Plural-Forms must read like"):
        i18n.load_catalogue("en", tmp_path)


def test_spoken_counts_agree_with_their_number():
    from companion.core.i18n import ntr
    from companion.core.timers import spoken_warning
    from companion.games.knives23 import cues as k23
    assert spoken_warning(1)[1] == "1 second left."
    assert spoken_warning(45)[1] == "45 seconds left."
    assert spoken_warning(180)[1] == "3 minutes left."
    assert ntr("masks.say.discussion_start", 1).endswith("You have 1 minute to talk.")
    assert ntr("masks.say.discussion_start", 7).endswith("You have 7 minutes to talk.")
    assert ntr("cicero.say.minutes", 1) == "1 minute"
    ctx = k23.eyes_closed_context("Liberators with three or more Blood on their Citizen cards!")
    said = [s.text for s in k23.load("eyes_closed").resolve(ctx) if isinstance(s, Say)]
    assert "Liberators with three or more Blood on their Citizen cards, open your eyes and look around." in said
    assert not any("!," in t for t in said)


# --- lines that know what they are (issue 12) ----------------------------------------------------

def _run(narrator, clock, seconds, step=0.05):
    for _ in range(int(seconds / step)):
        clock.advance(step)
        narrator.tick()


def _narrator(**kw):
    clock = FakeClock()
    captions = []
    n = Narrator(CaptionSpeaker(), RecordingAudioOut("/dev/null", clock), clock,
                 on_caption=captions.append, **kw)
    return n, clock, captions


def test_an_urgent_warning_cuts_a_report_short_but_waits_for_a_script_line():
    n, clock, captions = _narrator()
    n.report("turn", "turn", "Ann, it is your turn. Move to a new Location.")
    _run(n, clock, 0.5)
    n.report("bribe", "timer_ten_seconds", "Ten seconds.", urgent=True)
    assert n.history[-1].text == "Ten seconds." and n.history[0].skipped
    assert captions[-1] == "Ten seconds."           # the caption is the line being spoken
    _run(n, clock, 5)
    n.say("close", "Everyone, close your eyes and keep them closed.")
    _run(n, clock, 0.5)
    n.report("bribe", "timer_time_up", "Time is up.", urgent=True)
    assert n.history[-1].text.startswith("Everyone")   # a script line is finished first
    _run(n, clock, 5)
    assert n.history[-1].text == "Time is up." and not n.history[-2].skipped


def test_a_report_no_longer_true_when_its_turn_comes_is_dropped_and_its_caption_never_shows():
    n, clock, captions = _narrator()
    state = {"player": "Ann"}
    n.say("long", "A long line that takes a few seconds to say, as script lines do.")
    n.report("turn", "turn", "Ann, it is your turn.", still_true=lambda: state["player"] == "Ann")
    state["player"] = "Bo"
    _run(n, clock, 10)
    assert [h.text for h in n.history] == ["A long line that takes a few seconds to say, as script lines do."]
    assert n.dropped[-1].why == "no longer true"
    assert "Ann, it is your turn." not in captions and captions[-1] is None


def test_cancel_ends_the_pause_and_settings_apply_from_the_next_line():
    n, clock, _ = _narrator()
    n.enqueue_script(parse_script("say a: One.\nsay b: Two.\nsay c: Three."))
    n.pause()
    n.cancel()
    assert not n.paused and not n.busy
    before = len(n.history)
    n.enqueue_script(parse_script("say a: One two three four five six.\nsay b: Two.\nsay c: Three."))
    _run(n, clock, 0.2)
    n.set_speaker(CaptionSpeaker(wpm=90))
    n.pace = 2.0
    assert n.history[-1].line_id == "a" and n.busy     # nothing restarted or dropped
    _run(n, clock, 10)
    later = n.history[before:]
    assert [h.line_id for h in later] == ["a", "b", "c"] and not any(h.skipped for h in later)


def test_speech_is_prepared_on_a_worker_thread_and_the_tick_never_waits_for_it(tmp_path):
    import threading
    import time

    gate = threading.Event()

    class SlowVoice(CaptionSpeaker):
        instant = False

        def prepare(self, line_id, text, pace=1.0):
            assert threading.current_thread() is not threading.main_thread()
            gate.wait(5)
            return super().prepare(line_id, text, pace)

    clock = FakeClock()
    n = Narrator(SlowVoice(), RecordingAudioOut("/dev/null", clock), clock, threaded=True)
    t0 = time.monotonic()
    n.say("a", "Hello there.")
    n.tick()
    assert time.monotonic() - t0 < 0.5 and not n.history   # not ready: not started, not blocked
    assert n.next_change_in() is not None                   # the app looks again shortly
    gate.set()
    for _ in range(200):
        time.sleep(0.005)
        n.tick()
        if n.history:
            break
    assert n.history[0].text == "Hello there."


def test_each_lines_sound_is_loaded_on_the_preparation_thread_before_it_plays(espeak):
    """Loading a WAV at a line's start blocked the main thread 5-33 ms (issue 35): the audio
    output is asked to load it on the preparation thread, and ``play`` comes after, on the main
    thread, for the same file."""
    import threading
    import time

    calls = []

    class Out(RecordingAudioOut):
        def prepare(self, wav_path):
            calls.append(("prepare", wav_path, threading.current_thread() is threading.main_thread()))

        def play(self, wav_path, volume=1.0):
            calls.append(("play", wav_path, threading.current_thread() is threading.main_thread()))
            super().play(wav_path, volume)

    clock = FakeClock()
    n = Narrator(espeak, Out("/dev/null", clock), clock, threaded=True)
    n.enqueue_script(parse_script("say a: One card.\nsay b: Two cards."))
    for _ in range(400):
        time.sleep(0.005)
        clock.advance(0.05)
        n.tick()
        if not n.busy:
            break
    assert [c[0] for c in calls] == ["prepare", "prepare", "play", "play"] or \
        [c[0] for c in calls] == ["prepare", "play", "prepare", "play"]
    prepared = [c[1] for c in calls if c[0] == "prepare"]
    played = [c[1] for c in calls if c[0] == "play"]
    assert prepared == played and all(p.endswith(".wav") for p in played)
    assert all(not c[2] for c in calls if c[0] == "prepare") and all(c[2] for c in calls if c[0] == "play")


VOICE_PROBE = r"""
import json, sys, threading, time
from companion.app.narration import KivyAudioOut, _Voice
from kivy.clock import Clock
out = KivyAudioOut()
first, second = sys.argv[1], sys.argv[2]
done = []
for path in (first, second):   # the first opens Kivy's mixer; the second goes through ctypes
    t = threading.Thread(target=out.prepare, args=(path,)); t.start(); t.join()
    out.play(path, 1.0)
    kind = type(out._sound).__name__
    t0 = time.monotonic()
    while out.is_playing() and time.monotonic() - t0 < 10:
        Clock.tick(); time.sleep(0.01)
    done.append([kind, time.monotonic() - t0])
print(json.dumps(done))
"""


def test_a_line_loaded_ahead_sounds_whole_on_the_real_sdl_audio_path(tmp_path):
    """Kivy's mixer on SDL's disk driver: a line loaded on another thread (through ctypes once
    Kivy has opened the mixer) plays to its end, and is_playing ends with it."""
    import json
    import os
    import wave
    from array import array

    paths = []
    for name, seconds in (("a.wav", 0.4), ("b.wav", 0.8)):
        path = tmp_path / name
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1), w.setsampwidth(2), w.setframerate(22050)
            w.writeframes(array("h", (int(8000 * math.sin(i / 10)) for i in range(int(22050 * seconds)))).tobytes())
        paths.append(str(path))
    raw = tmp_path / "out.raw"
    env = dict(os.environ, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=str(raw), KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", KIVY_HOME=str(tmp_path / "kivy"))
    done = subprocess.run([sys.executable, "-c", VOICE_PROBE, *paths], env=env, capture_output=True,
                          text=True, timeout=120, cwd=str(Path(__file__).resolve().parents[1]))
    assert done.returncode == 0, done.stderr[-2000:]
    (k1, t1), (k2, t2) = json.loads(done.stdout.strip().splitlines()[-1])
    assert k1 == "_KivySound" and k2 == "_Voice"
    assert t1 >= 0.3 and t2 >= 0.7    # played (the disk driver runs at least in real time)
    samples = array("h", raw.read_bytes()[: raw.stat().st_size // 2 * 2])
    assert sum(1 for v in samples if v) > 44100 * 2 * 1.0   # both sounded: 1.2 s of stereo sound


@pytest.mark.slow
def test_the_masking_bed_never_falls_silent_on_the_real_sdl_audio_path():
    """Captured with SDL's disk audio driver from the app's own KivyAudioOut (SDL2 mixer):
    the looped bed has no digital silence over 5 ms across its 6 s seams; Kivy's Sound.loop,
    measured the same way, does (so the measurement can fail)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import narration_pace
    silence, info = narration_pace.bed_silence(13.0)
    # the bed sounded all along (a stop or a gap would show here), seams included
    assert info["mixer_loop"] and info["captured_s"] > 12.5 and info["sounding_s"] > 11.5
    assert silence < 0.005
    old, info = narration_pace.bed_silence(13.0, "kivy")
    assert not info["mixer_loop"] and old > 0.005


def test_a_new_phase_drops_the_last_phases_lines_and_stops_the_one_sounding():
    n, clock, captions = _narrator()
    n.enqueue_script(parse_script("say a: Phase one, first line.\nsay b: Phase one, second line."), topic="phase")
    n.enqueue_script(parse_script("say c: Phase one, third line."), topic="phase")
    _run(n, clock, 0.3)
    assert n.drop_topic("phase") == 2
    n.enqueue_script(parse_script("say d: Phase two."), topic="phase")
    _run(n, clock, 10)
    assert [h.line_id for h in n.history] == ["a", "d"] and n.history[0].skipped
    assert captions[captions.index("Phase one, first line.") + 1] in (None, "")  # stopped with it
    assert "Phase one, second line." not in captions
    assert [d.line_id for d in n.dropped] == ["b", "c", "a"]


def test_a_report_being_said_when_it_stops_being_true_is_cut_with_its_caption():
    n, clock, captions = _narrator()
    state = {"player": "Ann"}
    n.report("turn", "turn", "Ann, it is your turn. Move to a new Location.",
             still_true=lambda: state["player"] == "Ann")
    _run(n, clock, 0.5)
    assert captions[-1].startswith("Ann")
    state["player"] = "Bo"
    n.tick()
    assert captions[-1] is None and not n.busy and n.history[-1].skipped
    assert n.dropped[-1].why == "no longer true"


def test_a_timer_warning_true_when_it_began_is_said_whole():
    n, clock, captions = _narrator()
    left = {"s": 10.0}
    n.report("bribe", "timer_ten_seconds", "Ten seconds, and then the vote opens.", urgent=True,
             finish=True, still_true=lambda: 9.0 <= left["s"] <= 10.5)
    for _ in range(100):      # untrue after 1 s; the line lasts longer
        clock.advance(0.05)
        left["s"] -= 0.05
        n.tick()
    assert not n.history[-1].skipped and n.history[-1].ended_at is not None and not n.dropped
