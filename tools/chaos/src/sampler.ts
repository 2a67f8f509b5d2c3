import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { topology } from '@hireflow/contracts';
import type { Redis } from 'ioredis';
import { now } from './clock.ts';

/** One second of the run, for the timeline. */
export interface Sample {
  t: number;
  /** Operations finished, emails accepted: cumulative. */
  ops: number;
  emails: number;
  /** Messages in each inbox (visible + in flight + delayed); null while the emulator did not answer. */
  inbox: Record<string, number | null>;
  /** BullMQ jobs waiting, delayed or active, per service. */
  jobs: Record<string, number | null>;
}

/**
 * Samples throughput and queue depths every `intervalMs`, reading the
 * emulator and Redis on their real ports (around the fault proxies), each
 * read bounded by a timeout so a paused server leaves a gap, not a stall.
 */
export function startSampler(options: {
  sqs: SQSClient;
  redis: Redis;
  topologyPrefix: string;
  redisPrefix: (service: string) => string;
  counts: () => { ops: number; emails: number };
  intervalMs: number;
}) {
  const samples: Sample[] = [];
  const urls = new Map<string, string>();
  const queues = Object.keys(topology.queues);
  const services = ['jobs', 'matching', 'notifications', 'media'];
  const bullQueues = new Map<string, string[]>();
  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms))]);

  const inboxDepth = async (queue: string): Promise<number | null> => {
    try {
      let url = urls.get(queue);
      if (!url) {
        const res = await within(
          options.sqs.send(new GetQueueUrlCommand({ QueueName: `${options.topologyPrefix}${queue}` })),
          800,
        );
        url = res.QueueUrl!;
        urls.set(queue, url);
      }
      const res = await within(
        options.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] })),
        800,
      );
      const a = res.Attributes ?? {};
      return (
        Number(a.ApproximateNumberOfMessages ?? 0) +
        Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
        Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
      );
    } catch {
      return null;
    }
  };
  const jobsDepth = async (service: string): Promise<number | null> => {
    try {
      const prefix = options.redisPrefix(service);
      let names = bullQueues.get(service);
      if (!names || names.length === 0) {
        const keys = await within(options.redis.keys(`${prefix}:*:meta`), 800);
        names = keys.map((k) => k.slice(prefix.length + 1, -':meta'.length));
        bullQueues.set(service, names);
      }
      let total = 0;
      for (const name of names) {
        const base = `${prefix}:${name}`;
        const [wait, active, delayed, prioritized] = await within(
          Promise.all([
            options.redis.llen(`${base}:wait`),
            options.redis.llen(`${base}:active`),
            // BullMQ scores a delayed job by its due time × 0x1000: what is due within a minute is backlog, the rest is scheduled (auto-close in days).
            options.redis.zrangebyscore(`${base}:delayed`, '0', String((Date.now() + 60_000) * 0x1000)),
            options.redis.zcard(`${base}:prioritized`),
          ]),
          800,
        );
        // Repeatable jobs (the sweeps) wait in the delayed set for good: not a backlog.
        total += wait + active + delayed.filter((id) => !id.startsWith('repeat:')).length + prioritized;
      }
      return total;
    } catch {
      return null;
    }
  };

  let stopped = false;
  const loop = (async () => {
    for (let i = 0; i < 1_000_000 && !stopped; i++) {
      const tick = now();
      const [inboxes, jobs] = await Promise.all([
        Promise.all(queues.map(inboxDepth)),
        Promise.all(services.map(jobsDepth)),
      ]);
      samples.push({
        t: tick,
        ...options.counts(),
        inbox: Object.fromEntries(queues.map((q, j) => [q, inboxes[j]!])),
        jobs: Object.fromEntries(services.map((s, j) => [s, jobs[j]!])),
      });
      const wait = options.intervalMs - (now() - tick);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    samples,
    last: () => samples[samples.length - 1],
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
