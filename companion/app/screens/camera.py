"""The camera screen: voting tokens read by a camera.

A live preview in which every card the camera reads is painted over (``CameraSource`` masks it
before the frame leaves its thread), the seats whose tokens are in view — never which side is up
before the reveal — the source's warnings, start/stop, and the calibration step that checks every
side of every token once.

The camera thread never touches a widget: its news (``tokens_seen``, ``tokens_calibration``)
reaches this screen through ``app.listen`` on the main thread, and the preview frame is fetched by
a Clock poll on the main thread. Ballots go the ordinary way: ``cast_ballot`` commands on the
app's queue, recorded with source "camera".
"""
from __future__ import annotations

import logging
import threading

import cv2
import numpy as np
from kivy.clock import Clock, mainthread
from kivy.core.text import Label as CoreLabel
from kivy.factory import Factory
from kivy.graphics.texture import Texture
from kivy.properties import (BooleanProperty, ColorProperty, ListProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.utils import platform

from companion.app.screens import load_kv
from companion.core.events import BadInput
from companion.core.i18n import escaped, keyed, tr
from companion.core.votes import VoteSpec, vote_open
from vision import markers
from vision.capture import CameraCapture, FrameSource, PushedFrames, camera_where
from vision.source import SILENT_S, CameraSource

# What opening the tablet's camera can raise: no camera provider (Kivy's CoreCamera is None ->
# TypeError), a device that will not open, and on Android the Java side's refusal.
CAMERA_ERRORS: tuple[type[BaseException], ...] = (OSError, RuntimeError, TypeError)
if platform == "android":  # pragma: no cover - Android only
    from jnius import JavaException
    CAMERA_ERRORS += (JavaException,)

log = logging.getLogger(__name__)
load_kv(__file__)

POLL_HZ = 10  # preview refreshes a second: enough to aim a camera, cheap on a tablet


def shorten_middle(part: str, keep: int) -> str:
    """``part`` cut to ``keep`` characters plus "…", most of them from its end (a path's file
    name, an address's last part), a few from its start ("camera ", the kind of thing it is)."""
    if keep >= len(part):
        return part
    head = 0 if keep < 14 else max(keep // 4, 7)   # a tight line keeps the file name's end
    return part[:head] + "…" + (part[len(part) - (keep - head):] if keep > head else "")


_fits: dict[tuple, str] = {}


def fit_line(text: str, part: str, label) -> str:
    """``text`` as it fits on ``label``'s single line: when it is too wide, ``part`` (the long
    path or address it names) is shortened in the middle, never the words that say what is
    wrong. ``text`` as it is when it fits, or when ``part`` is not in it."""
    pad = list(label.padding) if label.padding else [0]
    left, right = (pad[0], pad[2]) if len(pad) == 4 else (pad[0], pad[0])
    # Kivy shortens a line wider than int(width - padding - 2): a few pixels to spare below that.
    width = int(float(label.width) - left - right - 2) - 4
    if not part or part not in text or width <= 0:
        return text
    key = (text, part, round(width), float(label.font_size), bool(label.bold), label.font_name)
    if key in _fits:
        return _fits[key]
    measure = CoreLabel(font_size=label.font_size, bold=label.bold, font_name=label.font_name)

    def fits(candidate: str) -> bool:
        return measure.get_extents(candidate)[0] <= width

    best = text
    if not fits(text):
        lo, hi = 0, len(part) - 1   # the most characters of part kept that still fit
        best = text.replace(part, shorten_middle(part, 0), 1)
        while lo <= hi:
            mid = (lo + hi) // 2
            candidate = text.replace(part, shorten_middle(part, mid), 1)
            if fits(candidate):
                best, lo = candidate, mid + 1
            else:
                hi = mid - 1
    if len(_fits) > 128:
        _fits.clear()
    _fits[key] = best
    return best


def seat_rgba(seat: int) -> tuple[float, float, float, float]:
    """The seat's colour as printed on its token card (and painted over it in the preview)."""
    r, g, b = markers.SEAT_RGB[markers.SEAT_COLOURS[seat - 1]]
    return (r / 255, g / 255, b / 255, 1)


def face_words(face: str) -> str:
    if face in markers.TOKEN_SIDES:
        return tr(f"camera.face.{face}")
    if face == markers.CENTER:
        return tr("camera.face.center")
    return tr("camera.face.player", n=int(face[6:]))


def frame_to_texture(frame: np.ndarray, texture: Texture | None = None) -> Texture:
    """A BGR frame into a Kivy texture (reused when the size is unchanged). Main thread only."""
    h, w = frame.shape[:2]
    if texture is None or tuple(texture.size) != (w, h):
        texture = Texture.create(size=(w, h), colorfmt="rgb")
    # Kivy's textures start at the bottom row; OpenCV's frames at the top.
    rgb = np.ascontiguousarray(cv2.cvtColor(cv2.flip(frame, 0), cv2.COLOR_BGR2RGB))
    texture.blit_buffer(rgb.tobytes(), colorfmt="rgb", bufferfmt="ubyte")
    return texture


def frame_from_texture(texture: Texture) -> np.ndarray:
    """A Kivy texture (the tablet camera's picture) as a BGR frame, top row first."""
    w, h = texture.size
    rgba = np.frombuffer(texture.pixels, np.uint8).reshape(h, w, 4)
    return cv2.cvtColor(cv2.flip(rgba, 0), cv2.COLOR_RGBA2BGR)


def frame_from_nv21(buf: bytes, width: int, height: int) -> np.ndarray:
    """An Android camera preview buffer (NV21: the Y plane, then interleaved V/U at half size)
    as a BGR frame."""
    need = width * height * 3 // 2
    if len(buf) < need:
        raise BadInput(keyed("camera.short_frame", got=len(buf), width=width, height=height, need=need))
    yuv = np.frombuffer(buf, np.uint8, count=need).reshape(height * 3 // 2, width)
    return cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_NV21)


class TabletCamera:
    """Android: cv2.VideoCapture cannot open a tablet's built-in camera, so Kivy's Camera runs it
    and its frames are copied into a :class:`PushedFrames` on the main thread (the token reading
    itself stays on the CameraSource's thread)."""

    def __init__(self, frames: PushedFrames, index: int = 0, resolution=(1280, 720), fps: float = 8):
        from kivy.uix.camera import Camera  # imported here: opening it starts the camera
        self.frames = frames
        self.widget = Camera(index=index, resolution=resolution, play=True)
        self._ev = Clock.schedule_interval(self._copy, 1 / fps)

    def _copy(self, dt):
        core = getattr(self.widget, "_camera", None)
        try:
            if core is not None and hasattr(core, "grab_frame"):
                # Kivy's Android provider keeps the raw preview buffer: no GPU read-back needed.
                buf = core.grab_frame()
                if buf:
                    w, h = core.resolution
                    self.frames.push(frame_from_nv21(bytes(buf), w, h))
            elif self.widget.texture is not None:
                self.frames.push(frame_from_texture(self.widget.texture))
        except BadInput as exc:
            log.warning("tablet camera: %s", exc)

    def stop(self):
        self._ev.cancel()
        self.widget.play = False


class CameraSeatRow(BoxLayout):
    """One seat in the list: colour, number and name, and whether its token is in view."""

    seat = NumericProperty(0)
    who = StringProperty("")
    seen = BooleanProperty(False)
    counted = BooleanProperty(False)
    status = StringProperty("")
    swatch = ColorProperty((1, 1, 1, 1))


class CalibrationRow(BoxLayout):
    """One seat in the calibration step: each face of its token, checked or still to show."""

    seat = NumericProperty(0)
    who = StringProperty("")
    swatch = ColorProperty((1, 1, 1, 1))


class CameraScreen(Screen):
    app = ObjectProperty()
    source = ObjectProperty(None, allownone=True)
    tablet = ObjectProperty(None, allownone=True)
    running = BooleanProperty(False)
    opening = BooleanProperty(False)  # a camera being opened on a thread of its own
    calibrating = BooleanProperty(False)
    calibration_complete = BooleanProperty(False)
    vote_open = BooleanProperty(False)
    portrait = BooleanProperty(False)  # a tablet held upright: the preview above the seats
    on_android = BooleanProperty(platform == "android")
    status = StringProperty("")
    vote_status = StringProperty("")
    warning_text = StringProperty("")
    error = StringProperty("")
    progress = StringProperty("")
    seen = ListProperty([])  # seats whose token is in view, from the source's tokens_seen news

    def __init__(self, **kw):
        super().__init__(**kw)
        self._poll_ev = None
        self._texture = None
        self._shown_frame = None
        self._report: dict | None = None
        self._attempt = 0                 # the camera opening the screen waits for
        self._opening_where = ""
        self._chosen = ""                 # the camera setting the field was filled from
        self._error_part = ""             # the path or address in self.error, shortened to fit
        self._error_text = ""
        self._rows: list[dict] | None = None   # the seat rows on screen, as made by refresh()
        # A line that grows or shrinks (a turned tablet) is fitted again: paths shortened anew.
        self.ids.error.bind(width=lambda *_: self._refit_error())
        self.ids.status.bind(width=lambda *_: self._refresh_status())
        self.app.listen("tokens_seen", self._on_tokens_seen)
        self.app.listen("tokens_calibration", self._on_calibration)
        self.app.bind(state_version=lambda *_: self.refresh())

    # -- entering and leaving ------------------------------------------------------------
    def on_pre_enter(self, *_):
        if self.source is not None and self.source not in self.app.sources:
            self._forget_source()  # the app stopped it (a reset, another screen): start afresh
        if not self.running and not self.opening and self.app.settings.camera:
            chosen = self.app.settings.camera   # the camera chosen in Settings
            self._chosen = chosen
            self.ids.where.text = escaped(chosen)
            if escaped(chosen) != chosen:
                try:
                    camera_where(chosen)
                except BadInput as exc:
                    self._fail(str(exc), repr(chosen), toast=False)
        self.refresh()
        self._poll_ev = Clock.schedule_interval(self._poll, 1 / POLL_HZ)

    def on_leave(self, *_):
        # The camera keeps casting while the table looks at another screen; only the preview stops.
        if self._poll_ev is not None:
            self._poll_ev.cancel()
            self._poll_ev = None

    # -- seats ---------------------------------------------------------------------------
    def seat_names(self) -> list[str]:
        players = (self.app.view or {}).get("players") or []
        names = [p if isinstance(p, str) else str(p.get("name", "")) for p in players]
        return names or [tr("camera.seat", seat=s) for s in range(1, markers.MAX_SEATS + 1)]

    def open_vote(self) -> dict | None:
        view = self.app.view or {}
        return view["vote"] if vote_open(view) else None

    # -- starting and stopping -----------------------------------------------------------
    def toggle_camera(self):
        if self.opening:
            self.cancel_opening()
        elif self.running:
            self.stop_camera()
        elif self.on_android:
            self.start_tablet_camera()
        else:
            where = self.ids.where.text
            if self._chosen and where == escaped(self._chosen):
                where = self._chosen   # the setting itself, not its escaped display
            self.start_camera(where)

    def start_camera(self, where: str) -> bool:
        """A webcam by number, a stream URL or a recorded video: all through cv2.VideoCapture,
        opened on a thread of its own (a stream that never answers keeps OpenCV waiting ~30 s;
        the UI goes on meanwhile). The screen says "opening…", then runs the camera or shows
        why it could not. False when ``where`` is refused at once (no camera could be that)."""
        where = (where or "").strip() or "0"
        try:
            camera_where(where)   # never hand OpenCV a value it crashes on
        except BadInput as exc:
            self._fail(str(exc), repr(where))
            return False
        if self.running:
            self.stop_camera()
        self._attempt += 1
        attempt = self._attempt
        self._opening_where = where
        self.opening = True
        self._clear_error()
        self.refresh()
        threading.Thread(target=self._open, args=(attempt, where), name="camera-open", daemon=True).start()
        return True

    def _open(self, attempt: int, where: str) -> None:
        """The opening thread: whatever happens reaches the screen through the Kivy clock."""
        frames: CameraCapture | None = None
        error = ""
        try:
            frames = CameraCapture(where)
        except BadInput as exc:
            error = str(exc)
        except Exception as exc:   # whatever OpenCV raises: one line on the screen, the app up
            log.exception("camera %r", where)
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            error = tr("camera.open_failed", where=repr(where), error=detail)
        self._opened(attempt, where, frames, error)

    @mainthread
    def _opened(self, attempt: int, where: str, frames: CameraCapture | None, error: str) -> None:
        if attempt != self._attempt or not self.opening:
            if frames is not None:   # stopped or started again meanwhile: nobody wants it
                threading.Thread(target=frames.close, name="camera-close", daemon=True).start()
            return
        self.opening = False
        if frames is None:
            self._fail(error, repr(where))
            self.refresh()
            return
        self.start_frames(frames)

    def cancel_opening(self) -> None:
        """Stop pressed while a camera opens: the screen forgets it (the thread closes it)."""
        self._attempt += 1
        self.opening = False
        self.refresh()

    def start_tablet_camera(self, index: int = 0):
        if platform == "android" and not self._camera_permitted():
            return False
        frames = PushedFrames()
        try:
            self.tablet = TabletCamera(frames, index=index)
        except CAMERA_ERRORS as exc:  # no camera permission, no camera: say so in one line
            self._fail(tr("camera.tablet_failed", error=str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
            return False
        return self.start_frames(frames)

    def _camera_permitted(self) -> bool:
        """Android asks the user once; until they allow it the camera cannot open."""
        from android.permissions import Permission, check_permission, request_permissions
        if check_permission(Permission.CAMERA):
            return True
        request_permissions([Permission.CAMERA])
        self._fail(tr("camera.permission"))
        return False

    def start_frames(self, frames: FrameSource) -> bool:
        """Reads tokens from ``frames`` (a webcam, a recording, the tablet camera's pushed frames)
        as an input source of the app."""
        if self.running:
            self.stop_camera()
        names = self.seat_names()
        try:
            # The app's clock: "no picture for N s" counts on the clock the devices panel uses.
            source = CameraSource(frames, players=min(len(names), markers.MAX_SEATS),
                                  clock=self.app.engine_clock)
        except ValueError as exc:
            frames.close()
            self._fail(str(exc))
            return False
        vote = self.open_vote()
        # A vote already open when the camera starts is read as if it had just opened; with no
        # vote open the camera casts nothing (a ballot then would only be refused).
        if vote is not None:
            source.expect(VoteSpec.from_dict(vote))
        else:
            source.idle()
        self._clear_error()
        self.seen = []
        self._shown_frame = None
        where = getattr(frames, "where", None)  # a camera's index or address, when it has one
        if where is not None:
            self.ids.where.text = str(where)  # what is running, however it was started
        self.source = source
        self.running = True
        self.app.add_source(source)
        self.refresh()
        return True

    def stop_camera(self):
        source = self.source
        self._forget_source()
        if source is not None:
            self.app.remove_source(source)
        self.refresh()

    def _forget_source(self):
        if self.tablet is not None:
            self.tablet.stop()
            self.tablet = None
        self.source = None
        self.running = False
        self.calibrating = False
        self.calibration_complete = False
        self._report = None
        self.seen = []
        self._shown_frame = None
        self.ids.preview.texture = None

    def _fail(self, message: str, part: str = "", toast: bool = True):
        """One line under the preview (``part``, the path or address it names, is shortened to
        fit, not the reason), and a toast."""
        message = " ".join(message.split())
        self._error_text, self._error_part = message, part
        self.error = fit_line(message, part, self.ids.error)
        if toast:
            self.app.toast(message)

    def _clear_error(self):
        self._error_text = self._error_part = ""
        self.error = ""

    # -- calibration ---------------------------------------------------------------------
    def toggle_calibration(self):
        if self.calibrating:
            self.end_calibration()
        else:
            self.start_calibration()

    def start_calibration(self) -> bool:
        if self.source is None:
            self.app.toast(tr("camera.need_camera"))
            return False
        if self.open_vote() is not None:
            # The check names sides: during a vote it would tell the table how someone voted.
            self.app.toast(tr("camera.calibration_during_vote"))
            return False
        self.source.start_calibration("token")
        self.calibrating = True
        self._report = self.source.calibration_status().to_json()
        self.refresh()
        return True

    def end_calibration(self):
        report = self.source.end_calibration() if self.source is not None else None
        self.calibrating = False
        self.calibration_complete = False
        self._report = None
        if report is not None and not report.complete:
            missing = ", ".join(f"{s} {face_words(f)}" for s, f in report.missing)
            self.app.toast(tr("camera.calibration_left", missing=missing))
        self.refresh()

    def _on_calibration(self, command):
        if self.calibrating:
            self._report = dict(command.data)
            self.refresh()

    def _on_tokens_seen(self, command):
        if not self.running:
            return  # news still queued from a camera stopped since
        seats = command.data.get("seats")
        if isinstance(seats, list):
            self.seen = [s for s in seats if isinstance(s, int)]
            self.refresh()

    # -- drawing -------------------------------------------------------------------------
    def _poll(self, dt):
        source = self.source
        if source is None:
            return
        frame, _ = source.latest_preview()
        if frame is not None and frame is not self._shown_frame:
            self._texture = frame_to_texture(frame, self._texture)
            self._shown_frame = frame
            self.ids.preview.texture = None  # a new texture object or new pixels: redraw either way
            self.ids.preview.texture = self._texture
        if self.calibrating and not source.calibrating():
            # A vote opened meanwhile and took the camera over (CameraSource.on_events).
            self.calibrating = False
            self._report = None
            self.app.toast(tr("camera.calibration_stopped"))
        self._refresh_status()

    def _refit_error(self):
        if self._error_text:
            self.error = fit_line(self._error_text, self._error_part, self.ids.error)

    def _refresh_status(self):
        source = self.source
        if source is None:
            if self.opening:
                name = f"camera {self._opening_where}"
                self.status = fit_line(tr("camera.opening", name=name), name, self.ids.status)
            else:
                self.status = tr("camera.off")
            self.warning_text = ""
            return
        name = str(source.frames.name)
        silent = source.silent_for()
        if source.ended:
            text = tr("camera.ended", name=name)
        elif silent is not None and silent >= SILENT_S:
            text = tr("camera.silent", name=name, seconds=int(silent))
        elif source.frames_read == 0:
            text = tr("camera.waiting", name=name)
        else:
            text = tr("camera.status", name=name, frames=source.frames_read)
        self.status = fit_line(text, name, self.ids.status)
        lines = list(source.warnings())
        if source.last_error:
            lines.append(tr("camera.bad_frame", error=source.last_error))
        self.warning_text = "\n".join(lines)

    def refresh(self):
        names = self.seat_names()
        vote = self.open_vote()
        voted = set(vote.get("voted", [])) if vote else set()
        self.vote_open = vote is not None
        if not self.running:
            self.vote_status = ""
        elif vote is not None:
            self.vote_status = tr("camera.vote_open", counted=len(voted), total=len(vote.get("voters", [])))
        else:
            self.vote_status = tr("camera.no_vote")
        self._refresh_status()
        box = self.ids.seats
        if self.calibrating and self._report is not None:
            box.clear_widgets()
            self._rows = None
            self._draw_calibration(box, names)
            return
        rows = []
        for seat in range(1, len(names) + 1):
            name = names[seat - 1]
            seen = seat in self.seen
            counted = name in voted
            words = [tr("camera.seen") if seen else tr("camera.not_seen")]
            if counted:
                words.append(tr("camera.counted"))
            rows.append(dict(seat=seat, who=f"{seat}  {name}", seen=seen, counted=counted,
                             status=" · ".join(words), swatch=seat_rgba(seat)))
        # Every command the app takes refreshes this screen, shown or not: the rows are made again
        # only when one of them changed (making them was over half of a command's time in the 23 Knives
        # app tests, profiled).
        if rows == self._rows:
            return
        self._rows = rows
        box.clear_widgets()
        for row in rows:
            box.add_widget(CameraSeatRow(**row))

    def _draw_calibration(self, box, names):
        report = self._report
        assert report is not None   # drawn only while a report is in (the caller checks)
        checked = {(s, f) for s, f in report.get("checked", [])}
        faces: dict[int, list[str]] = {}
        for s, f in list(report.get("checked", [])) + list(report.get("missing", [])):
            faces.setdefault(s, [])
            if f not in faces[s]:
                faces[s].append(f)
        total = len(checked) + len(report.get("missing", []))
        self.calibration_complete = bool(report.get("complete"))
        self.progress = (tr("camera.calibration_complete") if self.calibration_complete
                         else tr("camera.calibration_progress", checked=len(checked), total=total))
        order = {f: i for i, f in enumerate(markers.TOKEN_SIDES + markers.PICK_FACES)}
        for seat in sorted(faces):
            name = names[seat - 1] if seat <= len(names) else tr("camera.seat", seat=seat)
            row = CalibrationRow(seat=seat, who=f"{seat}  {name}", swatch=seat_rgba(seat))
            for f in sorted(faces[seat], key=lambda f: order.get(f, 99)):
                cell = Factory.CalibrationFace(text=tr("camera.face_checked" if (seat, f) in checked else "camera.face_missing",
                                                       face=face_words(f)))
                cell.checked = (seat, f) in checked
                row.ids.faces.add_widget(cell)
            box.add_widget(row)


def make(app):
    return CameraScreen(name="camera", app=app)
