import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type AnyEvent, createEvent } from '@hireflow/contracts';
import type { ProvisionedTopology } from '@hireflow/ops';
import type { ReplayState } from '@hireflow/ops/replay';
import { startTestTracing } from '@hireflow/telemetry/testing';
import { type TestAws, testAws, testTopology, waitFor } from '@hireflow/testing';
import { startTestProducer, type TestProducer } from '@hireflow/testing/producer';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const TOKEN = randomBytes(16).toString('hex');

// `pnpm replay` as a process: a producer of the test's own publishes to one
// topology (where its events were delivered live, long ago), and the replay
// sends to the queues of another, which never saw them.
let aws: TestAws;
let live: ProvisionedTopology;
let target: ProvisionedTopology;
let producer: TestProducer;
let stateDir: string;
/** Replays still running (killed after the file's tests, should one outlive its test). */
const running = new Set<ChildProcess>();

beforeAll(async () => {
  aws = testAws();
  live = await testTopology(aws, 'replay-live');
  target = await testTopology(aws, 'replay-target');
  producer = await startTestProducer('replay-cli', {
    sns: aws.sns,
    topicArns: { 'jobs-events': live.topics['jobs-events']!.arn },
    adminToken: TOKEN,
  });
  stateDir = await mkdtemp(join(tmpdir(), 'hf-replay-'));
});
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await producer?.close();
  aws?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

function keyEvents(count: number): AnyEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const keyId = randomUUID();
    const tenantId = randomUUID();
    return i % 5 === 4
      ? createEvent(
          'apikey.revoked.v1',
          { keyId, tenantId, revokedAt: new Date().toISOString() },
          { source: 'hireflow/jobs', subject: keyId },
        )
      : createEvent(
          'apikey.issued.v1',
          { keyId, tenantId, keyHash: randomBytes(32).toString('hex'), issuedAt: new Date().toISOString() },
          { source: 'hireflow/jobs', subject: keyId },
        );
  });
}

interface Run {
  child: ChildProcess;
  lines: string[];
  exit: Promise<number | null>;
}

function replay(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [join(root, 'tools/ops/src/cli/replay.ts'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: inject('awsEndpoint'),
      HIREFLOW_TOPOLOGY_PREFIX: target.prefix,
      HIREFLOW_STATE_DIR: stateDir,
      JOBS_ADMIN_URL: producer.adminUrl,
      ADMIN_TOKEN: TOKEN,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  running.add(child);
  const exit = new Promise<number | null>((res) =>
    child.once('close', (code) => {
      running.delete(child);
      res(code);
    }),
  );
  return { child, lines, exit };
}

async function finished(run: Run): Promise<{ code: number | null; output: string }> {
  const code = await run.exit;
  return { code, output: run.lines.join('\n') };
}

/** One receive (up to 10) of what the queue holds, deleted once received. */
async function receive(queueUrl: string, waitSeconds: number): Promise<Message[]> {
  const { Messages = [] } = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitSeconds,
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length > 0) {
    await aws.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
      }),
    );
  }
  return Messages;
}

/** Receives and deletes until the queue has been empty for a second. */
async function drain(queueUrl: string): Promise<Message[]> {
  const messages: Message[] = [];
  for (;;) {
    const batch = await receive(queueUrl, 1);
    if (batch.length === 0) return messages;
    messages.push(...batch);
  }
}

// `--to media-inbox` sends to media's bulk lane queue beside it (docs/fairness.md).
const mediaInbox = () => target.queues['media-inbox-bulk']!.url;

describe('pnpm replay', () => {
  it('sends the events of the log, ids, bodies and trace context unchanged, to the one queue, and leaves no checkpoint', async () => {
    const events = keyEvents(25);
    const tracing = startTestTracing();
    let traceId: string;
    try {
      traceId = await trace.getTracer('test').startActiveSpan('POST /v1/keys', async (span) => {
        await producer.commit(events);
        span.end();
        return span.spanContext().traceId;
      });
    } finally {
      await tracing.stop();
    }
    await producer.waitLogged(events.map((e) => e.id));
    const run = await finished(replay(['--to', 'media-inbox', '--rate', '0']));
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(
      /sent \d+ events \(apikey\.issued\.v1 \d+, apikey\.revoked\.v1 \d+\) to .*media-inbox-bulk/,
    );

    const received = await drain(mediaInbox());
    const byId = new Map(received.map((m) => [JSON.parse(m.Body!).id as string, m]));
    for (const event of events) {
      const message = byId.get(event.id);
      expect(message, event.id).toBeDefined();
      expect(JSON.parse(message!.Body!)).toEqual(event);
      expect(message!.MessageAttributes?.type?.StringValue).toBe(event.type);
      expect(message!.MessageAttributes?.traceparent?.StringValue).toMatch(new RegExp(`^00-${traceId}-`));
      // Replayed work waits behind interactive work in the consumer's queues (docs/fairness.md).
      expect(message!.MessageAttributes?.lane?.StringValue).toBe('bulk');
    }
    // Straight to the queue, never to the topic: no other consumer's queue got them.
    expect(await drain(target.queues['matching-inbox']!.url)).toEqual([]);
    // Nor media's interactive lane queue: a replay waits behind no one's posting.
    expect(await drain(target.queues['media-inbox']!.url)).toEqual([]);
    await expect(
      stat(join(stateDir, 'default', 'replay', `${target.prefix}media-inbox-bulk.json`)),
    ).rejects.toThrow();
  }, 60_000);

  it('replays to the end an event log holding an event SQS cannot carry raw, sent escaped (docs/replay.md)', async () => {
    const events = keyEvents(12);
    // Logged before the contracts refused U+FFFF and U+FFFE (jsonb itself refuses a lone surrogate).
    const stranded = [
      { ...events[1]!, subject: `key\uffff${events[1]!.subject}` },
      { ...events[2]!, subject: `key\ufffe${events[2]!.subject}` },
    ] as AnyEvent[];
    const logged = [events[0]!, ...stranded, ...events.slice(3)];
    await producer.commit([events[0]!]);
    await producer.waitLogged([events[0]!.id]);
    // The log as a relay of before the rule wrote it (enqueueEvent refuses them now).
    for (const event of stranded) {
      await producer.orm.em
        .fork()
        .execute(
          'INSERT INTO event_log (event_id, topic, type, payload, event_time) VALUES (?, ?, ?, ?::jsonb, ?)',
          [event.id, 'jobs-events', event.type, JSON.stringify(event), event.time],
        );
    }
    await producer.commit(events.slice(3));
    await producer.waitLogged(logged.map((e) => e.id));
    const since = new Date(Date.parse(events[0]!.time) - 1).toISOString();
    const run = await finished(replay(['--to', 'media-inbox', '--since', since, '--rate', '0']));
    expect(run.code, run.output).toBe(0);
    const received = await drain(mediaInbox());
    const byId = new Map(received.map((m) => [JSON.parse(m.Body!).id as string, m]));
    for (const event of logged) {
      const message = byId.get(event.id);
      expect(message, event.id).toBeDefined();
      // Escaped in transport, the same event once parsed.
      expect(JSON.parse(message!.Body!)).toEqual(event);
    }
    expect(byId.get(stranded[0]!.id)!.Body).toContain('\\uffff');
  }, 60_000);

  it('lists on a dry run, by id, type and time only (no key hash), and sends nothing', async () => {
    const events = keyEvents(3);
    await producer.commit(events);
    await producer.waitLogged(events.map((e) => e.id));
    const run = await finished(replay(['--to', 'media-inbox', '--types', 'apikey.issued.v1', '--dry-run']));
    expect(run.code, run.output).toBe(0);
    const issued = events.filter((e) => e.type === 'apikey.issued.v1');
    for (const event of issued) expect(run.output).toContain(event.id);
    for (const event of issued) {
      expect(run.output).not.toContain((event.data as { keyHash: string }).keyHash);
    }
    expect(run.output).toMatch(/would send \d+ events \(apikey\.issued\.v1 \d+\)/);
    expect(await drain(mediaInbox())).toEqual([]);
  }, 60_000);

  it('resumes an interrupted replay where it stopped and reaches the same end state', async () => {
    const events = keyEvents(300);
    await producer.commit(events);
    await producer.waitLogged(events.map((e) => e.id));
    const since = new Date(Date.parse(events[0]!.time) - 1).toISOString();
    const args = ['--to', 'media-inbox', '--since', since, '--rate', '100'];

    const first = replay(args);
    const received: Message[] = [];
    await waitFor(
      async () => {
        received.push(...(await receive(mediaInbox(), 0)));
        return received.length >= 60;
      },
      { timeoutMs: 20_000, intervalMs: 100, message: 'the first 60 events in the queue' },
    );
    first.child.kill('SIGINT');
    const stopped = await finished(first);
    expect(stopped.code, stopped.output).toBe(130);
    const sentFirst = Number(/interrupted after (\d+) events/.exec(stopped.output)?.[1]);
    expect(sentFirst).toBeGreaterThanOrEqual(60);
    expect(sentFirst).toBeLessThan(events.length);
    const checkpoint = JSON.parse(
      await readFile(join(stateDir, 'default', 'replay', `${target.prefix}media-inbox-bulk.json`), 'utf8'),
    ) as ReplayState;
    expect(checkpoint).toMatchObject({ sent: sentFirst, since, finished: [] });

    // Another replay into the same queue is refused while this one is unfinished…
    const other = await finished(replay(['--to', 'media-inbox', '--rate', '0']));
    expect(other.code).toBe(64);
    expect(other.output).toContain('holds an interrupted replay of another kind');

    // …and running the same command again finishes it, without starting over.
    const second = await finished(replay(['--to', 'media-inbox', '--since', since, '--rate', '0']));
    expect(second.code, second.output).toBe(0);
    const sentSecond = Number(/resumed and finished: sent (\d+) events/.exec(second.output)?.[1]);
    expect(sentFirst + sentSecond).toBe(events.length);
    received.push(...(await drain(mediaInbox())));
    const ids = new Set(received.map((m) => JSON.parse(m.Body!).id as string));
    expect(events.filter((e) => !ids.has(e.id))).toEqual([]);
    // Only what the first run had in flight when it stopped can arrive twice.
    expect(received.length - ids.size).toBeLessThanOrEqual(40);
  }, 120_000);

  it('refuses what it cannot do, saying why', async () => {
    const [topic, foreign, token, unprovisioned, bad] = await Promise.all([
      finished(replay(['--to', 'jobs-events'])),
      finished(replay(['--to', 'media-inbox', '--types', 'job.closed.v1'])),
      finished(replay(['--to', 'media-inbox'], { ADMIN_TOKEN: 'x'.repeat(32) })),
      finished(replay(['--to', 'media-inbox'], { HIREFLOW_TOPOLOGY_PREFIX: 'nowhere-' })),
      finished(replay(['--to', 'media-inbox', '--since', 'last week'])),
    ]);
    expect(topic.code).toBe(64);
    expect(topic.output).toContain('"jobs-events" is not a queue of the topology');
    expect(foreign.code).toBe(64);
    expect(foreign.output).toContain('media-inbox does not subscribe to job.closed.v1');
    expect(token.code).toBe(1);
    expect(token.output).toContain("jobs' admin port at");
    expect(token.output).toContain('refused the admin token');
    expect(unprovisioned.code).toBe(64);
    expect(unprovisioned.output).toContain('the queue nowhere-media-inbox-bulk does not exist');
    expect(bad.code).toBe(64);
    expect(bad.output).toContain('--since must be an ISO 8601 date');
  }, 90_000);
});
