"""`python -m vision.tokens watch SOURCE` in a real subprocess: a clip the test renders
(vision/clips.py: tokens brought in one after another, a shaking camera, a passing hand, glare, blur,
JPEG) as a video file and as a real HTTP MJPEG stream on 127.0.0.1, a camera number no camera has,
and files that are no video. The frames go through the app's own camera source."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from vision import clips
from vision.capture import FrameSource, write_video
from vision.source import CameraSource

from .stream_servers import MjpegServer

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 4


def cli(*args, timeout=180):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "vision.tokens", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """A moderate clip of four tokens, 2.5 s or more at 30 fps, and the MJPEG video file of it."""
    made, frames = clips.make_clip("moderate", seed=5, players=PLAYERS, seconds=2.5)
    frames = list(frames)
    path = write_video(tmp_path_factory.mktemp("watch") / "vote.avi", frames, fps=clips.FPS)
    return made, frames, path


def _lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_the_clip_has_what_it_says(clip):
    made, frames, _ = clip
    assert len(frames) == made.count == round(made.seconds * clips.FPS) and frames[0].shape == (720, 1280, 3)
    # 2.5 s asked for, longer so that the last token has 2 s in view
    assert made.seconds >= 2.5 and made.seconds >= max(made.arrive.values()) + clips.SLIDE_S + clips.RETREAT_S + 2.0
    assert sorted(made.truth) == [1, 2, 3, 4] and set(made.truth.values()) <= {"exile", "remain"}
    # each token is fully in view only after its hand brought it in, one after another
    for seat, t in made.in_view.items():
        assert made.arrive[seat] + clips.SLIDE_S <= t < made.seconds
    assert len(set(made.arrive.values())) == PLAYERS


def test_watch_reads_a_video_file_as_the_app_does(clip):
    made, frames, path = clip
    p = cli("watch", path, "--players", PLAYERS, "--json")
    assert p.returncode == 0, p.stderr
    lines = _lines(p.stdout)
    *changes, last = lines
    assert last["frames"] == len(frames) and 0 < last["ms_per_frame"] < 1000
    assert last["final"] == {str(s): side for s, side in made.truth.items()}
    assert [set(c) for c in changes] == [{"t", "seat", "side"}] * len(changes)
    # every side is right, held over 5 frames after its card came, and within 1 s of it in full view
    assert all(c["side"] == made.truth[c["seat"]] for c in changes)
    first = {}
    for c in changes:
        first.setdefault(c["seat"], c["t"])
    for seat, t in first.items():
        assert made.arrive[seat] + 4 / clips.FPS - 2e-3 <= t <= made.in_view[seat] + 1.0, (seat, t, made.in_view)
    # times are frame index / fps of the file, in order
    assert [c["t"] for c in changes] == sorted(c["t"] for c in changes)
    assert all(abs(c["t"] * clips.FPS - round(c["t"] * clips.FPS)) < 0.05 for c in changes)


def test_watch_without_json_prints_lines_a_person_reads(clip):
    made, _, path = clip
    p = cli("watch", path, "--players", PLAYERS)
    assert p.returncode == 0, p.stderr
    *changes, last = p.stdout.splitlines()
    assert len(changes) >= PLAYERS and all(" s  seat " in c for c in changes)
    assert last.startswith("final: " + ", ".join(f"seat {s}: {made.truth[s]}" for s in sorted(made.truth)))
    assert "frames" in last and "ms a frame" in last


def test_the_clip_read_through_the_camera_source_casts_no_wrong_side(clip):
    """The same frames, in this process, straight into the app's CameraSource: every ballot right."""
    made, frames, _ = clip
    source = CameraSource(FrameSource(), PLAYERS)
    source.expect(None)
    cast = {}
    for k, frame in enumerate(frames):
        for cmd in source.step(frame):
            if cmd.kind == "cast_ballot":
                assert ("exile", "remain")[cmd.data["option"]] == made.truth[cmd.data["seat"]]
                cast.setdefault(cmd.data["seat"], k / clips.FPS)
    assert set(cast) == set(made.truth)


def test_watch_reads_a_stream_then_says_it_stopped(clip):
    """A real MJPEG stream over HTTP sends the clip's frames and then falls silent: the changes
    read are printed, then the final line, then one error line and exit status 1."""
    made, frames, _ = clip
    jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for f in frames]
    server = MjpegServer(jpegs=jpegs)
    try:
        p = cli("watch", server.url, "--players", PLAYERS, "--json", "--silence", "2")
    finally:
        server.close()
    assert p.returncode == 1
    *changes, last = _lines(p.stdout)
    assert last["final"] == {str(s): side for s, side in made.truth.items()}
    assert 0 < last["frames"] <= len(frames)
    assert all(c["side"] == made.truth[c["seat"]] for c in changes)
    (err,) = p.stderr.splitlines()
    assert err.startswith(f"vision.tokens: error: stream '{server.url}': no frame for 2 s (after ")


def test_a_stream_whose_server_goes_away_is_one_line_after_what_was_read(clip):
    made, frames, _ = clip
    jpegs = [cv2.imencode(".jpg", f)[1].tobytes() for f in frames[:40]]
    server = MjpegServer(jpegs=jpegs, hold=False)
    try:
        p = cli("watch", server.url, "--players", PLAYERS, "--json", "--silence", "20")
    finally:
        server.close()
    assert p.returncode == 1
    last = _lines(p.stdout)[-1]
    assert 0 < last["frames"] <= 40
    (err,) = p.stderr.splitlines()
    assert err.startswith(f"vision.tokens: error: stream '{server.url}': ")
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("where", ["9", "63"])
def test_a_camera_number_no_camera_has_is_one_line(where):
    p = cli("watch", where, "--json")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.splitlines() == [f"vision.tokens: error: camera {int(where)!r} could not be opened "
                                     "(no such device, stream or video file)"]


def test_files_that_are_no_video_are_one_line(tmp_path):
    text = tmp_path / "notes.avi"
    text.write_text("not a video at all\n" * 100)
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    for path in (text, empty):
        p = cli("watch", path)
        assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
        (line,) = p.stderr.splitlines()
        assert line.startswith("vision.tokens: error: video ") and str(path) in line
    p = cli("watch", tmp_path / "missing.mp4")
    assert p.returncode == 1
    assert p.stderr.splitlines() == [f"vision.tokens: error: '{tmp_path / 'missing.mp4'}' does not exist "
                                     "(give a video file, a camera number or a stream URL)"]
    p = cli("watch", tmp_path)
    assert p.returncode == 1 and "is a folder" in p.stderr and len(p.stderr.splitlines()) == 1


def test_a_video_cut_short_is_one_line_after_what_was_read(clip, tmp_path):
    _, frames, path = clip
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    p = cli("watch", cut, "--players", PLAYERS, "--json")
    assert "Traceback" not in p.stderr
    lines = _lines(p.stdout)
    # whatever OpenCV makes of the cut file: what it read is printed, then one line and exit 1
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert lines and "final" in lines[-1] and lines[-1]["frames"] < len(frames)
    assert len(p.stderr.splitlines()) == 1 and "video" in p.stderr


def test_help_explains_watch():
    p = cli("watch", "--help")
    assert p.returncode == 0
    for words in ("video file", "camera number", "stream URL", "--json", "\"final\"", "ms_per_frame", "exit status 1"):
        assert words in p.stdout, words


def test_ctrl_c_on_a_stream_prints_the_final_line_and_exits_0(clip):
    """A camera or stream is watched until Ctrl-C: the final line comes, exit status 0, and no
    abort from the reading thread still inside OpenCV (before: "FATAL: exception not rethrown")."""
    made, frames, _ = clip
    server = MjpegServer(jpegs=[cv2.imencode(".jpg", f)[1].tobytes() for f in frames])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "vision.tokens", "watch", server.url, "--players", str(PLAYERS),
                          "--json", "--silence", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=ROOT, env=env)
    try:
        changes = []
        while len({c["seat"] for c in changes}) < PLAYERS:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            changes.append(json.loads(line))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
        server.close()
    assert p.returncode == 0 and err == "", err
    (last,) = _lines(out)
    assert last["final"] == {str(s): side for s, side in made.truth.items()} and last["frames"] > 0


def test_a_video_file_is_read_with_the_budget_counted_in_work(clip):
    """``watch`` on a file reads it the same at any load: its reader counts the frame budget in
    work (``recorded``), not in CPU time (tests/vision/test_tokens_video.py shows the difference)."""
    from vision.watch import Watch
    _, _, path = clip
    watch = Watch(str(path), PLAYERS)
    try:
        assert watch.is_file and watch.source.recorded and watch.source._reader.recorded
    finally:
        watch.stop()
