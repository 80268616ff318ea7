#!/usr/bin/env bash
# Runs the whole suite. Starts a virtual X display when there is none (CI has none), so the
# app tests open real Kivy windows; artifacts (screenshots, narration WAVs) go to test-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-artifacts
export KIVY_HOME="$PWD/.kivy-home" KIVY_NO_CONSOLELOG=1 KIVY_NO_ARGS=1
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1920x1280x24" .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest "$@"
