"""The Devices settings (vote boxes on/off and their ports, the camera) and the camera names."""
import json

import pytest

from companion.app.settings import Settings
from companion.core.events import BadInput
from vision import cameras


def test_boxes_default_to_auto_and_survive_a_save(tmp_path):
    s = Settings()
    assert s.boxes_enabled and s.box_ports == "auto" and s.camera == ""
    s.box_ports, s.camera = "/dev/ttyACM0,/dev/ttyUSB1", "/dev/video2"
    s.save(tmp_path / "settings.json")
    back = Settings.load(tmp_path / "settings.json")
    assert (back.box_ports, back.camera, back.boxes_enabled) == ("/dev/ttyACM0,/dev/ttyUSB1",
                                                                 "/dev/video2", True)


@pytest.mark.parametrize("data, words", [
    ({"box_ports": "/dev/ttyACM0 /dev/ttyACM1"}, "box_ports = '/dev/ttyACM0 /dev/ttyACM1'"),
    ({"box_ports": ""}, "write auto, or ports separated by commas"),
    ({"boxes_enabled": "yes"}, "boxes_enabled = 'yes' is not true or false"),
    ({"camera": 0}, "camera = 0 is not text"),
])
def test_bad_device_settings_are_named_in_one_line(tmp_path, data, words):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput) as err:
        Settings.load(path)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_switched_off_boxes_need_no_ports():
    Settings(boxes_enabled=False, box_ports="").validate()


def fake_sysfs(root, nodes):
    for node, (name, index) in nodes.items():
        d = root / node
        d.mkdir(parents=True)
        (d / "name").write_text(name + "\n")
        if index is not None:
            (d / "index").write_text(f"{index}\n")
    return root


def test_cameras_are_named_from_video4linux(tmp_path):
    root = fake_sysfs(tmp_path / "video4linux", {
        "video0": ("Integrated Camera: Integrated C", 0),
        "video1": ("Integrated Camera: Integrated C", 1),   # its metadata node: no frames
        "video10": ("HD Pro Webcam C920", None),            # an old kernel without index
        "video2": ("HD Pro Webcam C920", 0),
    })
    found = cameras.list_cameras(str(root))
    assert [(c.name, c.where) for c in found] == [
        ("Integrated Camera: Integrated C", "/dev/video0"),
        ("HD Pro Webcam C920", "/dev/video2"),
        ("HD Pro Webcam C920", "/dev/video10")]
    assert found[1].label == "HD Pro Webcam C920 (/dev/video2)"


def test_no_video4linux_means_no_camera(tmp_path):
    assert cameras.list_cameras(str(tmp_path / "missing")) == []
