import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { type CloudEvent, createEvent } from '@hireflow/contracts';
import { type ProvisionedQueue, testTopology, waitFor } from '@hireflow/testing';
import { describe, expect, it } from 'vitest';
import { eventAttributes } from '../src/attributes.ts';
import { interactiveReserve, SharedSlots, SqsConsumer, type SqsFairnessOptions } from '../src/index.ts';
import { HandlerSpy } from '../src/testing.ts';
import type { TraceCarrier } from '../src/trace.ts';
import { smallTopology, useAws } from './helpers.ts';

const env = useAws();

// Fairness by tenant inside one SQS queue (docs/fairness.md, "Inside one SQS
// queue"): tenant A's flood is in the queue before tenant B's five events.

const FLOOD = 500;
const SMALL = 5;
const CONCURRENCY = 4;
/** Simulated work per event: the flood takes FLOOD × HANDLER_MS / CONCURRENCY ≈ 6 s to run. */
const HANDLER_MS = 50;
const TRACE: TraceCarrier = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

function closed(tenantId: string): CloudEvent<'job.closed.v1'> {
  const jobId = randomUUID();
  return createEvent(
    'job.closed.v1',
    { jobId, tenantId, closedAt: new Date().toISOString() },
    { source: 'hireflow/jobs', subject: jobId },
  );
}

async function sendAll(queue: ProvisionedQueue, events: CloudEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 10) {
    await env.aws.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: events.slice(i, i + 10).map((event, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify(event),
          MessageAttributes: eventAttributes(event.type, TRACE),
        })),
      }),
    );
  }
}

async function visibleAndHidden(url: string): Promise<number> {
  const { Attributes = {} } = await env.aws.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible)
  );
}

interface Run {
  /** Tenant of each handling and when it started, in the order handlers started. */
  order: { tenant: 'A' | 'B'; at: number }[];
  /** When B's events were sent. */
  bSent: number;
  /** Handlings per event id. */
  runs: Map<string, number>;
  bIds: Set<string>;
  /** B's first send → B's last event handled (ms). */
  bLatencyMs: number;
  /** B's first send → the last event handled, A's or B's (ms). */
  drainMs: number;
  receiveCounts: number[];
  traced: boolean;
  failedCounts: number[];
  hidden: number;
  spy: HandlerSpy;
  queue: ProvisionedQueue;
}

async function floodThenSmall(
  name: string,
  fairness: boolean | SqsFairnessOptions,
  failOnce: Set<string> = new Set(),
  events?: { a: CloudEvent[]; b: CloudEvent[] },
): Promise<Run> {
  const topo = await testTopology(
    env.aws,
    name,
    smallTopology({ visibilityTimeoutSeconds: 30, maxReceiveCount: 10 }),
  );
  const queue = topo.queues.inbox!;
  const [tenantA, tenantB] = [randomUUID(), randomUUID()];
  const a = events?.a ?? Array.from({ length: FLOOD }, () => closed(tenantA));
  const b = events?.b ?? Array.from({ length: SMALL }, () => closed(tenantB));
  const bIds = new Set(b.map((e) => e.id));
  const order: Run['order'] = [];
  const runs = new Map<string, number>();
  const receiveCounts: number[] = [];
  const failedCounts: number[] = [];
  let traced = true;
  const spy = new HandlerSpy();
  const handledAt = new Map<string, number>();
  const consumer = new SqsConsumer({
    sqs: env.aws.sqs,
    queue,
    waitTimeSeconds: 1,
    concurrency: CONCURRENCY,
    backoff: { base: 1, cap: 1 },
    fairness,
    onMessage: spy.observer,
    handlers: {
      'job.closed.v1': async (event, context) => {
        order.push({ tenant: bIds.has(event.id) ? 'B' : 'A', at: Date.now() });
        runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
        receiveCounts.push(context.receiveCount);
        if (context.attributes.traceparent !== TRACE.traceparent) traced = false;
        await sleep(HANDLER_MS);
        if (failOnce.delete(event.id)) throw new Error('transient failure');
        if (failOnce.has(`unavailable:${event.id}`)) {
          failOnce.delete(`unavailable:${event.id}`);
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
        failedCounts.push(context.failedCount);
        handledAt.set(event.id, Date.now());
      },
    },
  });
  await consumer.start();
  let bSent = 0;
  try {
    await sendAll(queue, a);
    bSent = Date.now();
    await sendAll(queue, b);
    await waitFor(() => handledAt.size === a.length + b.length, {
      timeoutMs: 90_000,
      intervalMs: 100,
      message: `all ${a.length + b.length} events handled`,
    });
  } finally {
    await consumer.close();
  }
  const bLast = Math.max(...b.map((e) => handledAt.get(e.id)!));
  return {
    order,
    bSent,
    runs,
    bIds,
    bLatencyMs: bLast - bSent,
    drainMs: Math.max(...handledAt.values()) - bSent,
    receiveCounts,
    traced,
    failedCounts,
    hidden: consumer.fairnessHiddenCount,
    spy,
    queue,
  };
}

/** The drain of the first-in-first-out run, beside the fair one's. */
let fifoDrainMs = 0;

/** How many of A's events were started after B's were sent and before B's last one started. */
function aBeforeLastB(run: Run): number {
  const last = run.order.findLastIndex((o) => o.tenant === 'B');
  return run.order.slice(0, last).filter((o) => o.tenant === 'A' && o.at >= run.bSent).length;
}

describe('SQS consumer fairness by tenant', () => {
  it('without fairness, B waits behind all of A (the queue is first in, first out)', async () => {
    const run = await floodThenSmall('fair-off', false);
    fifoDrainMs = run.drainMs;
    console.info(`first in, first out: B in ${run.bLatencyMs} ms, the whole drain ${run.drainMs} ms`);
    expect(run.order.findIndex((o) => o.tenant === 'B')).toBeGreaterThanOrEqual(FLOOD);
    expect(aBeforeLastB(run)).toBeGreaterThan(FLOOD / 2);
    expect(run.hidden).toBe(0);
  }, 120_000);

  it("with fairness, B's events start before a tenth of A's flood has; A loses nothing and runs nothing twice", async () => {
    const run = await floodThenSmall('fair-on', true);
    const aAhead = aBeforeLastB(run);
    console.info(
      `fairness: B's ${SMALL} started after ${aAhead} of A's ${FLOOD} (after B was sent); B in ${run.bLatencyMs} ms, ` +
        `the whole drain ${run.drainMs} ms (first in, first out: ${fifoDrainMs} ms); ${run.hidden} hides; ` +
        `receive counts ≤ ${Math.max(...run.receiveCounts)}`,
    );
    // The bound: once B's five are sent, they all start before a tenth of A's
    // flood has, and are done in under a third of the time the flood takes to drain.
    expect(aAhead).toBeLessThan(FLOOD / 10);
    expect(run.bLatencyMs).toBeLessThan(run.drainMs / 3);
    // Nothing lost, nothing run twice, nothing dead-lettered.
    expect(run.runs.size).toBe(FLOOD + SMALL);
    expect([...run.runs.values()].every((n) => n === 1)).toBe(true);
    expect(run.spy.all({ outcome: 'dead-lettered' })).toHaveLength(0);
    expect(await visibleAndHidden(run.queue.dlq.url)).toBe(0);
    expect(await visibleAndHidden(run.queue.url)).toBe(0);
    // A hidden message is the same message: its trace context and counts are as
    // sent, and it spent at most 2 receives (maxHides) of the queue's 10.
    expect(run.hidden).toBeGreaterThan(0);
    expect(run.traced).toBe(true);
    expect(Math.max(...run.receiveCounts)).toBeLessThanOrEqual(3);
    expect(run.failedCounts.every((n) => n === 0)).toBe(true);
  }, 120_000);

  it('keeps retries counted, and a dependency outage deferred, under fairness', async () => {
    const name = 'fair-retry';
    const [tenantA, tenantB] = [randomUUID(), randomUUID()];
    const a = Array.from({ length: 100 }, () => closed(tenantA));
    const b = Array.from({ length: SMALL }, () => closed(tenantB));
    // Two of A's fail once, one of B's; one of A's finds its database away once.
    const failOnce = new Set([a[10]!.id, a[60]!.id, b[2]!.id, `unavailable:${a[30]!.id}`]);
    const run = await floodThenSmall(name, true, failOnce, { a, b });
    expect(failOnce.size).toBe(0);
    // Each event handled once successfully; the failed ones twice in all.
    expect(run.runs.size).toBe(a.length + b.length);
    expect(run.runs.get(a[10]!.id)).toBe(2);
    expect(run.runs.get(b[2]!.id)).toBe(2);
    expect(run.runs.get(a[30]!.id)).toBe(2);
    const failed = run.spy.all({ outcome: 'failed' });
    // A failure counts one attempt, travelling with the re-sent copy; the outage counts none.
    expect(failed.filter((r) => r.failedCount === 1)).toHaveLength(3);
    expect(failed.filter((r) => r.eventId === a[30]!.id).map((r) => r.failedCount)).toEqual([0]);
    expect(run.failedCounts.filter((n) => n === 1)).toHaveLength(3);
    expect(run.spy.all({ outcome: 'dead-lettered' })).toHaveLength(0);
    expect(await visibleAndHidden(run.queue.url)).toBe(0);
  }, 120_000);

  it("shares one process's slots between the two lanes' consumers, the bulk one leaving the interactive one its reserve", async () => {
    const [interactive, bulk] = await Promise.all(
      ['fair-slots-i', 'fair-slots-b'].map(async (name) => {
        const topo = await testTopology(env.aws, name, smallTopology({ visibilityTimeoutSeconds: 30 }));
        return topo.queues.inbox!;
      }),
    );
    const size = 4;
    const shared = new SharedSlots(size);
    let active = 0;
    let maxActive = 0;
    const activeBy = { interactive: 0, bulk: 0 };
    const maxBy = { interactive: 0, bulk: 0 };
    const handled = new Map<string, number>();
    const lane = (name: 'interactive' | 'bulk') => async (event: CloudEvent<'job.closed.v1'>) => {
      active += 1;
      activeBy[name] += 1;
      maxActive = Math.max(maxActive, active);
      maxBy[name] = Math.max(maxBy[name], activeBy[name]);
      await sleep(HANDLER_MS);
      active -= 1;
      activeBy[name] -= 1;
      handled.set(event.id, Date.now());
    };
    const consumers = [
      new SqsConsumer({
        sqs: env.aws.sqs,
        queue: interactive!,
        waitTimeSeconds: 1,
        concurrency: size,
        fairness: true,
        slots: { shared },
        handlers: { 'job.closed.v1': lane('interactive') },
      }),
      new SqsConsumer({
        sqs: env.aws.sqs,
        queue: bulk!,
        waitTimeSeconds: 1,
        concurrency: size,
        fairness: true,
        slots: { shared, reserve: interactiveReserve(size) },
        handlers: { 'job.closed.v1': lane('bulk') },
      }),
    ];
    const [tenantA, tenantB] = [randomUUID(), randomUUID()];
    const imports = Array.from({ length: 60 }, () => closed(tenantA));
    const person = Array.from({ length: SMALL }, () => closed(tenantB));
    for (const consumer of consumers) await consumer.start();
    let sentAt = 0;
    try {
      await sendAll(bulk!, imports);
      await waitFor(() => activeBy.bulk === size - interactiveReserve(size), { timeoutMs: 20_000 });
      sentAt = Date.now();
      await sendAll(interactive!, person);
      await waitFor(() => handled.size === imports.length + person.length, { timeoutMs: 60_000 });
    } finally {
      await Promise.all(consumers.map((c) => c.close()));
    }
    // Never more than the process's slots in all, and the bulk lane never in the reserve.
    expect(maxActive).toBeLessThanOrEqual(size);
    expect(maxBy.bulk).toBe(size - interactiveReserve(size));
    expect(maxBy.interactive).toBeGreaterThan(interactiveReserve(size));
    // The person's events were all handled before the import was.
    const personDone = Math.max(...person.map((e) => handled.get(e.id)!));
    const importDone = Math.max(...imports.map((e) => handled.get(e.id)!));
    expect(personDone).toBeLessThan(importDone);
    console.info(
      `shared slots: the person's ${SMALL} handled ${personDone - sentAt} ms after sent, the import ${importDone - sentAt} ms`,
    );
  }, 120_000);
});
