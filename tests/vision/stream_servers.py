"""Small camera streams on 127.0.0.1 for the camera tests: real HTTP servers OpenCV connects to.

``StalledServer`` accepts a connection and answers nothing until the test releases it (a Wi-Fi
camera that hangs); ``MjpegServer`` sends ``frames`` MJPEG frames, then stays connected and
silent until released (a stream gone quiet mid-game). Both tell the test what happened through
events, never through timing."""
from __future__ import annotations

import socket
import threading

import cv2
import numpy as np


class _Server:
    def __init__(self):
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(5)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/cam.mjpg"
        self.connected = threading.Event()   # a client connected (and sent its request)
        self.release = threading.Event()     # the test lets the server go on
        self.released = threading.Event()    # the server has acted on the release
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self._sock.accept()
            except OSError:
                return
            self._conns.append(c)
            threading.Thread(target=self._serve_safely, args=(c,), daemon=True).start()

    def _serve_safely(self, c):
        try:
            self.serve(c)
        except OSError:
            pass
        finally:
            c.close()

    def serve(self, c: socket.socket) -> None:
        raise NotImplementedError

    def close(self):
        self.release.set()
        self._sock.close()
        for c in self._conns:
            try:
                c.close()
            except OSError:
                pass


def _jpeg(shade: int = 128) -> bytes:
    return cv2.imencode(".jpg", np.full((240, 320, 3), shade, np.uint8))[1].tobytes()


def _part(jpg: bytes) -> bytes:
    return b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpg) + jpg + b"\r\n"


HEADER = b"HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"


class StalledServer(_Server):
    """Accepts, reads the request, says nothing until released; then serves ``then_frames``
    MJPEG frames and closes (0: closes at once, so the open fails)."""

    def __init__(self, then_frames: int = 0):
        self.then_frames = then_frames
        super().__init__()

    def serve(self, c):
        c.recv(65536)
        self.connected.set()
        self.release.wait()
        if self.then_frames:
            jpg = _jpeg()
            c.sendall(HEADER + b"".join(_part(jpg) for _ in range(self.then_frames)))
            self.released.set()
            c.recv(1)   # keep the stream open until the client goes away
        else:
            self.released.set()


class MjpegServer(_Server):
    """Sends ``frames`` grey frames (or the JPEG pictures ``jpegs``), then stays connected and
    silent until released (``hold``; else it closes the connection at once); then closes."""

    def __init__(self, frames: int = 20, jpegs: list[bytes] | None = None, hold: bool = True):
        self.frames = frames
        self.jpegs = jpegs
        self.hold = hold
        self.sent = threading.Event()
        super().__init__()

    def serve(self, c):
        c.recv(65536)
        self.connected.set()
        jpegs = self.jpegs if self.jpegs is not None else [_jpeg()] * self.frames
        c.sendall(HEADER + b"".join(_part(jpg) for jpg in jpegs))
        self.sent.set()
        if self.hold:
            self.release.wait()
        self.released.set()
