"""Countdowns (on a FakeClock), their spoken warnings, and the reveal count-in."""
from __future__ import annotations

import json
import random

import pytest

from companion.core.clock import FakeClock
from companion.core.events import BadInput
from companion.core.narration import Mark, Narrator, Say, script_timeline
from companion.core.audio import RecordingAudioOut
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker
from companion.core.timers import Countdown, RevealCountdown, spoken_warning


class Heard:
    def __init__(self):
        self.events = []

    def warning(self, mark):
        self.events.append(("warning", mark))

    def end(self):
        self.events.append(("end", 0.0))


def countdown(seconds=420, warnings=(60, 10), **kw):
    clock, heard = FakeClock(5000.0), Heard()
    timer = Countdown(seconds, clock, warnings, on_warning=heard.warning, on_end=heard.end, **kw)
    return clock, heard, timer


def test_no_drift_however_irregular_the_ticks():
    # "Players have 7 minutes to talk." Ticks come late, early, in bursts and with long gaps.
    clock, heard, timer = countdown(420)
    rng = random.Random(11)
    while not timer.ended:
        clock.advance(rng.choice([0.001, 0.016, 0.05, 0.0503, 0.2, 1.7]))
        timer.poll()
        elapsed = clock.now() - 5000.0
        assert timer.remaining() == pytest.approx(max(0.0, 420 - elapsed), abs=1e-9)
    assert clock.now() - 5000.0 == pytest.approx(420, abs=1.7)  # noticed at the first poll after


def test_warnings_fire_once_each_in_order_then_the_end():
    clock, heard, timer = countdown(120, warnings=(10, 60, 60))
    clock.advance(59.5)
    assert timer.poll() == [] and heard.events == []
    clock.advance(1.0)
    assert timer.poll() == [("warning", 60)]
    for _ in range(5):              # polling again does not repeat it
        clock.advance(0.01)
        assert timer.poll() == []
    clock.advance(200)              # one long gap past the ten-second mark and the end
    assert timer.poll() == [("warning", 10), ("end", 0.0)]
    assert heard.events == [("warning", 60), ("warning", 10), ("end", 0.0)]
    assert timer.poll() == [] and timer.remaining() == 0.0 and timer.ended


def test_a_warning_longer_than_the_timer_never_fires():
    clock, heard, timer = countdown(30, warnings=(60, 30, 10))
    clock.advance(31)
    timer.poll()
    assert heard.events == [("warning", 10), ("end", 0.0)]


def test_pause_stops_the_clock_and_resume_starts_it_again():
    clock, heard, timer = countdown(100)
    clock.advance(30)
    timer.pause()
    assert not timer.running and timer.remaining() == pytest.approx(70)
    clock.advance(500)
    assert timer.poll() == [] and timer.remaining() == pytest.approx(70)
    assert timer.next_event_in() is None
    timer.resume()
    assert timer.next_event_in() == pytest.approx(10)   # to the one-minute warning
    clock.advance(10)
    assert timer.poll() == [("warning", 60)]
    timer.pause()
    timer.pause()                                       # twice is once
    clock.advance(5)
    timer.resume()
    timer.resume()
    clock.advance(60)
    assert timer.poll() == [("warning", 10), ("end", 0.0)]


def test_added_time_counts_and_rearms_the_warnings_it_moves_back_over():
    clock, heard, timer = countdown(70)
    clock.advance(65)                                   # 5 s left: both warnings said
    timer.poll()
    timer.add(120)                                      # 125 s left
    assert timer.remaining() == pytest.approx(125) and timer.duration == pytest.approx(190)
    clock.advance(65.5)
    assert timer.poll() == [("warning", 60)]
    timer.add(-1000)                                    # taking time away stops at zero
    assert timer.remaining() == 0.0
    assert timer.poll() == [("warning", 10), ("end", 0.0)]


def test_time_added_after_the_end_restarts_the_countdown():
    clock, heard, timer = countdown(20, warnings=(10,))
    clock.advance(25)
    timer.poll()
    assert timer.ended and timer.remaining() == 0.0
    timer.add(30)
    assert not timer.ended and timer.running and timer.remaining() == pytest.approx(30)
    clock.advance(30)
    assert timer.poll() == [("warning", 10), ("end", 0.0)]


def test_journal_round_trip_restores_it_paused():
    clock, heard, timer = countdown(420)
    clock.advance(370)
    timer.poll()                                        # one minute said
    record = json.loads(json.dumps(timer.to_dict()))   # as the journal stores it
    later = FakeClock(12.0)                            # a new process: a new monotonic origin
    heard_again = Heard()
    back = Countdown.from_dict(record, later, heard_again.warning, heard_again.end)
    assert not back.running and back.remaining() == pytest.approx(50)
    later.advance(100)
    assert back.remaining() == pytest.approx(50) and back.poll() == []
    back.resume()
    later.advance(45)
    assert back.poll() == [("warning", 10)]            # the one-minute warning is not said again
    later.advance(5)
    assert back.poll() == [("end", 0.0)]
    assert back.to_dict()["ended"] is True


@pytest.mark.parametrize("change, problem", [
    ({"version": 2}, "unknown version 2"),
    ({"duration_s": -5}, "'duration_s' must be more than 0"),
    ({"elapsed_s": "soon"}, "'elapsed_s' must be a number"),
    ({"elapsed_s": 999}, "'elapsed_s' 999.0 is more than 'duration_s' 420.0"),
    ({"armed": [45]}, "armed marks [45.0] are not among the warnings"),
    ({"warnings": "60"}, "'warnings' must be a list"),
    ({"ended": "no"}, "'ended' must be true or false"),
])
def test_a_bad_timer_record_is_refused_in_one_line(change, problem):
    record = countdown(420)[2].to_dict()
    record.update(change)
    with pytest.raises(BadInput) as err:
        Countdown.from_dict(record, FakeClock())
    assert problem in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(BadInput, match="missing 'armed'"):
        Countdown.from_dict({k: v for k, v in countdown(420)[2].to_dict().items() if k != "armed"},
                            FakeClock())


def test_bad_durations_are_refused():
    for bad in (0, -1, "seven", float("inf")):
        with pytest.raises(BadInput, match="countdown duration must be"):
            Countdown(bad, FakeClock())
    with pytest.raises(BadInput, match="time to add"):
        Countdown(10, FakeClock()).add("lots")


def test_spoken_warnings():
    assert spoken_warning(60) == ("timer_one_minute", "One minute left.")
    assert spoken_warning(10) == ("timer_ten_seconds", "Ten seconds.")
    assert spoken_warning(180) == ("timer_3_minutes", "3 minutes left.")
    assert spoken_warning(45) == ("timer_45_seconds", "45 seconds left.")


def test_warnings_are_spoken_through_the_narrator(tmp_path):
    clock = FakeClock()
    n = Narrator(CaptionSpeaker(), RecordingAudioOut(str(tmp_path / "r.wav"), clock), clock)
    timer = Countdown(65, clock, on_warning=lambda mark: n.say(*spoken_warning(mark), interject=True))
    clock.advance(5)
    timer.poll()
    n.tick()
    assert [e.text for e in n.history] == ["One minute left."]


# --- the reveal count-in -------------------------------------------------------------------

def test_reveal_count_has_even_beats_and_reveals_on_the_last_word(tmp_path):
    espeak = EspeakSpeaker(cache_dir=str(tmp_path))
    count = RevealCountdown("count_of_three", spacing=1.2)
    steps = count.steps()
    assert [s.text for s in steps if isinstance(s, Say)] == \
        ["On the count of three.", "One.", "Two.", "Three!"]
    assert isinstance(steps[-2], Mark) and steps[-2].name == "reveal"
    timeline = script_timeline(count.script(), {}, espeak)
    starts = [s for s, _e, label in timeline if label in ("count_one", "count_two", "count_three")]
    assert starts[1] - starts[0] == pytest.approx(1.2) and starts[2] - starts[1] == pytest.approx(1.2)
    reveal = next(s for s, _e, label in timeline if label == "mark reveal")
    assert reveal == starts[2]

    clock = FakeClock(0.0)
    marks = []
    n = Narrator(espeak, RecordingAudioOut(str(tmp_path / "r.wav"), clock), clock,
                 on_mark=lambda name: marks.append((name, clock.now())))
    n.enqueue_steps(steps)
    while n.busy:
        due = n.next_change_in()
        clock.advance(0.05 if due is None else min(0.05, due))
        n.tick()
    three = next(e for e in n.history if e.line_id == "count_three")
    assert marks == [("reveal", pytest.approx(three.started_at))]


def test_ready_set_go_and_unknown_styles():
    assert [s.text for s in RevealCountdown("ready_set_go", 0.8).steps() if isinstance(s, Say)] \
        == ["Ready.", "Set.", "Go!"]
    assert all(s.slot == 0.8 for s in RevealCountdown("ready_set_go", 0.8).steps()
               if isinstance(s, Say))
    with pytest.raises(BadInput, match="unknown reveal count 'on_five'"):
        RevealCountdown("on_five")
    with pytest.raises(BadInput, match="reveal spacing must be more than 0"):
        RevealCountdown(spacing=0)
