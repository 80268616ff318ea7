"""The camera screen in the real app under X (1280x800): a 23 Knives Vote to Exile taken from
voting tokens read by a camera. The frames are a recording (vision.synth scenes written to an
MJPEG video) read through CameraCapture — cv2.VideoCapture, the same path as a webcam — and the
camera's thread posts to the app's real command queue. Screenshots go to test-artifacts/tokens/."""
from __future__ import annotations

import re
import threading
import time

import cv2
import numpy as np
import pytest

from companion.core.events import BadInput
from companion.core.i18n import tr
from companion.games.knives23.rules import SETUP_STEPS
from vision import synth
from vision.capture import CameraCapture, FrameSource, PushedFrames, write_video

NAMES = ["Ann", "Bo", "Cy", "Di"]
SIDE_WORDS = re.compile(r"exile|remain", re.IGNORECASE)


class Gate(FrameSource):
    """Passes a recording's frames on a stretch at a time, the way a table shows them: the test
    decides when the next stretch happens, and knows when the camera has handled it."""

    def __init__(self, inner: CameraCapture):
        self.inner = inner
        self.name, self.where = inner.name, inner.where
        self._cv = threading.Condition()
        self._allowed = self._asked = 0
        self._closed = False

    def read(self):
        with self._cv:
            self._asked += 1
            self._cv.notify_all()
            self._cv.wait_for(lambda: self._closed or self._asked <= self._allowed)
            if self._closed:
                return None
        return self.inner.read()

    def release(self, frames: int, timeout: float = 90.0):
        """Lets ``frames`` more through and waits until the camera asks for the one after them,
        i.e. has read, judged and posted every one of them."""
        with self._cv:
            self._allowed += frames
            self._cv.notify_all()
            done = self._cv.wait_for(lambda: self._closed or self._asked > self._allowed, timeout)
        assert done, f"the camera did not take {frames} frames within {timeout} s"

    def close(self):
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self.inner.close()


def held(image, n, seed):
    """A still scene held for n frames, each with its own sensor noise."""
    rng = np.random.default_rng(seed)
    return [np.clip(image.astype(np.int16) + rng.normal(0, 3, image.shape).astype(np.int16), 0, 255).astype(np.uint8)
            for _ in range(n)]


def scene(faces, seed):
    return synth.make_scene(np.random.default_rng(seed), "easy", players=4, faces=faces, finger="none").image


# The recording, in stretches the test lets through one at a time.
CAL_EXILE, CAL_REMAIN_12, CAL_REMAIN_34 = 4, 4, 4   # the calibration: four frames per still
VOTE_3 = 2 + 1 + 7                                  # hidden, the flip, three tokens lying still
VOTE_4 = 1 + 7                                      # Di flips hers: all four lying still
FACES = {1: "exile", 2: "remain", 3: "exile", 4: "exile"}  # Ann, Cy, Di: Exile; Bo: Remain


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    frames = (held(scene({s: "exile" for s in range(1, 5)}, 3), CAL_EXILE, 1)
              + held(scene({1: "remain", 2: "remain"}, 8), CAL_REMAIN_12, 2)
              + held(scene({3: "remain", 4: "remain"}, 9), CAL_REMAIN_34, 3)
              + synth.vote_frames({s: FACES[s] for s in (1, 2, 3)}, 4, hidden=2, shown=7, seed=42)
              + synth.vote_frames(FACES, 4, hidden=0, shown=7, seed=42))
    assert len(frames) == CAL_EXILE + CAL_REMAIN_12 + CAL_REMAIN_34 + VOTE_3 + VOTE_4
    return write_video(tmp_path_factory.mktemp("camera") / "table.avi", frames, fps=30)



def to_the_forum(driver):
    """A 23 Knives game with Ann at the Forum, about to call a Vote to Exile."""
    driver.start_game("knives23", NAMES, first="Ann")
    app = driver.app
    for step in SETUP_STEPS:
        assert app.send("tick_setup", step=step)
    assert app.send("begin_play")
    assert app.send("move", location="forum")


def open_camera_screen(driver):
    driver.tap(driver.find(root=driver.app.root, text=tr("app.devices")))
    assert driver.app.sm.current == "devices"
    driver.tap(driver.app.screen("devices").ids.camera_button)
    assert driver.app.sm.current == "camera"
    return driver.app.screen("camera")


def lines_on(driver, screen):
    """Every line of text a person can read on the screen now."""
    return [line for t in driver.visible_texts(screen) for line in t.splitlines()]


def seat_rows(driver, screen):
    rows = sorted(driver.find_all(root=screen, cls="CameraSeatRow"), key=lambda r: r.seat)
    return {r.who.split()[-1]: r.status for r in rows}


def ballot_events(app):
    return [e for e in app.session.events if e.kind == "ballot_cast"]


@pytest.mark.app
def test_an_exile_vote_taken_from_the_camera_screen(driver, recording):
    app = driver.app
    to_the_forum(driver)
    screen = open_camera_screen(driver)
    assert SIDE_WORDS.search(" ".join(driver.visible_texts(screen))) is None
    gate = Gate(CameraCapture(str(recording)))
    assert screen.start_frames(gate)
    assert screen.source in app.sources and screen.running

    # The calibration: every seat's Exile side, then the Remain sides of seats 1-2, then 3-4.
    driver.tap(screen.ids.calibrate_button)
    assert screen.calibrating
    assert driver.find(root=screen, text=tr("camera.calibration_heading"))
    gate.release(CAL_EXILE + CAL_REMAIN_12)
    driver.pump_until(lambda: len((screen._report or {}).get("checked", [])) == 6, "six sides checked")
    texts = driver.visible_texts(screen)
    exile_read = tr("camera.face_checked", face=tr("camera.face.exile"))
    remain_read = tr("camera.face_checked", face=tr("camera.face.remain"))
    remain_missing = tr("camera.face_missing", face=tr("camera.face.remain"))
    assert texts.count(exile_read) == 4 and texts.count(remain_read) == 2 and texts.count(remain_missing) == 2
    assert tr("camera.calibration_progress", checked=6, total=8) in texts
    driver.screenshot("tokens/camera_calibration")
    gate.release(CAL_REMAIN_34)
    driver.pump_until(lambda: screen.calibration_complete, "every side checked")
    assert tr("camera.calibration_complete") in driver.visible_texts(screen)
    driver.tap(screen.ids.calibrate_button)  # Finish the check
    assert not screen.calibrating and not screen.source.calibrating()
    assert ballot_events(app) == []  # showing tokens to check them casts nothing

    # Ann calls a Vote to Exile Bo; the camera arms itself from the recorded vote_opened.
    assert app.send("call_exile", target="Bo")
    assert app.sm.current == "camera"  # a utility screen is never pulled away from the table
    vote_id = app.view["vote"]["vote_id"]
    assert tr("camera.vote_open", counted=0, total=4) in driver.visible_texts(screen)
    assert screen.ids.calibrate_button.disabled  # the check would show sides during a vote

    # Ann, Bo and Cy lay their tokens down; Di still holds hers.
    gate.release(VOTE_3)
    driver.pump_until(lambda: len(app.view["vote"]["voted"]) == 3 and screen.seen == [1, 2, 3],
               "three ballots and three tokens seen")
    rows = seat_rows(driver, screen)
    seen_counted = f"{tr('camera.seen')} · {tr('camera.counted')}"
    assert rows == {"Ann": seen_counted, "Bo": seen_counted, "Cy": seen_counted, "Di": tr("camera.not_seen")}
    # Nothing on the screen says which side anyone showed: not a row, not a warning, not a line.
    texts = driver.visible_texts(screen)
    assert not [t for t in texts if SIDE_WORDS.search(t)], texts
    assert tr("camera.vote_open", counted=3, total=4) in texts
    assert app.view["vote"]["revealed"] is False and "ballots" not in app.view["vote"]
    assert screen.ids.preview.texture is not None and screen.ids.preview.texture.size == (640, 360)
    shot = driver.screenshot("tokens/camera_screen")
    assert shot.stat().st_size > 50_000
    driver.set_size(800, 1280)  # the tablet held upright
    assert screen.portrait and seat_rows(driver, screen)["Di"] == tr("camera.not_seen")
    driver.screenshot("tokens/camera_screen_portrait")
    driver.set_size(1280, 800)
    assert not screen.start_calibration() and not screen.source.calibrating()
    assert app.root.ids.toast.message == tr("camera.calibration_during_vote")

    # Di flips hers: the last ballot reveals the vote at once, and Bo is exiled.
    gate.release(VOTE_4)
    driver.pump_until(lambda: app.view.get("vote") is None and app.view["vote_history"], "the reveal")
    revealed = app.view["vote_history"][-1]
    assert revealed["vote_id"] == vote_id and revealed["revealed"] and not revealed["missing"]
    assert revealed["ballots"] == {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"}
    assert set(revealed["sources"].values()) == {"camera"}
    ballots = ballot_events(app)
    assert [e.data["voter"] for e in ballots] == ["Ann", "Bo", "Cy", "Di"]  # each seat cast once
    assert app.view["exiles"][-1] == {"caller": "Ann", "target": "Bo", "exiled": True, "tie": False}
    kinds = [e.kind for e in app.session.events]
    assert kinds.index("vote_revealed") == kinds.index("ballot_cast") + 4  # right after the 4th
    assert tr("camera.no_vote") in driver.visible_texts(screen)

    # Back to the game: the shell shows the reveal of the vote just taken.
    driver.tap(screen.ids.back_button)
    assert app.sm.current == "reveal"
    driver.screenshot("tokens/camera_vote_revealed")

    # Stopping the camera takes it out of the app's sources.
    app.goto("camera")
    driver.pump(3)
    source = screen.source
    driver.tap(screen.ids.start_button)
    assert not screen.running and source not in app.sources
    assert tr("camera.off") in driver.visible_texts(screen)


@pytest.mark.app
def test_the_start_button_opens_a_recording_and_refuses_a_missing_one(driver, tmp_path):
    app = driver.app
    screen = open_camera_screen(driver)
    # No game: eight seats, none seen.
    assert len(driver.find_all(root=screen, cls="CameraSeatRow")) == 8
    missing = tmp_path / "no-such-video.avi"
    driver.type_into(screen.ids.where, str(missing))
    driver.tap(screen.ids.start_button)
    driver.pump_until(lambda: not screen.opening, "the camera opened or refused")   # opened off the UI thread
    assert not screen.running and app.sources == []
    said = f"camera {str(missing)!r} could not be opened (no such device, stream or video file)"
    assert app.root.ids.toast.message == said
    # On the screen's line the long path gives way (shortened in its middle), never the reason.
    assert screen.error.endswith("no-such-video.avi' could not be opened (no such device, stream or video file)")
    assert "\n" not in screen.error and screen.error in driver.visible_texts(screen)

    frames = synth.vote_frames({2: "remain"}, 2, hidden=0, shown=6, seed=11, level="easy")
    video = write_video(tmp_path / "seat2.avi", frames)
    driver.type_into(screen.ids.where, str(video))
    driver.tap(screen.ids.start_button)
    driver.pump_until(lambda: not screen.opening, "the camera opened or refused")
    assert screen.running and screen.error == ""
    driver.pump_until(lambda: screen.source.ended and screen.seen == [2], "the recording read")
    rows = seat_rows(driver, screen)
    assert rows["2"] == tr("camera.seen") and rows["1"] == tr("camera.not_seen")
    assert screen.ids.preview.texture is not None
    ended = tr("camera.ended", name="")   # the long path before it may be shortened, never this
    driver.pump_until(lambda: screen.ids.status.text.endswith(ended) and screen.ids.status.text in driver.visible_texts(screen),
                      "the camera's end said on the screen")
    # The devices panel lists the camera; its button leads back here.
    name = screen.source.frames.name
    driver.tap(driver.find(root=app.root, text=tr("app.devices")))
    assert driver.find(cls="DeviceLine", contains=name)
    driver.tap(app.screen("devices").ids.camera_button)
    assert app.sm.current == "camera" and screen.running
    driver.tap(screen.ids.start_button)
    assert app.sources == [] and not screen.running


@pytest.mark.app
def test_the_tablet_camera_path_with_pushed_frames(driver):
    """On Android the frames come from Kivy's Camera into PushedFrames (TabletCamera); here the
    test pushes them. A broken frame is named in one line and changes nothing."""
    app = driver.app
    screen = open_camera_screen(driver)
    pushed = PushedFrames()
    assert screen.start_frames(pushed)
    source = screen.source
    for frame in held(scene({3: "exile"}, 21), 3, 4):
        read = source.frames_read
        pushed.push(frame)
        driver.pump_until(lambda: source.frames_read > read, "a pushed frame read")
    driver.pump_until(lambda: screen.seen == [3], "seat 3 seen")
    # Both sides of Bo's token in view: a warning the table may read, naming no side.
    both = synth.make_scene(np.random.default_rng(6), "easy", players=4, faces={2: "exile"},
                            extra=((2, "remain"),), finger="none").image
    warning = "seat 2: both sides of the token in view; not counted"
    # A camera keeps sending the table: the reader looks over half of it a frame (vision/reader.py),
    # so a new card is found within a few frames, not always in the first.
    for _ in range(6):
        read = source.frames_read
        pushed.push(both)
        driver.pump_until(lambda: source.frames_read > read, "a pushed frame read")
        if warning in lines_on(driver, screen):
            break
    driver.pump_until(lambda: warning in lines_on(driver, screen), "the warning shown")
    assert not [t for t in driver.visible_texts(screen) if SIDE_WORDS.search(t)]
    pushed.push(np.zeros((4, 4), np.uint8))
    line = tr("camera.bad_frame", error="camera frame has shape (4, 4); expected at least 16×16 pixels, grey or colour")
    driver.pump_until(lambda: line in lines_on(driver, screen), "the bad frame named")
    assert source.bad_frames == 1 and 2 in screen.seen  # the bad frame changed nothing
    thread = source._thread
    driver.tap(screen.ids.start_button)  # stop: its thread waits in read() for a push that never comes
    assert not thread.is_alive() and not screen.running
    assert app.sources == []


@pytest.mark.app
def test_frames_cross_between_kivy_textures_and_opencv(driver):
    """The preview's texture upload and the tablet camera's read-back, on real GL textures."""
    from companion.app.screens.camera import frame_from_nv21, frame_from_texture, frame_to_texture
    image = scene({1: "remain", 4: "exile"}, 5)[100:340, 200:520].copy()  # 320x240, top row first
    tex = frame_to_texture(image)
    assert tuple(tex.size) == (320, 240)
    back = frame_from_texture(tex)
    assert back.shape == image.shape and np.abs(back.astype(int) - image).max() <= 1
    assert frame_to_texture(image, tex) is tex  # same size: the texture is reused
    # NV21 (the Android preview format): Y, then V/U interleaved.
    yuv = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)
    h, w = image.shape[:2]
    y, u, v = yuv[:h], yuv[h:h + h // 4].reshape(-1), yuv[h + h // 4:].reshape(-1)
    nv21 = np.concatenate([y.reshape(-1), np.stack([v, u], axis=1).reshape(-1)]).tobytes()
    decoded = frame_from_nv21(nv21, w, h)
    assert decoded.shape == image.shape and np.abs(decoded.astype(int) - image).mean() < 4
    with pytest.raises(BadInput, match=r"^camera frame is 10 bytes; a 320x240 NV21 frame needs 115200$"):
        frame_from_nv21(b"0123456789", w, h)


def test_the_camera_source_follows_the_votes_the_app_records(tmp_path):
    """CameraSource.on_events, as the app calls it after each recorded batch: a vote opening
    arms it (and ends a calibration), a reveal or an undone opening makes it cast nothing."""
    from companion.core.events import Event
    from companion.core.votes import VoteSpec
    from vision.capture import FileFrames
    from vision.source import CameraSource

    shows = {}
    for side in ("exile", "remain"):
        shows[side] = tmp_path / f"{side}.png"
        cv2.imwrite(str(shows[side]), scene({1: side}, 12))
    source = CameraSource(FileFrames([shows["exile"], shows["remain"]], repeat=3), players=2, stable_frames=2)

    def event(kind, data=None, **more):
        return Event(1, kind, {**(data or {}), **more}, "tablet", 0.0)

    def spec(n):
        return VoteSpec(f"exile-{n}", "binary", ("Ann", "Bo"), ("exile", "remain")).to_dict()

    source.idle()  # as the screen starts it with no vote open
    source.start_calibration()
    source.on_events([event("vote_opened", spec(1))])
    assert not source.calibrating()  # the vote took the camera over
    posted = [c for _ in range(3) for c in source.step(source.frames.read())]
    assert [(c.kind, c.data) for c in posted if c.kind == "cast_ballot"] == [
        ("cast_ballot", {"seat": 1, "option": 0, "vote_id": "exile-1"})]
    assert all(c.source == "camera" for c in posted)
    source.on_events([event("ballot_cast", vote_id="exile-1", voter="Ann", choice="exile"),
                      event("vote_revealed", vote_id="exile-1", forced=False, missing=[])])
    # Ann turns her token over after the reveal: nothing more is cast.
    posted = [c for _ in range(3) for c in source.step(source.frames.read())]
    assert [c for c in posted if c.kind == "cast_ballot"] == []
    source.on_events([event("vote_opened", spec(2))])
    source.on_events([event("undo", {"undoes": 9, "kind": "vote_opened"})])
    source.frames = FileFrames([shows["exile"]], repeat=3)
    assert [c for _ in range(3) for c in source.step(source.frames.read()) if c.kind == "cast_ballot"] == []


# -- bad camera values, stalled streams, long paths (the camera screen stays up and says why) --

from kivy.clock import Clock  # noqa: E402
from kivy.core.text import Label as CoreLabel  # noqa: E402

from tests.vision.stream_servers import MjpegServer, StalledServer  # noqa: E402
from vision import capture  # noqa: E402
from vision.source import SILENT_S  # noqa: E402

GUARD = 60.0  # failure guard only


def start_from_field(driver, screen, where):
    driver.type_into(screen.ids.where, where)
    driver.tap(screen.ids.start_button)
    driver.pump_until(lambda: not screen.opening, "the camera opened or refused", timeout=GUARD)


def fits_its_line(label) -> bool:
    """The label's whole text fits its one line (Kivy's own shortening did not cut it)."""
    measure = CoreLabel(font_size=label.font_size, bold=label.bold, font_name=label.font_name)
    # Kivy's own rule (kivy.core.text.LabelBase.shorten): wider than this, it cuts the middle.
    room = int(label.text_size[0] - label.padding[0] - label.padding[2] - 2)
    return measure.get_extents(label.text)[0] <= room and "..." not in label._label.text


@pytest.mark.app
def test_a_camera_value_no_camera_can_be_is_one_line_and_the_app_stays_up(driver, monkeypatch):
    app = driver.app
    screen = open_camera_screen(driver)
    start_from_field(driver, screen, "²")   # "²".isdigit() is True; int("²") raised, the app closed
    assert screen.error == "camera '²' could not be opened (no such device, stream or video file)"
    assert screen.error in driver.visible_texts(screen) and not screen.running and app.sources == []
    start_from_field(driver, screen, "99999999999999999999")   # cv2.error "int too large", the app closed
    assert screen.error == "camera number 99999999999999999999 is not a camera (0 is the first webcam)"
    assert screen.error in driver.visible_texts(screen) and app.root.ids.toast.message == screen.error
    assert app.sm.current == "camera" and app.sources == []

    # A settings.json holding a name with lone surrogates: OpenCV 5 crashes on it, so it never
    # gets it. The field shows it escaped, the line says why, Start refuses it the same way.
    opened = []
    real = capture.cv2.VideoCapture
    monkeypatch.setattr(capture.cv2, "VideoCapture", lambda *a: opened.append(a) or real(*a))
    app.settings.camera = "/dev/video\udcff"
    try:
        driver.tap(driver.find(root=app.root, text=tr("app.devices")))
        driver.tap(app.screen("devices").ids.camera_button)
        refused = r"camera '/dev/video\udcff' is not a valid name (it holds bytes that are not text)"
        assert screen.ids.where.text == r"/dev/video\udcff" and screen.error == refused
        assert refused in driver.visible_texts(screen)
        driver.tap(screen.ids.start_button)
        driver.pump_until(lambda: not screen.opening, "the camera refused", timeout=GUARD)
        assert screen.error == refused and not screen.running and app.sources == []
        assert opened == []
        driver.screenshot("camera/refused_setting")
    finally:
        app.settings.camera = ""


@pytest.mark.app
def test_a_stream_that_never_answers_is_opened_off_the_ui_thread(driver):
    app = driver.app
    screen = open_camera_screen(driver)
    server = StalledServer(then_frames=20)   # answers only when the test lets it
    try:
        driver.type_into(screen.ids.where, server.url)
        driver.tap(screen.ids.start_button)   # before: OpenCV waited ~30 s on the UI thread
        assert server.connected.wait(GUARD) and not server.release.is_set()
        assert screen.opening and not screen.running
        name = f"camera {server.url}"
        assert screen.status == tr("camera.opening", name=name)
        assert screen.status in driver.visible_texts(screen) and tr("camera.opening_short") in driver.visible_texts(screen)
        assert screen.ids.start_button.text == tr("camera.stop") and screen.ids.where.disabled
        # The UI's clock goes on while the stream keeps OpenCV waiting.
        ticked = []
        Clock.schedule_once(lambda dt: ticked.append(dt), 0)
        driver.pump_until(lambda: ticked, "a clock callback while the camera opens", timeout=GUARD)
        assert screen.opening and not server.release.is_set()
        driver.screenshot("camera/opening")
        server.release.set()   # the camera answers: it runs
        driver.pump_until(lambda: screen.running and screen.source.frames_read > 0, "frames from the stream",
                          timeout=GUARD)
        assert screen.error == "" and screen.source in app.sources
        driver.tap(screen.ids.start_button)
        assert not screen.running and app.sources == []
    finally:
        server.close()

    # A stream that never answers, then hangs up: one line, the app up.
    server = StalledServer(then_frames=0)
    try:
        driver.type_into(screen.ids.where, server.url)
        driver.tap(screen.ids.start_button)
        assert server.connected.wait(GUARD) and screen.opening
        server.release.set()
        driver.pump_until(lambda: not screen.opening, "the open refused", timeout=GUARD)
        assert screen.error == f"camera {server.url!r} could not be opened (no such device, stream or video file)"
        assert screen.error in driver.visible_texts(screen) and not screen.running and app.sources == []
    finally:
        server.close()

    # Stop pressed while a camera opens: the screen forgets it; the stream opening later is closed.
    server = StalledServer(then_frames=20)
    try:
        driver.type_into(screen.ids.where, server.url)
        driver.tap(screen.ids.start_button)
        assert server.connected.wait(GUARD) and screen.opening
        driver.tap(screen.ids.start_button)
        assert not screen.opening and not screen.running and screen.status == tr("camera.off")
        server.release.set()
        assert server.released.wait(GUARD)
        driver.pump(10)
        assert not screen.running and app.sources == []
    finally:
        server.close()


@pytest.mark.app
def test_a_stream_gone_silent_is_said_and_stop_returns_at_once(driver):
    app = driver.app
    screen = open_camera_screen(driver)
    server = MjpegServer(20)   # 20 frames, then connected and silent until released
    try:
        start_from_field(driver, screen, server.url)
        source = screen.source
        driver.pump_until(lambda: source.frames_read == 20 and source.frames.blocked_in_read,
                          "every frame read, the next read blocked", timeout=GUARD)
        name = source.frames.name
        driver.pump_until(lambda: screen.status == tr("camera.status", name=name, frames=20), "20 frames said",
                          timeout=GUARD)
        driver.advance(SILENT_S + 2)   # the app's clock: no frame for 5 s
        silent = tr("camera.silent", name="", seconds=int(SILENT_S + 2))   # ": no picture … for 5 s"
        status = screen.ids.status
        driver.pump_until(lambda: status.text.endswith(silent) and status.text in driver.visible_texts(screen),
                          "the silence said", timeout=GUARD)
        assert fits_its_line(status) and status.text.startswith("camera ")
        driver.screenshot("camera/silent_stream")
        thread = source._thread
        driver.tap(screen.ids.start_button)   # Stop: before, the UI waited ~27 s for the read
        assert not screen.running and source not in app.sources
        assert not server.release.is_set() and thread.is_alive()   # it returned before the stream let go
        assert tr("camera.off") in driver.visible_texts(screen)
        server.release.set()
        thread.join(GUARD)
        assert not thread.is_alive() and source.frames._cap is None   # the reader released it
    finally:
        server.close()


@pytest.mark.app
def test_a_long_path_is_shortened_on_the_status_line_not_the_reason(driver, tmp_path):
    screen = open_camera_screen(driver)
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 4)
    deep.mkdir(parents=True)
    video = write_video(deep / "the-table-recording.avi", synth.vote_frames({2: "remain"}, 2, hidden=0, shown=2, seed=3))
    start_from_field(driver, screen, str(video))
    source = screen.source
    reason = tr("camera.ended", name="")   # ": no more frames (…)"
    driver.pump_until(lambda: source.ended and screen.status.endswith(reason), "the end said", timeout=GUARD)
    status = screen.ids.status
    driver.screenshot("camera/long_path_status")
    # The reason takes most of the line: of the path, what room is left (its end) stays.
    assert fits_its_line(status) and status.text.startswith("…") and status.text.endswith(reason)
    assert source.frames.name.endswith(status.text[1:-len(reason)])
    driver.tap(screen.ids.start_button)

    missing = str(deep / "no-such-recording.avi")
    start_from_field(driver, screen, missing)
    error = screen.ids.error
    assert fits_its_line(error) and "…" in error.text
    assert error.text.endswith("no-such-recording.avi' could not be opened (no such device, stream or video file)")
    driver.set_size(800, 1280)   # upright: a narrower line, shortened again
    driver.pump(3)
    assert fits_its_line(error) and error.text.endswith("could not be opened (no such device, stream or video file)")
    driver.screenshot("camera/long_path_error_portrait")
    driver.set_size(1280, 800)
