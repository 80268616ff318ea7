#!/usr/bin/env bash
# Runs every benchmark in benchmarks/ to completion and prints its figures (those that open the
# app under a virtual display when there is none). Arguments are given to every benchmark:
# `bash scripts/bench.sh --quick` is the tiny run of each (what the suite runs, in seconds).
# Exits 1, naming them, if any benchmark failed; the others still run.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export KIVY_HOME="$PWD/.kivy-home" KIVY_NO_CONSOLELOG=1 KIVY_NO_ARGS=1
failed=()
for b in benchmarks/*.py; do
  [[ "$(basename "$b")" == _* ]] && continue   # a helper the benchmarks share (benchmarks/_args.py)
  echo "== $b"
  extra=()
  # tokens_ab compares the reader with an earlier commit's: the last commit, here
  if [[ "$b" == */tokens_ab.py && " $* " != *" --quick "* && " $* " != *" --against "* ]]; then
    extra=(--against HEAD)
  fi
  if grep -q "no X display" "$b" && [ -z "${DISPLAY:-}" ]; then
    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python "$b" "${extra[@]}" "$@"
  else
    .venv/bin/python "$b" "${extra[@]}" "$@"
  fi || failed+=("$b")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "benchmarks that failed: ${failed[*]}" >&2
  exit 1
fi
