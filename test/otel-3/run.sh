#!/usr/bin/env bash
# The processor guarantees on OpenTelemetry JS 3 (API 1.10, sdk-trace 3.1; Node 22):
#  1. Node 22 from the npm registry into .cache/node22 (scripts/ci/install-node22.sh);
#  2. this folder's packages installed with `npm ci` (its own package-lock.json);
#  3. the root's vitest on Node 22 with vitest.config.ts here, which puts these packages in place of
#     the root's 2.x line for test/processor-guarantees.test.ts and test/otel-3/*.test.ts.
# The 2.x line runs the same guarantees in the root's `npm test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

bash scripts/ci/install-node22.sh
export PATH="$root/.cache/node22/bin:$PATH"
(cd test/otel-3 && npm ci --no-audit --no-fund --loglevel=error)
echo "otel-3: @opentelemetry/api $(node -p 'require("./test/otel-3/node_modules/@opentelemetry/api/package.json").version'), @opentelemetry/sdk-trace $(node -p 'require("./test/otel-3/node_modules/@opentelemetry/sdk-trace/package.json").version'), node $(node --version)"
npx vitest run --config test/otel-3/vitest.config.ts
