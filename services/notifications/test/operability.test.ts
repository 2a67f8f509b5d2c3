import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import { idempotencyKey } from '@hireflow/idempotency';
import { taskIdFor } from '@hireflow/messaging';
import { scrapeMetric, startWebhookReceiver, type WebhookReceiver, waitFor } from '@hireflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  candidateRegistered,
  jobPosted,
  matchFound,
  type NotificationsHarness,
  spawnWorkerProcess,
  startNotificationsHarness,
  waitForSent,
} from './harness.ts';

// What an operator sees of notifications, from real processes: the queue
// gauges on /metrics against the queues' real state, one alert per
// dead-letter transition across processes, and `pnpm dlq` putting dead
// letters (SQS and BullMQ) back so each is processed once.

const root = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
const INBOX = 'notifications-inbox';

interface Alert {
  status: 'firing' | 'resolved';
  service: string;
  queue: string;
  kind: 'sqs' | 'bullmq';
  depth: number;
}

/** Runs `pnpm dlq …` (the CLI itself) against this harness's queues and Redis prefix. */
async function dlq(h: NotificationsHarness, ...args: string[]) {
  const result = await run(process.execPath, [join(root, 'tools/ops/src/cli/dlq.ts'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: h.env.AWS_ENDPOINT_URL,
      HIREFLOW_TOPOLOGY_PREFIX: h.topology.prefix,
      REDIS_PREFIX_NOTIFICATIONS: h.config.REDIS_PREFIX,
    },
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { code: 'code' in result ? result.code : 0, stdout: result.stdout, stderr: result.stderr };
}

async function sqsCounts(h: NotificationsHarness, url: string) {
  const { Attributes = {} } = await h.deps.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages),
    inflight: Number(Attributes.ApproximateNumberOfMessagesNotVisible),
  };
}

describe('the queue gauges on /metrics', () => {
  let h: NotificationsHarness;
  beforeAll(async () => {
    h = await startNotificationsHarness('notif-gauges');
  });
  afterAll(() => h.close());

  it('match the emulator and Redis after known operations', async () => {
    // The API role consumes nothing: what is put in the queues stays there.
    const api = await spawnWorkerProcess(h, {
      ROLE: 'api',
      QUEUE_METRICS: 'on',
      QUEUE_METRICS_INTERVAL_MS: '500',
    });
    const inbox = h.topology.queues[INBOX]!;
    const bulkInbox = h.topology.queues[`${INBOX}-bulk`]!;
    const tenantId = randomUUID();
    await h.publishAll([candidateRegistered(tenantId), candidateRegistered(tenantId), jobPosted(tenantId)]);
    // An import's event waits in the bulk lane's queue (docs/fairness.md): gauged too, for the autoscaler.
    await h.publishAll([{ ...candidateRegistered(tenantId), lane: 'bulk' }]);
    const enqueuedAt = Date.now();
    await h.emails.enqueue([
      { key: idempotencyKey('welcome-email', randomUUID()), template: 'welcome', tenantId },
      // A fair queue's tasks wait by priority, in two lanes: both count as waiting (docs/fairness.md).
      { key: idempotencyKey('welcome-email', randomUUID()), template: 'welcome', tenantId, lane: 'bulk' },
    ]);
    await h.deps.sqs.send(
      new SendMessageCommand({ QueueUrl: inbox.dlq.url, MessageBody: '{"poison":true}' }),
    );

    // The queues' own state, read the way the sampler does not: the test's client.
    await waitFor(async () => (await sqsCounts(h, inbox.url)).visible === 3, { message: '3 in the inbox' });
    await waitFor(async () => (await sqsCounts(h, bulkInbox.url)).visible === 1, {
      message: '1 in the bulk inbox',
    });
    expect(await sqsCounts(h, inbox.dlq.url)).toEqual({ visible: 1, inflight: 0 });
    const counts = await h.emails.tasks.queue.getJobCounts('waiting', 'prioritized', 'active', 'failed');
    expect(counts).toEqual({ waiting: 0, prioritized: 2, active: 0, failed: 0 });

    const metric = (name: string, labels: Record<string, string>) => scrapeMetric(api.adminUrl, name, labels);
    // One sample sets the SQS gauges, then (after more round trips) BullMQ's: a scrape may fall between.
    await waitFor(
      async () =>
        (await metric('hireflow_sqs_messages', { queue: INBOX, state: 'visible' })) === 3 &&
        (await metric('hireflow_sqs_messages', { queue: `${INBOX}-bulk`, state: 'visible' })) === 1 &&
        (await metric('hireflow_sqs_messages', { queue: `${INBOX}-dlq`, state: 'visible' })) === 1 &&
        (await metric('hireflow_bullmq_jobs', { queue: 'email', state: 'waiting' })) === 2,
      {
        timeoutMs: 15_000,
        message:
          'the SQS gauges at 3 visible in the inbox, 1 in the bulk inbox, 1 in its DLQ; 2 emails waiting',
      },
    );
    expect(await metric('hireflow_sqs_messages', { queue: INBOX, state: 'inflight' })).toBe(0);
    expect(await metric('hireflow_dead_letters', { queue: INBOX, kind: 'sqs' })).toBe(1);
    expect(await metric('hireflow_bullmq_jobs', { queue: 'email', state: 'waiting' })).toBe(2);
    expect(await metric('hireflow_bullmq_jobs', { queue: 'email', state: 'failed' })).toBe(0);
    expect(await metric('hireflow_dead_letters', { queue: 'email', kind: 'bullmq' })).toBe(0);
    const age = (await metric('hireflow_bullmq_oldest_waiting_age_seconds', { queue: 'email' }))!;
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThanOrEqual((Date.now() - enqueuedAt) / 1000 + 1);
    // The outbox gauges exist on a service with no outbox rows of its own: 0.
    expect(await metric('hireflow_outbox_backlog', {})).toBe(0);
    api.child.kill('SIGTERM');
    expect(await api.exit).toBe(0);
  }, 60_000);
});

describe('dead letters: one alert per transition, then pnpm dlq puts them back', () => {
  let h: NotificationsHarness;
  let alerts: WebhookReceiver<Alert>;
  beforeAll(async () => {
    alerts = await startWebhookReceiver<Alert>();
    const inbox = topology.queues[INBOX]!;
    const bulkInbox = topology.queues[`${INBOX}-bulk`]!;
    h = await startNotificationsHarness('notif-dlq', {
      // A receive the killed process had pending gets its message back after this.
      // Both lanes' queues: a worker consumes both (docs/fairness.md).
      topology: {
        ...topology,
        queues: {
          [INBOX]: { ...inbox, visibilityTimeoutSeconds: 5 },
          [`${INBOX}-bulk`]: { ...bulkInbox, visibilityTimeoutSeconds: 5 },
        },
      },
      env: {
        // A match whose candidate never comes is dead-lettered after 1.5 s.
        DEPENDENCY_WAIT_BASE_MS: '200',
        DEPENDENCY_WAIT_CAP_MS: '400',
        DEPENDENCY_WAIT_MAX_MS: '1500',
        QUEUE_METRICS: 'on',
        QUEUE_METRICS_INTERVAL_MS: '500',
        ALERT_WEBHOOK_URL: alerts.url,
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await alerts.close();
  });

  const alertsOf = (kind: Alert['kind'], status: Alert['status']) =>
    alerts.received.filter((a) => a.kind === kind && a.status === status);

  it('alerts once for a poisoned message across two processes, and it is processed once after the fix', async () => {
    // Two worker processes that may both sample: one at a time does (a lease in Redis).
    const workers = [await spawnWorkerProcess(h), await spawnWorkerProcess(h)];
    const running = () => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    /** The gauge as the running processes export it: the sampling one alone has it. */
    const exported = async (name: string, labels: Record<string, string>) => {
      const seen = await Promise.all(running().map((w) => scrapeMetric(w.adminUrl, name, labels)));
      return seen.filter((v) => v !== undefined);
    };
    const sampledAs = (name: string, labels: Record<string, string>, value: number) =>
      waitFor(async () => (await exported(name, labels)).join() === String(value), {
        timeoutMs: 20_000,
        message: `${name} ${JSON.stringify(labels)} = ${value}, exported by one process`,
      });

    const tenantId = randomUUID();
    const posted = jobPosted(tenantId);
    await h.publish(posted);
    // The cause: candidate.registered.v1 was lost, so the match waits for it in vain.
    const candidate = candidateRegistered(tenantId);
    const match = matchFound(tenantId, posted.data.jobId, candidate.data.candidateId);
    await h.publish(match);
    await waitFor(() => alertsOf('sqs', 'firing').length > 0, { timeoutMs: 20_000, message: 'the alert' });
    await sampledAs('hireflow_dead_letters', { queue: INBOX, kind: 'sqs' }, 1);
    // The sampling process dies; the other takes over the lease, sees the DLQ
    // non-empty too, and does not alert again: the alarm's state is in Redis.
    const sampler = await waitFor(async () => {
      for (const w of running()) {
        const depth = await scrapeMetric(w.adminUrl, 'hireflow_dead_letters', { queue: INBOX, kind: 'sqs' });
        if (depth === 1) return w;
      }
      return undefined;
    });
    sampler.child.kill('SIGKILL');
    await sampler.exit;
    expect(running()).toHaveLength(1);
    await sampledAs('hireflow_dead_letters', { queue: INBOX, kind: 'sqs' }, 1);
    expect(alertsOf('sqs', 'firing')).toEqual([
      expect.objectContaining({ service: 'notifications', queue: INBOX, depth: 1 }),
    ]);

    // The candidate's address refuses mail for now: its emails become BullMQ dead letters.
    h.smtp.refuse = new RegExp(candidate.data.email.replace(/[.+]/g, '\\$&'));
    await h.publish(candidate);
    const welcome = idempotencyKey('welcome-email', candidate.data.candidateId);
    await waitFor(async () => (await h.taskState(welcome)) === 'failed', {
      message: 'the welcome dead letter',
    });

    const summary = await dlq(h);
    expect(summary.stderr).toBe('');
    expect(summary.code).toBe(1);
    expect(summary.stdout).toMatch(new RegExp(`sqs +${h.topology.prefix}${INBOX}-dlq +1`));
    expect(summary.stdout).toMatch(new RegExp(`bullmq +${h.config.REDIS_PREFIX}/email +1`));

    const dry = await dlq(h, 'redrive', INBOX, '--dry-run');
    expect(dry.stdout).toContain(match.id);
    expect(dry.stdout).toContain('dry run: nothing moved');
    const redriven = await dlq(h, 'redrive', INBOX);
    expect(redriven.stdout).toContain(`moved 1 messages from ${h.topology.prefix}${INBOX}-dlq`);

    // The match now finds its candidate; its email is refused too, and dead-letters.
    const matchEmail = idempotencyKey('match-email', posted.data.jobId, candidate.data.candidateId);
    await waitFor(async () => (await h.taskState(matchEmail)) === 'failed', {
      message: 'the match dead letter',
    });
    await sampledAs('hireflow_dead_letters', { queue: 'email', kind: 'bullmq' }, 2);
    expect(alertsOf('bullmq', 'firing')).toEqual([expect.objectContaining({ queue: 'email', depth: 1 })]);

    const listed = await dlq(h, 'jobs', 'notifications/email');
    const ids = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    expect(ids.sort()).toEqual([taskIdFor(welcome), taskIdFor(matchEmail)].sort());
    const shown = JSON.parse((await dlq(h, 'show', 'notifications/email', taskIdFor(welcome))).stdout);
    expect(shown).toMatchObject({ data: { key: welcome }, failedReason: expect.stringContaining('550') });
    const dryRetry = await dlq(h, 'retry', 'notifications/email', '--all', '--dry-run');
    expect(dryRetry.stdout).toContain('would retry 2 jobs');
    expect(await h.emails.tasks.queue.getFailedCount()).toBe(2);

    // The fix: the address takes mail again. Both emails go out, once each.
    h.smtp.refuse = undefined;
    const retried = await dlq(h, 'retry', 'notifications/email', '--all');
    expect(retried.stdout).toContain('retried 2 jobs');
    await waitForSent(h, [welcome, matchEmail]);
    expect(h.smtp.byKey(welcome)).toHaveLength(1);
    expect(h.smtp.byKey(matchEmail)).toHaveLength(1);

    await sampledAs('hireflow_dead_letters', { queue: INBOX, kind: 'sqs' }, 0);
    await sampledAs('hireflow_dead_letters', { queue: 'email', kind: 'bullmq' }, 0);
    // The gauge is exported as the round observes it; the webhook POST of that round may land after.
    await waitFor(() => alertsOf('sqs', 'resolved').length > 0 && alertsOf('bullmq', 'resolved').length > 0, {
      message: 'both resolved alerts',
    });
    expect(alertsOf('sqs', 'resolved')).toHaveLength(1);
    expect(alertsOf('bullmq', 'resolved')).toHaveLength(1);
    expect(alertsOf('sqs', 'firing')).toHaveLength(1);
    expect(alertsOf('bullmq', 'firing')).toHaveLength(1);
    expect((await dlq(h)).code).toBe(0);
    // The survivor did all the email work: each email counted once as failed, once as sent.
    const [survivor] = running();
    for (const template of ['welcome', 'match']) {
      for (const outcome of ['failed', 'sent']) {
        const count = await scrapeMetric(survivor!.adminUrl, 'hireflow_emails_total', { outcome, template });
        expect(count, `${outcome} ${template}`).toBe(1);
      }
    }
  }, 240_000);
});
