// `npm run test:e2e`: the tests under test/e2e/, which start Jaeger, the
// collector, the gateway and Prometheus on 127.0.0.1 (scripts/ci/install-jaeger.sh,
// scripts/ci/install-otelcol-lb.sh for the scale-out tiers, and
// scripts/ci/install-prometheus.sh first). `npm test` excludes them;
// pipeline.test.ts and scale-out.test.ts also run only with AGENT_INCIDENTS_E2E=1, set here.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/e2e/**/*.test.ts'],
    // The gateway runs from dist/: build once before any test.
    globalSetup: ['test/support/build-once.ts'],
    env: { AGENT_INCIDENTS_E2E: '1' },
    // One stack on fixed ports: never two test files at once.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
