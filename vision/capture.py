"""Where frames come from: a camera, or recorded frames fed through the same path.

``FrameSource.read()`` returns a BGR frame, or ``None`` when there are no more frames (the file
ended, the camera was unplugged). :class:`CameraCapture` is ``cv2.VideoCapture`` — a device index,
a stream URL, or a recorded video file, all the same code. :class:`FileFrames` plays still images
(or a video file) with the same interface, optionally paced at a frame rate. :class:`PushedFrames`
takes frames the app hands over (a tablet's built-in camera, seen through Kivy).
"""
from __future__ import annotations

import io
import queue
import re
import threading
import warnings
from pathlib import Path
from typing import Iterable, Protocol, Sequence

import cv2
import numpy as np
from PIL import Image

from companion.core.clock import Clock, MonotonicClock
from companion.core.events import BadInput
from companion.core.i18n import is_text

VIDEO_SUFFIXES = {".avi", ".mp4", ".mkv", ".mov", ".webm", ".mjpg", ".mjpeg"}
MAX_PIXELS = 40_000_000   # refuse bigger images before decoding them (decompression bombs)


class PacingClock(Clock, Protocol):
    """A clock that can also wait (``FileFrames`` paced at a frame rate)."""

    def sleep(self, seconds: float) -> None: ...


class FrameSource:
    """One interface for every frame supplier."""

    name: str = "frames"

    @property
    def blocked_in_read(self) -> bool:
        """True while read() is blocked somewhere close() cannot wake (a silent camera stream):
        whoever stops the reading thread then must not wait for it."""
        return False

    def read(self) -> np.ndarray | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_image_size(data: bytes, name: str) -> bool:
    """BadInput naming the size if the image header in ``data`` claims more than MAX_PIXELS
    pixels; False if it is no image header Pillow knows. Reads only the header: a bomb of a few
    hundred KB claiming 30000x30000 pixels is refused before anything is decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
        size = f"{w}x{h}" if w * h > MAX_PIXELS else ""
    except Image.DecompressionBombError as e:
        # Past Pillow's own, higher limit. Its message: "Image size (N pixels) exceeds ..."
        size = (re.findall(r"\d+", str(e)) or ["too many"])[0]
    except Exception:
        return False
    if size:
        raise BadInput(f"{name} is too large ({size} pixels, limit {MAX_PIXELS})")
    return True


def whole_png(data: bytes) -> bool:
    """False for a PNG that is cut short or damaged (Pillow checks every chunk's CRC, a few ms
    for a 36 MB file): OpenCV's libpng prints its own "libpng error: …" line to stderr for
    one, which no log level silences. Other formats: True (OpenCV says nothing on them)."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return True
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.verify()
    except Exception:  # Pillow's SyntaxError, OSError, struct.error… on a broken file
        return False
    return True


def load_image(path: str | Path) -> np.ndarray:
    """An image file as a BGR array, or BadInput naming the file and what is wrong."""
    p = Path(path)
    if not p.exists():
        raise BadInput(f"image {str(p)!r} does not exist")
    if p.is_dir():
        raise BadInput(f"image {str(p)!r} is a folder, not an image file")
    if not p.is_file():   # /dev/zero, a FIFO: no size to check, maybe no end
        raise BadInput(f"image {str(p)!r} is not a regular file")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as e:
        raise BadInput(f"image {str(p)!r} cannot be read: {e.strerror or e}") from None
    if data.size == 0:
        raise BadInput(f"image {str(p)!r} is empty (0 bytes)")
    # Only formats whose header tells the size before decoding: no bomb gets through unchecked.
    raw = data.tobytes()
    known = check_image_size(raw, f"image {str(p)!r}") and whole_png(raw)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if known else None
    if img is None:
        raise BadInput(f"image {str(p)!r} is not an image OpenCV can read (PNG, JPEG, BMP, TIFF, WebP…)")
    return img


MAX_CAMERA_INDEX = 2**31 - 1   # cv2.VideoCapture takes a C int; a bigger number is no camera


def camera_where(where: int | str) -> int | str:
    """What ``cv2.VideoCapture`` is given for ``where`` (a camera number, a stream URL or a
    video file), or BadInput naming the value in one line. Only ASCII digits make a camera number
    ("²".isdigit() is True, but it is no number); a number too big for OpenCV, a text with
    characters that are not text (lone surrogates, from a file name in an unknown encoding:
    OpenCV crashes on them) or with a NUL or line break is refused before OpenCV sees it."""
    if isinstance(where, bool) or not isinstance(where, (int, str)):
        raise BadInput(f"camera {where!r} is neither a camera number nor a text")
    if isinstance(where, str):
        if not is_text(where):
            raise BadInput(f"camera {where!r} is not a valid name (it holds bytes that are not text)")
        if any(c in where for c in "\0\r\n"):
            raise BadInput(f"camera {where!r} is not a valid name (it holds a control character)")
        if where.isascii() and where.isdigit():
            where = int(where)
    if isinstance(where, int) and not 0 <= where <= MAX_CAMERA_INDEX:
        shown = str(where) if len(str(where)) <= 24 else str(where)[:20] + "…"
        raise BadInput(f"camera number {shown} is not a camera (0 is the first webcam)")
    return where


class CameraCapture(FrameSource):
    """``cv2.VideoCapture`` on a camera index (0 = the first webcam), a stream URL or a video file.

    Opening may take long (a stream that connects but never answers: OpenCV waits ~30 s), so an
    app opens it off its UI thread. ``close()`` never waits for a ``read()`` blocked inside
    ``VideoCapture.read`` (a stream gone silent): it marks the capture closed and the reading
    thread releases it when its read returns, so ``release`` never runs during a ``read``."""

    def __init__(self, where: int | str = 0, width: int = 1280, height: int = 720):
        self.where = where
        self.name = f"camera {where}"
        where = camera_where(where)
        # OpenCV logs each backend it tries and fails with; our one-line BadInput says it better.
        quiet = getattr(getattr(cv2, "utils", None), "logging", None)
        level = quiet.getLogLevel() if quiet else None
        if quiet:
            quiet.setLogLevel(quiet.LOG_LEVEL_ERROR)
        self._cap: cv2.VideoCapture | None
        try:
            self._cap = cv2.VideoCapture(where)
        except cv2.error as exc:   # an argument OpenCV refuses: its first line names the reason
            detail = str(exc).strip().splitlines()[-1].lstrip("> -").strip() if str(exc).strip() else "refused"
            raise BadInput(f"camera {self.where!r} could not be opened ({detail})") from None
        finally:
            if quiet:
                quiet.setLogLevel(level)
        if not self._cap.isOpened():
            self._cap.release()
            raise BadInput(f"camera {self.where!r} could not be opened (no such device, stream or video file)")
        if isinstance(where, int):
            # Ask for 720p; a camera that cannot do it gives its nearest size.
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            # Keep only the newest frame: a reader slower than the camera then reads the table as
            # it is now, not as it was several frames ago.
            self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._lock = threading.Lock()       # guards the state below; never held during a read
        self._read_lock = threading.Lock()  # one read at a time
        self._closed = False
        self._reading = False

    @property
    def fps(self) -> float:
        cap = self._cap
        if cap is None or self._closed:
            return 0.0
        return float(cap.get(cv2.CAP_PROP_FPS) or 0.0)

    @property
    def frame_count(self) -> int:
        """The frames a video file says it holds (0: not said, or not a file)."""
        cap = self._cap
        if cap is None or self._closed:
            return 0
        return max(int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0), 0)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def blocked_in_read(self) -> bool:
        """True while a read() is inside VideoCapture.read and close() could not wake it."""
        with self._lock:
            return self._reading

    def read(self) -> np.ndarray | None:
        with self._read_lock:
            with self._lock:
                cap = self._cap
                if cap is None or self._closed:
                    return None
                self._reading = True
            try:
                ok, frame = cap.read()
            finally:
                with self._lock:
                    self._reading = False
                    release = self._closed and self._cap is not None
                    if release:
                        self._cap = None
                if release:
                    cap.release()   # closed while this read was blocked: the reader releases it
            if release:
                return None
        return frame if ok and frame is not None and frame.size else None

    def close(self) -> None:
        """Returns at once. A read blocked in VideoCapture.read releases the capture itself when
        it returns; otherwise it is released here."""
        with self._lock:
            self._closed = True
            if self._reading:
                return
            cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class FileFrames(FrameSource):
    """Recorded frames: a list of image files, or one video file (read through CameraCapture).

    ``fps``: pace the frames in real time (None: as fast as the reader takes them).
    ``repeat``: how many times each image is given (a still photo held for several frames)."""

    def __init__(self, paths: str | Path | Sequence[str | Path], fps: float | None = None,
                 repeat: int = 1, clock: "PacingClock | None" = None) -> None:
        if isinstance(paths, (str, Path)):
            paths = [paths]
        self.paths = [Path(p) for p in paths]
        if not self.paths:
            raise BadInput("no frames given (an empty list of images)")
        self.name = f"recorded frames ({self.paths[0].name}{'…' if len(self.paths) > 1 else ''})"
        self._video: CameraCapture | None = None
        if len(self.paths) == 1 and self.paths[0].suffix.lower() in VIDEO_SUFFIXES:
            if not self.paths[0].exists():
                raise BadInput(f"video {str(self.paths[0])!r} does not exist")
            self._video = CameraCapture(str(self.paths[0]))
        else:
            for p in self.paths:  # fail now, naming the file, rather than mid-game
                if not p.is_file():
                    raise BadInput(f"image {str(p)!r} does not exist")
        self.fps = fps
        self.repeat = max(1, int(repeat))
        self._clock = clock or MonotonicClock()
        self._next_at: float | None = None
        self._order = iter(self._frames())

    def _frames(self) -> Iterable[np.ndarray]:
        if self._video is not None:
            while (frame := self._video.read()) is not None:
                for _ in range(self.repeat):
                    yield frame
            return
        for p in self.paths:
            img = load_image(p)
            for _ in range(self.repeat):
                yield img

    def read(self) -> np.ndarray | None:
        if self.fps:
            now = self._clock.now()
            if self._next_at is not None and now < self._next_at:
                self._clock.sleep(self._next_at - now)
            self._next_at = max(now, self._next_at or now) + 1.0 / self.fps
        return next(self._order, None)

    def close(self) -> None:
        if self._video is not None:
            self._video.close()
        self._order = iter(())


class PushedFrames(FrameSource):
    """Frames handed over by someone else — the app copying Kivy's Camera texture on a tablet,
    where cv2.VideoCapture cannot open the built-in camera. ``push()`` never blocks and keeps only
    the newest frame; ``read()`` waits for one (None once closed)."""

    name = "tablet camera"

    def __init__(self) -> None:
        self._q: "queue.Queue[np.ndarray | None]" = queue.Queue(maxsize=1)
        self._closed = False

    def push(self, frame: np.ndarray) -> None:
        if self._closed:
            return
        try:
            self._q.get_nowait()  # drop the frame nobody read yet: the newest one matters
        except queue.Empty:
            pass
        try:
            self._q.put_nowait(frame)
        except queue.Full:  # the reader took nothing and another push won the race
            pass

    def read(self) -> np.ndarray | None:
        if self._closed and self._q.empty():
            return None
        return self._q.get()

    def close(self) -> None:
        self._closed = True
        try:
            self._q.put_nowait(None)  # wakes a waiting read()
        except queue.Full:
            try:
                self._q.get_nowait()
            except queue.Empty:
                pass
            self._q.put_nowait(None)


def write_video(path: str | Path, frames: Iterable[np.ndarray], fps: float = 30.0) -> Path:
    """Records frames to an MJPEG .avi (what tests use to feed a recording through CameraCapture)."""
    path = Path(path)
    writer = None
    for f in frames:
        if writer is None:
            h, w = f.shape[:2]
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
            if not writer.isOpened():
                raise BadInput(f"cannot record video to {str(path)!r}")
        writer.write(f)
    if writer is None:
        raise BadInput("no frames to record")
    writer.release()
    return path
