import { parseMetrics } from '@hireflow/ops';
import { describe, expect, it } from 'vitest';
import { ServiceSignal } from './autoscaler.ts';

// The local autoscaler's signal is the whole backlog: both lanes' inbox queues
// (docs/fairness.md) and the BullMQ jobs waiting.
const scrape = (lines: string[]) => parseMetrics(lines.join('\n'));

describe('ServiceSignal', () => {
  it("adds the visible messages of the inbox's two lanes to the waiting jobs", () => {
    const signal = new ServiceSignal(['notifications-inbox', 'notifications-inbox-bulk']);
    const seen = signal.read([
      scrape([
        'hireflow_sqs_messages{queue="notifications-inbox",state="visible"} 3',
        'hireflow_sqs_messages{queue="notifications-inbox-bulk",state="visible"} 400',
        'hireflow_sqs_messages{queue="notifications-inbox-bulk",state="inflight"} 10',
        'hireflow_sqs_messages{queue="notifications-inbox-dlq",state="visible"} 7',
        'hireflow_bullmq_jobs{queue="email",state="waiting"} 5',
      ]),
    ]);
    expect(seen.inbox).toBe(403);
    expect(seen.jobs).toBe(5);
  });

  it('says when no process exported the inbox gauges, so the backlog is unknown rather than 0', () => {
    const signal = new ServiceSignal(['media-inbox']);
    expect(signal.read([scrape(['hireflow_bullmq_jobs{queue="resize",state="waiting"} 0'])]).sampled).toBe(
      false,
    );
    expect(
      signal.read([scrape(['hireflow_sqs_messages{queue="media-inbox",state="visible"} 0'])]).sampled,
    ).toBe(true);
    expect(new ServiceSignal([]).read([[]]).sampled).toBe(true);
  });

  it('reads the age of what the last receives of either lane had waited', () => {
    const signal = new ServiceSignal(['matching-inbox', 'matching-inbox-bulk']);
    const ages = (bulkOver30: number) =>
      scrape([
        'hireflow_message_age_seconds_bucket{queue="matching-inbox",le="1"} 10',
        'hireflow_message_age_seconds_bucket{queue="matching-inbox",le="30"} 10',
        'hireflow_message_age_seconds_bucket{queue="matching-inbox",le="+Inf"} 10',
        'hireflow_message_age_seconds_bucket{queue="matching-inbox-bulk",le="1"} 0',
        'hireflow_message_age_seconds_bucket{queue="matching-inbox-bulk",le="30"} 0',
        `hireflow_message_age_seconds_bucket{queue="matching-inbox-bulk",le="+Inf"} ${bulkOver30}`,
      ]);
    signal.read([ages(0)]);
    // Receives of the bulk lane that had waited over 30 s since the last round.
    expect(signal.read([ages(4)]).oldestAgeSeconds).toBe(30);
  });
});
