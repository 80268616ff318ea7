import errno
import json
import os
from pathlib import Path

import pytest

from companion.app.settings import Settings, SettingsNotSaved
from companion.core.events import BadInput


def test_settings_round_trip(tmp_path):
    s = Settings(pace=1.5, voice="captions", caption_size=48)
    s.save(tmp_path / "settings.json")
    assert Settings.load(tmp_path / "settings.json") == s


@pytest.mark.parametrize("text,match", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "one JSON object"),
    ('{"pace": 9}', "pace = 9 is outside"),
    ('{"voice": "robot"}', "voice = 'robot'"),
    ('{"colour": "red"}', "unknown settings: colour"),
])
def test_a_bad_settings_file_is_named_and_left_as_it_was(tmp_path, text, match):
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(BadInput, match=match) as e:
        Settings.load(path)
    assert "\n" not in str(e.value)
    assert path.read_text() == text


@pytest.mark.parametrize("name,value,words", [
    ("language", 5, "language = 5 is not text"),
    ("language", None, "language = None is not text"),
    ("language", ["en"], "language = ['en'] is not text"),
    ("language", "../../etc", "language = '../../etc' is not a language code"),
    ("voice", ["auto"], "voice = ['auto'] is not text"),
    ("voice_pack", 5, "voice_pack = 5 is not text"),
    ("masking_loop", "no", "masking_loop = 'no' is not true or false"),
    ("random_pauses", "yes", "random_pauses = 'yes' is not true or false"),
    ("caption_size", float("nan"), "caption_size = nan is outside"),
    ("volume", "x" * 10_000, "volume = 'xxxx"),
    # half a UTF-16 pair (a file name in an unknown encoding): Kivy's text and log crashed on it
    ("voice_pack", "/nope/\udcff", "voice_pack = '/nope/\\udcff' is not text"),
    ("camera", "/dev/video\udcff", "camera = '/dev/video\\udcff' is not text"),
])
def test_a_wrong_setting_falls_back_to_its_default_and_the_others_are_kept(tmp_path, name, value, words):
    path = tmp_path / "settings.json"
    text = json.dumps({"pace": 1.5, "dim_room": True, name: value})
    path.write_text(text)
    settings, [problem] = Settings.read(path)
    assert getattr(settings, name) == getattr(Settings(), name)
    assert (settings.pace, settings.dim_room) == (1.5, True)
    assert words in str(problem) and "\n" not in str(problem) and len(str(problem)) < 200
    with pytest.raises(BadInput):  # load, and saving, stay strict
        Settings.load(path)
    assert path.read_text() == text


def test_wrong_box_ports_are_judged_after_a_wrong_boxes_enabled_is_mended(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"boxes_enabled": "no", "box_ports": "", "colour": "red"}))
    settings, problems = Settings.read(path)
    assert (settings.boxes_enabled, settings.box_ports) == (True, "auto")
    said = " | ".join(map(str, problems))
    assert len(problems) == 3 and all(w in said for w in ("colour", "boxes_enabled = 'no'", "box_ports = ''"))


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000,
                                  '{"language": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_settings_nested_too_deep_are_unreadable_not_a_crash(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(BadInput, match="is not valid JSON"):
        Settings.read(path)
    assert path.read_text() == text


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS])
def test_settings_that_cannot_be_written_are_not_saved_and_the_file_is_kept(tmp_path, monkeypatch, err):
    path = tmp_path / "settings.json"
    Settings(pace=0.5).save(path)
    before = path.read_bytes()
    real = Path.write_text

    def fails(self, data, *args, **kwargs):  # a part written, then the disk says no
        real(self, data[:10], *args, **kwargs)
        raise OSError(err, os.strerror(err))
    monkeypatch.setattr(Path, "write_text", fails)
    with pytest.raises(SettingsNotSaved) as e:
        Settings(pace=1.5).save(path)
    assert os.strerror(err) in str(e.value) and "\n" not in str(e.value)
    assert path.read_bytes() == before
    assert not path.with_suffix(".tmp").exists()  # no half-written copy left taking space
