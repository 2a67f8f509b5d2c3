// What each service loads in each role (issue 31): a process of the service,
// as the image runs it (the telemetry preload, then main.ts with ROLE), is
// started against real Postgres, Redis and the emulator, recorded by the
// module recorder until it is ready, and stopped. A role must not carry what
// it never uses: no tooling or test servers anywhere in production code, no
// image library in any process at start (media loads it on its first image),
// no S3 client outside media, no mailer outside notifications' worker,
// no API document UI in a worker, no gRPC, no BullMQ in a service that queues
// no task nor in any API process (the queue gauges are sampled where the
// worker runs, Bull Board makes its queue handles on its first request, and
// an API that enqueues loads BullMQ on its first task), no ORM (MikroORM and
// its query builder, Kysely: the services run on @hireflow/db's pg
// implementation, issue 31 slice 3), and one copy of the OpenTelemetry API
// (its ESM build only).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServiceName } from '@hireflow/contracts';
import { createTestDatabase, type TestDatabase, testAws, testTopology, uniqueName } from '@hireflow/testing';
import { moduleRecorder, packagesOf } from '@hireflow/testing/modules';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const register = join(root, 'libs/telemetry/src/register.ts');

type Role = 'api' | 'worker';
const ROLES: [ServiceName, Role][] = [
  ['jobs', 'api'],
  ['jobs', 'worker'],
  ['matching', 'api'],
  ['matching', 'worker'],
  ['notifications', 'api'],
  ['notifications', 'worker'],
  ['media', 'api'],
  ['media', 'worker'],
];

/** Never in a service process at start: the tools, the emulator, test servers and helpers, the SDK meta-package, gRPC, Bull Board. */
const NOWHERE = [
  'fauxqs',
  'smtp-server',
  'mailparser',
  'vitest',
  '@hireflow/testing',
  '@hireflow/emulator',
  '@hireflow/launcher',
  '@hireflow/chaos',
  '@hireflow/trace-viewer',
  '@hireflow/demo',
  '@hireflow/api-docs',
  '@hireflow/ops',
  '@grpc/grpc-js',
  '@opentelemetry/sdk-node',
  '@opentelemetry/auto-instrumentations-node',
  // Bull Board is loaded on the admin port's first request for it, not at start.
  '@bull-board/api',
  '@bull-board/fastify',
  // sharp (libvips) is loaded on media's first image (an upload's header, a resize), not at start.
  'sharp',
];

/** Never in a service process, whatever its scope's package: MikroORM (any of its packages) and Kysely. */
const isOrm = (name: string) => name.startsWith('@mikro-orm/') || name === 'kysely';

/** What a role must not load beyond NOWHERE. */
function notIn(service: ServiceName, role: Role): string[] {
  const out: string[] = [];
  // The mailer is the notifications worker's: an API process loads no service's worker code.
  if (service !== 'notifications' || role === 'api') out.push('nodemailer');
  if (service !== 'media') out.push('@aws-sdk/client-s3');
  if (role === 'worker') out.push('@fastify/swagger-ui');
  // jobs queues no task: its processes import @hireflow/messaging's index, not
  // its BullMQ task queues (`@hireflow/messaging/tasks`), and make no queue handles.
  // An API process loads BullMQ on its first task (media's upload, a
  // notifications contact's confirmation), never at start: no queue handles,
  // no queue sampler (samplesQueues), no task queue made eagerly.
  if (service === 'jobs' || role === 'api') out.push('bullmq', 'bullmq-otel');
  return out;
}

let dir: string;
let prefix: string;
const databases = new Map<ServiceName, TestDatabase>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hireflow-roles-'));
  const aws = testAws();
  prefix = (await testTopology(aws, 'roles')).prefix;
  aws.close();
  for (const service of new Set(ROLES.map(([s]) => s))) {
    databases.set(service, await createTestDatabase(`roles-${service}`));
  }
}, 120_000);

afterAll(async () => {
  for (const db of databases.values()) await db.drop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts the role's process, waits for its `started` message, stops it; the module URLs it had loaded. */
async function modulesOfRole(service: ServiceName, role: Role): Promise<string[]> {
  const file = join(dir, `${service}-${role}.txt`);
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', moduleRecorder, '--import', register, join(root, 'services', service, 'src/main.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        ROLE: role,
        PORT: '0',
        ADMIN_PORT: '0',
        LOG_LEVEL: 'warn',
        DATABASE_URL: databases.get(service)!.url,
        HIREFLOW_TOPOLOGY_PREFIX: prefix,
        AWS_ENDPOINT_URL: inject('awsEndpoint'),
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_EC2_METADATA_DISABLED: 'true',
        REDIS_PREFIX: `test:${uniqueName(`roles-${service}`)}`,
        OTEL_SERVICE_NAME: service,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        LOADED_MODULES_FILE: file,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  // Its logs (stdout) and anything else it says: shown when it fails to start.
  let stderr = '';
  const keep = (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<unknown>((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  await new Promise<void>((ready, fail) => {
    child.on('message', (m: { type?: string }) => m?.type === 'started' && ready());
    exited.then((code) =>
      fail(new Error(`${service} ${role} exited (${code}) before it was ready:\n${stderr}`)),
    );
  });
  child.kill('SIGTERM');
  await exited;
  return (await readFile(file, 'utf8')).split('\n');
}

it('counts any package of MikroORM, and Kysely, as an ORM a role must not load', () => {
  const packages = packagesOf([
    'file:///app/node_modules/.pnpm/@mikro-orm+sql@7.2.1/node_modules/@mikro-orm/sql/index.js',
    'file:///app/node_modules/.pnpm/kysely@0.28.0/node_modules/kysely/dist/esm/index.js',
    'file:///app/node_modules/.pnpm/pg@8.23.0/node_modules/pg/esm/index.mjs',
  ]);
  expect([...packages].filter(isOrm)).toEqual(['@mikro-orm/sql', 'kysely']);
});

describe.each(ROLES)('%s %s', (service, role) => {
  it('loads nothing it does not use', async () => {
    const modules = await modulesOfRole(service, role);
    const packages = packagesOf(modules);
    const forbidden = [
      ...[...NOWHERE, ...notIn(service, role)].filter((name) => packages.has(name)),
      ...[...packages].filter(isOrm),
    ];
    expect(forbidden).toEqual([]);
    // One copy of the OpenTelemetry API and its conventions: @fastify/otel's
    // `require` gets the ESM build the SDK imports (libs/telemetry/src/one-copy.ts).
    const secondCopy = modules.filter((url) =>
      /\/@opentelemetry\/(api|semantic-conventions)\/.*\.cjs$/.test(url),
    );
    expect(secondCopy).toEqual([]);
    // A process that runs BullMQ loads the classes it uses, not its index: no
    // PostgreSQL backend, no other Redis clients (libs/messaging/src/bullmq/classes.ts).
    const bullmqIndexOnly = modules.filter((url) =>
      /\/bullmq\/dist\/cjs\/(index\.js|postgres\/|classes\/(valkey-glide-client|flow-producer)\.js)/.test(
        url,
      ),
    );
    expect(bullmqIndexOnly).toEqual([]);
    // An API process does not load its service's worker (consumers, processors): the definition imports it lazily.
    const worker = `/services/${service}/src/worker.ts`;
    expect(modules.some((url) => url.endsWith(worker))).toBe(role === 'worker');
  }, 180_000);
});
