import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// @hireflow/contracts for a service outside this repository: built to
// JavaScript and declarations, packed with `pnpm pack`, installed from the
// tarball into a scratch project outside the workspace, type-checked there
// with strict TypeScript and run with plain Node (no type stripping inside
// node_modules, no workspace links).
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = join(ROOT, 'libs/contracts');
const TSC = join(ROOT, 'node_modules/.bin/tsc');
let scratch: string;

function run(cwd: string, command: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  expect(result.status, `${what}:\n${output.slice(-3000)}`).toBe(0);
  return output;
}

const CONSUMER = `import {
  type CloudEvent,
  createEvent,
  type EventData,
  eventCatalog,
  parseEvent,
  subscriberInbox,
  topology,
} from '@hireflow/contracts';

const data: EventData<'job.posted.v1'> = {
  jobId: '0b5c1f4e-1111-4222-8333-444455556666',
  tenantId: '1b5c1f4e-1111-4222-8333-444455556666',
  title: 'Backend engineer',
  description: 'Node.js',
  skills: ['node'],
  location: 'Berlin',
  remote: true,
  contactEmail: 'recruiter@example.test',
  postedAt: '2026-12-01T10:00:00Z',
};
const event: CloudEvent<'job.posted.v1'> = createEvent('job.posted.v1', data, { source: 'hireflow/jobs', subject: data.jobId });
const received = parseEvent(JSON.stringify(event));
if (received.type === 'job.posted.v1') {
  const title: string = received.data.title;
  console.log(JSON.stringify({ title, topic: eventCatalog[received.type].topic, inbox: subscriberInbox('analytics'), topics: Object.keys(topology.topics) }));
}
let refused = '';
try {
  parseEvent({ ...event, data: { ...data, tenantId: 'nope' } });
} catch (error) {
  refused = (error as Error).message;
}
console.log(refused.includes('data.tenantId') ? 'poison refused' : 'poison accepted');
`;

beforeAll(() => {
  rmSync(join(PACKAGE, 'dist'), { recursive: true, force: true });
  ok(run(PACKAGE, TSC, ['-p', 'tsconfig.build.json']), 'build');
  scratch = mkdtempSync(join(tmpdir(), 'hireflow-contracts-consumer-'));
  ok(run(PACKAGE, 'pnpm', ['pack', '--pack-destination', scratch]), 'pnpm pack');
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  rmSync(join(PACKAGE, 'dist'), { recursive: true, force: true });
});

describe('@hireflow/contracts as a package', () => {
  it('installs from its tarball outside the workspace, type-checks strictly and runs with plain Node', () => {
    const tarball = readdirSync(scratch).find((file) => file.endsWith('.tgz'))!;
    const manifest = ok(run(scratch, 'tar', ['-xOzf', tarball, 'package/package.json']), 'manifest');
    expect(manifest).not.toMatch(/workspace:|catalog:/);
    // Every entry point of the workspace's exports is published, built, and in the tarball.
    const published = JSON.parse(manifest).exports as Record<string, { types: string; default: string }>;
    const source = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).exports as Record<
      string,
      string
    >;
    expect(Object.keys(published)).toEqual(Object.keys(source));
    expect(published['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    const listing = ok(run(scratch, 'tar', ['-tzf', tarball]), 'listing');
    for (const entry of Object.values(published)) {
      expect(listing).toContain(`package/${entry.types.slice(2)}`);
      expect(listing).toContain(`package/${entry.default.slice(2)}`);
    }
    expect(listing).toContain('package/dist/index.d.ts');
    expect(listing).toContain('package/schemas/events/job.posted.v1.json');
    expect(listing).not.toMatch(/package\/src\//);

    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({
        name: 'scratch-subscriber',
        private: true,
        type: 'module',
        dependencies: { '@hireflow/contracts': `file:./${tarball}` },
        devDependencies: { '@types/node': '24.19.4' },
      }),
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2024',
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(scratch, 'consumer.ts'), CONSUMER);
    ok(run(scratch, 'pnpm', ['install', '--offline', '--ignore-workspace']), 'pnpm install');
    ok(run(scratch, TSC, ['-p', 'tsconfig.json']), 'tsc --strict');
    const out = ok(run(scratch, process.execPath, ['consumer.ts']), 'node consumer.ts');
    expect(out.trim().split('\n')).toEqual([
      JSON.stringify({
        title: 'Backend engineer',
        topic: 'jobs-events',
        inbox: 'analytics-inbox',
        topics: ['jobs-events', 'matching-events', 'media-events'],
      }),
      'poison refused',
    ]);

    // The types are the catalog's, not `any`: a wrong payload does not compile.
    writeFileSync(
      join(scratch, 'wrong.ts'),
      "import type { EventData } from '@hireflow/contracts';\nexport const bad: EventData<'job.closed.v1'> = { jobId: 'x', closedAt: 3 };\n",
    );
    const wrong = run(scratch, TSC, ['-p', 'tsconfig.json']);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts.*error TS\d+/);
  }, 300_000);
});
