import pytest

from companion.app.settings import Settings
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
