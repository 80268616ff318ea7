#!/usr/bin/env bash
# The fast loop (`make check`): the rules, the core, the referee, the docs' examples, the layer
# contract and mypy, in under a minute; no X display and no app. The tests marked slow (random
# play, kill -9 at random moments, every view in every language, voices at every pace, Android
# import scans) and the app tests run in `make test`, which runs everything.
#   bash scripts/check.sh            (pytest options may follow: bash scripts/check.sh -x -k tally)
set -uo pipefail
cd "$(dirname "$0")/.."
export KIVY_HOME="$PWD/.kivy-home" KIVY_NO_CONSOLELOG=1 KIVY_NO_ARGS=1
unset DISPLAY   # nothing here may need X
tests=(tests/games tests/core tests/test_referee_cli.py tests/test_referee_docs.py tests/test_commands_doc.py
       tests/test_registry.py tests/test_layers.py)   # the last: the layer contract (import-linter)
.venv/bin/python -m mypy --config-file pyproject.toml > .mypy-check.out 2>&1 &
mypy=$!
.venv/bin/python -m pytest -q -n 2 -m "not slow" "${tests[@]}" "$@"
status=$?
if wait "$mypy"; then
  tail -n 1 .mypy-check.out
else
  cat .mypy-check.out
  status=1
fi
rm -f .mypy-check.out
exit "$status"
