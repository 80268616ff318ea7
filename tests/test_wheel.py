"""Installable as a package: the wheel built from this tree, installed (not editable) into a fresh
virtual environment outside the checkout, runs its console scripts and the demo with every file
the app reads (kv files, catalogues, narration scripts, the phone page, the deck data) in it.

No network: pip builds the wheel with the build backend from the machine's package index (as
``scripts/setup.sh`` installs), and the fresh environment borrows the suite's own installed
dependencies (Kivy, OpenCV, ...) through a path file, so only the wheel itself is installed there.
The checkout is not importable from it: PYTHONPATH is cleared and every command runs elsewhere."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "hardware", "vision")
SKIP_DIRS = {"__pycache__", ".git", ".venv", "build", "dist", "test-artifacts", ".kivy-home", ".mypy_cache",
             ".pytest_cache", "node_modules"}
# The documented game of docs/referee.md ("knives23 play") and the line the docs give for it.
DOCS_GAME = re.compile(r"```referee knives23 play\n(.*?)\n```\s*```error\n(.*?)\n```", re.S)


def data_files(root: Path) -> set[str]:
    """Every file the packages hold besides Python source (what the app reads at run time)."""
    out = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*"):
            if path.is_file() and path.suffix not in (".py", ".pyc") and path.name != "README.md" \
                    and not SKIP_DIRS & set(path.relative_to(root).parts):
                out.add(path.relative_to(root).as_posix())
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin folder, its site-packages, an environment for its commands)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"   # a copy: the build writes build/ and *.egg-info beside the sources
    shutil.copytree(ROOT, source, ignore=lambda folder, names: [n for n in names if n in SKIP_DIRS
                                                                or n.endswith(".egg-info")])
    wheels = tmp / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                            str(source)], capture_output=True, text=True, timeout=900, cwd=tmp)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = wheels.glob("table_companion-*.whl")

    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    bin_dir = env_dir / "bin"
    site = Path(subprocess.run([str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The suite's dependencies, after the environment's own site-packages on sys.path; a path line
    # adds only the folder (its own .pth files, such as an editable install's, are not read).
    (site / "suite_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "-q",
                           "--no-deps", "--no-index", "--ignore-installed", str(wheel)],
                          capture_output=True, text=True, timeout=600, cwd=tmp)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", KIVY_HOME=str(tmp / "kivy"), KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", TABLE_COMPANION_DATA=str(tmp / "data"),
               TABLE_COMPANION_CACHE=str(tmp / "cache"))
    run_dir = tmp / "elsewhere"
    run_dir.mkdir()
    return bin_dir, site, env, run_dir


def run(installed, *argv, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    _, _, env, run_dir = installed
    return subprocess.run(list(argv), input=stdin, capture_output=True, text=True, cwd=run_dir, env=env,
                          timeout=timeout)


@pytest.mark.slow
def test_the_wheel_installs_the_packages_with_every_file_the_app_reads(installed):
    bin_dir, site, _, _ = installed
    done = run(installed, str(bin_dir / "python"), "-c",
               "import companion, hardware, vision; print(companion.__file__, hardware.__file__, vision.__file__)")
    assert done.returncode == 0, done.stderr[-2000:]
    for where in done.stdout.split():
        assert Path(where).is_relative_to(site), f"imported from {where}, not from the installed wheel"
    missing = data_files(ROOT) - data_files(site)
    assert not missing, f"not in the wheel: {sorted(missing)}"
    kinds = {Path(f).suffix for f in data_files(site)}
    assert {".kv", ".po", ".txt", ".html", ".js", ".css", ".json"} <= kinds


@pytest.mark.slow
def test_table_companion_help_runs_from_the_installed_script(installed):
    bin_dir = installed[0]
    done = run(installed, str(bin_dir / "table-companion"), "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:") and "--boxes" in done.stdout


@pytest.mark.slow
def test_companion_referee_plays_the_documented_knives23_game(installed):
    bin_dir = installed[0]
    game, error = DOCS_GAME.search((ROOT / "docs" / "referee.md").read_text(encoding="utf-8")).groups()
    done = run(installed, str(bin_dir / "companion-referee"), "knives23", "play", stdin=game)
    assert (done.returncode, done.stdout, done.stderr.strip()) == (2, "", error)   # the docs' words
    first_step = dict(json.loads(game), commands=json.loads(game)["commands"][:1])
    done = run(installed, str(bin_dir / "companion-referee"), "knives23", "play", stdin=json.dumps(first_step))
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["view"]["phase"] == "setup" and answer["outcome"] is None


@pytest.mark.slow
def test_the_demo_runs_from_the_installed_package(installed, tmp_path):
    bin_dir = installed[0]
    out = tmp_path / "demo"
    done = run(installed, str(bin_dir / "python"), "-m", "companion", "demo", "--out", str(out), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "winners:" in done.stdout and "🔊" in done.stdout       # narrated from the scripts, to the end
    assert (out / "narration.wav").stat().st_size > 100_000
    assert (out / "transcript.txt").read_text(encoding="utf-8").count("\n") > 10
