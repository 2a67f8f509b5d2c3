import { configDefaults, defineConfig } from 'vitest/config';

// One config for every package. Tests talk to real Postgres, Redis and an
// emulator the global setup starts; each file owns its names, so files run
// in parallel (2 cores: two forks keep I/O-bound tests busy without thrash).
const SOAK = ['test/chaos.test.ts', 'test/fairness.e2e.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['./libs/testing/src/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
    // CI counts results from the JSON report (.ci/run prints "N passed, N failed").
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.local/test-results/vitest.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          // Unit specs sit beside their code (`src/**/*.spec.ts`); integration tests in `test/`.
          include: [
            '{libs,services,tools,deploy,clients}/*/src/**/*.spec.ts',
            '{libs,services,tools,deploy,clients}/*/test/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...SOAK],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The chaos soak runs a whole system of its own (Postgres, Redis, the
        // emulator, every service) and injects faults for minutes: alone, after
        // the suite, so neither starves the other of the two cores.
        extends: true,
        test: {
          name: 'soak',
          include: SOAK,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
