#!/usr/bin/env bash
# The AI SDK 7 suite (`npm run test:ai-sdk-7` from the repository root):
#  1. Node 22 from the npm registry into .cache/node22 (scripts/ci/install-node22.sh);
#  2. this repository built and packed into .cache/agent-incidents-<version>.tgz, as npm publishes it;
#  3. test/ai-sdk-7 and examples/vercel-ai-7 installed with `npm ci` (exact versions, their own
#     package-lock.json) on Node 22, and the packed agent-incidents unpacked into each
#     node_modules/agent-incidents, so it resolves their `ai` 7, not the root's 6;
#  4. the suite run on Node 22: the helper's declarations type-checked against `ai` 7
#     (types.check.mjs), then the shared socket-fault matrix and the example (vitest).
#
# The tarball is unpacked rather than listed in package.json: a `file:` tarball would pin its
# integrity in the lockfile, and every build changes it. Its runtime dependencies are listed in
# test/ai-sdk-7/package.json (and the example's) at the versions the root package.json pins.
#
#   SKIP_BUILD=1 test/ai-sdk-7/run.sh   # pack the dist/ that is there (CI built it already)
#   OTEL_LINE=3 test/ai-sdk-7/run.sh    # the same suite on OpenTelemetry JS 3 (API 1.10, sdk-trace 3):
#                                       # copied into test/ai-sdk-7-otel-3 and installed from its lockfile
#
# The suite builds its providers through otel-sdk.mjs, which takes whichever SDK line is installed.
# On line 3, @ai-sdk/otel keeps its own API 1.9.1 next to the app's 1.10, in one process.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

bash scripts/ci/install-node22.sh
export PATH="$root/.cache/node22/bin:$PATH"

if [ "${SKIP_BUILD:-}" != 1 ]; then npm run build --silent; fi
version=$(node -p 'require("./package.json").version')
tarball="$root/.cache/agent-incidents-$version.tgz"
rm -f "$tarball"
# dist/ is built above: `prepack` (the build, with Node 22's view of the root's TypeScript) need not run again.
npm pack --silent --ignore-scripts --pack-destination "$root/.cache" >/dev/null
echo "ai-sdk-7: packed $tarball"

line=${OTEL_LINE:-2}
case "$line" in
  2) suite=test/ai-sdk-7; projects="test/ai-sdk-7 examples/vercel-ai-7" ;;
  3)
    suite=test/ai-sdk-7-otel-3; projects=$suite
    # The suite's files, as they are in test/ai-sdk-7 (the example is an app of its own, run on line 2).
    find "$suite" -maxdepth 1 \( -name '*.mjs' -o -name tsconfig.json \) -delete
    for file in test/ai-sdk-7/*.mjs test/ai-sdk-7/tsconfig.json; do
      case "$file" in *examples.test.mjs | *.tmp.mjs) continue ;; esac
      cp "$file" "$suite/"
    done
    ;;
  *) echo "ai-sdk-7: OTEL_LINE must be 2 or 3, not $line" >&2; exit 2 ;;
esac

for project in $projects; do
  (
    cd "$project"
    npm ci --no-audit --no-fund --loglevel=error
    rm -rf node_modules/agent-incidents
    mkdir -p node_modules/agent-incidents
    tar xzf "$tarball" --strip-components=1 -C node_modules/agent-incidents
    version() { node -p "JSON.parse(require('fs').readFileSync('node_modules/$1/package.json', 'utf8')).version"; }
    echo "ai-sdk-7: $project installed (ai $(version ai), @opentelemetry/api $(version @opentelemetry/api), node $(node --version))"
  )
done

cd "$suite"
npm test
