import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Topology } from '@hireflow/contracts';
import { type CloudEvent, type EventType, topicOf } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { SnsPublisher, taskIdFor } from '@hireflow/messaging';
import { createTaskQueue } from '@hireflow/messaging/tasks';
import { HandlerSpy } from '@hireflow/messaging/testing';
import { buildAdmin, buildApp } from '@hireflow/notifications';
import { type Config, loadConfig } from '@hireflow/notifications/config';
import type { ProvisionedTopology } from '@hireflow/ops';
import { type Closeable, connectDeps, createLogger, type ServiceDeps } from '@hireflow/runtime';
import {
  createTestDatabase,
  type TestDatabase,
  testAws,
  testTopology,
  uniqueName,
  waitFor,
} from '@hireflow/testing';
import { type SmtpCatcher, startSmtpCatcher } from '@hireflow/testing/smtp';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, inject } from 'vitest';
import { migrations } from '../src/db/schema.ts';
import type { Mailer } from '../src/modules/email/mailer.ts';
import { emailProcessor, type SentEmail } from '../src/modules/email/processor.ts';
import {
  createEmailQueue,
  type EmailQueue,
  type EmailTask,
  emailTaskOptions,
} from '../src/modules/intents/email-queue.ts';
import { recordIntent } from '../src/modules/intents/store.ts';
import { startWorker } from '../src/worker.ts';

export { candidateRegistered, jobMatched, jobPosted, matchFound } from '@hireflow/testing/events';

/**
 * Settings that keep the suite fast: waits for a missing dependency of 1 s,
 * SMTP retries within 0.2–2 s and enough attempts to outlast a test's outage.
 */
const TEST_ENV = {
  LOG_LEVEL: 'silent',
  // One key for every process of a test (a worker it spawns reads the same links).
  UNSUBSCRIBE_SIGNING_KEY: 'test-unsubscribe-signing-key-0123456789abcdef',
  ROLE: 'all',
  DEPENDENCY_WAIT_CAP_MS: '1000',
  EMAIL_BACKOFF_BASE_MS: '200',
  EMAIL_BACKOFF_CAP_MS: '2000',
  EMAIL_ATTEMPTS: '40',
  EMAIL_RATE_MAX: '1000',
  SMTP_TIMEOUT_MS: '5000',
  EMAIL_STALLED_CHECK_MS: '1000',
  // A killed worker's tasks come back after this lock, not BullMQ's default 30 s.
  EMAIL_LOCK_MS: '5000',
};

export interface NotificationRow {
  key: string;
  recipient: string;
  template: string;
  status: 'queued' | 'sent' | 'failed' | 'suppressed' | 'held' | 'unconfirmed';
  attempts: number;
  message_id: string;
  provider_message_id: string | null;
  error: string | null;
  sent_at: Date | null;
}

export interface HarnessOptions {
  /** Overrides of the test environment (TEST_ENV), e.g. a provider rate limit. */
  env?: Record<string, string>;
  /** A topology of the test's own shape (e.g. a shorter visibility timeout). */
  topology?: Topology;
}

export interface NotificationsHarness {
  db: TestDatabase;
  topology: ProvisionedTopology;
  /** What a worker process of this test needs in its environment. */
  env: Record<string, string>;
  config: Config;
  deps: ServiceDeps;
  app: FastifyInstance;
  /** The admin listener (internal routes), not listening: use `inject()`. */
  admin: FastifyInstance;
  smtp: SmtpCatcher;
  /** The `email` queue, for inspection (counts, dead letters). */
  emails: EmailQueue;
  /** Every inbox message outcome of the in-process worker. */
  spy: HandlerSpy;
  /** Every email the in-process worker got accepted and logged. */
  sent: SentEmail[];
  /** Starts the worker role in this process (SQS consumer, email worker). */
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  publish(event: CloudEvent): Promise<void>;
  /** Publishes in SNS batches of 10, a few batches at once. */
  publishAll(events: CloudEvent[]): Promise<void>;
  notification(key: string): Promise<NotificationRow | undefined>;
  notifications(keys: string[]): Promise<NotificationRow[]>;
  taskState(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * A notifications service of the test's own: database, topology prefix,
 * Redis prefix and SMTP server (port 0), with its API app built and the
 * worker role ready to start in this process (or in a child, from `env`).
 */
export async function startNotificationsHarness(
  label: string,
  options: HarnessOptions = {},
): Promise<NotificationsHarness> {
  const smtp = await startSmtpCatcher();
  const db = await createTestDatabase(label);
  const aws = testAws();
  const topology = await testTopology(aws, label, options.topology);
  aws.close();
  const env: Record<string, string> = {
    ...TEST_ENV,
    DATABASE_URL: db.url,
    AWS_ENDPOINT_URL: inject('awsEndpoint'),
    HIREFLOW_TOPOLOGY_PREFIX: topology.prefix,
    REDIS_PREFIX: `test:${uniqueName(label)}`,
    SMTP_URL: smtp.url,
    ...options.env,
  };
  const config = loadConfig(env);
  const deps = await connectDeps(config, {
    service: 'notifications',
    migrations,
    env: {},
    log: createLogger('notifications', config.LOG_LEVEL),
  });
  const app = await buildApp(config, deps);
  const admin = await buildAdmin(config, deps);
  const emails = createEmailQueue(createTaskQueue<EmailTask>(emailTaskOptions(deps.redis, config)));
  const publisher = new SnsPublisher(deps.sns);
  const spy = new HandlerSpy();
  const sent: SentEmail[] = [];
  let worker: Closeable[] = [];

  const arnOf = (type: EventType) => topology.topics[topicOf(type)]!.arn;
  const stopWorker = async () => {
    const running = worker;
    worker = [];
    for (const part of running) await part.close();
  };

  return {
    db,
    topology,
    env,
    config,
    deps,
    app,
    admin,
    smtp,
    emails,
    spy,
    sent,
    startWorker: async () => {
      if (worker.length > 0) return;
      worker = await startWorker(config, deps, { onMessage: spy.observer, onSent: (s) => sent.push(s) });
    },
    stopWorker,
    publish: async (event) => {
      await publisher.publish(arnOf(event.type), event);
    },
    publishAll: async (events) => {
      const batches: CloudEvent[][] = [];
      for (let i = 0; i < events.length; i += 10) batches.push(events.slice(i, i + 10));
      for (let i = 0; i < batches.length; i += 4) {
        await Promise.all(
          batches.slice(i, i + 4).map(async (batch) => {
            const result = await publisher.publishBatch(
              arnOf(batch[0]!.type),
              batch.map((event) => ({ event })),
            );
            if (result.failed.length > 0) throw new Error(`publish failed: ${JSON.stringify(result.failed)}`);
          }),
        );
      }
    },
    notification: async (key) => {
      const rows = await deps.orm.em
        .fork()
        .execute<NotificationRow[]>('SELECT * FROM notification_log WHERE key = ?', [key]);
      return rows[0];
    },
    notifications: (keys) =>
      deps.orm.em
        .fork()
        .execute<NotificationRow[]>('SELECT * FROM notification_log WHERE key IN (?)', [keys]),
    taskState: async (key) => {
      const task = await emails.tasks.queue.getJob(taskIdFor(key));
      return task ? await task.getState() : undefined;
    },
    close: async () => {
      await stopWorker();
      await app.close();
      await admin.close();
      await emails.tasks.queue.obliterate({ force: true }).catch(() => undefined);
      await emails.close();
      await deps.close();
      await db.drop();
      await smtp.close();
    },
  };
}

/**
 * The harness of one test file: started before its tests (with the worker
 * role in this process unless `worker: false`) and closed after them. The
 * object returned forwards to it, so that tests write `h.publish(…)`.
 */
export function useNotificationsHarness(
  label: string,
  options: HarnessOptions & { worker?: boolean } = {},
): NotificationsHarness {
  let current: NotificationsHarness | undefined;
  beforeAll(async () => {
    current = await startNotificationsHarness(label, options);
    if (options.worker !== false) await current.startWorker();
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as NotificationsHarness, {
    get(_target, property) {
      if (!current) throw new Error('the harness starts in beforeAll: use it in tests and hooks');
      return current[property as keyof NotificationsHarness];
    },
  });
}

/** A welcome email's intent recorded `queued` under a key of its own (no task added); returns the key. */
export async function queuedWelcome(h: NotificationsHarness, name: string): Promise<string> {
  const key = idempotencyKey('welcome-email', `${name}-${randomUUID()}`);
  await recordIntent(h.deps.orm.em.fork(), {
    key,
    tenantId: randomUUID(),
    eventId: randomUUID(),
    recipient: `${name}-${randomUUID().slice(0, 8)}@example.test`,
    template: 'welcome',
    params: { name: 'Ada' },
    keepUntil: new Date(Date.now() + 86_400_000),
  });
  return key;
}

/** The email worker's processor on the harness's database, called directly (no BullMQ), with test links. */
export function testEmailProcessor(h: NotificationsHarness, mailer: Mailer, recordRetryMs = 1000) {
  return emailProcessor({
    orm: h.deps.orm,
    mailer,
    recordRetryMs,
    unsubscribeUrl: () => 'http://127.0.0.1/v1/unsubscribe?token=t',
    confirmUrl: () => 'http://127.0.0.1/v1/contacts/confirm?token=t',
    log: createLogger('notifications', 'silent'),
  });
}

/** Waits until `keys` are all logged `sent`; returns their rows. */
export async function waitForSent(h: NotificationsHarness, keys: string[], timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const rows = await h.notifications(keys);
      return rows.length === keys.length && rows.every((r) => r.status === 'sent') ? rows : undefined;
    },
    { timeoutMs, intervalMs: 100, message: `${keys.length} notifications sent` },
  );
}

/**
 * One SQS API call to the emulator in the JSON protocol (what the AWS SDK
 * speaks), for what a test must do below the SDK-free surface of this
 * package: e.g. send a message with attributes of its own choosing.
 */
export async function sqsCall<T>(action: string, input: Record<string, unknown>): Promise<T> {
  const res = await fetch(inject('awsEndpoint'), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `AmazonSQS.${action}`,
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20260101/eu-west-1/sqs/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(input),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`SQS ${action} failed: ${res.status} ${body}`);
  return JSON.parse(body || '{}') as T;
}

const root = resolve(import.meta.dirname, '../../..');

export interface WorkerProcess {
  child: ChildProcess;
  /** The exit code, or the signal that ended it. */
  exit: Promise<number | string | null>;
  /** The admin listener (metrics, Bull Board, internal routes). */
  adminUrl: string;
}

/** The notifications worker role as a real process of the harness's own (killed after the file's tests). */
export async function spawnWorkerProcess(
  h: NotificationsHarness,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [join(root, 'services/notifications/src/main.ts')], {
    env: { ...process.env, ...h.env, ROLE: 'worker', PORT: '0', OTEL_SDK_DISABLED: 'true', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  spawned.add(child);
  const exit = new Promise<number | string | null>((res) =>
    child.once('exit', (code, signal) => {
      spawned.delete(child);
      res(code ?? signal);
    }),
  );
  const adminPort = await new Promise<number>((res, rej) => {
    child.on('message', (m: { type?: string; adminPort?: number }) => {
      if (m.type === 'started') res(m.adminPort ?? 0);
    });
    exit.then((code) => rej(new Error(`worker exited with ${code} during start`)));
  });
  return { child, exit, adminUrl: `http://127.0.0.1:${adminPort}` };
}

const spawned = new Set<ChildProcess>();
afterAll(() => {
  for (const child of spawned) child.kill('SIGKILL');
});
