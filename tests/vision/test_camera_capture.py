"""CameraCapture and CameraSource on bad camera values and on real streams that stall
(servers on 127.0.0.1 in this process, OpenCV's own HTTP client): a bad value is one BadInput
line and OpenCV never sees a value it crashes on; closing never waits for a read blocked in a
silent stream, and the capture is released by the reading thread, after its read."""
from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from companion.core.clock import FakeClock
from companion.core.events import BadInput
from vision import capture
from vision.capture import CameraCapture, camera_where
from vision.source import SILENT_S, CameraSource

from .stream_servers import MjpegServer

GUARD = 60.0  # failure guard only: every wait below ends on an event long before this


@pytest.fixture
def no_opencv_open(monkeypatch):
    """cv2.VideoCapture replaced by a recorder: the values refused must never reach OpenCV
    (OpenCV 5 crashes the process on a text with lone surrogates)."""
    calls = []

    def refuse(*args, **kw):
        calls.append(args)
        raise AssertionError(f"cv2.VideoCapture called with {args!r}")

    monkeypatch.setattr(capture.cv2, "VideoCapture", refuse)
    return calls


@pytest.mark.parametrize("where, line", [
    ("99999999999999999999", "camera number 99999999999999999999 is not a camera (0 is the first webcam)"),
    (2**40, "camera number 1099511627776 is not a camera (0 is the first webcam)"),
    ("/dev/video\udcff", r"camera '/dev/video\udcff' is not a valid name (it holds bytes that are not text)"),
    ("a\x00b", r"camera 'a\x00b' is not a valid name (it holds a control character)"),
])
def test_values_no_camera_can_be_are_refused_before_opencv_sees_them(where, line, no_opencv_open):
    with pytest.raises(BadInput) as caught:
        CameraCapture(where)
    assert str(caught.value) == line and "\n" not in str(caught.value)
    assert no_opencv_open == []


def test_only_ascii_digits_make_a_camera_number():
    # "²".isdigit() is True but int("²") fails: it is a name (a file), not camera 2.
    assert camera_where("²") == "²" and camera_where("٣") == "٣"
    assert camera_where("2") == 2 and camera_where(" 2") == " 2"
    with pytest.raises(BadInput, match=r"^camera '²' could not be opened \(no such device, stream or video file\)$"):
        CameraCapture("²")


def test_an_opencv_error_is_one_bad_input_line(monkeypatch):
    def overflow(*args):
        raise cv2.error("OpenCV(5.0.0) :-1: error: (-5:Bad argument) in function 'VideoCapture'\n"
                        "> Overload resolution failed:\n>  - integer won't fit into a C int")
    monkeypatch.setattr(capture.cv2, "VideoCapture", overflow)
    with pytest.raises(BadInput, match=r"^camera 'x' could not be opened \(integer won't fit into a C int\)$"):
        CameraCapture("x")


class RecordingCap:
    """The real VideoCapture, with every read and release written down in order (and by which
    thread), to check that release never runs during a read."""

    def __init__(self, cap):
        self.cap = cap
        self.log: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.reads_started = 0
        self.reading = threading.Condition(self.lock)

    def read(self):
        with self.lock:
            self.reads_started += 1
            self.log.append(("read", threading.current_thread().name))
            self.reading.notify_all()
        try:
            return self.cap.read()
        finally:
            with self.lock:
                self.log.append(("read done", threading.current_thread().name))

    def release(self):
        with self.lock:
            self.log.append(("release", threading.current_thread().name))
        self.cap.release()

    def get(self, prop):
        return self.cap.get(prop)

    def wait_for_read(self, n):
        with self.lock:
            return self.reading.wait_for(lambda: self.reads_started >= n, GUARD)


def silent_stream(frames=20):
    """A real MJPEG stream that sent ``frames`` frames and went silent, read by a thread that
    is now blocked in its next read."""
    server = MjpegServer(frames)
    cam = CameraCapture(server.url)
    rec = RecordingCap(cam._cap)
    cam._cap = rec
    got: list = []

    def read_all():
        while cam.read() is not None:
            got.append(1)

    reader = threading.Thread(target=read_all, name="reader", daemon=True)
    reader.start()
    # Every frame read, and the reader has started the read after the last one: the server
    # sends nothing more until released, so that read is blocked inside OpenCV.
    assert rec.wait_for_read(frames + 1), "the reader never got past the stream's frames"
    assert len(got) == frames and server.sent.is_set() and not server.release.is_set()
    return server, cam, rec, reader, got


def test_close_returns_while_a_read_is_blocked_in_a_silent_stream():
    server, cam, rec, reader, got = silent_stream()
    try:
        closed = threading.Event()
        threading.Thread(target=lambda: (cam.close(), closed.set()), daemon=True).start()
        assert closed.wait(GUARD), "close() waited for the blocked read"
        # close() returned while the stream still held the read: nothing was released under it.
        assert not server.release.is_set() and reader.is_alive()
        assert ("release", "reader") not in rec.log and not [e for e in rec.log if e[0] == "release"]
        assert cam.closed and cam.blocked_in_read
        server.release.set()   # the stream ends: the blocked read returns
        reader.join(GUARD)
        assert not reader.is_alive()
        # The reader released the capture itself, after its read returned; once.
        assert rec.log[-2:] == [("read done", "reader"), ("release", "reader")]
        assert [e for e in rec.log if e[0] == "release"] == [("release", "reader")]
        assert cam._cap is None and cam.read() is None and len(got) == 20
        cam.close()   # closing again changes nothing
    finally:
        server.close()


def test_close_with_no_read_running_releases_at_once(tmp_path):
    video = capture.write_video(tmp_path / "v.avi", [np.zeros((48, 64, 3), np.uint8) for _ in range(3)])
    cam = CameraCapture(str(video))
    rec = RecordingCap(cam._cap)
    cam._cap = rec
    assert cam.read() is not None
    cam.close()
    assert rec.log == [("read", "MainThread"), ("read done", "MainThread"), ("release", "MainThread")]
    assert cam.read() is None and cam.fps == 0.0


def test_camera_source_stop_returns_while_its_thread_is_blocked_and_says_the_camera_is_silent():
    server = MjpegServer(20)
    clock = FakeClock()
    cam = CameraCapture(server.url)
    rec = RecordingCap(cam._cap)
    cam._cap = rec
    source = CameraSource(cam, players=4, clock=clock)
    posted = []
    try:
        source.start(posted.append)
        thread = source._thread
        assert rec.wait_for_read(21)
        assert source.silent_for() == 0.0
        clock.advance(SILENT_S + 2)
        assert source.silent_for() == SILENT_S + 2
        assert source.devices()[0].detail == f"no picture from the camera for {int(SILENT_S + 2)} s"
        stopped = threading.Event()
        threading.Thread(target=lambda: (source.stop(), stopped.set()), daemon=True).start()
        assert stopped.wait(GUARD), "stop() waited for the blocked read"
        assert not server.release.is_set() and thread.is_alive()   # returned before the stream let go
        assert source.silent_for() is None
        n = len(posted)
        server.release.set()
        thread.join(GUARD)
        assert not thread.is_alive() and cam._cap is None
        assert [e for e in rec.log if e[0] == "release"] == [("release", "camera-tokens")]
        assert len(posted) == n   # nothing posted after the stop
    finally:
        server.close()
