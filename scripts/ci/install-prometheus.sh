#!/usr/bin/env bash
# Installs Prometheus and promtool from Debian's packages when either is
# missing: non-interactive, and the package's service is neither started nor
# enabled (the end-to-end tests start their own Prometheus on 127.0.0.1).
set -euo pipefail

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
  echo "prometheus: already installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then echo "$(basename "$0"): run as root, or install sudo, to install packages with apt-get" >&2; exit 1; fi
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  # policy-rc.d exit 101 tells invoke-rc.d not to start services while installing.
  policy=/usr/sbin/policy-rc.d
  created_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    created_policy=1
  fi
  cleanup() { if [ -n "$created_policy" ]; then $sudo rm -f "$policy"; fi; }
  trap cleanup EXIT
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
prometheus --version 2>&1 | head -n1
promtool --version 2>&1 | head -n1
