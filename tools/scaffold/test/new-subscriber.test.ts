import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CreateTopicCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AnyEvent } from '@hireflow/contracts';
import { FREE_PORTS } from '@hireflow/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `pnpm new:subscriber` end to end, in a copy of this workspace (the real one
// is never edited): the command writes and registers the service, and the
// service as written lints, type-checks and passes its own tests (health,
// each event handled once under duplicates, poison to its DLQ) against
// Postgres, Redis and the emulator.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REGISTRY = 'libs/contracts/src/subscribers.registry.ts';
// The first subscriber's folder is not named after it: `pnpm start` finds it by its package's name.
const DIR = 'services/analytics-sink';
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

/** Polls `check` until it gives a value, or fails naming `what` after `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
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
      newSubscriber('analytics', '--events', 'job.posted.v1,candidate.registered.v1', '--dir', DIR),
      'new:subscriber',
    );
    expect(out).toContain('analytics: inbox analytics-inbox (DLQ analytics-inbox-dlq)');
    expect(out).toContain('port 3101, admin 4101');
    expect(readFileSync(join(copy, REGISTRY), 'utf8')).toMatch(
      /name: 'analytics',\s*events: \['job\.posted\.v1', 'candidate\.registered\.v1'\],\s*port: 3101/,
    );
    const handlers = readFileSync(join(copy, DIR, 'src/modules/events/handlers.ts'), 'utf8');
    expect(handlers).toContain(
      "export async function onJobPostedV1(em: Sql, event: CloudEvent<'job.posted.v1'>)",
    );
    expect(handlers).toContain("event: CloudEvent<'candidate.registered.v1'>");
    install();

    // The topology every tool reads now has its inbox, filtered on its two types, on the one topic carrying them.
    const topology = ok(
      run(join(copy, DIR), process.execPath, [
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
        maxReceiveCount: 12,
      },
      { inbox: 'analytics-inbox' },
    ]);

    ok(run(copy, 'node_modules/.bin/biome', ['check', DIR, REGISTRY]), 'biome check');
    writeFileSync(
      join(copy, DIR, 'tsconfig.check.json'),
      JSON.stringify({
        extends: '../../tsconfig.base.json',
        include: ['src', 'test', '../../libs/testing/src/global-setup.ts'],
      }),
    );
    ok(run(copy, 'node_modules/.bin/tsc', ['--noEmit', '-p', `${DIR}/tsconfig.check.json`]), 'tsc');
    const tests = ok(run(copy, 'node_modules/.bin/vitest', ['run', DIR], 480_000), 'vitest');
    // Every test ran and passed: health (7), and per event type duplicates and poison (2 × 2).
    expect(tests).toMatch(/Tests\s+11 passed \(11\)/);
    expect(tests).toMatch(/inbox\.test\.ts \(4 tests\)/);
  }, 900_000);

  // Before the next test registers a second subscriber: this one starts the system as written.
  it('starts with the system under pnpm start: a real POST /v1/jobs reaches its handler, a duplicate runs it once, poison goes to its DLQ', async () => {
    const instance = `sub${randomBytes(3).toString('hex')}`;
    const stateDir = join(copy, '.local', `test-${instance}`);
    const launcher = spawn(process.execPath, ['tools/launcher/src/cli/start.ts'], {
      cwd: copy,
      env: {
        ...childEnv,
        HIREFLOW_INSTANCE: instance,
        HIREFLOW_STATE_DIR: stateDir,
        ...FREE_PORTS,
        LOG_LEVEL: 'warn',
        HIREFLOW_SCALING: 'off',
        HIREFLOW_READY_TIMEOUT_MS: '150000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    for (const stream of [launcher.stdout, launcher.stderr])
      createInterface({ input: stream }).on('line', (line) => lines.push(line));
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', resolve));
    const db = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:5432/hireflow_${instance}_analytics`,
    });
    let aws: { sns: SNSClient; sqs: SQSClient } | undefined;
    try {
      await until(
        `the launcher ready:\n${lines.join('\n')}`,
        async () => {
          if (launcher.exitCode !== null) throw new Error(`launcher exited:\n${lines.join('\n')}`);
          return lines.some((l) => l.startsWith('Ctrl-C stops everything')) || undefined;
        },
        240_000,
      ).catch(async (error) => {
        throw launcher.exitCode !== null ? new Error(`launcher exited:\n${lines.join('\n')}`) : error;
      });
      const printed = (name: string) => {
        const m = lines
          .map((l) => new RegExp(`^ {2}${name}\\s+(http://\\S+)\\s.*\\sadmin (http://\\S+)$`).exec(l))
          .find(Boolean);
        expect(m, `${name} in:\n${lines.join('\n')}`).toBeTruthy();
        return { url: m![1]!, admin: m![2]! };
      };
      // The launcher started the generated service, found in the registry, beside the four.
      const analytics = printed('analytics');
      const jobs = printed('jobs');
      const api = lines.map((l) => /^ {2}api\s+(http:\/\/\S+)/.exec(l)).find(Boolean)![1]!;
      const endpoint = lines.map((l) => /^ {2}sns\/sqs\s+(http:\/\/\S+)/.exec(l)).find(Boolean)![1]!;
      expect((await fetch(`${analytics.url}/health/ready`)).status).toBe(200);
      const demo = JSON.parse(readFileSync(join(stateDir, instance, 'demo-api-key.json'), 'utf8')) as {
        key: string;
      };
      const { ADMIN_TOKEN } = JSON.parse(readFileSync(join(stateDir, instance, 'secrets.json'), 'utf8')) as {
        ADMIN_TOKEN: string;
      };
      const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

      // A real posting through the public API.
      const posted = await fetch(`${api}/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: 'Data engineer',
          description: 'Pipelines in TypeScript and SQL',
          skills: ['TypeScript', 'SQL'],
          location: 'Berlin',
          remote: true,
          contactEmail: `recruiter.${instance}@example.test`,
        }),
      });
      expect(posted.status, await posted.clone().text()).toBe(202);
      const jobId = ((await posted.json()) as { id: string }).id;
      await db.connect();
      const received = await until('job.posted.v1 in analytics', async () => {
        const { rows } = await db.query<{ event_id: string; type: string }>(
          'SELECT event_id, type FROM received_event WHERE subject = $1',
          [jobId],
        );
        return rows.length > 0 ? rows : undefined;
      });
      expect(received.map((r) => r.type)).toEqual(['job.posted.v1']);
      const eventId = received[0]!.event_id;

      // The same event again, as a redelivery or a replay brings it: the
      // consumer takes it (handled) and the handler's write is not repeated.
      const log = (await (
        await fetch(`${jobs.admin}/internal/events?types=job.posted.v1&limit=500`, { headers: adminHeaders })
      ).json()) as { items: { event: AnyEvent }[] };
      const event = log.items.map((item) => item.event).find((e) => e.id === eventId)!;
      expect(event).toBeDefined();
      const handled = async () => {
        const text = await (await fetch(`${analytics.admin}/metrics`, { headers: adminHeaders })).text();
        const line = text
          .split('\n')
          .find(
            (l) =>
              l.startsWith('hireflow_messages_total{') &&
              l.includes('queue="analytics-inbox"') &&
              l.includes('type="job.posted.v1"') &&
              l.includes('outcome="handled"'),
          );
        return line ? Number(line.split(' ').at(-1)) : 0;
      };
      // The row commits with the handler's work; the metric counts the delivery once it is
      // settled, a moment later: wait for it rather than read it once.
      const before = await until('the first delivery counted as handled', async () => {
        const count = await handled();
        return count >= 1 ? count : undefined;
      });
      expect(before).toBeGreaterThanOrEqual(1);
      const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
      aws = {
        sns: new SNSClient({ region: 'eu-west-1', endpoint, credentials }),
        sqs: new SQSClient({ region: 'eu-west-1', endpoint, credentials }),
      };
      // The instance's jobs-events topic (CreateTopic of an existing topic answers its ARN).
      const topicArn = (await aws.sns.send(new CreateTopicCommand({ Name: `${instance}-jobs-events` })))
        .TopicArn!;
      const publish = (body: unknown) =>
        aws!.sns.send(
          new PublishCommand({
            TopicArn: topicArn,
            Message: JSON.stringify(body),
            MessageAttributes: { type: { DataType: 'String', StringValue: 'job.posted.v1' } },
          }),
        );
      await publish(event);
      await until('the duplicate handled', async () => ((await handled()) > before ? true : undefined));
      const { rows } = await db.query('SELECT count(*)::int AS n FROM received_event WHERE event_id = $1', [
        eventId,
      ]);
      expect(rows[0].n).toBe(1);

      // Poison: a job.posted.v1 the catalog refuses, in its DLQ on the first receive.
      const poison = { ...event, id: randomUUID(), data: { ...event.data, tenantId: 'not-a-uuid' } };
      await publish(poison);
      const dlq = (
        await aws.sqs.send(new GetQueueUrlCommand({ QueueName: `${instance}-analytics-inbox-dlq` }))
      ).QueueUrl!;
      const dead = await until('the poison in analytics-inbox-dlq', async () => {
        const got = await aws!.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        return (got.Messages ?? []).find((m) => m.Body?.includes(poison.id));
      });
      expect(dead.Body).toContain(poison.id);
    } finally {
      aws?.sns.destroy();
      aws?.sqs.destroy();
      await db.end().catch(() => undefined);
      if (launcher.exitCode === null) launcher.kill('SIGTERM');
      await exited;
      const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
      await admin.connect();
      for (const service of ['jobs', 'matching', 'notifications', 'media', 'analytics'])
        await admin.query(`DROP DATABASE IF EXISTS hireflow_${instance}_${service} WITH (FORCE)`);
      await admin.end();
    }
  }, 420_000);

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
