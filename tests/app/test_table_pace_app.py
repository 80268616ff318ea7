"""Each game at the pace of a real table, on the real clock with espeak-ng: the scripted table
acts about once a second (faster than the voice), and at every moment the test checks what the
table hears and sees: the caption is the line being spoken or nothing, and no line about a phase
the table has left starts, or stays on the caption, once the table has left it.

23 Knives and Masks have theirs in test_narration_app.py (the Curia reveal, a fast-tapped turn
and Exile vote, the Hidden Phase and the Discussion); Seven Knights and Cicero are here.
"""
from __future__ import annotations

import time
from contextlib import contextmanager

import pytest

from companion.games.cicero.demo import execute_breaking_ties, table_move

from .test_narration_app import RealClockNarration


class PhaseListener:
    """Which phase (and round) each line was queued in, whether it is a line about the phase
    (its topic), and what the table heard when."""

    def __init__(self, app, topic: str):
        self.app, self.topic = app, topic
        self.queued = {}                 # text -> (phase, round, about the phase?)
        self.heard = []                  # (seconds, text, phase then, queued in)
        n = app.narrator
        enqueue, shown = n.enqueue_script, n.on_caption

        def enqueue_script(script, context=None, prefetch=True, still_true=None, topic=None):
            for step in script.resolve(context):
                if hasattr(step, "text"):
                    self.queued[step.text] = (self.where(), topic == self.topic)
            return enqueue(script, context, prefetch=prefetch, still_true=still_true, topic=topic)

        def caption(text):
            if text:
                self.heard.append((time.monotonic(), text, self.where(), self.queued.get(text)))
            shown(text)
        n.enqueue_script, n.on_caption = enqueue_script, caption

    def where(self):
        state = self.app.session.state if self.app.session is not None else None
        r = getattr(state, "round", None)
        return getattr(state, "phase", None), getattr(r, "number", r)

    def check(self, moment):
        app, n = self.app, self.app.narrator
        cur = n.current_line
        assert app.caption in ("", cur.text if cur is not None else ""), (moment, app.caption)
        queued = self.queued.get(app.caption)
        if app.caption and queued and queued[1]:
            assert queued[0] == self.where(), (moment, app.caption, queued[0], self.where())

    def close(self):
        del self.app.narrator.__dict__["enqueue_script"]

    def stale(self):
        """Lines about a phase that had started after the table left that phase."""
        return [(t, queued[0], now) for _, t, now, queued in self.heard
                if queued and queued[1] and queued[0] != now]


@contextmanager
def at_table_pace(app, tmp_path, name: str, topic: str):
    """The real clock and espeak-ng, and a listener for the game's phase topic."""
    with RealClockNarration(app, tmp_path / "speech", name=name):
        listener = PhaseListener(app, topic)
        try:
            yield listener
        finally:
            listener.close()


def finish_speaking(driver, listener, seconds: float, moment: str) -> None:
    end = time.monotonic() + seconds
    while listener.app.narrator.busy and time.monotonic() < end:
        driver.wait(0.1)
        listener.check(moment)


def transcript(listener) -> str:
    t0 = listener.heard[0][0] if listener.heard else 0.0
    return "\n  ".join(f"{at - t0:5.1f} {now} {t}" for at, t, now, _ in listener.heard)


def play_at_pace(driver, listener, actions, gap=1.0):
    """Each action (a callable) about ``gap`` seconds after the last, watching in between."""
    for i, act in enumerate(actions):
        act()
        end = time.monotonic() + gap
        while time.monotonic() < end:
            driver.wait(0.1)
            listener.check(f"after action {i}")


@pytest.mark.app
@pytest.mark.slow
def test_seven_knights_search_and_questions_at_table_pace(driver, tmp_path):
    from companion.app.games.sevenknights import PHASE_TOPIC
    app = driver.app
    with at_table_pace(app, tmp_path, "sevenknights_pace", PHASE_TOPIC) as listener:
        driver.start_game("sevenknights", ["Ann", "Bo", "Cy", "Di", "Ed"], first="Ann",
                          options={"mode": "basic"})
        assert app.view["phase"] == "search"
        driver.wait(3)                     # the round's start is heard
        listener.check("round start")
        looks = [lambda at=at: app.send("look", at=at) for at in ("Bo", "Cy", "Di", "center", "Ann")]
        asks = [lambda t=t: app.send("ask_question", target=t, template="odd", answer="no")
                for t in ("Cy", "Di", "Ed", "Bo", "Cy")]
        play_at_pace(driver, listener, looks, gap=1.0)
        assert app.view["phase"] == "questions", app.root.ids.toast.message
        driver.screenshot("narration/sevenknights_pace_questions")
        play_at_pace(driver, listener, asks, gap=1.0)
        assert app.view["phase"] == "recommendation", app.root.ids.toast.message
        finish_speaking(driver, listener, 30, "recommendation")
        driver.screenshot("narration/sevenknights_pace_recommendation")
    print("heard:\n ", transcript(listener))
    assert not listener.stale(), listener.stale()
    texts = [t for _, t, _, _ in listener.heard]
    assert any(t.startswith("Recommendation Phase.") for t in texts)   # the phase now is said
    assert any(d.why == "overtaken" for d in app.narrator.dropped)     # the voice was outpaced
    assert not app.narrator.errors, app.narrator.errors[-3:]


@pytest.mark.app
@pytest.mark.slow
def test_cicero_draft_to_the_election_at_table_pace(driver, tmp_path):
    from companion.app.games.cicero import PHASE_TOPIC
    app = driver.app
    with at_table_pace(app, tmp_path, "cicero_pace", PHASE_TOPIC) as listener:
        driver.start_game("cicero", ["Livia", "Marcus", "Octavia"], first="Octavia",
                          seat_values={"Livia": {"age": 34}, "Marcus": {"age": 41},
                                       "Octavia": {"age": 29}})
        driver.wait(2)
        listener.check("the draft")

        def move():
            if app.sm.current == "reveal":
                driver.continue_reveal()
                return

            def send(c):
                app.session.rules.decide(app.session.state, c)
                assert app.send_command(c), app.root.ids.toast.message
            execute_breaking_ties(send, table_move(app.view))
        phases = []
        for i in range(30):               # about 30 s of the table's actions
            play_at_pace(driver, listener, [move], gap=1.0)
            phases.append(app.view["phase"])
            if i == 10:
                driver.screenshot("narration/cicero_pace_mid")
        finish_speaking(driver, listener, 20, "after the actions")
    print("phases:", phases)
    print("heard:\n ", transcript(listener))
    assert len(set(phases)) >= 3                                        # the table moved on
    assert not listener.stale(), listener.stale()
    assert not app.narrator.errors, app.narrator.errors[-3:]
