import { defineConfig } from 'vitest/config';

// One config for every package. Tests talk to real Postgres, Redis and an
// emulator the global setup starts; each file owns its names, so files run
// in parallel (2 cores: two forks keep I/O-bound tests busy without thrash).
export default defineConfig({
  test: {
    // Unit specs sit beside their code (`src/**/*.spec.ts`); integration tests in `test/`.
    include: [
      '{libs,services}/*/src/**/*.spec.ts',
      'infra/src/**/*.spec.ts',
      'infra/*/src/**/*.spec.ts',
      'clients/*/src/**/*.spec.ts',
      '{libs,services,infra}/*/test/**/*.test.ts',
      'infra/test/**/*.test.ts',
      'clients/*/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    globalSetup: ['./libs/testing/src/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
    // CI counts results from the JSON report (.ci/run prints "N passed, N failed").
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.local/test-results/vitest.json' },
  },
});
