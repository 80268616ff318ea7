"""The layer contract (pyproject.toml, ``[tool.importlinter]``; docs/architecture.md):
core <- games <- phone <- app; hardware and vision never import the app, the phone or a game;
the app and the phone import only a game's public API (its package's ``__init__``).

import-linter reads the real import graph (grimp) of the tree. The first test checks today's
tree; the second copies the tree, adds one module that breaks each contract, and shows that the
same command then fails and names each broken contract.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "hardware", "vision")
CONTRACTS = {
    "layers": "core <- games <- phone <- app",
    "devices": "hardware and vision never import the app, the phone or a game",
    "public-api": "the app and the phone import only a game's public API (its package's __init__)",
}


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the tree at ``root`` (its own pyproject.toml), nothing cached."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    script = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(script), "--config", str(root / "pyproject.toml"), "--no-cache", "--no-logo"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_tree_keeps_every_layer_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in CONTRACTS.values():
        assert f"{name} KEPT" in result.stdout


def _copy_tree(dest: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, dest / package,
                        ignore=lambda d, names: [n for n in names if not (n.endswith(".py") or os.path.isdir(os.path.join(d, n)))
                                                 or n == "__pycache__"])


def test_a_deliberate_violation_of_each_contract_fails(tmp_path):
    _copy_tree(tmp_path)
    assert lint_imports(tmp_path).returncode == 0  # the copy alone keeps them all
    # the core reaching up into a game; a camera module reaching into the app; a screen
    # reaching past a game's public API into its rules
    (tmp_path / "companion" / "core" / "_upwards.py").write_text(
        "from companion.games.knives23 import RULES\n")
    (tmp_path / "vision" / "_into_app.py").write_text("import companion.app.gameui\n")
    (tmp_path / "companion" / "app" / "games" / "knives23" / "_peek.py").write_text(
        "from companion.games.knives23.rules import Knives23Rules\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    out = result.stdout
    for name in CONTRACTS.values():
        assert f"{name} BROKEN" in out, out
    assert "companion.core._upwards -> companion.games.knives23" in out
    assert "vision._into_app -> companion.app.gameui" in out
    assert "companion.app.games.knives23._peek -> companion.games.knives23.rules" in out


# Names that fold or filter the journal, or call the rules directly: the app asks the session
# (execute, check, live_event), the game's view and the game's cues instead (issue 30: "screens
# only draw and send").
FOLDING = {"evolve", "fold", "fold_step", "undone_seqs", "apply_vote_event", "withdrawn_ballots", "decide"}


# What the demo may not name either: it plays and replays through the session, the rules' own
# replay (GameRules.fold, as a resumed session) and the game's cues (issue 30), never evolve.
DEMO_FOLDING = FOLDING - {"fold"}
# A screen that reckons a vote itself: max/min/Counter over the counts or the ballots ("most votes"
# belongs to the rules' tally (tally.most_votes), carried by the vote's view as ``leaders``).
RECKONING_CALLS = {"max", "min", "Counter"}
VOTE_DATA = {"counts", "ballots", "votes"}


def folding_names(source: str, where: str, names: set[str] = FOLDING) -> list[str]:
    """``where:line name`` for each use of a folding or deciding name in the source."""
    import ast
    found = []
    for node in ast.walk(ast.parse(source, where)):
        name = (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name)
                else None)
        used = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else [name]
        found += [f"{where}:{node.lineno} {n}" for n in used if n in names]
    return found


def vote_reckonings(source: str, where: str) -> list[str]:
    """``where:line`` for each max/min/Counter over vote counts or ballots: a rule copied into a screen."""
    import ast
    found = []
    for node in ast.walk(ast.parse(source, where)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in RECKONING_CALLS):
            continue
        inside = {n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else n.value
                  for a in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(a)
                  if isinstance(n, (ast.Name, ast.Attribute)) or (isinstance(n, ast.Constant) and isinstance(n.value, str))}
        if inside & VOTE_DATA:
            found.append(f"{where}:{node.lineno} {node.func.id}")
    return found


def test_no_app_module_folds_events_or_replays_the_rules():
    found = []
    for path in sorted((ROOT / "companion" / "app").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        found += folding_names(path.read_text(), where) + vote_reckonings(path.read_text(), where)
    demo = ROOT / "companion" / "demo.py"
    found += folding_names(demo.read_text(), "companion/demo.py", DEMO_FOLDING)
    assert found == []


# The shell's last copies of rules (issue 30), verbatim from before: the check names each.
OLD_PLAIN_OUTCOME = """
def plain_outcome(vote: dict) -> str:
    counts = vote.get("counts") or {}
    if not counts or not any(counts.values()):
        return ""
    top = max(counts.values())
    best = [option_label(o) for o, n in counts.items() if n == top]
"""
OLD_DEMO_SHOW = """
from companion.core.rules import fold_step
def _show(rules, before, events, label, narrator, clock, say):
    state = before
    for ev in events:
        after = fold_step(rules, state, ev)
"""


def test_the_check_catches_a_screen_reckoning_most_votes_and_the_demo_folding_itself():
    assert vote_reckonings(OLD_PLAIN_OUTCOME, "reveal.py") == ["reveal.py:6 max"]
    assert folding_names(OLD_DEMO_SHOW, "demo.py", DEMO_FOLDING) == ["demo.py:2 fold_step", "demo.py:6 fold_step"]
