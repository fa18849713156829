#!/usr/bin/env bash
# Installs Debian's Chromium for the browser test of `report --html`
# (test/e2e/report-html.test.ts, driven by playwright-core: no browser
# download). Skips when /usr/bin/chromium (or $AGENT_INCIDENTS_CHROMIUM) is there.
set -euo pipefail

chromium="${AGENT_INCIDENTS_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$chromium" ]; then
  echo "chromium: already installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then echo "$(basename "$0"): run as root, or install sudo, to install packages with apt-get" >&2; exit 1; fi
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # A font, so screenshots of the page have text; the test itself reads the DOM.
  $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
"$chromium" --version 2>/dev/null | head -n1
