"""Settings: voice, pace, volumes, the masking sound, caption size, language."""
from __future__ import annotations

from kivy.properties import ListProperty, ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app import theme
from companion.app.screens import load_kv
from companion.core import i18n
from companion.core.i18n import tr
from vision import cameras

load_kv(__file__)
VOICES = ("auto", "espeak", "plyer", "voicepack", "captions")


class SettingsScreen(Screen):
    app = ObjectProperty()
    languages = ListProperty([])
    camera_labels = ListProperty([])
    _cameras: dict = {}
    _languages: dict = {}

    def on_pre_enter(self, *_):
        s = self.app.settings
        # each language by its own name (English, Français, Deutsch), whatever the current one
        self._languages = {i18n.native_name(lang): lang for lang in i18n.languages()}
        self.languages = list(self._languages)
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
        ids.voice_pack.text = s.voice_pack
        self.show_cameras()

    def show_cameras(self):
        """The camera field names the cameras found; the setting keeps what opens the camera."""
        found = cameras.list_cameras()
        self._cameras = {c.label: c.where for c in found}
        s = self.app.settings
        if s.camera and s.camera not in self._cameras.values():
            self._cameras[s.camera] = s.camera   # chosen before, not plugged in now: keep it
        self.camera_labels = list(self._cameras)
        chosen = next((label for label, where in self._cameras.items() if where == s.camera),
                      None)
        self.ids.camera.text = chosen or (self.camera_labels[0] if self.camera_labels
                                          else tr("settings.camera_none"))

    def apply(self):
        s = self.app.settings
        ids = self.ids
        labels = {tr(f"settings.voice.{v}"): v for v in VOICES}
        s.voice = labels.get(ids.voice.text, s.voice)
        s.voice_pack = ids.voice_pack.text.strip()
        s.pace = round(float(ids.pace.value), 2)
        s.volume = round(float(ids.volume.value), 2)
        s.loop_volume = round(float(ids.loop_volume.value), 2)
        s.masking_loop = ids.masking.state == "down"
        s.random_pauses = ids.random_pauses.state == "down"
        s.dim_room = ids.dim_room.state == "down"
        s.caption_size = int(ids.caption_size.value)
        s.language = self._languages.get(ids.language.text, s.language)
        s.camera = self._cameras.get(ids.camera.text, s.camera)
        self.app.save_settings()
        theme.ui.forced_dim = s.dim_room

    def test_voice(self):
        self.apply()
        self.app.say("settings.test", tr("settings.test_line"))


def make(app):
    return SettingsScreen(name="settings", app=app)
