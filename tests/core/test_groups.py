"""Player groups remembered in the data folder: seat order and colours, rename, forget, a
damaged list kept aside, and a kill -9 mid-write never losing the list."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.groups import FILE, Groups

THURSDAY = time.mktime((2026, 12, 3, 20, 0, 0, 0, 0, -1))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_group_is_remembered_with_its_seats_and_colours_and_named_after_the_day(tmp_path):
    groups = Groups.load(tmp_path)
    g = groups.remember(["Ann", "Bo", "Cy", "Di", "Ed"], ["red", "blue", "green", "white", "yellow"], THURSDAY)
    assert g.name == i18n.tr("groups.day.3") == "Thursday group"
    again = Groups.load(tmp_path)
    assert again.groups == [g]
    # The same people in another order are the same group, re-seated: one entry, its name kept.
    g2 = again.remember(["Bo", "ann", "Cy", "Di", "Ed"], ["blue", "red", "green", "white", "yellow"], THURSDAY + 60)
    assert (g2.id, g2.name, g2.players[:2]) == (g.id, g.name, ("Bo", "ann"))
    other = again.remember(["Ann", "Bo", "Cy"], ["red", "blue", "green"], THURSDAY + 120)
    assert other.name == "Thursday group 2"
    assert [x.id for x in Groups.load(tmp_path).groups] == [other.id, g.id]   # latest first
    assert [x.id for x in Groups.load(tmp_path).fitting(4, 8)] == [g.id]


def test_rename_and_forget_are_kept_and_bad_names_refused(tmp_path):
    groups = Groups.load(tmp_path)
    g = groups.remember(["Ann", "Bo", "Cy"], ["red", "blue", "green"], THURSDAY)
    groups.rename(g.id, "  Board   club ")
    assert Groups.load(tmp_path).groups[0].name == "Board club"
    for bad in ("", "   ", "x" * 41):
        with pytest.raises(BadInput):
            groups.rename(g.id, bad)
    groups.forget(g.id)
    assert Groups.load(tmp_path).groups == []
    with pytest.raises(BadInput):
        groups.forget(g.id)


def test_a_damaged_list_is_kept_aside_and_a_new_one_started(tmp_path):
    (tmp_path / FILE).write_text('{"groups": [{"id": 1, "na')
    groups = Groups.load(tmp_path)
    assert groups.groups == [] and groups.moved_aside is not None
    assert groups.moved_aside.read_text() == '{"groups": [{"id": 1, "na'


def test_an_unwritable_folder_is_one_line_and_the_list_in_memory_unchanged(tmp_path):
    (tmp_path / "file").write_text("")
    groups = Groups.load(tmp_path / "file")
    with pytest.raises(BadInput) as err:
        groups.remember(["Ann", "Bo"], ["red", "blue"])
    assert "\n" not in str(err.value) and groups.groups == []


CHILD = """
import sys, itertools
from companion.core.groups import Groups
g = Groups.load(sys.argv[1])
n = len(g.groups)
g.remember([f"P{n}", "Ann", "Bo"], ["red", "blue", "green"])   # one whole write first
print("ready", flush=True)
for i in itertools.count(n + 1):
    g.remember([f"P{i}", "Ann", "Bo"], ["red", "blue", "green"])
"""


def test_kill_9_while_writing_never_loses_the_list(tmp_path):
    seen = 0
    for round_ in range(6):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE,
                                 env={**os.environ, "PYTHONPATH": ROOT})
        assert child.stdout.readline().strip() == b"ready"
        time.sleep(0.05 + 0.03 * round_)
        child.send_signal(signal.SIGKILL)
        child.wait()
        groups = Groups.load(tmp_path)
        assert groups.moved_aside is None, "the list was found half-written"
        assert len(groups.groups) > seen       # every round's first write, and maybe more
        seen = len(groups.groups)


def test_house_rules_are_kept_per_group_and_game_and_an_old_list_loads_without_them(tmp_path):
    # groups.json as written before house rules: it loads, with none chosen
    (tmp_path / FILE).write_text('{"groups": [{"id": 1, "name": "Club", "players": ["Ann", "Bo"],'
                                 ' "colours": ["red", "blue"], "last_played": 5.0}]}')
    groups = Groups.load(tmp_path)
    assert groups.moved_aside is None and groups.groups[0].house_rules_for("toy") == {}
    groups.remember(["Ann", "Bo"], ["red", "blue"], THURSDAY, game="toy", house_rules={"tie": "exile"})
    groups.remember(["Bo", "Ann"], ["blue", "red"], THURSDAY + 1, game="masks", house_rules={"center": "x"})
    groups.remember(["Ann", "Bo"], ["red", "blue"], THURSDAY + 2)   # a game with none: both kept
    groups.rename(1, "Board club")
    again = Groups.load(tmp_path).groups[0]
    assert (again.id, again.name) == (1, "Board club")
    assert again.house_rules_for("toy") == {"tie": "exile"} and again.house_rules_for("masks") == {"center": "x"}
    groups.remember(["Ann", "Bo"], ["red", "blue"], THURSDAY + 3, game="toy", house_rules={"tie": "remain"})
    assert Groups.load(tmp_path).groups[0].house_rules_for("toy") == {"tie": "remain"}


def test_a_group_whose_house_rules_are_damaged_keeps_the_group(tmp_path):
    (tmp_path / FILE).write_text('{"groups": [{"id": 1, "name": "Club", "players": ["Ann", "Bo"],'
                                 ' "colours": ["red", "blue"], "house_rules": {"toy": 3, "masks": {"a": "b"}}}]}')
    g = Groups.load(tmp_path).groups[0]
    assert g.players == ("Ann", "Bo") and g.house_rules == {"masks": {"a": "b"}}
