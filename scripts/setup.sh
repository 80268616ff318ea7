#!/usr/bin/env bash
# Installs what `make run` (mode "run") or `make test` (mode "test") needs on a Debian machine:
# Debian packages that are missing, then the project into .venv. Re-running is cheap: it only
# installs what is not there yet.
set -euo pipefail
mode=${1:-run}
cd "$(dirname "$0")/.."

run_pkgs=(espeak-ng sox libmtdev1 libgl1-mesa-dri libegl1 libgles2 xclip xsel)
test_pkgs=(xvfb x11-apps imagemagick ghostscript socat chromium chromium-driver
           gcc-avr avr-libc binutils-avr simavr libsimavr-dev libsimavrparts1 libelf-dev)
pkgs=("${run_pkgs[@]}")
[ "$mode" = test ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp=.venv/.installed-$mode
if [ ! -x .venv/bin/python ]; then
  # Any Python >= 3.11 (tested: 3.11, 3.13); PYTHON=python3.13 picks one.
  ${PYTHON:-python3} -m venv .venv
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  echo "setup: installing the project into .venv ($mode)"
  extra=""; [ "$mode" = test ] && extra="[test]"
  # constraints.txt: the versions the tests passed with (no surprise OpenCV major version)
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".$extra"
  touch "$stamp"
fi
