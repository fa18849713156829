import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** This project's install of a package: OpenTelemetry JS 3 in place of the root's 2.x line. */
const own = (name: string): string => fileURLToPath(new URL(`./node_modules/${name}`, import.meta.url));

/**
 * The root's processor guarantees on OpenTelemetry JS 3 (test/otel-3/run.sh, Node 22): the tests and
 * src/ import `@opentelemetry/api`, `sdk-metrics` and `core` from this folder (API 1.10, SDK 3.1), and
 * `@opentelemetry/sdk-trace-base` from ./sdk-trace-base.ts (the 3.x SDK under its 2.x names).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: {
    alias: [
      {
        find: /^@opentelemetry\/sdk-trace-base$/,
        replacement: fileURLToPath(new URL('./sdk-trace-base.ts', import.meta.url)),
      },
      { find: /^@opentelemetry\/(api|core|sdk-metrics|sdk-trace)$/, replacement: own('@opentelemetry/$1') },
    ],
  },
  test: {
    include: ['test/processor-guarantees.test.ts', 'test/otel-3/*.test.ts'],
    globalSetup: ['test/support/build-once.ts'],
    testTimeout: 30_000,
    server: { deps: { inline: [/@opentelemetry\//] } },
  },
});
