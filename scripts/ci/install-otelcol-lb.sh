#!/usr/bin/env bash
# Builds a small OpenTelemetry Collector with the collector-contrib
# `loadbalancing` exporter (plus the otlp receiver, memory_limiter, batch,
# otlp/otlphttp/debug exporters and the Prometheus self-telemetry reader) into
# .cache/bin/otelcol-lb (ignored by git), only when it is missing. The Jaeger v2
# binary has no `loadbalancing` exporter; deploy/collector/scale-out.yaml needs
# it. test/e2e/collector-configs.test.ts validates with it and
# test/e2e/scale-out.test.ts runs the scale-out tiers on it.
#
#   scripts/ci/install-otelcol-lb.sh          # build if missing, print the version
#   AGENT_INCIDENTS_OTELCOL_LB=/path/otelcol  # use that binary instead (nothing is built)
#
# The module is scripts/ci/otelcol-lb-wrapper/: main.go lists the components,
# go.mod pins collector v0.140.0 / v1.46.0 and collector-contrib v0.140.1 (the
# versions of Jaeger v2.13.0, which scripts/ci/install-jaeger.sh builds, so the
# two share the Go build cache), and go.sum holds every checksum the build
# needs. That last part matters: the Go module proxy serves loadbalancingexporter,
# but the checksum database reached through it has no record of it (404), so the
# go command must find its checksum in go.sum, and the build runs with
# -mod=readonly so it never asks for one.
# A build with a cold cache takes about 6 minutes on 2 cores; after
# install-jaeger.sh, about 2; a warm Go cache, seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

VERSION=v0.140.1-agent-incidents # collector-contrib release the build follows

bin_dir="$root/.cache/bin"
target="${AGENT_INCIDENTS_OTELCOL_LB:-$bin_dir/otelcol-lb}"

print_version() {
  local version exporter
  version=$("$1" --version 2>/dev/null || true)
  exporter=$(go version -m "$1" 2>/dev/null | awk '$1 == "dep" && $2 ~ /\/exporter\/loadbalancingexporter$/ { print $3 }' | head -n1 || true)
  echo "otelcol-lb: $1 (${version:-unknown version}; loadbalancingexporter ${exporter:-unknown})"
}

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

if [ -x "$target" ]; then
  echo "otelcol-lb: already built, not rebuilding"
  print_version "$target"
  exit 0
fi
if [ -n "${AGENT_INCIDENTS_OTELCOL_LB:-}" ]; then
  echo "otelcol-lb: AGENT_INCIDENTS_OTELCOL_LB=$AGENT_INCIDENTS_OTELCOL_LB is not an executable file" >&2
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "otelcol-lb: Go is required to build the collector (go.mod needs Go >= 1.24.6)" >&2
  exit 1
fi
echo "otelcol-lb: building with $(go version)"
mkdir -p "$bin_dir"
# Build in a temporary copy and move into place at the end, so an interrupted
# build never leaves a half-written binary that looks installed, and the
# repository stays clean whatever the go command does to go.mod/go.sum.
work="$root/.cache/otelcol-lb-build"
rm -rf "$work"
mkdir -p "$work/bin"
trap 'rm -rf "$work"' EXIT
cp -R scripts/ci/otelcol-lb-wrapper "$work/module"

started=$(date +%s)
(
  cd "$work/module"
  GOFLAGS="${GOFLAGS:-} -mod=readonly" GOTOOLCHAIN=auto timeout 1800 go build \
    -ldflags "-X main.version=$VERSION" -o "$work/bin/otelcol-lb" .
)
mv "$work/bin/otelcol-lb" "$target"
echo "otelcol-lb: built in $(($(date +%s) - started)) s"
print_version "$target"
