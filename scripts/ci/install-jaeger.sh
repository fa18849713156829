#!/usr/bin/env bash
# Builds the Jaeger v2 binary (the trace backend of deploy/jaeger/jaeger.yaml:
# OTLP in, storage, query API) into .cache/bin/jaeger (ignored by git), only
# when it is missing or was built from other pins. The end-to-end tests run it,
# and npm run bench:gateway uses it as its collector.
#
#   scripts/ci/install-jaeger.sh          # build if missing or stale, print the version
#   AGENT_INCIDENTS_JAEGER=/path/jaeger   # use that binary instead (nothing is built)
#
# 1. The commit the project pins (Jaeger v2.20.0) is tried first, with
#    `go install …@<commit>` (Go turns it into a pseudo-version of v1.76.x).
# 2. If the Go module proxy will not serve it, the wrapper module in
#    scripts/ci/jaeger-wrapper/ builds module version v1.76.0 = Jaeger v2.13.0
#    (collector-contrib v0.140.1), the newest the proxy here serves.
# Jaeger is itself a collector distribution, but v2.13.0 is on collector-contrib
# v0.140, older than the project's collector configs: they name components as
# collector-contrib v0.161.0 does (span_metrics, otlp_http, otlp_grpc,
# load_balancing), so scripts/ci/install-otelcol-lb.sh builds the collector that
# runs them. deploy/jaeger/jaeger.yaml uses only what both lines name alike.
#
# A cached binary is kept only when its build info shows the pinned commit or
# the fallback module version: bumping either pin rebuilds it.
# A cold build takes about 6 minutes on 2 cores; a warm Go cache, seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

PINNED_COMMIT=798e4b0fcf22609e381df764a01461affd813e1e # Jaeger v2.20.0
FALLBACK_MODULE_VERSION=v1.76.0                        # = Jaeger v2.13.0
FALLBACK_JAEGER_VERSION=v2.13.0
PKG=github.com/jaegertracing/jaeger/cmd/jaeger
VERSION_PKG=github.com/jaegertracing/jaeger/internal/version

bin_dir="$root/.cache/bin"
target="${AGENT_INCIDENTS_JAEGER:-$bin_dir/jaeger}"

print_version() {
  local version module
  version=$("$1" version 2>/dev/null | grep -o '"gitVersion":"[^"]*"' | cut -d'"' -f4 || true)
  module=$(go version -m "$1" 2>/dev/null | awk '$1 == "dep" && $2 == "github.com/jaegertracing/jaeger" { print $3 } $1 == "mod" && $2 == "github.com/jaegertracing/jaeger" { print $3 }' | head -n1 || true)
  echo "jaeger: $1 (Jaeger ${version:-unknown}, module github.com/jaegertracing/jaeger ${module:-unknown})"
}

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

if [ -n "${AGENT_INCIDENTS_JAEGER:-}" ]; then
  if [ -x "$target" ]; then
    echo "jaeger: using AGENT_INCIDENTS_JAEGER, not building"
    print_version "$target"
    exit 0
  fi
  echo "jaeger: AGENT_INCIDENTS_JAEGER=$AGENT_INCIDENTS_JAEGER is not an executable file" >&2
  exit 1
fi
if [ -x "$target" ] && ! command -v go >/dev/null 2>&1; then
  echo "jaeger: already built; without Go its build info cannot be read, so it is kept as it is"
  print_version "$target"
  exit 0
fi
if [ -x "$target" ]; then
  # The cache key is in the binary: the module version Go recorded for jaeger.
  cached=$(go version -m "$target" 2>/dev/null | awk '($1 == "dep" || $1 == "mod") && $2 == "github.com/jaegertracing/jaeger" { print $3 }' | head -n1 || true)
  if [ "$cached" = "$FALLBACK_MODULE_VERSION" ] || [[ "$cached" == *"-${PINNED_COMMIT:0:12}" ]]; then
    echo "jaeger: already built, not rebuilding"
    print_version "$target"
    exit 0
  fi
  echo "jaeger: the cached binary is module ${cached:-of no readable version}, not the pinned commit nor $FALLBACK_MODULE_VERSION: rebuilding"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "jaeger: Go is required to build Jaeger (go.mod of the fallback needs Go >= 1.24.6)" >&2
  exit 1
fi
echo "jaeger: building with $(go version)"
mkdir -p "$bin_dir"
# Build into a temporary GOBIN and move into place at the end, so an
# interrupted build never leaves a half-written binary that looks installed.
work="$root/.cache/jaeger-build"
rm -rf "$work"
mkdir -p "$work/bin"
trap 'rm -rf "$work"' EXIT

started=$(date +%s)
if GOBIN="$work/bin" GOTOOLCHAIN=auto timeout 1200 go install \
  -ldflags "-X $VERSION_PKG.commitSHA=$PINNED_COMMIT -X $VERSION_PKG.latestVersion=v2.20.0" \
  "$PKG@$PINNED_COMMIT" 2>"$work/pinned.log"; then
  echo "jaeger: built the pinned commit $PINNED_COMMIT (Jaeger v2.20.0)"
else
  echo "jaeger: cannot build the pinned commit $PINNED_COMMIT (Jaeger v2.20.0):"
  sed 's/^/  | /' "$work/pinned.log" | tail -n 5
  echo "jaeger: falling back to module version $FALLBACK_MODULE_VERSION (= Jaeger $FALLBACK_JAEGER_VERSION, collector-contrib v0.140.1)"
  echo "        through scripts/ci/jaeger-wrapper/: jaeger's go.mod has a replace directive, which"
  echo "        'go install module@version' refuses, so a wrapper module requires it and repeats the replace."
  # Built in a copy: -mod=mod may add go.sum lines, and the repository must stay clean.
  cp -R scripts/ci/jaeger-wrapper "$work/module"
  (
    cd "$work/module"
    GOBIN="$work/bin" GOFLAGS="${GOFLAGS:-} -mod=mod" GOTOOLCHAIN=auto timeout 1800 go install \
      -ldflags "-X $VERSION_PKG.latestVersion=$FALLBACK_JAEGER_VERSION" \
      "$PKG"
  )
fi
mv "$work/bin/jaeger" "$target"
echo "jaeger: built in $(($(date +%s) - started)) s"
print_version "$target"
