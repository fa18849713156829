#!/usr/bin/env bash
# Builds scripts/ci/compose-check/ (a Compose file loader: compose-spec/compose-go, the library
# `docker compose` itself uses) into .cache/bin/compose-check (ignored by git), only when it is missing.
# test/deploy/compose.test.ts validates deploy/compose.yaml with it and skips that part without it.
# go.sum pins every module; the build runs -mod=readonly. About 20 s with a cold cache.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
target="$root/.cache/bin/compose-check"
if [ -x "$target" ]; then
  echo "compose-check: already built"
  exit 0
fi
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "compose-check: Go is required (go.mod needs Go >= 1.24)" >&2
  exit 1
fi
mkdir -p "$root/.cache/bin"
# Built in a copy so the repository stays clean whatever the go command does to go.mod/go.sum, and
# moved into place at the end so an interrupted build never looks installed.
work="$root/.cache/compose-check-build"
rm -rf "$work"
trap 'rm -rf "$work"' EXIT
cp -R scripts/ci/compose-check "$work"
(cd "$work" && GOFLAGS="${GOFLAGS:-} -mod=readonly" GOTOOLCHAIN=auto timeout 900 go build -o "$work/compose-check" .)
mv "$work/compose-check" "$target"
echo "compose-check: built $(go version -m "$target" | awk '$2 == "github.com/compose-spec/compose-go/v2" { print $2, $3 }')"
