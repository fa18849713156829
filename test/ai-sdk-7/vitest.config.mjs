import { defineConfig } from 'vitest/config';

// Its own config: the root's builds dist/ with the root's TypeScript before any
// test, which this project (agent-incidents from the packed tarball) must not need.
export default defineConfig({
  test: {
    include: ['*.test.mjs'],
    testTimeout: 30_000,
  },
});
