"""The reveal's count-in in the real app (issue 33): the ballots turn over only once the voice
has said the count-in's last number, even when the last ballot arrives while the vote's question
is still being spoken. Real espeak-ng lengths, on the engines' fake clock stepped 0.05 s at a time."""
from __future__ import annotations

import pytest

from companion.core.speakers import EspeakSpeaker

from .test_shell import _start_toy


@pytest.mark.app
def test_the_ballots_turn_over_only_after_the_voice_says_the_count_in_s_last_number(driver, tmp_path):
    app = driver.app
    n = app.narrator
    caption_voice = n.speaker
    n.set_speaker(EspeakSpeaker(cache_dir=str(tmp_path / "voice")))
    try:
        setup = _start_toy(driver)
        driver.tap(setup.ids.start_button)
        driver.tap(driver.find(text="Call a Vote to Exile Cy"))
        driver.pump_until(lambda: n.history and n.history[-1].line_id == "toy.vote_open", "the question spoken")
        driver.advance(0.5)
        question = n.history[-1]
        assert question.line_id == "toy.vote_open" and question.ended_at is None
        # every ballot in while the question is still being said
        driver.vote({"Ann": "exile", "Ben": "remain", "Cy": "exile", "Dee": "exile"})
        assert question.ended_at is None, "the question ended before the last ballot: the test proves nothing"
        assert app.sm.current == "reveal"
        reveal = app.screen("reveal")
        clock = driver.clock
        counts = []
        start = clock.now()
        while reveal.mode == "count_in" and clock.now() - start < 60:
            driver.advance(0.05)
            reveal._tick()   # the screen's own 0.1 s tick, at each step of the clock
            if reveal.mode == "count_in":
                if reveal.count == "1" and "1" not in counts:
                    driver.screenshot("app/reveal_count_in_1")
                counts.append(reveal.count)
        assert reveal.mode == "shown"
        count_in = next((e for e in n.history if e.line_id == "reveal_count_in"), None)
        assert count_in is not None, f"the ballots turned over {clock.now() - start:.2f} s after the last ballot, " \
            "before the voice began the count-in"
        # the question was said first, whole; then the count-in, to its end; then the ballots
        assert question.ended_at is not None and question.ended_at <= count_in.started_at
        assert count_in.ended_at is not None and not count_in.skipped, "the ballots turned over mid count-in"
        assert count_in.ended_at <= clock.now() < count_in.ended_at + 0.05 + 1e-6
        # the screen's numbers follow the voice: 3 while the question is said, then down to 1
        assert counts[0] == "3" and "1" in counts
        assert counts == sorted(counts, reverse=True)
        driver.screenshot("app/reveal_after_count_in")
    finally:
        n.cancel()
        n.set_speaker(caption_voice)
