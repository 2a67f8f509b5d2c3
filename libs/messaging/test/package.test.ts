import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { uniqueName } from '@hireflow/testing';
import { sampleEvent } from '@hireflow/testing/samples';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// @hireflow/contracts and @hireflow/messaging for a service outside this
// repository: each built to JavaScript and declarations, packed with
// `pnpm pack`, installed from the tarballs into a scratch project outside
// the workspace (offline, from the store: no registry, no workspace links),
// type-checked there with strict TypeScript and run with plain Node (no type
// stripping inside node_modules): a consumer of a queue `pnpm provision
// --subscriber` made on the emulator handles a job.posted.v1 and sends
// poison to its DLQ.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = { contracts: join(ROOT, 'libs/contracts'), messaging: join(ROOT, 'libs/messaging') };
const TSC = join(ROOT, 'node_modules/.bin/tsc');
let scratch: string;
const tarballs: Record<keyof typeof PACKAGES, string> = { contracts: '', messaging: '' };

function run(
  cwd: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  expect(result.status, `${what}:\n${output.slice(-3000)}`).toBe(0);
  return output;
}

/** A version of the workspace's catalog (pnpm-workspace.yaml), as the packed manifests carry them. */
function catalogVersion(name: string): string {
  const line = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .find((l) => l.trim().replace(/"/g, '').startsWith(`${name}:`));
  return line!.split(':').at(-1)!.trim();
}

const manifestOf = (tarball: string) =>
  JSON.parse(ok(run(scratch, 'tar', ['-xOzf', tarball, 'package/package.json']), 'manifest')) as {
    exports: Record<string, { types: string; default: string }>;
    dependencies: Record<string, string>;
  };

const CONTRACTS_CONSUMER = `import {
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

// What docs/subscribing.md shows: the inbox \`pnpm provision --subscriber\`
// made, consumed with the package's SqsConsumer and a typed handler.
const QUEUE_CONSUMER = `import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type CloudEvent, subscriberInbox } from '@hireflow/contracts';
import { type MessageRecord, SqsConsumer } from '@hireflow/messaging';
// BullMQ's classes, required by path from its build inside the package (issue 31).
import { Queue } from '@hireflow/messaging/bullmq';

if (typeof Queue !== 'function') throw new Error('@hireflow/messaging/bullmq has no Queue');
const prefix = process.env.HIREFLOW_TOPOLOGY_PREFIX ?? '';
const name = \`\${prefix}\${subscriberInbox(process.argv[2]!)}\`;
const sqs = new SQSClient({
  region: process.env.AWS_REGION!,
  endpoint: process.env.AWS_ENDPOINT_URL!,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const urlOf = async (queue: string) => (await sqs.send(new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl!;
const queue = { name, url: await urlOf(name), dlq: { url: await urlOf(\`\${name}-dlq\`) } };

const titles: string[] = [];
const records: MessageRecord[] = [];
let settled: () => void = () => undefined;
const done = new Promise<void>((resolve) => {
  settled = resolve;
});
const consumer = new SqsConsumer({
  sqs,
  queue,
  waitTimeSeconds: 1,
  handlers: {
    'job.posted.v1': async (event: CloudEvent<'job.posted.v1'>) => {
      titles.push(event.data.title);
    },
  },
  onMessage: (record) => {
    records.push(record);
    if (records.length === 2) settled();
  },
});
await consumer.start();
const deadline = setTimeout(() => {
  console.error(\`gave up: \${JSON.stringify(records)}\`);
  process.exit(1);
}, 60_000);
await done;
clearTimeout(deadline);
await consumer.close();
sqs.destroy();
console.log(JSON.stringify({
  titles,
  outcomes: records.map((r) => \`\${r.outcome}\${r.reason ? \` (\${r.reason.includes('data.tenantId') ? 'data.tenantId' : r.reason})\` : ''}\`).sort(),
}));
`;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'hireflow-packages-consumer-'));
  // The order matters: messaging's build reads the contracts' declarations (tsconfig.build.json paths).
  for (const [name, dir] of Object.entries(PACKAGES)) {
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    ok(run(dir, TSC, ['-p', 'tsconfig.build.json']), `build ${name}`);
    ok(run(dir, 'pnpm', ['pack', '--pack-destination', scratch]), `pnpm pack ${name}`);
  }
  for (const file of readdirSync(scratch)) {
    if (file.startsWith('hireflow-contracts-')) tarballs.contracts = file;
    if (file.startsWith('hireflow-messaging-')) tarballs.messaging = file;
  }
}, 400_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  for (const dir of Object.values(PACKAGES)) rmSync(join(dir, 'dist'), { recursive: true, force: true });
});

describe('@hireflow/contracts and @hireflow/messaging as packages', () => {
  it('pack their built entry points and declarations, no source, no workspace-only dependency', () => {
    for (const [name, tarball] of Object.entries(tarballs)) {
      const raw = ok(run(scratch, 'tar', ['-xOzf', tarball, 'package/package.json']), 'manifest');
      expect(raw, name).not.toMatch(/workspace:|catalog:/);
      const published = manifestOf(tarball);
      // Every entry point of the workspace's exports is published, built, and in the tarball.
      const source = JSON.parse(
        readFileSync(join(PACKAGES[name as keyof typeof PACKAGES], 'package.json'), 'utf8'),
      ).exports as Record<string, string>;
      expect(Object.keys(published.exports), name).toEqual(Object.keys(source));
      expect(published.exports['.'], name).toEqual({
        types: './dist/index.d.ts',
        default: './dist/index.js',
      });
      const listing = ok(run(scratch, 'tar', ['-tzf', tarball]), 'listing');
      for (const entry of Object.values(published.exports)) {
        expect(listing).toContain(`package/${entry.types.slice(2)}`);
        expect(listing).toContain(`package/${entry.default.slice(2)}`);
      }
      expect(listing, name).not.toMatch(/package\/src\/|\.spec\.(js|d\.ts)/);
    }
    expect(ok(run(scratch, 'tar', ['-tzf', tarballs.contracts]), 'listing')).toContain(
      'package/schemas/events/job.posted.v1.json',
    );
    // Messaging's one dependency of the workspace is the contracts; what its
    // built files import is exactly what it declares.
    const messaging = manifestOf(tarballs.messaging);
    expect(Object.keys(messaging.dependencies).filter((d) => d.startsWith('@hireflow/'))).toEqual([
      '@hireflow/contracts',
    ]);
    expect(messaging.dependencies['@hireflow/contracts']).toBe('0.1.0');
    const unpacked = join(scratch, 'unpacked');
    mkdirSync(unpacked);
    ok(run(scratch, 'tar', ['-xzf', tarballs.messaging, '-C', unpacked]), 'unpack');
    const imported = new Set<string>();
    for (const file of readdirSync(join(unpacked, 'package/dist'), { recursive: true, encoding: 'utf8' })) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const text = readFileSync(join(unpacked, 'package/dist', file), 'utf8');
      for (const m of text.matchAll(/(?:from |import\()['"]([^'".][^'"]*)['"]/g)) {
        const specifier = m[1]!;
        if (specifier.startsWith('node:')) continue;
        imported.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
      }
    }
    rmSync(unpacked, { recursive: true, force: true });
    // `@types/pg`: the declarations of pg, whose types the outbox's declarations name.
    const declared = Object.keys(messaging.dependencies);
    expect([...imported].sort()).toEqual(declared.filter((d) => !d.startsWith('@types/')).sort());
    for (const types of declared.filter((d) => d.startsWith('@types/')))
      expect(imported).toContain(types.slice('@types/'.length));
  }, 120_000);

  it('install from the tarballs outside the workspace, type-check strictly, and consume a provisioned inbox with plain Node', async () => {
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({
        name: 'scratch-subscriber',
        private: true,
        type: 'module',
        dependencies: {
          '@aws-sdk/client-sqs': catalogVersion('@aws-sdk/client-sqs'),
          '@hireflow/contracts': `file:./${tarballs.contracts}`,
          '@hireflow/messaging': `file:./${tarballs.messaging}`,
        },
        devDependencies: { '@types/node': catalogVersion('@types/node') },
      }),
    );
    // Messaging depends on @hireflow/contracts 0.1.0: here, the tarball beside
    // it. BullMQ's optional msgpackr-extract builds nothing (plain msgpackr does).
    writeFileSync(
      join(scratch, 'pnpm-workspace.yaml'),
      `overrides:\n  "@hireflow/contracts": "file:./${tarballs.contracts}"\nallowBuilds:\n  msgpackr-extract: false\n`,
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
          // esnext: a declaration of pg's (postgres-interval) names the Temporal global.
          lib: ['esnext'],
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(join(scratch, 'contracts.ts'), CONTRACTS_CONSUMER);
    writeFileSync(join(scratch, 'consumer.ts'), QUEUE_CONSUMER);
    ok(run(scratch, 'pnpm', ['install', '--offline']), 'pnpm install');
    ok(run(scratch, TSC, ['-p', 'tsconfig.json']), 'tsc --strict');

    const out = ok(run(scratch, process.execPath, ['contracts.ts']), 'node contracts.ts');
    expect(out.trim().split('\n')).toEqual([
      JSON.stringify({
        title: 'Backend engineer',
        topic: 'jobs-events',
        inbox: 'analytics-inbox',
        topics: ['jobs-events', 'matching-events', 'media-events'],
      }),
      'poison refused',
    ]);

    // The subscriber's inbox, as an outside team makes it.
    const prefix = `${uniqueName('pkg')}-`;
    const env = {
      AWS_ENDPOINT_URL: inject('awsEndpoint'),
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
      HIREFLOW_TOPOLOGY_PREFIX: prefix,
    };
    const provisioned = ok(
      run(ROOT, 'pnpm', ['provision', '--subscriber', 'scratch', '--events', 'job.posted.v1'], env),
      'pnpm provision --subscriber',
    );
    const topicArn = new RegExp(`topic (?:${prefix})?jobs-events -> (\\S+)`).exec(provisioned)?.[1];
    expect(topicArn, provisioned).toBeDefined();
    const sns = new SNSClient({
      region: env.AWS_REGION,
      endpoint: env.AWS_ENDPOINT_URL,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    try {
      const posted = sampleEvent('job.posted.v1');
      const poison = { ...posted, id: crypto.randomUUID(), data: { ...posted.data, tenantId: 'nope' } };
      for (const event of [posted, poison])
        await sns.send(
          new PublishCommand({
            TopicArn: topicArn,
            Message: JSON.stringify(event),
            MessageAttributes: { type: { DataType: 'String', StringValue: event.type } },
          }),
        );
      const consumed = ok(
        run(scratch, process.execPath, ['consumer.ts', 'scratch'], env),
        'node consumer.ts',
      );
      expect(JSON.parse(consumed.trim().split('\n').at(-1)!)).toEqual({
        titles: [posted.data.title],
        outcomes: ['dead-lettered (data.tenantId)', 'handled'],
      });
    } finally {
      sns.destroy();
    }

    // The types are the catalog's, not `any`: a wrong payload does not compile.
    writeFileSync(
      join(scratch, 'wrong.ts'),
      "import type { EventData } from '@hireflow/contracts';\nexport const bad: EventData<'job.closed.v1'> = { jobId: 'x', closedAt: 3 };\n",
    );
    const wrong = run(scratch, TSC, ['-p', 'tsconfig.json']);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts.*error TS\d+/);
  }, 400_000);
});
