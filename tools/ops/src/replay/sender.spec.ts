import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { AnyEvent } from '@hireflow/contracts';
import type { LoggedEvent } from '@hireflow/messaging';
import { describe, expect, it } from 'vitest';
import { batchesOf, sendBatch } from './sender.ts';

const item = (position: number, description = ''): LoggedEvent => ({
  position: String(position),
  event: { id: randomUUID(), type: 'job.posted.v1', data: { description } } as unknown as AnyEvent,
  trace: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
});

describe('batchesOf', () => {
  it('groups at most 10 events, in log order', () => {
    const items = Array.from({ length: 23 }, (_, i) => item(i + 1));
    const batches = batchesOf(items);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 3]);
    expect(batches.flat()).toEqual(items);
  });

  it('starts a new batch before one would pass 240 KiB (AWS refuses 256 KiB)', () => {
    const items = Array.from({ length: 6 }, (_, i) => item(i + 1, 'x'.repeat(70_000)));
    const batches = batchesOf(items);
    expect(batches.map((b) => b.length)).toEqual([3, 3]);
    for (const batch of batches) {
      expect(batch.reduce((n, i) => n + JSON.stringify(i.event).length, 0)).toBeLessThanOrEqual(240 * 1024);
    }
  });
});

describe('sendBatch', () => {
  it("sends each event with its tenant as MessageGroupId (SQS fair queues), '-' for one without", async () => {
    const tenantId = randomUUID();
    const withTenant = { ...item(1), event: { ...item(1).event, data: { tenantId } } as unknown as AnyEvent };
    const inputs: Record<string, unknown>[] = [];
    // The command as the SDK would send it (fauxqs drops the field: checked here, not there).
    const sqs = {
      send: async (command: { input: Record<string, unknown> }) => {
        inputs.push(command.input);
        return { Successful: [], Failed: [] };
      },
    } as unknown as SQSClient;
    await sendBatch(sqs, 'http://sqs/q', [withTenant, item(2)]);
    const entries = inputs[0]!.Entries as { MessageGroupId?: string }[];
    expect(entries.map((e) => e.MessageGroupId)).toEqual([tenantId, '-']);
  });
});
