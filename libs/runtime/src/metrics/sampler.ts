import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { untraced } from '@hireflow/messaging';
import type { Queue } from 'bullmq';
import type { Closeable } from '../lifecycle.ts';
import type { Logger } from '../logger.ts';
import type { DeadLetterAlarms } from './alarms.ts';
import type { SamplerLease } from './lease.ts';
import type { QueueGauges } from './registry.ts';

export interface OutboxStats {
  backlog: number;
  oldestUnsentAgeSeconds: number;
}

export interface QueueSamplerOptions {
  gauges: QueueGauges;
  sqs: SQSClient;
  /** The service's inbox queues (both lanes' when it has lanes) and their DLQs (logical names for the labels). */
  inboxes: { logicalName: string; url: string; dlqUrl: string }[];
  /** Handles on the service's BullMQ queues (logical names), made on the first round that samples them. */
  queues: () => Promise<Queue[]>;
  outbox?: (() => Promise<OutboxStats>) | undefined;
  alarms: DeadLetterAlarms;
  /** Of the processes that may sample, the holder of this lease does; the others export no queue gauges. */
  lease: SamplerLease;
  /** Turns the export of the gauges on once sampled, off when the lease is lost. */
  exportGauges: (on: boolean) => void;
  intervalMs: number;
  log: Logger;
}

const SQS_STATES = {
  visible: 'ApproximateNumberOfMessages',
  inflight: 'ApproximateNumberOfMessagesNotVisible',
  delayed: 'ApproximateNumberOfMessagesDelayed',
} as const;
const BULLMQ_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

async function sqsCounts(sqs: SQSClient, url: string): Promise<Record<keyof typeof SQS_STATES, number>> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: Object.values(SQS_STATES) }),
  );
  const read = (name: string) => Number(Attributes[name as keyof typeof Attributes] ?? 0);
  return {
    visible: read(SQS_STATES.visible),
    inflight: read(SQS_STATES.inflight),
    delayed: read(SQS_STATES.delayed),
  };
}

/**
 * How long the oldest waiting task has waited: the head of the wait list, and
 * of a fair queue's prioritized tasks the first (the head of the first lane
 * with work) and the last (the tail of the bulk lane, added with its head
 * when it came as a flood). Not exact when interactive work keeps coming while
 * a bulk lane waits behind it; the backlog count is exact.
 */
async function oldestWaitingAgeSeconds(queue: Queue): Promise<number> {
  const [[waiting], [first], [last]] = await Promise.all([
    queue.getWaiting(0, 0),
    queue.getPrioritized(0, 0),
    queue.getPrioritized(-1, -1),
  ]);
  const timestamps = [waiting, first, last].flatMap((job) => (job ? [job.timestamp] : []));
  return timestamps.length === 0 ? 0 : Math.max(0, (Date.now() - Math.min(...timestamps)) / 1000);
}

/** One sampling round: every gauge set from the queues' real state, dead-letter transitions alarmed. */
export async function sampleQueues(
  options: Omit<QueueSamplerOptions, 'intervalMs' | 'log' | 'lease' | 'exportGauges'>,
): Promise<void> {
  const { gauges } = options;
  for (const inbox of options.inboxes) {
    for (const [name, url] of [
      [inbox.logicalName, inbox.url],
      [`${inbox.logicalName}-dlq`, inbox.dlqUrl],
    ] as const) {
      const counts = await sqsCounts(options.sqs, url);
      for (const [state, value] of Object.entries(counts))
        gauges.sqsMessages.set({ queue: name, state }, value);
    }
    const dlq = await sqsCounts(options.sqs, inbox.dlqUrl);
    const depth = dlq.visible + dlq.inflight + dlq.delayed;
    gauges.deadLetters.set({ queue: inbox.logicalName, kind: 'sqs' }, depth);
    await options.alarms.observe('sqs', inbox.logicalName, depth);
  }
  for (const queue of await options.queues()) {
    const counts = await queue.getJobCounts(...BULLMQ_STATES, 'prioritized');
    // A fair queue's tasks wait by priority (docs/fairness.md): still waiting, for the autoscaler too.
    counts.waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    for (const state of BULLMQ_STATES)
      gauges.bullmqJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
    gauges.bullmqOldestWaitingAge.set({ queue: queue.name }, await oldestWaitingAgeSeconds(queue));
    gauges.deadLetters.set({ queue: queue.name, kind: 'bullmq' }, counts.failed ?? 0);
    await options.alarms.observe('bullmq', queue.name, counts.failed ?? 0);
  }
  if (options.outbox) {
    const stats = await options.outbox();
    gauges.outboxBacklog.set(stats.backlog);
    gauges.outboxOldestUnsentAge.set(stats.oldestUnsentAgeSeconds);
  }
}

/**
 * Samples the service's queues every `intervalMs`, in the one process of the
 * service that holds the lease: the gauges are the queues', not the
 * process's, so a scrape of every process shows each queue once. A process
 * that loses the lease clears its gauges. A failed round is logged and tried
 * again at the next tick.
 */
export function startQueueSampler(options: QueueSamplerOptions): Closeable & { sampled: Promise<void> } {
  let stopped = false;
  let holding = false;
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    const held = await options.lease.claim();
    if (!held) {
      if (holding) {
        options.exportGauges(false);
        clearGauges(options.gauges);
      }
      holding = false;
      return;
    }
    holding = true;
    await sampleQueues(options);
    options.exportGauges(true);
  };
  const tick = () => {
    // A poll, not a story: no spans (docs/tracing.md, quiet when idle).
    running = untraced(round).catch((error: unknown) =>
      options.log.warn({ err: error }, 'queue sampling failed; trying again'),
    );
    return running;
  };
  const sampled = tick();
  const timer = setInterval(() => {
    if (!stopped) void tick();
  }, options.intervalMs);
  timer.unref();
  return {
    name: 'queue-sampler',
    sampled,
    close: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      if (holding) await options.lease.release().catch(() => undefined);
    },
  };
}

function clearGauges(gauges: QueueGauges): void {
  for (const gauge of Object.values(gauges)) gauge.reset();
}
