#!/usr/bin/env bash
# Runs every benchmark in benchmarks/ and prints its figures (the app one under a virtual display).
set -uo pipefail
cd "$(dirname "$0")/.."
export KIVY_HOME="$PWD/.kivy-home" KIVY_NO_CONSOLELOG=1
for b in benchmarks/*.py; do
  echo "== $b"
  if [[ "$b" == *app_* ]] && [ -z "${DISPLAY:-}" ]; then
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python "$b"
  else
    .venv/bin/python "$b"
  fi
done
