import { defineConfig } from 'vitest/config';

// The project's own tests (not the conformance suites, which the CLI runs with its own configuration).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: process.env['CI'] ? ['default'] : ['default'],
  },
});
