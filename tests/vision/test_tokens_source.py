"""The camera as an input source: recorded frames through the same capture path as a webcam
(cv2.VideoCapture on a recorded video), into a real 23 Knives game on a real SQLite journal."""
from __future__ import annotations

import os
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.clock import FakeClock
from companion.core.events import BadInput, Command
from companion.core.inputs import CommandQueue
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import RULES
from companion.games.knives23.rules import SETUP_STEPS
from vision import synth
from vision.capture import CameraCapture, FileFrames, write_video
from vision.reader import TokenReader
from vision.source import CameraSource, ballot_data

FOUR = ["Ann", "Bo", "Cy", "Di"]
ART = str(Path(__file__).resolve().parents[2] / "test-artifacts" / "tokens")


def record_vote(path, faces, players=4, hidden=6, shown=14):
    """Tokens held hidden, then flipped together (one blurred frame), then lying still."""
    return write_video(path, synth.vote_frames(faces, players, hidden, shown), fps=30)


def exile_vote_open(tmp_path):
    session = GameSession.start(Journal(tmp_path / "knives.db"), RULES, {"players": FOUR})
    for step in SETUP_STEPS:
        session.execute(Command("tick_setup", {"step": step}))
    session.execute(Command("begin_play"))
    session.execute(Command("move", {"location": "forum"}))
    session.execute(Command("call_exile", {"target": "Bo"}))
    assert session.state.phase == "exile_vote"
    return session


def run_like_the_app(camera, session, timeout=60.0):
    """Start the source on a queue and drain it on this (main) thread until the frames end."""
    q = CommandQueue()
    seen_updates, refused = [], []

    def handle(cmd):
        if cmd.kind == "tokens_seen":
            seen_updates.append(cmd)
        else:
            session.execute(cmd)

    camera.start(q.post)
    deadline = time.monotonic() + timeout
    while not camera.ended and time.monotonic() < deadline:
        refused += q.drain(handle)
        time.sleep(0.01)
    camera.join(5)
    refused += q.drain(handle)
    camera.stop()
    return seen_updates, refused


def test_an_exile_vote_taken_from_the_camera(tmp_path):
    faces = {1: "exile", 2: "remain", 3: "exile", 4: "exile"}
    video = record_vote(tmp_path / "vote.avi", faces)
    session = exile_vote_open(tmp_path)
    camera = CameraSource(CameraCapture(str(video)), players=4, stable_frames=5)
    camera.expect(session.state.book.current.spec)
    seen_updates, refused = run_like_the_app(camera, session)
    assert refused == []
    ballots = [e for e in session.events if e.kind == "ballot_cast"]
    assert {e.data["voter"]: e.data["choice"] for e in ballots} == {
        "Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"}
    assert {e.source for e in ballots} == {"camera"} and len(ballots) == 4  # each seat posted once
    assert session.state.exiles[-1] == {"caller": "Ann", "target": "Bo", "exiled": True, "tie": False}
    # The preview's "seen" list never carries a side.
    assert seen_updates and all(set(c.data) == {"seats"} for c in seen_updates)
    assert seen_updates[-1].data["seats"] == [1, 2, 3, 4]
    # Nothing was read from the hidden frames: the first ballot came after the flip.
    assert camera.frames_read == 6 + 1 + 14 and camera.bad_frames == 0


def test_the_preview_paints_over_every_card_it_reads(tmp_path):
    faces = {1: "remain", 2: "exile", 3: "remain"}
    scene = synth.make_scene(np.random.default_rng(5), "easy", players=3, faces=faces, finger="none")
    camera = CameraSource(FileFrames([_save(tmp_path, scene.image)], repeat=3), players=3, preview_width=1280)
    posted = []
    for _ in range(3):
        posted += camera.step(camera.frames.read())
    preview, seen = camera.latest_preview()
    assert seen == (1, 2, 3) and preview.shape == scene.image.shape
    os.makedirs(ART, exist_ok=True)
    cv2.imwrite(f"{ART}/camera-preview-masked.png", preview)
    cv2.imwrite(f"{ART}/camera-preview-raw.png", scene.image)
    # No marker is left to read in what the screen would show, and no side appears in a command.
    assert TokenReader(3, "all").read(preview).sightings == []
    assert [c.kind for c in posted] == ["tokens_seen"]


def _save(tmp_path, img, name="frame.png"):
    path = tmp_path / name
    cv2.imwrite(str(path), img)
    return path


def test_ballots_map_token_sides_and_pick_cards_to_the_vote():
    assert ballot_data(2, "exile") == {"seat": 2, "option": 0}  # Exile, or the red Issue
    assert ballot_data(2, "remain") == {"seat": 2, "option": 1}  # Remain, or the grey Issue
    spec = {"kind": "pick", "voters": FOUR}
    assert ballot_data(1, "player3", spec) == {"seat": 1, "choice": "Cy"}
    assert ballot_data(1, "center", spec) == {"seat": 1, "choice": "center"}
    assert ballot_data(1, "player6", spec) is None  # no sixth player at this table


def test_calibration_checks_every_side_once_and_casts_nothing(tmp_path):
    stills = [
        synth.make_scene(np.random.default_rng(n), "easy", players=2, faces=f).image
        for n, f in enumerate([{1: "exile", 2: "exile"}, {1: "remain"}, {2: "remain"}])
    ]
    paths = [_save(tmp_path, img, f"c{n}.png") for n, img in enumerate(stills)]
    camera = CameraSource(FileFrames(paths, repeat=4), players=2)
    camera.start_calibration()
    posted = []
    statuses = []
    while (frame := camera.frames.read()) is not None:
        posted += camera.step(frame)
        statuses.append(camera.calibration_status().complete)
    assert "cast_ballot" not in {c.kind for c in posted}
    progress = [c.data["missing"] for c in posted if c.kind == "tokens_calibration"]
    assert progress[0] == [[1, "remain"], [2, "remain"]] and progress[-1] == []
    assert statuses[-1] is True and statuses[0] is False
    report = camera.end_calibration()
    assert report.complete and report.checked == [(1, "exile"), (1, "remain"), (2, "exile"), (2, "remain")]


def test_a_bad_frame_is_counted_and_named_and_changes_nothing(tmp_path):
    scene = synth.make_scene(np.random.default_rng(3), "easy", players=2, faces={1: "exile", 2: "remain"})
    camera = CameraSource(FileFrames([_save(tmp_path, scene.image)], repeat=1), players=2, stable_frames=2)
    camera.step(scene.image)
    assert camera.step(np.zeros((4, 4), np.uint8)) == []
    assert camera.bad_frames == 1 and "16×16" in camera.last_error and "\n" not in camera.last_error
    posted = camera.step(scene.image)
    assert [c.data for c in posted if c.kind == "cast_ballot"] == [{"seat": 1, "option": 0}, {"seat": 2, "option": 1}]


def test_a_camera_that_cannot_be_opened_is_a_one_line_error(tmp_path):
    with pytest.raises(BadInput, match="could not be opened"):
        CameraCapture(str(tmp_path / "no-such-video.avi"))
    with pytest.raises(BadInput, match="does not exist"):
        FileFrames([tmp_path / "gone.png"])
    with pytest.raises(BadInput, match="no frames"):
        FileFrames([])


def test_recorded_frames_are_paced_on_the_clock(tmp_path):
    img = np.full((32, 32, 3), 200, np.uint8)
    clock = FakeClock(0.0)
    frames = FileFrames([_save(tmp_path, img)], fps=10, repeat=3, clock=clock)
    got = [frames.read() for _ in range(4)]
    assert [g is None for g in got] == [False, False, False, True]
    assert clock.now() == pytest.approx(0.3)


def test_the_device_panel_line(tmp_path):
    video = record_vote(tmp_path / "v.avi", {1: "exile"}, players=1, hidden=1, shown=2)
    camera = CameraSource(CameraCapture(str(video)), players=1)
    (info,) = camera.devices()
    assert info.kind == "camera" and info.connected and info.detail == "0 of 1 seats in view"
    camera.start(lambda c: None)
    camera.join(30)
    (info,) = camera.devices()
    assert not info.connected and info.detail == "1 of 1 seats in view"
    camera.stop()


def test_no_camera_at_that_index_is_a_one_line_error():
    with pytest.raises(BadInput, match="camera 7 could not be opened"):
        CameraCapture(7)  # this machine has no /dev/video*; a tablet's camera 7 does not exist either


def test_an_idle_camera_casts_nothing_until_the_next_vote_opens(tmp_path):
    scene = synth.make_scene(np.random.default_rng(3), "easy", players=2, faces={1: "exile", 2: "remain"})
    camera = CameraSource(FileFrames([_save(tmp_path, scene.image)]), players=2, stable_frames=2)
    camera.idle()
    posted = [c for _ in range(3) for c in camera.step(scene.image)]
    assert [c.kind for c in posted] == ["tokens_seen"]
    camera.expect({"vote_id": "exile-2", "kind": "binary", "voters": ["Ann", "Bo"]})
    posted = [c for _ in range(2) for c in camera.step(scene.image)]
    assert [c.data for c in posted if c.kind == "cast_ballot"] == [
        {"seat": 1, "option": 0, "vote_id": "exile-2"}, {"seat": 2, "option": 1, "vote_id": "exile-2"}]


def test_a_masks_vote_taken_from_pick_cards(tmp_path):
    """Royals and Martyr Masks: "everyone points to one other player ... or to the Bystanders" —
    here by laying a pick card ("votes for PLAYER 3", "votes CENTER")."""
    from companion.games.masks.rules import MasksRules
    players = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    session = GameSession.start(Journal(tmp_path / "masks.db"), MasksRules(), {"players": players})
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        session.execute(Command(kind))
    picks = {1: "player3", 2: "player3", 3: "player1", 4: "player3", 5: "center"}
    scene = synth.make_scene(np.random.default_rng(12), "moderate", players=5, faces=picks, finger="none")
    camera = CameraSource(FileFrames([_save(tmp_path, scene.image)], repeat=8), players=5)
    camera.expect(session.state.book.current.spec)
    _, refused = run_like_the_app(camera, session)
    assert refused == []
    ballots = {e.data["voter"]: e.data["choice"] for e in session.events if e.kind == "ballot_cast"}
    assert ballots == {"Ann": "Cat", "Ben": "Cat", "Cat": "Ann", "Dan": "Cat", "Eve": "center"}
    assert any(e.kind == "vote_revealed" for e in session.events)


def test_frames_pushed_by_the_app_go_through_the_same_reading(tmp_path):
    """A tablet's own camera comes through Kivy; the app pushes its frames (PushedFrames)."""
    from vision.capture import PushedFrames
    frames = PushedFrames()
    camera = CameraSource(frames, players=2, stable_frames=2)
    q = CommandQueue()
    camera.start(q.post)
    scene = synth.make_scene(np.random.default_rng(3), "easy", players=2, faces={1: "remain", 2: "remain"})
    deadline = time.monotonic() + 30
    while camera.frames_read < 4 and time.monotonic() < deadline:
        frames.push(scene.image)
        time.sleep(0.02)
    frames.close()
    camera.join(10)
    assert camera.ended
    got = []
    q.drain(got.append)
    assert [c.data for c in got if c.kind == "cast_ballot"] == [{"seat": 1, "option": 1}, {"seat": 2, "option": 1}]
    camera.stop()


def test_an_opencv_failure_in_the_reader_costs_one_frame_not_the_camera(tmp_path, monkeypatch):
    """An OpenCV assertion inside the reader (a shape nobody foresaw) used to leave step() and end
    the camera's thread; now it is one bad frame, named in one line, and the next frame reads."""
    scene = synth.make_scene(np.random.default_rng(3), "easy", players=2, faces={1: "exile", 2: "remain"})
    camera = CameraSource(FileFrames([_save(tmp_path, scene.image)], repeat=1), players=2, stable_frames=2)
    camera.step(scene.image)
    real = TokenReader._read_video

    def once(self, frame, grey):
        monkeypatch.setattr(TokenReader, "_read_video", real)
        raise cv2.error("OpenCV(5.0.0) approx.cpp:426: error: (-215:Assertion failed) in function 'approxPolyN'")

    monkeypatch.setattr(TokenReader, "_read_video", once)
    assert camera.step(scene.image) == []
    assert camera.bad_frames == 1 and "OpenCV failed" in camera.last_error and "\n" not in camera.last_error
    posted = camera.step(scene.image)
    assert [c.data for c in posted if c.kind == "cast_ballot"] == [{"seat": 1, "option": 0}, {"seat": 2, "option": 1}]
