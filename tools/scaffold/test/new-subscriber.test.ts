import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `pnpm new:subscriber` end to end, in a copy of this workspace (the real one
// is never edited): the command writes and registers the service, and the
// service as written lints, type-checks and passes its own tests (health,
// each event handled once under duplicates, poison to its DLQ) against
// Postgres, Redis and the emulator.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTRY = 'libs/contracts/src/subscribers.registry.ts';
let copy: string;

/** The child's environment: this run's vitest variables would make a nested vitest think it is a worker. */
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(VITEST|TINYPOOL)/.test(key)),
);

function run(cwd: string, command: string, args: string[], timeoutMs = 300_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: childEnv, encoding: 'utf8', timeout: timeoutMs });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colours, should a tool ignore NO_COLOR
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  expect(result.status, `${what}:\n${output.slice(-4000)}`).toBe(0);
  return output;
}

const install = () =>
  ok(run(copy, 'pnpm', ['install', '--offline', '--ignore-scripts', '--no-frozen-lockfile']), 'pnpm install');
const newSubscriber = (...args: string[]) =>
  run(copy, process.execPath, ['tools/scaffold/src/cli/new-subscriber.ts', ...args]);

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'hireflow-scaffold-'));
  const files = ok(run(ROOT, 'git', ['ls-files', '-co', '--exclude-standard', '-z']), 'git ls-files');
  writeFileSync(join(copy, '.files'), files);
  ok(run(ROOT, 'tar', ['-cf', join(copy, '.tar'), '--null', '-T', join(copy, '.files')]), 'tar');
  ok(run(copy, 'tar', ['-xf', '.tar']), 'untar');
  rmSync(join(copy, '.tar'));
  rmSync(join(copy, '.files'));
  install();
}, 300_000);

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('pnpm new:subscriber', () => {
  it('writes a registered service that lints, type-checks and passes its own tests', () => {
    const out = ok(
      newSubscriber('analytics', '--events', 'job.posted.v1,candidate.registered.v1'),
      'new:subscriber',
    );
    expect(out).toContain('analytics: inbox analytics-inbox (DLQ analytics-inbox-dlq)');
    expect(out).toContain('port 3101, admin 4101');
    expect(readFileSync(join(copy, REGISTRY), 'utf8')).toMatch(
      /name: 'analytics',\s*events: \['job\.posted\.v1', 'candidate\.registered\.v1'\],\s*port: 3101/,
    );
    const handlers = readFileSync(join(copy, 'services/analytics/src/modules/events/handlers.ts'), 'utf8');
    expect(handlers).toContain(
      "export async function onJobPostedV1(em: EntityManager, event: CloudEvent<'job.posted.v1'>)",
    );
    expect(handlers).toContain("event: CloudEvent<'candidate.registered.v1'>");
    install();

    // The topology every tool reads now has its inbox, filtered on its two types, on the one topic carrying them.
    const topology = ok(
      run(join(copy, 'services/analytics'), process.execPath, [
        '--input-type=module',
        '-e',
        "import { topology, serviceChannels } from '@hireflow/contracts'; console.log(JSON.stringify([topology.queues['analytics-inbox'], serviceChannels('analytics')]))",
      ]),
      'topology',
    );
    expect(JSON.parse(topology)).toEqual([
      {
        consumer: 'analytics',
        subscriptions: [{ topic: 'jobs-events', types: ['job.posted.v1', 'candidate.registered.v1'] }],
        visibilityTimeoutSeconds: 30,
        maxReceiveCount: 10,
      },
      { inbox: 'analytics-inbox' },
    ]);

    ok(run(copy, 'node_modules/.bin/biome', ['check', 'services/analytics', REGISTRY]), 'biome check');
    writeFileSync(
      join(copy, 'services/analytics/tsconfig.check.json'),
      JSON.stringify({
        extends: '../../tsconfig.base.json',
        include: ['src', 'test', '../../libs/testing/src/global-setup.ts'],
      }),
    );
    ok(
      run(copy, 'node_modules/.bin/tsc', ['--noEmit', '-p', 'services/analytics/tsconfig.check.json']),
      'tsc',
    );
    const tests = ok(run(copy, 'node_modules/.bin/vitest', ['run', 'services/analytics'], 480_000), 'vitest');
    // Every test ran and passed: health (7), and per event type duplicates and poison (2 × 2).
    expect(tests).toMatch(/Tests\s+11 passed \(11\)/);
    expect(tests).toMatch(/inbox\.test\.ts \(4 tests\)/);
  }, 900_000);

  it('gives the next subscriber the next port, and refuses bad input naming each field, writing nothing', () => {
    const before = readFileSync(join(copy, REGISTRY), 'utf8');
    const bad = newSubscriber('jobs', '--events', 'job.posted.v1,job.exploded.v1', '--dir', '../elsewhere');
    expect(bad.status).toBe(64);
    expect(bad.stderr).toContain('name: jobs is taken by Hireflow itself');
    expect(bad.stderr).toContain('events: job.exploded.v1 is not an event type of the catalog');
    expect(bad.stderr).toContain('dir: must be a new folder services/<folder>');
    const taken = newSubscriber('analytics', '--events', 'job.closed.v1');
    expect(taken.status).toBe(64);
    expect(taken.stderr).toContain('name: a subscriber analytics is already registered');
    expect(newSubscriber('crm').stderr).toContain('events: --events needs one or more event types');
    expect(readFileSync(join(copy, REGISTRY), 'utf8')).toBe(before);

    const out = ok(
      newSubscriber('crm-sync', '--events', 'job.closed.v1,match.found.v1', '--dir', 'services/crm'),
      'crm',
    );
    expect(out).toContain('port 3102, admin 4102');
    expect(readFileSync(join(copy, 'services/crm/src/modules/events/consumers.ts'), 'utf8')).toContain(
      "'match.found.v1': async (event: CloudEvent<'match.found.v1'>)",
    );
  }, 120_000);
});
