import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suite starts Jaeger, a collector and Prometheus: `npm run test:e2e`.
    // test/otel-3 runs on OpenTelemetry JS 3 with its own packages (test/otel-3/run.sh), not on the root's 2.x line.
    exclude: ['test/e2e/**', 'test/otel-3/**', '**/node_modules/**'],
    // The CLI tests run the built binary, so build once before any test.
    globalSetup: ['test/support/build-once.ts'],
    testTimeout: 30_000,
  },
});
