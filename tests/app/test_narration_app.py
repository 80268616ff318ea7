"""Narration that keeps pace with the table, in the real app under X.

- The Curia reveal on the REAL clock with real espeak-ng: 10 cards tapped 1 s apart; the voice
  says the current total within 3 s of the last tap, the last total it says is the screen's,
  and the verdict's screen shows only after the voice has said it.
- One narration state, on the real clock with espeak-ng too: Settings saved mid-Hidden-Phase
  keep the step; a pause ends with the phase (pause, then "end the Hidden Phase now": the
  Discussion is spoken); a resumed timer's warning that is no longer true is dropped.
- A resumed eyes-closed Issue (23 Knives) goes on from the step the journal kept.
- A fast-tapped 23 Knives turn, Exile vote and reveal never shows or says a past state.
"""
from __future__ import annotations

import time

import pytest

from companion.core.audio import RecordingAudioOut
from companion.core.clock import MonotonicClock
from companion.core.i18n import tr
from companion.core.speakers import CaptionSpeaker, EspeakSpeaker, MAX_PACE, MIN_PACE
from companion.games.knives23 import demo

from .driver import ARTIFACTS
from .test_masks_app import NAMES as MASKS_NAMES, hold, phase

K23_NAMES = ["Ann", "Bo", "Cy", "Di"]
K23_OPTIONS = {"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2}


class RealClockNarration:
    """The app's engines on the real clock with espeak-ng for one test, then back."""

    def __init__(self, app, cache_dir, name="curia_real_clock"):
        self.app, self.cache_dir, self.name = app, cache_dir, name

    def __enter__(self):
        app, n = self.app, self.app.narrator
        self.saved = (app.engine_clock, n.clock, n.speaker, n.audio_out)
        clock = MonotonicClock()
        self.audio = RecordingAudioOut(str(ARTIFACTS / "app" / f"{self.name}.wav"), clock)
        app.engine_clock = n.clock = clock
        n.audio_out = self.audio
        n.set_speaker(EspeakSpeaker(cache_dir=str(self.cache_dir)))
        # the main thread's narration work, timed (printed, not asserted: the machine is shared)
        self.longest = 0.0
        self.parts = {}
        for obj, name in ((n, "tick"), (n, "enqueue_steps"), (app, "_tick_engines"),
                          (self.audio, "play"), (n, "on_caption"), (n, "on_change")):
            setattr(obj, name, self._timed(getattr(obj, name), name))
        return self

    def _timed(self, fn, name):
        def run(*args, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                took = time.perf_counter() - t0
                self.parts[name] = max(self.parts.get(name, 0.0), took)
                if name in ("tick", "enqueue_steps", "_tick_engines"):
                    self.longest = max(self.longest, took)
        return run

    def __exit__(self, *exc):
        app, n = self.app, self.app.narrator
        for obj, name in ((n, "tick"), (n, "enqueue_steps"), (app, "_tick_engines"),
                          (self.audio, "play")):
            del obj.__dict__[name]
        n.on_caption, n.on_change = app.set_caption, app.on_narration_change
        n.cancel()
        app.engine_clock, n.clock, speaker, n.audio_out = self.saved
        n.set_speaker(speaker)


def _knives23_until(driver, kind: str) -> list:
    """The scripted 23 Knives game sent as commands up to its first ``kind`` command; the
    commands from there on are returned."""
    driver.start_game("knives23", K23_NAMES, first="Ann", options=K23_OPTIONS)
    app = driver.app
    commands = demo.commands()
    first = next(i for i, c in enumerate(commands) if c.kind == kind)
    for cmd in commands[:first]:
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
    app.reveal_seen()      # the table has looked at the last vote
    driver.pump(4)
    return commands[first:]


def _to_the_curia(driver):
    app = driver.app
    rest = _knives23_until(driver, "curia_card")
    app.narrator.cancel()  # what was said before the Curia is not this test's
    assert app.view["phase"] == "curia_reveal" and app.sm.current == "knives23.curia"
    return [c.data["card"] for c in rest if c.kind == "curia_card"]


@pytest.mark.app
@pytest.mark.slow
def test_the_curia_reveal_keeps_step_with_cards_tapped_once_a_second(driver, tmp_path):
    app = driver.app
    cards = _to_the_curia(driver)
    assert len(cards) == 10
    shown_at = {}
    app.sm.bind(current=lambda sm, name: shown_at.setdefault(name, time.monotonic()))
    with RealClockNarration(app, tmp_path / "speech") as real:
        curia = app.screen("knives23.curia")
        last_tap = None
        for card in cards:
            if last_tap is not None:
                driver.wait(max(0.0, last_tap + 1.0 - time.monotonic()))
            button = next(b for b in driver.find_all(root=curia, cls="K23Button")
                          if getattr(b, "card", None) == card)
            x, y = driver.settle(button, frames=3)
            from kivy.tests.common import UnitTestTouch
            touch = UnitTestTouch(x, y)
            last_tap = time.monotonic()
            touch.touch_down()
            touch.touch_up()
            driver.pump(1)
            if card is cards[5]:
                driver.screenshot("narration/curia_mid_reveal")
        screen_total = app.view["end"]["running_total"]
        assert curia.total == str(screen_total)
        assert app.view["phase"] == "tableaux" and app.sm.current == "knives23.curia"
        driver.screenshot("narration/curia_last_card_voice_catching_up")
        end = time.monotonic() + 30
        while (app.narrator.busy or app.sm.current == "knives23.curia") and time.monotonic() < end:
            driver.wait(0.1)
        totals = [e for e in app.narrator.history if e.key == "curia_total"]
        final = totals[-1]
        lag = final.started_at - last_tap
        print(f"curia reveal at 1 card/s: final total started {lag:.2f} s after the last tap, "
              f"ended {final.ended_at - last_tap:.2f} s after; {len(totals)} of 10 totals said, "
              f"{len(app.narrator.dropped)} overtaken; longest narration work on the main thread "
              f"{real.longest * 1000:.1f} ms "
              f"({', '.join(f'{k} {v * 1000:.1f}' for k, v in sorted(real.parts.items()))})")
        assert final.text.endswith(f"The total is {screen_total}.")
        assert lag <= 3.0
        # the totals said are in the order of the cards, and each was the total when it began
        said = [int(e.text.rsplit(" ", 1)[1].rstrip(".")) for e in totals]
        running = []
        t = 0
        for c in cards:
            (kind, v), = c.items()
            t += v if kind == "knives" else -v
            running.append(t)
        assert said == [x for x in running if x in said] and said[-1] == running[-1]
        # the verdict's screen shows only after the voice has said the last total
        assert app.sm.current != "knives23.curia"
        verdict_screen = app.sm.current
        assert shown_at[verdict_screen] >= final.ended_at - 0.05
        assert any(e.line_id == "curia_verdict" for e in app.narrator.history)
        assert not app.narrator.errors, app.narrator.errors[-3:]


def _masks_hidden_phase(driver):
    driver.start_game("masks", MASKS_NAMES)
    app = driver.app
    driver.tap(driver.screen.ids.start_button)
    assert app.sm.current == "masks.hidden"
    return app, driver.screen


class Heard:
    """What the table hears and sees, moment by moment: every line as it starts (with what the
    test's ``about()`` says of the table then), and checks that the caption is the line being
    spoken or nothing."""

    def __init__(self, app, about=lambda: None):
        self.app, self.about, self.lines = app, about, []
        n = app.narrator
        shown = n.on_caption

        def caption(text):
            if text:
                self.lines.append((time.monotonic(), text, self.about()))
            shown(text)
        n.on_caption = caption

    def texts(self) -> list[str]:
        return [t for _, t, _ in self.lines]

    def check(self, moment=""):
        n = self.app.narrator
        cur = n.current_line
        assert self.app.caption in ("", cur.text if cur is not None else ""), (moment, self.app.caption)

    def watch(self, driver, seconds: float, until=None, moment=""):
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until is not None and until()):
            driver.wait(0.1)
            self.check(moment)


@pytest.mark.app
@pytest.mark.slow
def test_settings_saved_mid_hidden_phase_keep_the_step_and_the_narration(driver, tmp_path):
    """Real clock, espeak-ng: the Hidden Phase at step 3 (kept in the journal, as after a
    resume); Settings saved mid-step (espeak-ng, pace 1.2) neither cut nor restart it."""
    app, hidden = _masks_hidden_phase(driver)
    with RealClockNarration(app, tmp_path / "speech", name="hidden_settings"):
        heard = Heard(app, about=lambda: hidden.step)
        app.narrator.cancel()
        app.narration_progress.record(app.session.game_id, "masks.hidden", 3)
        app.game_ui.start_hidden_phase(app)   # from the journal's step, as a resumed game does
        heard.watch(driver, 4, moment="step 3 begins")
        assert hidden.step == 3 and heard.texts()[0] == "Spy, open your eyes."
        said_before = len(app.narrator.history)
        app.goto("settings")
        driver.pump(4)
        settings = app.screen("settings")
        settings.ids.voice.text = tr("settings.voice.espeak")
        settings.ids.pace.value = 1.2
        driver.tap(settings.ids.save)
        assert app.sm.current == "masks.hidden"
        assert app.narrator.busy and hidden.step == 3          # not cancelled, not restarted
        assert app.narrator.pace == pytest.approx(1.2)          # applies from the next line
        assert isinstance(app.narrator.speaker, EspeakSpeaker)
        heard.check("just saved")
        heard.watch(driver, 30, until=lambda: hidden.step == 4, moment="after the save")
        assert hidden.step == 4
        driver.screenshot("narration/hidden_settings_saved_step4")
        history = app.narrator.history[said_before - 1:]
        assert not any(e.skipped or e.interrupted for e in history)
        assert heard.texts()[:3] == ["Spy, open your eyes.", heard.texts()[1], "Spy, close your eyes."]
        assert "Everyone, close your eyes." not in heard.texts()
        assert [s for _, _, s in heard.lines] == sorted(s for _, _, s in heard.lines)  # never back
        assert app.narration_progress.step(app.session.game_id, "masks.hidden") == 4
        assert not app.narrator.errors, app.narrator.errors[-3:]
    app.settings.pace, app.settings.voice = 1.0, "captions"
    app.save_settings()
    app.narrator.set_speaker(CaptionSpeaker())


@pytest.mark.app
@pytest.mark.slow
def test_a_pause_ends_with_its_phase_and_the_discussion_is_spoken(driver, tmp_path):
    """Real clock, espeak-ng: pause on the Hidden Phase screen, then "end the Hidden Phase now":
    the pause ends with the phase and the Discussion's start is heard at once."""
    app, hidden = _masks_hidden_phase(driver)
    with RealClockNarration(app, tmp_path / "speech", name="pause_then_end"):
        heard = Heard(app, about=lambda: phase(driver))
        app.narrator.cancel()
        app.game_ui.start_hidden_phase(app)
        heard.watch(driver, 2, moment="hidden phase")
        assert heard.texts() == ["Everyone, close your eyes."]
        driver.tap(hidden.ids.pause_button)
        assert app.narrator.paused and hidden.paused and app.narration_paused   # one state
        assert app.caption == ""                                  # nothing is being said
        heard.watch(driver, 2, moment="paused")
        assert heard.texts() == ["Everyone, close your eyes."]    # silence while paused
        driver.screenshot("narration/hidden_paused")
        hold(driver, hidden.ids.finish_button)
        assert phase(driver) == "discussion"
        assert not app.narrator.paused and not app.narration_paused
        heard.watch(driver, 3, moment="discussion")
        start = "The Discussion begins. Masks are in effect. You have 7 minutes to talk."
        assert heard.lines[-1][1:] == (start, "discussion")
        assert app.caption == start                               # being said now
        driver.screenshot("narration/discussion_after_paused_hidden_phase")
        heard.watch(driver, 8, until=lambda: not app.narrator.busy, moment="discussion")
        assert any(e.text == start and e.ended_at and not e.interrupted for e in app.narrator.history)
        assert not app.narrator.errors, app.narrator.errors[-3:]


@pytest.mark.app
@pytest.mark.slow
def test_a_resumed_timer_never_speaks_a_warning_that_is_no_longer_true(driver, tmp_path):
    """Real clock, espeak-ng: a Discussion resumed from the journal with 35 s left. The table
    pauses the narration across the 30 s mark: "Thirty seconds left" is never said late;
    "Ten seconds." is said while true; the vote's count-in follows the end."""
    app, hidden = _masks_hidden_phase(driver)
    with RealClockNarration(app, tmp_path / "speech", name="resumed_timer"):
        hold(driver, hidden.ids.finish_button)
        assert phase(driver) == "discussion"
        countdown = app.game_ui.countdown
        countdown.add(-(countdown.remaining() - 35.0))      # the table's own "take time off"
        game_id = app.session.game_id
        left_at = time.monotonic()
        app.leave_game()                                   # kept in the journal: 35 s left
        assert app.resume_game(game_id)
        driver.pump(4)
        away = time.monotonic() - left_at
        countdown = app.game_ui.countdown
        # no more than the real time the leave and the resume took has run off the 35 s
        assert phase(driver) == "discussion" and 35.0 - away - 0.5 <= countdown.remaining() <= 35.0
        assert countdown.remaining() > 31, "the resume took too long to test the 30 s mark"
        heard = Heard(app, about=lambda: countdown.remaining())
        heard.watch(driver, 10, until=lambda: countdown.remaining() <= 33, moment="resumed")
        app.narration_toggle_pause()                       # the bar's "Pause narration"
        heard.watch(driver, 10, until=lambda: countdown.remaining() <= 27.5, moment="paused")
        assert app.narration_paused and heard.texts() == []
        app.narration_toggle_pause()
        heard.watch(driver, 30, until=lambda: phase(driver) != "discussion", moment="resumed narration")
        ended = time.monotonic()
        heard.watch(driver, 3, moment="the vote")
    texts = heard.texts()
    print("heard:", *[(round(r, 2), t) for _, t, r in heard.lines], sep="\n  ")
    assert "Thirty seconds left." not in texts
    assert any(d.text == "Thirty seconds left." and d.why == "no longer true" for d in app.narrator.dropped)
    ten = [r for _, t, r in heard.lines if t == "Ten seconds."]
    assert len(ten) == 1 and 9.0 <= ten[0] <= 10.5      # true when it was said
    assert phase(driver) != "discussion"                  # the vote follows the end
    after = [(at, t) for at, t, _ in heard.lines if at >= ended - 0.5]
    assert after and after[0][0] - ended < 1.5, after     # and its first line is heard at once


@pytest.mark.app
def test_when_no_voice_can_speak_the_screen_says_so_plainly(driver, monkeypatch):
    from companion.core import speakers
    app = driver.app
    monkeypatch.setattr(speakers.EspeakSpeaker, "available", staticmethod(lambda binary="espeak-ng": False))
    monkeypatch.setattr(speakers.PlyerSpeaker, "available", staticmethod(lambda: False))
    saved = app.narrator.speaker
    app.settings.voice = "auto"
    try:
        app.save_settings()
        driver.pump(4)
        message = app.root.ids.toast.message
        assert message.startswith("No voice can speak on this device") and "captions only" in message
        assert isinstance(app.narrator.speaker, CaptionSpeaker)
        driver.screenshot("narration/no_voice")
    finally:
        app.settings.voice = "captions"
        app.save_settings()
        app.narrator.set_speaker(saved)


@pytest.mark.app
def test_a_voice_that_fails_every_line_is_said_on_screen_once(driver, tmp_path):
    # Found by the input audit: an espeak-ng that passes its voice check and then fails every
    # line (a full disk, say) left the table with captions and no word of why.
    app = driver.app
    fake = tmp_path / "espeak-ng"
    fake.write_text('#!/bin/sh\ncase "$*" in *--stdin*) echo "No space left on device" >&2; exit 1;; esac\n')
    fake.chmod(0o755)
    saved, shown, real_toast = app.narrator.speaker, [], app.toast
    app.toast = lambda message, *a, **k: (shown.append(message), real_toast(message, *a, **k))
    try:
        app.narrator.set_speaker(EspeakSpeaker(cache_dir=str(tmp_path / "cache"), binary=str(fake)))
        driver.start_game("masks", MASKS_NAMES)
        app.send("start_hidden_phase")
        for _ in range(40):          # the engines' fake clock, and real time for the voice's thread
            driver.advance(4, step=0.25)
            time.sleep(0.05)
        told = [m for m in shown if m.startswith(tr("app.voice_failed", problem="").rstrip(": "))]
        assert len(app.narrator.errors) > 1          # every line failed ...
        assert len(told) == 1 and "No space left on device" in told[0], shown   # ... said once
        assert "\n" not in told[0]
        app.toast(told[0])
        driver.pump(2)
        driver.screenshot("narration/voice_failed")
    finally:
        del app.toast
        app.narrator.cancel()
        app.narrator.set_speaker(saved)
        app.narrator.errors.clear()   # the fake voice's failures are this test's, not the next one's


@pytest.mark.app
def test_a_hidden_phase_cut_short_resumes_at_the_step_it_reached(driver):
    """The app killed mid-Hidden-Phase: the game is resumed from the journal and "Start the
    narration" goes on from the step reached (kept in the game's journal as the narrator reached it)."""
    app, hidden = _masks_hidden_phase(driver)
    driver.advance(60)
    reached = hidden.step
    assert reached >= 4
    game_id = app.session.game_id
    assert app.narration_progress.step(game_id, "masks.hidden") == reached
    noted = [e.data for e in app.journal.events(game_id) if e.kind == "narration_step"]
    assert noted[-1] == {"script": "masks.hidden", "step": reached}
    app.leave_game()                      # as good as a kill for the narration: all of it dropped
    assert not app.narrator.busy
    assert app.resume_game(game_id)
    driver.pump(4)
    assert app.sm.current == "masks.hidden"
    before = len(app.narrator.history)
    driver.tap(driver.screen.ids.repeat_button)   # reads "Start the narration"
    driver.advance(1)
    first = app.narrator.history[before].line_id
    assert first.startswith(f"step{reached}_"), first
    assert driver.screen.step == reached


@pytest.mark.app
def test_a_typed_group_too_long_to_speak_in_its_slot_is_refused_on_the_issue_screen(driver):
    app = driver.app
    _knives23_until(driver, "eyes_closed")
    assert app.sm.current == "knives23.issue"
    screen = driver.screen
    driver.type_into(screen.ids.typed, "Players 1234567890123456789")
    driver.tap(driver.find(cls="K23Button", text=tr("knives23.ui.narrate")))
    assert app.view["phase"] == "issue_resolve"            # refused: nothing narrated
    assert "too long to speak in its slot" in app.root.ids.toast.message
    driver.screenshot("narration/typed_group_refused")
    driver.type_into(screen.ids.typed, "Players with 2 or more Daggers")
    driver.tap(driver.find(cls="K23Button", text=tr("knives23.ui.narrate")))
    assert app.view["phase"] == "eyes_closed"


@pytest.mark.app
def test_a_resumed_eyes_closed_issue_goes_on_from_the_step_it_reached(driver):
    """The app killed with eyes closed: the resumed game does not ask everyone to close their
    eyes again; it goes on from the step the journal kept."""
    app = driver.app
    rest = _knives23_until(driver, "eyes_closed")
    app.narrator.cancel()  # what was said before the Issue is not this test's
    assert app.send_command(rest[0])
    assert app.view["phase"] == "eyes_closed"
    driver.advance(25)       # "..., open your eyes and look around." (step 3) is being said
    game_id = app.session.game_id
    noted = [e.data for e in app.journal.events(game_id) if e.kind == "narration_step"]
    assert noted and noted[-1]["step"] == 3 and noted[-1]["script"].startswith("knives23.eyes_closed.")
    app.leave_game()
    assert not app.narrator.busy
    assert app.resume_game(game_id)
    driver.pump(4)
    assert app.sm.current == "knives23.issue"
    t0 = driver.clock.now()
    driver.advance(2)
    resumed = [e.line_id for e in app.narrator.history if e.started_at >= t0]
    assert resumed and resumed[0].endswith("_open") and resumed[0] != "everyone_open", resumed
    driver.advance(40)
    said = [e.line_id for e in app.narrator.history if e.started_at >= t0]
    assert "check_allegiance" not in said and "close_eyes" not in said
    assert said[-1] == "everyone_open"
    driver.advance(2)
    assert app.view["phase"] != "eyes_closed"           # eyes open: the Issue goes on


# what a line is about, and whether the table is still there when it is heard
def _k23_line_true(app, key: str | None, text: str, since_result: int) -> bool:
    view = app.view or {}
    if key == "turn":
        return view.get("phase") == "turn" and text.startswith(f"{(view.get('turn') or {}).get('player')},")
    if key == "vote_open":
        return view.get("phase") in ("issue_vote", "exile_vote")
    if key in ("vote_reveal", "vote_result", "tie_decision"):
        return since_result == 0     # news only until the table acts again
    return True


@pytest.mark.app
@pytest.mark.slow
def test_a_fast_tapped_turn_vote_and_reveal_never_shows_or_says_a_past_state(driver, tmp_path):
    """Ann's turn, an Exile vote, its reveal and the next turns, tapped faster than the voice
    (0.4 s apart) on the real clock with espeak-ng: at every moment the caption is the line
    being spoken or nothing, and no line about a past turn, vote or result is heard."""
    app = driver.app
    rest = _knives23_until(driver, "move")
    app.narrator.cancel()
    segment = rest[:12]         # move, two Fate cards, call an Exile, 4 ballots, 3 steps, move
    assert [c.kind for c in segment][3:8] == ["call_exile"] + ["cast_ballot"] * 4
    heard = []                  # (text, key, was it true when it started)
    state = {"since_result": 1}  # commands sent since the last vote's result (1: no result yet)
    with RealClockNarration(app, tmp_path / "speech", name="k23_fast_taps"):
        n = app.narrator
        shown = n.on_caption

        def caption(text, shown=shown):
            if text:
                cur = n.history[-1] if n.history else None
                key = cur.key if cur is not None and cur.text == text else None
                heard.append((text, key, _k23_line_true(app, key, text, state["since_result"])))
            shown(text)
        n.on_caption = caption

        def check_now(moment):
            cur = n.current_line
            assert app.caption in ("", cur.text if cur is not None else ""), (moment, app.caption)
            if app.caption:
                entry = n.history[-1]
                assert _k23_line_true(app, entry.key, entry.text, state["since_result"]), \
                    (moment, entry.text, app.view["phase"])

        for i, cmd in enumerate(segment):
            votes = len(app.view.get("vote_history", []))
            assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
            state["since_result"] += 1
            if len(app.view.get("vote_history", [])) > votes:   # this ballot revealed the vote
                state["since_result"] = 0
                app.reveal_seen()
            for _ in range(4):
                driver.wait(0.1)
                check_now(cmd.kind)
            if i == 8:
                driver.screenshot("narration/k23_fast_taps_after_the_reveal")
        driver.screenshot("narration/k23_fast_taps_last_tap")
        end = time.monotonic() + 25
        while n.busy and time.monotonic() < end:
            driver.wait(0.1)
            check_now("after the taps")
    said = [(t, k) for t, k, _ in heard]
    print("heard:", *said, sep="\n  ")
    print("dropped:", *[(d.line_id, d.why) for d in n.dropped], sep="\n  ")
    assert all(ok for _, _, ok in heard), [h for h in heard if not h[2]]
    turns = [t for t, k, _ in heard if k == "turn"]
    assert turns and turns[-1].startswith(f"{app.view['turn']['player']},")   # the current turn is said
    assert {"vote_result"} & {d.line_id for d in n.dropped}    # the result the table moved past
