"""Settings: voice, pace, volumes, the masking sound, caption size, camera, language.

Every change applies and is saved at once (a slider when it stops moving): leaving the screen
by Home, Back or Done never throws a change away."""
from __future__ import annotations

from pathlib import Path

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

from companion.app import theme
from companion.app.screens import load_kv
from companion.core import i18n
from companion.core.i18n import tr
from vision import cameras

load_kv(__file__)
VOICES = ("auto", "espeak", "plyer", "voicepack", "captions")
SLIDER_SETTLE = 0.4   # seconds a slider rests before its value is saved (one write per move)


def camera_names(found) -> dict[str, str]:
    """What a person calls each camera -> what opens it. The kernel's "Integrated Camera:
    Integrated C" reads "Integrated Camera"; Android's sides and OpenCV's numbers are said in the
    table's language; two cameras of one name are told apart by a number."""
    out: dict[str, str] = {}
    for cam in found:
        name = cam.name
        head, _, tail = name.partition(": ")
        if tail and head.startswith(tail):
            name = head
        if name in ("front camera", "back camera"):
            name = tr(f"settings.camera_{name.split()[0]}")
        elif name.startswith("camera ") and name[7:].isdigit():
            name = tr("settings.camera_n", n=int(name[7:]))
        label, n = name, 1
        while label in out:
            n += 1
            label = f"{name} {n}"
        out[label] = cam.where
    return out


class SettingsScreen(Screen):
    app = ObjectProperty()
    languages = ListProperty([])
    camera_labels = ListProperty([])
    voice_labels = ListProperty([])
    voice_pack = StringProperty("")      # the recorded voice's folder
    loaded = BooleanProperty(False)      # the widgets show the settings: a change is the table's
    _cameras: dict = {}
    _languages: dict = {}

    def __init__(self, **kw):
        super().__init__(**kw)
        self._save_later = Clock.create_trigger(lambda dt: self.commit(), SLIDER_SETTLE)
        self._popup = None
        self._committing = False

    def on_pre_enter(self, *_):
        self.loaded = False
        s = self.app.settings
        # each language by its own name (English, Français, Deutsch), whatever the current one
        self._languages = {i18n.native_name(lang): lang for lang in i18n.languages()}
        self.languages = list(self._languages)
        self.voice_labels = [tr(f"settings.voice.{v}") for v in VOICES]
        ids = self.ids
        ids.voice.text = tr(f"settings.voice.{s.voice}")
        ids.pace.value = s.pace
        ids.volume.value = s.volume
        ids.loop_volume.value = s.loop_volume
        ids.masking.state = "down" if s.masking_loop else "normal"
        ids.random_pauses.state = "down" if s.random_pauses else "normal"
        ids.dim_room.state = "down" if s.dim_room else "normal"
        ids.caption_size.value = s.caption_size
        ids.language.text = i18n.native_name(s.language)
        self.voice_pack = s.voice_pack
        self.show_cameras()
        self.loaded = True

    def on_pre_leave(self, *_):
        self.flush()

    def show_cameras(self):
        """The camera field names the cameras found; the setting keeps what opens the camera."""
        self._cameras = camera_names(cameras.list_cameras())
        s = self.app.settings
        if s.camera and s.camera not in self._cameras.values():
            # chosen before, not plugged in now: kept, and said so
            self._cameras[tr("settings.camera_absent")] = s.camera
        self.camera_labels = list(self._cameras)
        chosen = next((label for label, where in self._cameras.items() if where == s.camera),
                      None)
        self.ids.camera.text = chosen or (self.camera_labels[0] if self.camera_labels
                                          else tr("settings.camera_none"))

    def folder_name(self) -> str:
        return Path(self.voice_pack).name or self.voice_pack if self.voice_pack else tr("settings.no_folder")

    # -- changes -----------------------------------------------------------------------------
    def changed(self, settles: bool = False):
        """A widget changed: saved now, or (a slider) once it has rested."""
        if not self.loaded:
            return
        if settles:
            self._save_later()
        else:
            self.commit()

    def flush(self):
        """Anything still waiting is saved now (leaving the screen, Done)."""
        if self._save_later.is_triggered:
            self._save_later.cancel()
            self.commit()

    def commit(self):
        """The widgets' values become the settings, saved to the data folder and applied."""
        if not self.loaded or self._committing:
            return   # (a new language remakes the screens, this one leaving in the middle)
        s = self.app.settings
        before = s.__dict__.copy()
        ids = self.ids
        labels = {tr(f"settings.voice.{v}"): v for v in VOICES}
        s.voice = labels.get(ids.voice.text, s.voice)
        s.voice_pack = self.voice_pack
        s.pace = round(float(ids.pace.value), 2)
        s.volume = round(float(ids.volume.value), 2)
        s.loop_volume = round(float(ids.loop_volume.value), 2)
        s.masking_loop = ids.masking.state == "down"
        s.random_pauses = ids.random_pauses.state == "down"
        s.dim_room = ids.dim_room.state == "down"
        s.caption_size = int(ids.caption_size.value)
        s.language = self._languages.get(ids.language.text, s.language)
        s.camera = self._cameras.get(ids.camera.text, s.camera)
        theme.ui.forced_dim = s.dim_room
        if s.__dict__ != before:
            self._committing = True
            try:
                self.app.save_settings()
            finally:
                self._committing = False

    def apply(self):
        """Done: every change is already kept; one still settling is kept now."""
        self.flush()
        self.commit()

    def test_voice(self):
        self.apply()
        self.app.say("settings.test", tr("settings.test_line"))

    # -- the recorded voice's folder ---------------------------------------------------------
    def open_folder_chooser(self):
        """A list of folders with finger-sized rows: tap one to open it, then "Use this folder"."""
        start = Path(self.voice_pack) if self.voice_pack and Path(self.voice_pack).is_dir() else Path.home()
        body = Factory.FolderChooser()
        body.ids.use.bind(on_release=lambda *_: self.choose_voice_pack(body.folder))
        body.ids.cancel.bind(on_release=lambda *_: self._close_chooser())
        self._popup = Popup(title=tr("settings.choose_folder"), content=body, size_hint=(0.9, 0.9),
                            title_size="24sp")
        self.open_folder(body, start)
        self._popup.open()

    def open_folder(self, body, folder: Path):
        """Shows ``folder``'s own folders (an unreadable one says so and stays where it was)."""
        try:
            subs = sorted((p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")),
                          key=lambda p: p.name.casefold())
        except OSError as exc:
            self.app.toast(tr("settings.folder_unreadable", folder=folder.name or str(folder),
                              problem=exc.strerror or str(exc)))
            return
        body.folder = str(folder)
        box = body.ids.folders
        box.clear_widgets()
        if folder.parent != folder:
            up = Factory.FolderRow(text=tr("settings.folder_up", folder=folder.parent.name or str(folder.parent)))
            up.bind(on_release=lambda *_: self.open_folder(body, folder.parent))
            box.add_widget(up)
        for sub in subs:
            row = Factory.FolderRow(text=sub.name)
            row.bind(on_release=lambda _b, sub=sub: self.open_folder(body, sub))
            box.add_widget(row)
        body.ids.scroll.scroll_y = 1

    def _close_chooser(self):
        if self._popup is not None:
            self._popup.dismiss()
            self._popup = None

    def choose_voice_pack(self, folder: str):
        """A folder of recordings chosen: the recorded voice speaks from now on."""
        self._close_chooser()
        self.voice_pack = str(folder)
        self.ids.voice.text = tr("settings.voice.voicepack")   # commits, with the new folder
        self.commit()


def make(app):
    return SettingsScreen(name="settings", app=app)
