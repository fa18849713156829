import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests run the built binary, so build once before any test.
    globalSetup: ['test/support/build-once.ts'],
    testTimeout: 30_000,
  },
});
