import { describe, expect, it } from 'vitest';
import { metricValue } from './observe.ts';

const TEXT = `# HELP hireflow_sqs_messages Messages.
# TYPE hireflow_sqs_messages gauge
hireflow_sqs_messages{queue="a-inbox",state="visible",service="jobs"} 3
hireflow_sqs_messages{queue="a-inbox-dlq",state="visible",service="jobs"} 1
hireflow_outbox_backlog{service="jobs"} 0
process_cpu_seconds_total 1.5e-3
`;

describe('metricValue', () => {
  it('picks the sample whose labels include the given ones', () => {
    expect(metricValue(TEXT, 'hireflow_sqs_messages', { queue: 'a-inbox-dlq' })).toBe(1);
    expect(metricValue(TEXT, 'hireflow_sqs_messages', { queue: 'a-inbox', state: 'visible' })).toBe(3);
    expect(metricValue(TEXT, 'hireflow_outbox_backlog')).toBe(0);
    expect(metricValue(TEXT, 'process_cpu_seconds_total')).toBe(0.0015);
  });

  it('is undefined when no sample matches', () => {
    expect(metricValue(TEXT, 'hireflow_sqs_messages', { queue: 'other' })).toBeUndefined();
    expect(metricValue(TEXT, 'hireflow_sqs')).toBeUndefined();
  });
});
