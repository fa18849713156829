#!/usr/bin/env bash
# Creates the virtualenv of the Python agent test (test/python-agent) in .cache/python-agent-venv,
# only when it is missing or when test/python-agent/requirements.txt changed, and prints its python.
# Usage: scripts/ci/python-agent-venv.sh   (PYTHON=python3.12 to choose the interpreter)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/test/python-agent/requirements.txt"
venv="$root/.cache/python-agent-venv"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

hash_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}
# The interpreter's version is part of the key: a venv is bound to the python that made it.
wanted="$(hash_of "$requirements") $("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  echo "$venv/bin/python"
  exit 0
fi

echo "python-agent-venv: building $venv" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
if ! "$python" -m venv "$venv" >&2; then
  rm -rf "$venv"
  # A fresh Debian machine ships python3 without its venv module: install it once.
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then echo "$(basename "$0"): run as root, or install sudo, to install packages with apt-get" >&2; exit 1; fi
    sudo="sudo"
  fi
    echo "python-agent-venv: installing python3-venv" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >&2
  fi
  if ! "$python" -m venv "$venv" >&2; then
    echo "python-agent-venv: '$python -m venv' failed; on Debian/Ubuntu: apt-get install -y python3-venv" >&2
    rm -rf "$venv"
    exit 1
  fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
# Written last, so an interrupted install is rebuilt on the next call.
echo "$wanted" > "$stamp"
echo "$venv/bin/python"
