// knip: no unused dependency, export or file (`pnpm knip`, a step of .ci/run).
// Node runs the workspace's .ts directly, so the entries are the files that
// `node` or vitest start: package.json scripts and exports (knip reads those
// itself), the CLIs, the services' main/worker, tests, benches, and the files
// a process is spawned on by path (listed here, knip cannot follow a path
// string). A finding: remove the dependency, export or file; where a use is
// real but invisible to knip, say so here with an ignore* and its reason.
import type { KnipConfig } from 'knip';

const tests = ['src/**/*.spec.ts', 'test/**/*.test.ts'];
const sources = ['src/**/*.ts', 'test/**/*.ts'];

const config: KnipConfig = {
  // An export used in its own file is not dead code: the named limits and
  // constants beside the code that reads them (e.g. SNS_MAX_BATCH_BYTES) stay
  // exported for tests and readers. An export nothing uses at all is a finding.
  ignoreExportsUsedInFile: true,
  // System binaries from Debian packages, not npm: .ci/run installs promtool
  // (prometheus); redis-server and Postgres (run as its user with util-linux's
  // runuser when root) are started by the chaos harness and the launcher
  // (tools/launcher/src/local-servers.ts).
  ignoreBinaries: ['promtool', 'redis-server', 'runuser'],
  workspaces: {
    '.': {
      entry: ['test/**/*.test.ts'],
      project: ['test/**/*.ts', 'vitest.config.ts'],
    },
    'services/*': {
      // The launcher and the image start src/main.ts; ROLE=worker runs src/worker.ts.
      entry: ['src/main.ts', 'src/worker.ts', 'src/cli/*.ts', ...tests],
      project: sources,
    },
    'libs/*': {
      // test/fixtures/*.ts: processes a test spawns by path (e.g. idempotency's holder.ts).
      entry: ['src/cli/*.ts', 'test/fixtures/*.ts', ...tests],
      project: sources,
    },
    'tools/*': {
      entry: ['src/cli/*.ts', ...tests],
      project: sources,
    },
    'tools/chaos': {
      // The broken build: the harness loads it into each service with `--import <path>`.
      entry: ['src/cli/*.ts', 'src/broken/register.ts', ...tests],
      project: sources,
    },
    'tools/launcher': {
      // Spawned by path: the local Prometheus runs under the tether; test/fixtures/*.ts, a test's launcher in miniature.
      entry: ['src/cli/*.ts', 'src/prometheus/tether.ts', 'test/fixtures/*.ts', ...tests],
      project: sources,
    },
    'tools/api-docs': {
      entry: ['src/cli/*.ts', ...tests],
      project: sources,
      // lint.ts runs Redocly's CLI by the path of its package
      // (createRequire(...).resolve('@redocly/cli/package.json')), not by an import.
      ignoreDependencies: ['@redocly/cli'],
    },
    'deploy/aws': {
      // cdk.json's app: `node src/cli/synth.ts`.
      entry: ['src/cli/synth.ts', ...tests],
      project: sources,
    },
    bench: {
      entry: [
        '*.bench.ts',
        'run.ts',
        'profile.ts',
        'load-curve.ts',
        'footprint-imports.ts',
        'footprint-profile.ts',
      ],
      project: ['*.ts'],
    },
    'clients/*': {
      // test/sample.ts is a consumer's program, type-checked and never run.
      entry: ['scripts/*.ts', 'test/sample.ts', ...tests],
      project: ['src/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'],
      // openapi-typescript's output: every type of the document is exported, used or not.
    },
  },
  ignoreIssues: {
    'clients/typescript/src/openapi.generated.ts': ['types'],
  },
};

export default config;
