#!/usr/bin/env bash
# Builds the project's OpenTelemetry Collector, otelcol-lb, into .cache/bin/otelcol-lb
# (ignored by git): every component that otel-collector-config.yaml and
# deploy/collector/*.yaml use (otlp receiver; memory_limiter, batch, filter,
# tail_sampling, delta_to_cumulative; otlp_grpc, otlp_http, load_balancing,
# prometheus, debug; span_metrics, signal_to_metrics; the Prometheus
# self-telemetry reader), on collector v0.161.0 /
# collector-contrib v0.161.0. The name is from its first job, the contrib
# `load_balancing` exporter of deploy/collector/scale-out.yaml, which the Jaeger
# v2 binary lacks; it now runs every collector config, since the newest Jaeger
# the Go module proxy serves here (v2.13.0, collector-contrib v0.140) knows none
# of the current component names (span_metrics, otlp_http, otlp_grpc,
# load_balancing). test/e2e/collector-configs.test.ts validates with it;
# test/e2e/pipeline.test.ts, spanmetrics-cardinality.test.ts and
# scale-out.test.ts run it.
#
#   scripts/ci/install-otelcol-lb.sh          # build if missing or stale, print the version
#   AGENT_INCIDENTS_OTELCOL_LB=/path/otelcol  # use that binary instead (nothing is built)
#
# The module is scripts/ci/otelcol-lb-wrapper/: main.go lists the components,
# go.mod pins the release (and says why v0.161.0 is the newest line served
# whole), and go.sum holds every checksum the build needs, so the build runs
# with -mod=readonly and asks the checksum database nothing.
#
# The cache key is the release plus a hash of the module's files, built into
# the binary as its version (`otelcol-lb --version`): a cached binary whose
# version is another key is rebuilt, so bumping the release or changing the
# module never leaves an old build in place.
# A build with a cold Go cache takes about 10 minutes on 2 cores; a warm one, seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

RELEASE=v0.161.0 # collector-contrib release the build follows (go.mod)
module_hash=$(cd scripts/ci/otelcol-lb-wrapper && cat go.mod go.sum main.go | sha256sum | cut -c1-12)
VERSION="$RELEASE-agent-incidents+$module_hash" # the cache key

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

if [ -n "${AGENT_INCIDENTS_OTELCOL_LB:-}" ]; then
  if [ -x "$target" ]; then
    echo "otelcol-lb: using AGENT_INCIDENTS_OTELCOL_LB, not building"
    print_version "$target"
    exit 0
  fi
  echo "otelcol-lb: AGENT_INCIDENTS_OTELCOL_LB=$AGENT_INCIDENTS_OTELCOL_LB is not an executable file" >&2
  exit 1
fi
if [ -x "$target" ]; then
  cached=$("$target" --version 2>/dev/null || true)
  if [ "$cached" = "otelcol-lb version $VERSION" ]; then
    echo "otelcol-lb: already built ($VERSION), not rebuilding"
    print_version "$target"
    exit 0
  fi
  echo "otelcol-lb: the cached binary is ${cached:-of no readable version}, not $VERSION: rebuilding"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "otelcol-lb: Go is required to build the collector (go.mod needs Go >= 1.26.0)" >&2
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
