// `pnpm replay` moving a producer's log into one queue (the log read page by
// page from the producer's admin port, SendMessageBatch to the queue), next
// to the emulator's own SendMessageBatch rate for the same bodies and
// attributes with the same number of calls in flight, interleaved in one
// run; and how close a paced replay keeps to its rate.
import { randomUUID } from 'node:crypto';
import { PurgeQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type AnyEvent, topology } from '@hireflow/contracts';
import { startEmulator } from '@hireflow/emulator';
import { eventAttributes } from '@hireflow/messaging';
import { provisionTopology } from '@hireflow/ops';
import { adminEventLog, DEFAULT_REPLAY_CONCURRENCY, planReplay, replayEvents } from '@hireflow/ops/replay';
import { createSnsClient, createSqsClient } from '@hireflow/runtime';
import { candidateRegistered, jobPosted } from '@hireflow/testing/events';
import { startTestProducer } from '@hireflow/testing/producer';
import { sqsSendBaseline } from './baselines/sqs.ts';
import { type BenchReport, round } from './report.ts';

const REGION = 'eu-west-1';
const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PACED_RATE = 500;
const PACED_EVENTS = 2000;
const TRACEPARENT = `00-${'4bf92f3577b34da6a3ce929d0e0e4736'}-${'00f067aa0ba902b7'}-01`;

async function purge(sqs: SQSClient, queueUrl: string): Promise<void> {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
}

export default async function bench(): Promise<BenchReport> {
  const emulator = await startEmulator({ region: REGION });
  const settings = { region: REGION, endpoint: emulator.endpoint, dummyCredentials: true };
  const sns = createSnsClient(settings);
  const sqs = createSqsClient(settings);
  // The producer publishes to one topology (live delivery, not measured); the
  // replay and the baseline send to queues of their own.
  const live = await provisionTopology(topology, { sns, sqs, prefix: 'bench-replay-live-' });
  const target = await provisionTopology(topology, { sns, sqs, prefix: 'bench-replay-' });
  const base = await provisionTopology(topology, { sns, sqs, prefix: 'bench-replay-base-' });
  const producer = await startTestProducer('bench-replay', {
    sns,
    topicArns: { 'jobs-events': live.topics['jobs-events']!.arn },
  });
  try {
    // The log: postings and candidates, published by the real relay.
    const tenantId = randomUUID();
    const events: AnyEvent[] = Array.from({ length: EVENTS }, (_, i) =>
      i % 2 === 0 ? jobPosted(tenantId) : candidateRegistered(tenantId),
    );
    for (let i = 0; i < events.length; i += 500) await producer.commit(events.slice(i, i + 500));
    await producer.waitLogged(
      events.map((e) => e.id),
      180_000,
    );

    const plan = planReplay(topology, {
      queue: 'notifications-inbox',
      types: ['job.posted.v1', 'candidate.registered.v1'],
    });
    const queue = target.queues['notifications-inbox']!;
    const sources = [adminEventLog({ producer: 'jobs', adminUrl: producer.adminUrl })];
    const entry = (i: number) => {
      const event = events[i % events.length]!;
      return {
        MessageBody: JSON.stringify(event),
        MessageAttributes: eventAttributes(event.type, { traceparent: TRACEPARENT }),
      };
    };

    const baseline: number[] = [];
    const replayed: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      baseline.push(
        await sqsSendBaseline(sqs, base.queues['notifications-inbox']!.url, {
          messages: EVENTS,
          workers: DEFAULT_REPLAY_CONCURRENCY,
          entry,
        }),
      );
      await purge(sqs, base.queues['notifications-inbox']!.url);
      const started = performance.now();
      const summary = await replayEvents({ sqs, queue, plan, sources, ratePerSecond: 0 });
      replayed.push(summary.sent / ((performance.now() - started) / 1000));
      if (summary.sent !== EVENTS) throw new Error(`replayed ${summary.sent} of ${EVENTS} events`);
      await purge(sqs, queue.url);
    }

    // Paced: stopped after PACED_EVENTS, the rate it kept.
    const controller = new AbortController();
    let seen = 0;
    const pacedStart = performance.now();
    const paced = await replayEvents({
      sqs,
      queue,
      plan,
      sources,
      ratePerSecond: PACED_RATE,
      signal: controller.signal,
      onEvents: (items) => {
        seen += items.length;
        if (seen >= PACED_EVENTS) controller.abort();
      },
    });
    const pacedRate = paced.sent / ((performance.now() - pacedStart) / 1000);
    await purge(sqs, queue.url);

    const best = (xs: number[]) => Math.max(...xs);
    const row = (variant: string, perRound: number[]) => ({
      variant,
      best: `${round(best(perRound), 0)} events/s`,
      'per round': perRound.map((x) => round(x, 0)).join(' / '),
    });
    return {
      description: `Replaying ${EVENTS} logged events (job.posted.v1 and candidate.registered.v1) into one queue, beside the emulator's own SendMessageBatch rate for the same messages, ${DEFAULT_REPLAY_CONCURRENCY} calls in flight each, ${ROUNDS} interleaved rounds in one run.`,
      rows: [
        row(
          `baseline: SendMessageBatch(10) of the same bodies and attributes, ${DEFAULT_REPLAY_CONCURRENCY} workers`,
          baseline,
        ),
        row('pnpm replay, unpaced: admin-port pages of 500 → SendMessageBatch(10)', replayed),
        {
          variant: `pnpm replay --rate ${PACED_RATE}, first ${paced.sent} events`,
          best: `${round(pacedRate, 0)} events/s`,
          'per round': '',
        },
      ],
      ratios: {
        'replay ÷ SendMessageBatch baseline': best(replayed) / best(baseline),
        [`paced ÷ asked rate (${PACED_RATE}/s)`]: pacedRate / PACED_RATE,
      },
    };
  } finally {
    await producer.close();
    sns.destroy();
    sqs.destroy();
    await emulator.stop();
  }
}
